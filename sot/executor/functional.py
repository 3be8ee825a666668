"""Builtins that take functions as values: map, filter, sorted(key=),
functools.reduce, functools.partial, min/max(key=), any/all, and the
`operator` module's functions themselves passed around as values.

Each is simulated the way CPython runs it: map, filter, zip and enumerate
over lazy iterators are lazy (a step runs the user function when the
consumer asks for the next item, so side effects keep eager's order); any
and all stop at the first deciding item; sorted calls the key once per item,
in order, then sorts the keys in Python (keys must be plain constants, so no
user comparison code runs).
"""
from __future__ import annotations

import builtins
import functools
import operator

from ..breaks.reasons import DATA_DEPENDENT, UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from . import array_numbers, dispatch
from .partials import PartialVariable
from .dispatch import const
from .variables import (
    ConstVariable, IteratorVariable, LazyIteratorVariable, ListVariable, TupleVariable, Variable,
)


def _iter(executor, obj) -> IteratorVariable:
    return dispatch.get_iter(executor.graph, obj)


def b_map(executor, fn, *iterables):
    if not iterables:
        raise FallbackError(UNSUPPORTED_CALL, "map() needs at least one iterable (eager raises TypeError)")
    its = [_iter(executor, it) for it in iterables]

    def step():
        args = []
        for it in its:
            item = it.next()
            if item is None:
                return None
            args.append(item)
        return executor.call_function(fn, args, {})
    return LazyIteratorVariable(step, map)


def b_filter(executor, fn, iterable):
    it = _iter(executor, iterable)
    keep_truthy = isinstance(fn, ConstVariable) and fn.value is None

    def step():
        while (item := it.next()) is not None:
            verdict = item if keep_truthy else executor.call_function(fn, [item], {})
            if verdict.truth():
                return item
        return None
    return LazyIteratorVariable(step, filter)


def lazy_zip(executor, its: list[IteratorVariable]):
    def step():
        items = []
        for it in its:  # as zip: an item taken from an earlier iterator is lost at the end
            item = it.next()
            if item is None:
                return None
            items.append(item)
        return TupleVariable(items)
    lazy = LazyIteratorVariable(step, zip)
    lazy.rebuilt_as = lambda expr: f"{expr(zip)}(" + "".join(expr(it) + ", " for it in its) + ")"
    return lazy


def lazy_enumerate(it: IteratorVariable, start: int):
    count = [start]

    def step():
        item = it.next()
        if item is None:
            return None
        count[0] += 1
        return TupleVariable([const(count[0] - 1), item])
    lazy = LazyIteratorVariable(step, enumerate)
    lazy.rebuilt_as = lambda expr: f"{expr(enumerate)}({expr(it)}, {expr(count[0])})"
    return lazy


def _truths(executor, iterable, stop_on: bool):
    it = _iter(executor, iterable)
    while (item := it.next()) is not None:
        if item.truth() is stop_on:
            return const(stop_on)
    return const(not stop_on)


def b_any(executor, iterable):
    return _truths(executor, iterable, True)


def b_all(executor, iterable):
    return _truths(executor, iterable, False)


def _key_values(executor, items, key) -> list:
    keys = items if key is None or (isinstance(key, ConstVariable) and key.value is None) else \
        [executor.call_function(key, [v], {}) for v in items]
    dispatch.concrete("an ordering", *keys)
    values = [_plain(k) for k in keys]
    if any(v is _NOT_PLAIN for v in values):
        raise FallbackError(DATA_DEPENDENT, "ordering values that are not Python constants",
                            hint="sorted()/min()/max() of arrays compares their data")
    return values


_NOT_PLAIN = object()
_PLAIN = (int, float, bool, str, bytes, type(None))


def _plain(v: Variable):
    """The Python value of a constant or a tuple of constants (compared without running user code)."""
    if isinstance(v, ConstVariable) and type(v.value) in _PLAIN:
        return v.value
    if isinstance(v, TupleVariable):
        parts = [_plain(x) for x in v.items]
        return _NOT_PLAIN if any(p is _NOT_PLAIN for p in parts) else tuple(parts)
    return _NOT_PLAIN


def b_sorted(executor, iterable, key=None, reverse=None):
    items = _iter(executor, iterable).items
    rev = False if reverse is None else _const(reverse, "sorted(reverse=...)")
    if hasattr(key, "order"):   # functools.cmp_to_key (operator_models.py)
        return ListVariable([items[i] for i in key.order(executor, items, bool(rev))])
    values = _key_values(executor, items, key)
    order = dispatch._python(lambda: sorted(range(len(items)), key=lambda i: values[i], reverse=bool(rev)))
    return ListVariable([items[i] for i in order])


