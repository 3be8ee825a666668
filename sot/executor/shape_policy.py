"""Which array dims a translation makes symbolic (automatic dynamic shapes).

``ShapePolicy.symbolic_axes(tracker, array)`` decides, for each array that
enters a trace, which of its axes are symbolic (see ``sot.ir.symbolic``):

* **automatic** (``to_static(dynamic=None)``, the default): an axis whose
  size differs from the size seen when the same code was translated before,
  for the array reached through the same tracker.  A function called with
  many batch sizes is translated once static, then once with the batch dim
  symbolic, and that entry serves every later size >= 2;
* ``dynamic=True``: every axis, from the first translation;
* ``dynamic=False``: none, except axes forced by ``mark_dynamic``;
* ``mark_dynamic(array, axis)`` forces an axis of that array object.

An axis of size 0 or 1 is never symbolic (the guard of a symbolic dim is
``size >= 2``).  An axis the trace had to specialise (a Python branch on it,
``range(x.shape[0])``, an op valid only for that size) is kept static for
that code from then on, so the same failure is not retried on every size.

The state per code (sizes seen, specialised axes) lives here, keyed by code
identity; ``reset()`` drops it.
"""
from __future__ import annotations

import weakref
from typing import Sequence

import numpy as np

from .._codemap import CodeMap

__all__ = ["ShapePolicy", "mark_dynamic", "marked_axes", "reset"]


class _CodeShapes:
    __slots__ = ("seen", "static")

    def __init__(self):
        self.seen: dict = {}      # tracker -> shape, None where an axis has varied
        self.static: set = set()  # (tracker, axis) that must stay static


_states = CodeMap()


def _state(code) -> _CodeShapes:
    state = _states.get(code)
    if state is None:
        state = _states[code] = _CodeShapes()
    return state


class ShapePolicy:
    """The symbolic-axes decision for one translation of ``code``."""

    def __init__(self, code, dynamic: bool | None):
        self.state = _state(code)
        self.dynamic = dynamic

    def symbolic_axes(self, tracker, value) -> tuple[int, ...]:
        if type(value) is not np.ndarray or tracker is None:
            return ()
        shape = value.shape
        axes = set(marked_axes(value))
        if self.dynamic is True:
            axes.update(range(len(shape)))
        elif self.dynamic is None:
            seen = self.state.seen.get(tracker)
            if seen is not None and len(seen) == len(shape):
                varied = tuple(None if s is None or s != n else s for s, n in zip(seen, shape))
                axes.update(i for i, s in enumerate(varied) if s is None)
                self.state.seen[tracker] = varied
            else:
                self.state.seen[tracker] = tuple(shape)
        return tuple(sorted(a for a in axes if shape[a] >= 2 and (tracker, a) not in self.state.static))

    def specialise(self, dims) -> None:
        """Keep these ``(tracker, axis)`` static in this code's translations."""
        self.state.static.update(dims)


# -- mark_dynamic -------------------------------------------------------------------
# A weak registry keyed by id: marking an array must not change the array (no
# attribute can be set on an ndarray anyway), and must not keep it alive.
# ndarrays support weak references; the entry goes when the array does, and
# the weakref is checked on lookup so a reused id never matches.

_marks: dict[int, tuple] = {}


def mark_dynamic(array: np.ndarray, axis: int | Sequence[int]) -> None:
    """Make ``axis`` (an int or a sequence of ints) of this ndarray object
    symbolic in every trace it enters, from the first call.  The mark belongs
    to the object (not to equal arrays, nor to views of it); an axis whose
    size is 0 or 1 at trace time stays static."""
    if type(array) is not np.ndarray:
        raise TypeError(f"mark_dynamic needs an ndarray, got {type(array).__name__}")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    norm = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not -array.ndim <= a < array.ndim:
            raise ValueError(f"axis {a!r} is out of range for an array of {array.ndim} dims")
        norm.append(int(a) % array.ndim)
    key = id(array)
    entry = _marks.get(key)
    previous = entry[1] if entry is not None and entry[0]() is array else frozenset()
    ref = weakref.ref(array, lambda _r, key=key: _drop(key, _r))
    _marks[key] = (ref, previous | frozenset(norm))


def _drop(key, ref) -> None:
    entry = _marks.get(key)
    if entry is not None and entry[0] is ref:
        del _marks[key]


def marked_axes(array) -> frozenset:
    entry = _marks.get(id(array))
    if entry is None or entry[0]() is not array:
        return frozenset()
    return entry[1]


def reset() -> None:
    """Forget the sizes seen and the specialised axes of every code."""
    _states.clear()
