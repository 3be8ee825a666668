"""When CPython's answer to `==` inside a container, or to `in`, depends on
object identity.

`x in seq`, `seq == other`, `key in dict` and tuple/list ordering compare
items with `is` first, then `==` (PyObject_RichCompare's identity shortcut).
For values equal to themselves that is the same as `==`; for a NaN (or a
container holding one) the answer depends on which object is where, which
the guards do not pin down: then the trace must not decide it.
"""
from __future__ import annotations

import enum

import numpy as np

_REFLEXIVE = (type(None), bool, int, str, bytes, range, type(Ellipsis))


def self_equal(value, _depth: int = 0) -> bool:
    """Whether `value == value` holds all the way down (no NaN inside).
    Unknown kinds of object count as not (their __eq__ is user code)."""
    if type(value) in _REFLEXIVE or type(value) is type or isinstance(value, np.dtype):
        return True
    if plain_enum_member(value):
        return bool(value == value)   # Enum's or a builtin's __eq__: no user code
    if _depth > 20:
        return False
    if type(value) in (tuple, list, frozenset, set):
        return all(self_equal(v, _depth + 1) for v in value)
    if type(value) is dict:
        return all(self_equal(k, _depth + 1) and self_equal(v, _depth + 1) for k, v in value.items())
    if type(value) in (float, complex) or isinstance(value, (np.floating, np.complexfloating, np.integer)):
        return bool(value == value)
    return False


def identity_decides(*values) -> bool:
    """Whether comparing these values (as items, with `is` before `==`) can
    depend on which objects they are."""
    return not all(self_equal(v) for v in values)


def items_equal(x, y) -> bool:
    """CPython's item comparison `x is y or x == y` for two Variables whose
    values are known (ConstVariables); the same Variable is the same object.
    Raises FallbackError when the answer would depend on unguarded identity."""
    if x is y:
        return True
    if identity_decides(x.value, y.value):
        from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
        raise FallbackError(UNSUPPORTED_OBJECT, f"comparing {x.describe()} and {y.describe()} depends on object "
                                                f"identity (a NaN): Python compares items with `is` first")
    return bool(x.value == y.value)


#: the __eq__ / __hash__ an Enum member may have for the trace to compare and
#: hash it itself: Enum's own (identity, hash of the name) or a builtin mixin's
_PLAIN_ENUM_SLOTS = frozenset({object.__eq__, enum.Enum.__hash__, int.__eq__, int.__hash__, str.__eq__,
                               str.__hash__, float.__eq__, float.__hash__})


def plain_enum_member(value) -> bool:
    """An Enum member (IntEnum, StrEnum...) whose equality and hash are
    Enum's or a builtin mixin's, so using it as a dict key runs no user code.
    A member is a singleton of its (identity-guarded) class, so `is` is fixed too."""
    cls = type(value)
    return isinstance(value, enum.Enum) and cls.__eq__ in _PLAIN_ENUM_SLOTS and cls.__hash__ in _PLAIN_ENUM_SLOTS