def minmax(fn):
    def handler(executor, *args, key=None, default=None):
        items = list(args)
        if len(args) == 1:
            items = _iter(executor, args[0]).items
        if not items:
            if default is not None:
                return default
            raise FallbackError(UNSUPPORTED_OBJECT, f"{fn.__name__}() of an empty sequence (eager raises)")
        if key is None and (r := array_numbers.python_function(executor.graph, fn, items)) is not None:
            return r   # numbers read from data: in the graph
        if key is None:
            dispatch.concrete(f"{fn.__name__}()", *items)  # a dim from shapes: specialised
        if key is None and any(_plain(v) is _NOT_PLAIN for v in items):
            raise FallbackError(DATA_DEPENDENT, f"{fn.__name__}() compares values that are not Python constants",
                                hint=f"use np.{'maximum' if fn is max else 'minimum'} to keep it in the graph")
        values = _key_values(executor, items, key)
        best = dispatch._python(lambda: fn(range(len(items)), key=lambda i: values[i]))
        return items[best]
    return handler


def plain_values(vs, what: str) -> list:
    """The Python values of constants (tuples of them included), compared
    without running user code; a break where one is anything else."""
    dispatch.concrete(what, *vs)
    values = [_plain(v) for v in vs]
    if any(v is _NOT_PLAIN for v in values):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{what} compares values that are not Python constants")
    return values


def python_value(v: Variable):
    """A constant, or a list/tuple of plain constants, as its Python value
    (for str methods: "-".join(names)); a break for anything else."""
    if isinstance(v, ConstVariable):
        return v.value
    from .sets import SetVariable   # sets imports this module
    if isinstance(v, SetVariable):
        from .identities import check_unordered
        check_unordered(v.values, "a str method's argument")
        return v.values   # itself (a copy would iterate in another order): a pure method only reads it
    if isinstance(v, (TupleVariable, ListVariable)) and v.python_type() in (tuple, list):
        return v.python_type()(plain_values(v.items, "a str method's argument"))
    raise FallbackError(UNSUPPORTED_OBJECT, f"a str method's argument {v.describe()}")


def _const(v: Variable, what: str):
    dispatch.concrete(what, v)
    if not isinstance(v, ConstVariable):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{what} of {v.describe()}")
    return v.value


_MISSING = object()


def b_reduce(executor, fn, iterable, initial=_MISSING):
    it = _iter(executor, iterable)
    acc = initial if initial is not _MISSING else it.next()
    if acc is None:
        raise FallbackError(UNSUPPORTED_OBJECT, "reduce() of an empty iterable with no initial value (eager raises)")
    while (item := it.next()) is not None:
        acc = executor.call_function(fn, [acc, item], {})
    return acc


def b_partial(executor, fn, *args, **kwargs):
    if isinstance(fn, PartialVariable):  # partial of a partial flattens, as CPython does
        return PartialVariable(fn.func, fn.args + list(args), {**fn.kwargs, **kwargs})
    return PartialVariable(fn, args, kwargs)


def _binary(name):
    return lambda ex, a, b: dispatch.binary_op(ex.graph, name, a, b)


def _compare(name):
    return lambda ex, a, b: dispatch.compare_op(ex.graph, name, a, b)


def _unary(name):
    return lambda ex, a: dispatch.unary_op(ex.graph, name, a)


OPERATORS = {
    **{getattr(operator, n): _binary(n) for n in (
        "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor",
        "lshift", "rshift", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul",
        "iand", "ior", "ixor", "ilshift", "irshift")},
    **{getattr(operator, n): _compare(n) for n in ("lt", "le", "eq", "ne", "gt", "ge")},
    **{getattr(operator, n): _unary(n) for n in ("neg", "pos", "invert")},
    operator.getitem: lambda ex, a, b: dispatch.getitem(ex.graph, a, b),
    operator.truth: lambda ex, a: const(a.truth()),
    operator.not_: lambda ex, a: const(not a.truth()),
    operator.is_: lambda ex, a, b: const(dispatch.is_op(a, b)),
    operator.is_not: lambda ex, a, b: const(not dispatch.is_op(a, b)),
    operator.contains: lambda ex, a, b: const(dispatch.contains_op(ex.graph, b, a)),
}


def register(table: dict) -> None:
    """Add the handlers of this module to the builtins table of calls.py."""
    table.update(OPERATORS)
    table.update({
        builtins.map: b_map,
        builtins.filter: b_filter,
        builtins.any: b_any,
        builtins.all: b_all,
        builtins.sorted: b_sorted,
        builtins.min: minmax(min),
        builtins.max: minmax(max),
        functools.reduce: b_reduce,
        functools.partial: b_partial,
    })
