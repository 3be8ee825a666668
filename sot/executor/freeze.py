"""``to_static(freeze=True)``: arrays read from outside the arguments are held fixed.

By default every array is a graph input, fetched and type-guarded on every
call, so that an in-place update of a weight between calls is seen.  That
costs onnxruntime its pre-packed matmul weights (it packs only constants):
the 42-layer MLP at batch 1 runs at ~1.2x eager with its weights as inputs
and ~0.5x with them as initializers.

With freeze, an array the function reaches from outside the call -- through an
attribute, a global, a closure cell, or a container item of those, never an
argument or an item of one, never a value computed during the call -- is a
*frozen* input of the graph (``StatementIR.frozen``):

- it is guarded by identity (besides type, dtype and shape), and its dims are
  static: another object there is a new entry;
- it is made read-only (``flags.writeable = False``) once a compiled graph
  holds it, so an in-place update raises NumPy's "assignment destination is
  read-only" at the user's line instead of going unseen by a graph that took
  the values as constants;
- backends may treat it as a constant (onnxruntime makes it an initializer).

Only arrays that own their memory are frozen: a view's base could still be
written through, so a view stays an ordinary input.  Nor is an array that a
view made *before* the freeze looks into: making the base read-only does not
reach a view that already exists, and writing through it would go unseen by
a graph that took the values as constants.  NumPy keeps no list of an
array's views, so :class:`ViewScan` looks for them where Python objects can
hold them (every object the garbage collector tracks -- module and instance
dicts, lists, cells, generators -- and every thread's frames); a view held
only by a C extension object is out of its sight.  ``sot.reset()`` drops
every entry and makes the arrays frozen here writeable again.
"""
from __future__ import annotations

import gc
import itertools
import sys
import weakref

import numpy as np

from sot.breaks.resume import SOT_PREFIX
from sot.guards.tracker import AttrTracker, ConstTracker, LocalTracker

__all__ = ["candidate", "cannot_freeze", "hold", "release_all", "held_count"]

_BASE = np.ndarray.base.__get__

#: id -> weakref of each array this module made read-only (to undo on reset)
_held: dict[int, weakref.ref] = {}


def candidate(tracker, value) -> bool:
    """An array reached through `tracker` from outside the call: through an
    attribute, or from a global or a closure cell (container items of those
    included).  Not an argument nor an item of one, and never a value
    computed during the call and handed to a resume function at a graph
    break (``a, n = helper(x)``: a fresh object per call, which an identity
    guard would turn into a translation per call, and which the caller may
    write to).  NumPy scalars are not either: cheap as inputs, and often a
    fresh object per call (``self.scale = np.float32(s)``)."""
    if type(value) is not np.ndarray or tracker is None:
        return False
    through_attr = False
    t = tracker
    while t.base is not None:
        through_attr = through_attr or isinstance(t, AttrTracker)
        t = t.base
    if isinstance(t, ConstTracker):
        return False
    if isinstance(t, LocalTracker):
        # a resume function's own temporaries hold values computed in the call
        return through_attr and not t.name().startswith(SOT_PREFIX)
    return True  # a global, a closure cell, and what is reached from them


def cannot_freeze(value: np.ndarray, views: "ViewScan | None" = None) -> str | None:
    """Why a candidate array is not frozen, or None when it is."""
    if value.base is not None:
        return "a view of another array, which could be written through it"
    if views is not None and views.has_views(value):
        return "other arrays view its memory (a view made before the freeze stays writeable)"
    return None


class ViewScan:
    """The arrays some existing view looks into (``view.base``), found once
    per translation, on the first question (a walk over the heap)."""

    def __init__(self):
        self._bases: set[int] | None = None

    def has_views(self, value: np.ndarray) -> bool:
        if self._bases is None:
            self._bases = _bases_of_views()
        return id(value) in self._bases


def _bases_of_views() -> set[int]:
    # a running frame's locals are not among its gc referents: read them
    frame_locals = []
    for f in sys._current_frames().values():
        while f is not None:
            frame_locals.append(list(f.f_locals.values()))
            f = f.f_back
    bases: set[int] = set()
    for held in itertools.chain([gc.get_referents(*gc.get_objects())], frame_locals):
        for r in held:
            if issubclass(type(r), np.ndarray):  # not isinstance: no user __class__ runs
                b = _BASE(r)  # ndarray's own getter: a subclass's `base` could be user code
                if issubclass(type(b), np.ndarray):
                    bases.add(id(b))
    return bases


def hold(values) -> None:
    """Make the frozen arrays a compiled graph relies on read-only."""
    for v in values:
        if type(v) is np.ndarray and v.flags.writeable:
            v.flags.writeable = False
            key = id(v)
            _held[key] = weakref.ref(v, lambda _ref, key=key: _held.pop(key, None))


def release_all() -> None:
    """Writeable again, every array `hold` made read-only (``sot.reset``)."""
    refs = list(_held.values())
    _held.clear()
    for ref in refs:
        v = ref()
        if v is not None:
            v.flags.writeable = True


def held_count() -> int:
    return len(_held)
