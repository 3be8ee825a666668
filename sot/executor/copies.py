"""copy.copy and copy.deepcopy of the values the trace models: lists,
dicts and tuples of arrays and constants. An array copies as its
__copy__/__deepcopy__ does (a new array, order="K"); an immutable constant
is itself; a tuple is itself unless deepcopy copies an item; sharing inside
the value is kept (deepcopy's memo). Anything else runs natively."""
from __future__ import annotations

import copy

import numpy as np

from ..breaks.reasons import UNSUPPORTED_CALL, FallbackError
from ..ir import registry
from .variables import ConstVariable, DictVariable, ListVariable, TensorVariable, TupleVariable, Variable

_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), range, frozenset)


def _array_copy(graph, v: TensorVariable) -> Variable:
    if v.python_type() is not np.ndarray:   # a NumPy scalar's copy: not modelled
        raise FallbackError(UNSUPPORTED_CALL, f"copy of {v.describe()}")
    return graph.call_op(registry.lookup_method("copy"), [v], {"order": ConstVariable("K")})


def _unsupported(v: Variable):
    return FallbackError(UNSUPPORTED_CALL, f"copy of {v.describe()} is not modelled")


def b_copy(executor, v: Variable) -> Variable:
    if isinstance(v, ConstVariable) and type(v.value) in _IMMUTABLE + (tuple,):
        return v
    if type(v) is TupleVariable:
        return v
    if type(v) is ListVariable:
        return ListVariable(list(v.items))
    if type(v) is DictVariable:
        return DictVariable(dict(v.entries))
    if isinstance(v, TensorVariable):
        return _array_copy(executor.graph, v)
    raise _unsupported(v)


def b_deepcopy(executor, v: Variable, memo: Variable | None = None) -> Variable:
    if memo is not None:
        raise FallbackError(UNSUPPORTED_CALL, "copy.deepcopy with a memo")
    return _deep(executor.graph, v, {})


def _deep(graph, v: Variable, memo: dict) -> Variable:
    if id(v) in memo:
        return memo[id(v)]
    if isinstance(v, ConstVariable) and type(v.value) in _IMMUTABLE + (tuple,):
        if type(v.value) is tuple and not _atomic(v.value):
            raise _unsupported(v)
        return v
    if type(v) is ListVariable:
        out = memo[id(v)] = ListVariable([])
        out.items = [_deep(graph, x, memo) for x in v.items]
        return out
    if type(v) is DictVariable:
        out = memo[id(v)] = DictVariable({})
        out.entries = {k: _deep(graph, x, memo) for k, x in v.entries.items()}
        return out
    if type(v) is TupleVariable:
        items = [_deep(graph, x, memo) for x in v.items]
        out = v if all(a is b for a, b in zip(items, v.items)) else TupleVariable(items)
        memo[id(v)] = out
        return out
    if isinstance(v, TensorVariable):
        out = memo[id(v)] = _array_copy(graph, v)
        return out
    raise _unsupported(v)


def _atomic(value: tuple) -> bool:
    """A constant tuple deepcopy returns as itself (only immutable atoms inside)."""
    return all(_atomic(x) if type(x) is tuple else type(x) in _IMMUTABLE for x in value)


def register(table: dict) -> None:
    table.update({copy.copy: b_copy, copy.deepcopy: b_deepcopy})
