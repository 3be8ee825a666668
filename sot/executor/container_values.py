"""The Python value of a container the trace made of plain constants
(lists, tuples, dicts and sets of numbers, strings, None), for builtins that
only read it: str(), repr(), frozenset(). None where any item is something
else (an array, an object whose repr is user code) or the container holds
itself."""
from __future__ import annotations

from .variables import ConstVariable, DictVariable, ListVariable, TupleVariable

_PLAIN = (int, float, bool, str, bytes, type(None), complex)


def plain_value(v, _seen=None):
    from .sets import SetVariable
    seen = set() if _seen is None else _seen
    if isinstance(v, ConstVariable):
        if type(v.value) in _PLAIN:
            return v.value
        if type(v.value) in (tuple, frozenset) and all(type(x) in _PLAIN for x in v.value):
            return v.value
        return None
    if id(v) in seen:
        return None
    seen.add(id(v))
    try:
        if isinstance(v, SetVariable):
            # the set itself: a copy would iterate (repr) in another order
            return v.values if all(type(x) in _PLAIN for x in v.values) else None
        if type(v) in (ListVariable, TupleVariable) and v.python_type() in (list, tuple):
            items = [plain_value(x, seen) for x in v.items]
            return None if any(x is None and not _is_none(y) for x, y in zip(items, v.items)) \
                else v.python_type()(items)
        if type(v) is DictVariable and v.python_type() is dict:
            out = {}
            for k, x in v.entries.items():
                out[k] = plain_value(x, seen)
                if out[k] is None and not _is_none(x):
                    return None
            return out
        return None
    finally:
        seen.discard(id(v))


def plain_key(v):
    """The value of a tuple (or float, bytes, Enum member...) of plain constants usable as a dict key
    the trace decides lookups of: equal to itself (no NaN), so `is` never matters; else None."""
    from .pyidentity import plain_enum_member, self_equal
    value = plain_value(v) if type(v) is TupleVariable else v.value if isinstance(v, ConstVariable) else None
    if plain_enum_member(value) and self_equal(value):   # Mode.TRAIN, Axis.ROWS
        return value
    if type(value) in (tuple, float, bytes, bool, type(None), int, str) and _hashable_plain(value) and self_equal(value):
        return value
    return None


def _hashable_plain(value) -> bool:
    if type(value) is tuple:
        return all(_hashable_plain(x) for x in value)
    return type(value) in _PLAIN


def holds_array(v, _depth: int = 0) -> bool:
    """Whether a list, tuple or dict the trace made holds an array (at any depth)."""
    from .variables import TensorVariable
    if isinstance(v, TensorVariable):
        return True
    if _depth > 20:
        return False
    if type(v) is TupleVariable or type(v) is ListVariable and v.loaded:   # (reading a list guards it)
        return any(holds_array(x, _depth + 1) for x in v.items)
    if type(v) is DictVariable:
        return any(holds_array(x, _depth + 1) for x in v.entries.values())
    return False


def _is_none(v) -> bool:
    return isinstance(v, ConstVariable) and v.value is None
