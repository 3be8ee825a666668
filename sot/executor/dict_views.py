"""`in` on a dict view made in the trace, as the view's own `__contains__`:
`k in d.keys()` is `k in d`; `v in d.values()` scans the values (identity,
then ==), as a list does; `(k, v) in d.items()` looks the key up and
compares its value; anything but a 2-tuple is never in an items view."""
from __future__ import annotations

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .variables import ConstVariable, DictViewVariable, TupleVariable, Variable


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
