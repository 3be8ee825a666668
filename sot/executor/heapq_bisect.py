"""heapq and bisect over lists the trace models.

The real C functions run on a list of `_Ordered` wrappers, one per item, so
the comparisons made, their order and every tie are CPython's own; a
wrapper compares the plain Python values of two items (numbers, strings,
tuples compared item by item as tuplerichcompare does, so `(priority,
array)` entries are ordered by priority) and raises a FallbackError (out
through the C code) where the answer needs anything else: ordering arrays
computed in the graph needs their data. The list's Variables are then put in the order the real function left
the wrappers (a list from outside: a mutation, replayed after the graph).
"""
from __future__ import annotations

import bisect
import heapq

from ..breaks.reasons import DATA_DEPENDENT, UNSUPPORTED_CALL, FallbackError
from .variables import ConstVariable, ListVariable, TupleVariable, Variable


class _Ordered:
    """One item for the real heapq/bisect: compared by its plain value, read when compared."""

    __slots__ = ("var",)

    def __init__(self, var: Variable):
        self.var = var

    def __lt__(self, other):
        try:
            return _less(self.var, other.var)
        except BaseException as e:   # the trace's own signal (a break, a specialisation): passed on as is
            e.__sot_from_comparison__ = True
            raise


def _equal(a: Variable, b: Variable) -> bool:
    """`a == b` as a tuple compares its items: the same object is equal without a comparison."""
    if a is b:
        return True
    if type(a) is TupleVariable and type(b) is TupleVariable:
        return len(a.items) == len(b.items) and all(_equal(x, y) for x, y in zip(a.items, b.items))
    return _plain(a) == _plain(b)


def _less(a: Variable, b: Variable) -> bool:
    """`a < b`; of tuples, decided by the first items not equal (tuplerichcompare), so
    `(priority, array)` entries with different priorities never read the arrays."""
    if type(a) is TupleVariable and type(b) is TupleVariable:
        for x, y in zip(a.items, b.items):
            if not _equal(x, y):
                return _less(x, y)
        return len(a.items) < len(b.items)
    return _plain(a) < _plain(b)


def _plain(v: Variable):
    from .functional import _NOT_PLAIN, _plain as plain
    from .pyidentity import self_equal
    from .dispatch import concrete
    concrete("an ordering", v)   # a number from symbolic dims: its value is needed
    value = plain(v)
    if value is _NOT_PLAIN or not self_equal(value):
        raise FallbackError(DATA_DEPENDENT, f"ordering {v.describe()}: heapq/bisect compare values that are not "
                            "Python constants (or hold a NaN)")
    return value


def _call(fn, items: list, *args):
    """fn(items, *args); an error of the function itself (an empty heap, lo < 0: eager raises it
    too, before any item moves) raised as the frame's. One from a comparison (the trace's
    signal: a break, a specialisation) is passed on: the call may have moved items already."""
    before = list(items)
    try:
        return fn(items, *args)
    except Exception as e:
        if getattr(e, "__sot_from_comparison__", False):
            raise
    from .dispatch import python_op
    return python_op(fn, before, *args)


def _list(v: Variable, what: str) -> ListVariable:
    if type(v) is not ListVariable:
        raise FallbackError(UNSUPPORTED_CALL, f"{what} of {v.describe()} (a list is modelled)")
    return v


def _heap(what: str, fn, with_item: bool):
    def handler(executor, heap, *item):
        lst = _list(heap, what)
        if len(item) != int(with_item):
            raise FallbackError(UNSUPPORTED_CALL, f"{what} with {len(item) + 1} arguments (eager raises TypeError)")
        wrappers = [_Ordered(v) for v in lst.items]
        result = _call(fn, wrappers, *[_Ordered(v) for v in item])
        if [w.var for w in wrappers] != lst.items:
            lst.check_mutable(what)
            lst.items = [w.var for w in wrappers]
        return result.var if isinstance(result, _Ordered) else ConstVariable(result)
    return handler


def _bisect(fn, insort: bool):
    what = f"bisect.{fn.__name__}"

    def handler(executor, a, x, lo=None, hi=None, **key):
        lst = _list(a, what)
        if key:
            raise FallbackError(UNSUPPORTED_CALL, f"{what} with a key function")
        bounds = []
        for v in (lo, hi):
            if v is None or (v is hi and isinstance(v, ConstVariable) and v.value is None):
                bounds.append(None)
            elif isinstance(v, ConstVariable) and type(v.value) is int:
                bounds.append(v.value)
            else:
                raise FallbackError(UNSUPPORTED_CALL, f"{what} bounds that are not constant ints")
        args = (bounds[0] or 0,) if bounds[1] is None else (bounds[0] or 0, bounds[1])
        search = bisect.bisect_right if fn in (bisect.bisect_right, bisect.insort_right) else bisect.bisect_left
        index = _call(search, [_Ordered(v) for v in lst.items], _Ordered(x), *args)
        if not insort:
            return ConstVariable(index)
        lst.check_mutable(what)
        lst.items = lst.items[:index] + [x] + lst.items[index:]
        return ConstVariable(None)
    return handler


def register(table: dict) -> None:
    table.update({
        heapq.heappush: _heap("heapq.heappush", heapq.heappush, True),
        heapq.heappop: _heap("heapq.heappop", heapq.heappop, False),
        heapq.heapify: _heap("heapq.heapify", heapq.heapify, False),
        heapq.heappushpop: _heap("heapq.heappushpop", heapq.heappushpop, True),
        heapq.heapreplace: _heap("heapq.heapreplace", heapq.heapreplace, True),
        **{fn: _bisect(fn, fn.__name__.startswith("insort")) for fn in (
            bisect.bisect_left, bisect.bisect_right, bisect.insort_left, bisect.insort_right)},
    })
