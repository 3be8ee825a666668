"""Buffers a compiled NumPy graph keeps between calls, and the bound on them.

A graph that writes intermediates into buffers (``buffer_plan``) gets
one ``BufferPool``.  Each call takes a whole *set* of buffers from the
pool's free list, or allocates a fresh set when the list is empty, and puts
it back when it returns or raises.  ``list.pop`` and ``list.append`` are
atomic, so a set is in one call's hands at a time: threads, recursion and
re-entrant calls (a signal handler, a trace function) each get their own.

Bounds on what is kept:

* ``MIN_BYTES`` (1 MiB): smaller intermediates are allocated as usual.
  Below about a megabyte glibc's malloc hands back recently freed memory
  without page faults, and ``out=`` saves nothing; at 32 MiB a fresh array
  costs ~8,000 page faults per call.
* ``MAX_IDLE_SETS`` (4) sets per graph wait in its free list; more are freed
  when their calls return.
* ``idle_limit()`` bytes (1 GiB, or an eighth of physical memory if that is
  less) of idle sets across all graphs; a set that would pass it is freed.
* A graph's buffers go with the graph (``sot.reset()``, cache eviction).
"""

from __future__ import annotations

import os
import threading
import weakref

import numpy as np

__all__ = ["BufferPool", "c_ordered", "MIN_BYTES", "MAX_IDLE_SETS", "idle_limit", "idle_bytes"]

MIN_BYTES = 1 << 20
MAX_IDLE_SETS = 4


def _default_idle_limit() -> int:
    limit = 1 << 30
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return limit
    return min(limit, physical // 8) if physical > 0 else limit


#: bytes of idle buffer sets kept across all graphs (tests may lower it)
IDLE_LIMIT = _default_idle_limit()

# An RLock: a signal handler or finalizer that runs a graph inside a
# critical section must not deadlock.  It guards counters only; which call
# holds which set is decided by the atomic list operations.
_LOCK = threading.RLock()
_idle = [0]  # bytes in all free lists


def _new_lock_in_child() -> None:
    global _LOCK
    _LOCK = threading.RLock()  # another thread may have held it at fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def idle_limit() -> int:
    return IDLE_LIMIT


def idle_bytes() -> int:
    """Bytes held in idle buffer sets by all live graphs."""
    return _idle[0]


class BufferPool:
    """The free list of buffer sets of one compiled graph.

    ``views`` are the arrays of a set, as ``(slot, shape, dtype)``: typed,
    C-contiguous views at the start of byte buffers of ``slots`` sizes.
    ``made`` counts the sets allocated, ``reused`` the calls served from the
    free list.
    """

    def __init__(self, slots: list[int], views: list[tuple[int, tuple, np.dtype]]):
        self.slots = list(slots)
        self.views = list(views)
        self.nbytes = sum(self.slots)
        self.made = 0
        self.reused = 0
        self._free: list[tuple] = []
        weakref.finalize(self, _forget, self._free, self.nbytes)

    @property
    def idle(self) -> int:
        """Sets waiting in the free list."""
        return len(self._free)

    def acquire(self) -> tuple:
        try:
            bufs = self._free.pop()
        except IndexError:
            bufs = self._make()
            with _LOCK:
                self.made += 1
            return bufs
        with _LOCK:
            self.reused += 1
            _idle[0] -= self.nbytes
        return bufs

    def release(self, bufs: tuple) -> None:
        with _LOCK:
            if len(self._free) >= MAX_IDLE_SETS or _idle[0] + self.nbytes > IDLE_LIMIT:
                return  # freed with the last reference to it
            _idle[0] += self.nbytes
            self._free.append(bufs)

    def _make(self) -> tuple:
        raw = [np.empty(n, np.uint8) for n in self.slots]
        return tuple(_view(raw[slot], shape, dtype) for slot, shape, dtype in self.views)

    def __repr__(self) -> str:
        return (f"<BufferPool {len(self.views)} arrays in {len(self.slots)} buffers, "
                f"{self.nbytes} bytes a set: made {self.made}, reused {self.reused}, idle {self.idle}>")


def c_ordered(a) -> bool:
    """Whether eager NumPy gives a ufunc's result of ``a`` a C-contiguous
    layout: ``a`` is C-contiguous, or its strides over the axes longer than
    1 are positive and strictly decreasing (a basic slice of a C-contiguous
    array, ``u[1:-1, 1:-1]``): the result's order='K' layout follows them,
    so it is C order, as a buffer is."""
    if a.flags.c_contiguous:
        return True
    last = None
    for n, s in zip(a.shape, a.strides):
        if n == 1:
            continue
        if s <= 0 or (last is not None and s >= last):
            return False
        last = s
    return True


def _view(raw: np.ndarray, shape: tuple, dtype: np.dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    view = raw[:nbytes].view(dtype).reshape(shape)
    if view.flags.c_contiguous and view.flags.aligned and view.flags.writeable:
        return view
    return np.empty(shape, dtype)  # never expected: NumPy's allocations are aligned for any dtype


def _forget(free: list, nbytes: int) -> None:
    """A pool is gone: its idle sets no longer count."""
    with _LOCK:
        _idle[0] -= len(free) * nbytes
        free.clear()
