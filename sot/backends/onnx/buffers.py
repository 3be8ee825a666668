"""Result arrays that onnxruntime writes into, reused across calls when no
one else can see them.

A large result is written by onnxruntime straight into an array made for it
(an IO binding).  A fresh array of 64 MB costs about 5 ms of page faults
here (glibc maps allocations above 32 MB afresh each time and unmaps them
on free), as long as the FastGelu that fills it.  Eagerly NumPy hands out a
fresh array on every call.  A compiled graph may hand out the previous
call's array object again when that object is unreachable from the program:

* the only reference to it is ours (its reference count says so: no name,
  container, view (a view holds its base), memoryview, ctypes object or
  pending argument refers to it),
* nothing refers to it weakly,
* it still has the shape, strides, dtype and writeable flag it was made
  with (a caller may have changed them in place before letting it go).

Such an object is, to the program, indistinguishable from a fresh array
(only ``id()`` can tell, and a fresh array may get a freed address too).
Anything else gets a fresh array, and that one becomes the slot's.  The cost:
a compiled graph keeps its last large results alive until its next call (or
until it is dropped) -- memory, and a weak reference to a dropped result
dies at that next call rather than at once.

The check and the hand-out rely on the GIL (as all of sot does: the C hook
refuses a free-threaded build).
"""

from __future__ import annotations

import sys
import weakref

import numpy as np

__all__ = ["OutputSlots", "REUSE_BYTES"]

#: results at least this large are kept for reuse
REUSE_BYTES = 1 << 20


def _count_held(slots, k):
    a = slots[k]
    return sys.getrefcount(a)


#: what ``sys.getrefcount`` says in ``OutputSlots.take`` of an array that only
#: the slot holds (measured once, the same way, rather than assumed: the count
#: of a local differs between interpreters)
_ALONE = _count_held([np.empty(0)], 0)



class OutputSlots:
    """One slot per result; ``take(k)`` gives the array to write result k into."""

    def __init__(self, metas):
        self.metas = [(tuple(shape), np.dtype(dtype)) for shape, dtype in metas]
        # (np.empty touches no page: this allocates nothing real)
        self.strides = [np.empty(shape, dtype).strides for shape, dtype in self.metas]
        self.keep = [_nbytes(shape, dtype) >= REUSE_BYTES for shape, dtype in self.metas]
        self.slots: list = [None] * len(self.metas)
        self.reused = 0   # how many times, for tests

    def take(self, k: int) -> np.ndarray:
        slots = self.slots
        a = slots[k]
        shape, dtype = self.metas[k]
        if a is not None and sys.getrefcount(a) == _ALONE and not weakref.getweakrefcount(a) \
                and a.shape == shape and a.dtype == dtype and a.strides == self.strides[k] \
                and a.flags.writeable:
            self.reused += 1
            return a
        a = np.empty(shape, dtype)
        if self.keep[k]:
            slots[k] = a
        return a


def _nbytes(shape, dtype) -> int:
    n = dtype.itemsize
    for d in shape:
        n *= d
    return n

