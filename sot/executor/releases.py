"""Replacing a value the trace never read: a store replayed after the graph
(``d[k] = v``, ``G = v``, ``obj.attr = v``) releases what was there, as
eager releases it at the store, and that must run no code (a ``__del__``,
a generator's ``finally``, a weakref callback: side_effects.py).

The trace saw only the value's type, so what it may replace is fixed by a
guard on that place: the exact type for values whose release never runs
code (numbers, strings, arrays, NumPy scalars, ranges), the value for a
tuple of constants, the type for an enum member (its class holds it), and
the object itself for a function, class, ufunc or module that its module
(or sys.modules) holds by its name: held there, eagerly too, the store
frees nothing (and these rarely change, so the identity guard rarely
misses). A function made at run time is not one of those: the store may
free it, and with it its closure.
"""
from __future__ import annotations

import enum
import sys
import types

import numpy as np

from ..guards.guard import IdGuard, TypeGuard, ValueGuard

__all__ = ["NUMPY_SCALARS", "may_release", "guard_unread_release"]

#: NumPy's own scalar types (exact types: a subclass may define __del__)
NUMPY_SCALARS = frozenset(t for t in np.sctypeDict.values() if t.__module__ == "numpy")

_CONSTANTS = (int, float, complex, str, bytes, bool, type(None))


def _constant_tuple(value) -> bool:
    return type(value) is tuple and all(type(v) in _CONSTANTS or _constant_tuple(v) for v in value)


def _held_by_module(value) -> bool:
    """A function, class, ufunc, builtin or module its module (sys.modules)
    holds under its own name."""
    if isinstance(value, types.ModuleType):
        return sys.modules.get(value.__name__) is value
    if not isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc, type)):
        return False
    module = sys.modules.get(getattr(value, "__module__", None) or "")
    if module is None and isinstance(value, np.ufunc):
        module = np
    return module is not None and getattr(module, "__dict__", {}).get(value.__name__) is value


def _guard_kind(value):
    """The guard class that keeps releasing what is at the place as safe as
    releasing `value`, or None where that may run code."""
    from .side_effects import PLAIN_TYPES   # side_effects imports this module's users
    t = type(value)
    if t in PLAIN_TYPES or t in NUMPY_SCALARS or t is range or isinstance(value, enum.Enum):
        return TypeGuard
    if _constant_tuple(value):
        return ValueGuard
    if _held_by_module(value):
        return IdGuard
    return None


def may_release(value) -> bool:
    """Whether replacing `value` runs no code (given the guard of `guard_unread_release`)."""
    return _guard_kind(value) is not None


def guard_unread_release(graph, tracker, value) -> bool:
    """Whether replacing `value`, reached by `tracker` and not read by the
    trace, runs no code; guards what makes it so (see the module doc)."""
    kind = _guard_kind(value)
    if kind is None:
        return False
    graph.add_guard(kind(tracker, type(value) if kind is TypeGuard else value))
    return True
