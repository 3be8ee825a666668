"""Dict views made in the trace.

`in`, as the view's own `__contains__`: `k in d.keys()` is `k in d`;
`v in d.values()` scans the values (identity, then ==), as a list does;
`(k, v) in d.items()` looks the key up and compares its value; anything but
a 2-tuple is never in an items view.

A keys view is set-like: `&`, `|`, `-`, `^` with another keys view, a set,
a frozenset constant, a plain dict or a list/tuple of constants, and
comparisons with those, are Python's own, run on a real keys view of a
dict of the same keys in the same order (the keys are constants), so a
resulting set has eager's table and order (it is not made again after the
graph: one that outlives it falls back). An items view whose values are all
constants (no NaN: `==` of one depends on identity) takes part the same way.
"""
from __future__ import annotations

import operator

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .variables import ConstVariable, DictVariable, DictViewVariable, ListVariable, TupleVariable, Variable

_SET_OPERATORS = {"and_": operator.and_, "or_": operator.or_, "sub": operator.sub, "xor": operator.xor}
_INPLACE = {"iand": "and_", "ior": "or_", "isub": "sub", "ixor": "xor"}   # a view has none: a new set


def contains(graph, item: Variable, view: DictViewVariable) -> bool:
    from .dispatch import as_dict_key, contains_op   # dispatch imports this module
    if view.kind == "keys":
        return contains_op(graph, item, view.dict)
    if view.kind == "values":
        return contains_op(graph, item, TupleVariable(view.items))
    if isinstance(item, ConstVariable) and isinstance(item.value, tuple):
        item = TupleVariable([ConstVariable(v) for v in item.value])
    if isinstance(item, ConstVariable):   # a str, int...: no 2-tuple
        return False
    if type(item) is not TupleVariable:
        raise FallbackError(UNSUPPORTED_OBJECT, f"`in` of {item.describe()} on a dict's items")
    if len(item.items) != 2:
        return False
    key, value = item.items
    if not contains_op(graph, key, view.dict):
        return False
    found = view.dict.entries[as_dict_key(view.dict, key).value]
    return contains_op(graph, value, TupleVariable([found]))


def _set_like(v: Variable):
    """The real value `v` stands for in a set operation with a keys or items
    view: such a view of a plain dict (a real view of a dict of the same
    keys, and values for items), a plain dict (its keys), a set made in the
    trace, a frozenset or tuple constant, a list or tuple of constants; None
    for anything else."""
    from . import identities, pyidentity, sets   # sets imports dispatch, which imports this module
    if isinstance(v, (DictViewVariable, DictVariable)) and getattr(v, "kind", "keys") in ("keys", "items"):
        d = v.dict if isinstance(v, DictViewVariable) else v
        if d.python_type() is not dict:
            return None
        keys = list(d.entries)
        identities.check_unordered(keys, "a set operation on a dict's keys")
        if not isinstance(v, DictViewVariable):
            return dict.fromkeys(keys)            # iterated as its keys
        if v.kind == "keys":
            return dict.fromkeys(keys).keys()
        values = list(d.entries.values())
        if not all(isinstance(x, ConstVariable) and not pyidentity.identity_decides(x.value) for x in values):
            return None
        return dict(zip(keys, (x.value for x in values))).items()
    if type(v) in (ListVariable, TupleVariable) and all(isinstance(x, ConstVariable) for x in v.items):
        return [x.value for x in v.items]
    if isinstance(v, sets.SetVariable):
        identities.check_unordered(v.values, "a set operation on a dict's keys")
        return v.values
    if isinstance(v, ConstVariable) and type(v.value) in (frozenset, tuple):
        return v.value
    return None


def _view(v: Variable) -> bool:
    return isinstance(v, DictViewVariable) and v.kind in ("keys", "items")


def _keys_view_and_set(a: Variable, b: Variable):
    if not _view(a) and not _view(b):
        return None
    av, bv = _set_like(a), _set_like(b)
    return None if av is None or bv is None else (av, bv)


def binary(name: str, a: Variable, b: Variable) -> Variable | None:
    """`a <op> b` where one side is a keys view (None: not this case)."""
    from . import sets
    fn = _SET_OPERATORS.get(_INPLACE.get(name, name))
    values = _keys_view_and_set(a, b) if fn is not None else None
    if values is None:
        return None
    result = sets._python(fn, *values)
    return sets.const(result) if type(result) is frozenset else sets.SetVariable(result)


def compare(name: str, a: Variable, b: Variable) -> Variable | None:
    """`a <cmp> b` where one side is a keys view and the other set-like."""
    from . import sets
    values = _keys_view_and_set(a, b)
    if values is None:
        view = [v for v in (a, b) if _view(v)]
        if view and name in ("eq", "ne") and not sets._set_like(b if view[0] is a else a):
            return sets.const(name == "ne")   # a keys view equals only a set-like value
        return None
    return sets.const(sets._python(getattr(operator, name), *values))
