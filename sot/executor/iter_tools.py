"""itertools over modelled values, stepped as CPython's C code steps them.

The combinatoric iterators (product, combinations, permutations) read their
inputs whole when made, as CPython does (tuple(iterable) in their __new__),
and are IteratorVariables of known items. The others are lazy: each step
takes items from its inputs only when asked, in eager's order, so a shared
iterator or a list changed between steps is seen as eager sees it. Only
constant int counts are modelled; anything eager would reject falls back.
"""
from __future__ import annotations

import itertools

from ..breaks.reasons import LIMIT, UNSUPPORTED_CALL, FallbackError
from . import dispatch, iterator_rebuild, user_protocols
from .dispatch import const
from .variables import ConstVariable, IteratorVariable, LazyIteratorVariable, TupleVariable, Variable

MAX_ITEMS = 1000        # items a combinatoric iterator may have at trace time
MAX_STEPS = 100_000     # steps of an unbounded iterator (count, repeat, cycle)


def _int(v: Variable | None, what: str, default=None, allow_none=False):
    if v is None:
        return default
    if isinstance(v, ConstVariable) and v.value is None and allow_none:
        return None
    if isinstance(v, ConstVariable) and type(v.value) is int:
        return v.value
    raise FallbackError(UNSUPPORTED_CALL, f"{what} with an argument that is not a constant int")


def _iter(executor, obj: Variable) -> IteratorVariable:
    return dispatch.get_iter(executor.graph, obj)


def _drain(executor, obj: Variable, what: str) -> list[Variable]:
    it, out = _iter(executor, obj), []
    while (item := it.next()) is not None:
        out.append(item)
        if len(out) > MAX_ITEMS:
            raise FallbackError(LIMIT, f"{what}: more than {MAX_ITEMS} items")
    return out


def _combinatoric(kind, pools: list[list[Variable]], *args) -> IteratorVariable:
    """kind(*pools, *args) computed on indices, then mapped to the items."""
    index_pools = [range(len(p)) for p in pools]
    out = []
    for idx in kind(*index_pools, *args):
        if len(out) >= MAX_ITEMS:
            raise FallbackError(LIMIT, f"{kind.__name__}: more than {MAX_ITEMS} items")
        if kind is itertools.product:
            out.append(TupleVariable([pools[k][i] for k, i in enumerate(idx)]))
        else:
            out.append(TupleVariable([pools[0][i] for i in idx]))
    return iterator_rebuild.made_by(out, kind, lambda b: f"{b._bind(kind)}("
                                    + "".join(iterator_rebuild.sequence(b, p) + ", " for p in pools)
                                    + "".join(f"{b._bind(a)}, " for a in args) + ")")


def b_product(executor, *iterables, repeat=None):
    n = _int(repeat, "product(repeat=)", 1)
    if n < 0:
        raise FallbackError(UNSUPPORTED_CALL, "product(repeat=) negative (eager raises ValueError)")
    pools = [_drain(executor, it, "product") for it in iterables] * n
    return _combinatoric(itertools.product, pools)


def _choose(executor, fn, iterable, r):
    """`combinations` or `combinations_with_replacement` of a drained iterable."""
    pool = _drain(executor, iterable, fn.__name__)
    n = _int(r, fn.__name__)
    if n < 0:
        raise FallbackError(UNSUPPORTED_CALL, f"{fn.__name__} with r < 0 (eager raises ValueError)")
    return _combinatoric(fn, [pool], n)


def b_combinations(executor, iterable, r):
    return _choose(executor, itertools.combinations, iterable, r)


def b_combinations_with_replacement(executor, iterable, r):
    return _choose(executor, itertools.combinations_with_replacement, iterable, r)


def b_permutations(executor, iterable, r=None):
    pool = _drain(executor, iterable, "permutations")
    n = _int(r, "permutations", None, allow_none=True)
    if n is not None and n < 0:
        raise FallbackError(UNSUPPORTED_CALL, "permutations with r < 0 (eager raises ValueError)")
    return _combinatoric(itertools.permutations, [pool], n)


def _bounded(step, what: str):
    """A step function that falls back after MAX_STEPS steps (an unbounded iterator)."""
    count = [0]

    def bounded():
        count[0] += 1
        if count[0] > MAX_STEPS:
            raise FallbackError(LIMIT, f"{what}: more than {MAX_STEPS} items at trace time")
        return step()
    return bounded


def b_chain(executor, *iterables):
    pending = list(iterables)
    current: list = [None]

    def step():
        while True:
            if current[0] is None:
                if not pending:
                    return None
                current[0] = _iter(executor, pending.pop(0))   # iter() of each input when reached
            item = current[0].next()
            if item is not None:
                return item
            current[0] = None
    return LazyIteratorVariable(step, itertools.chain)


def b_islice(executor, iterable, *args):
    if not 1 <= len(args) <= 3:
        raise FallbackError(UNSUPPORTED_CALL, "islice with this many arguments (eager raises TypeError)")
    if len(args) == 1:
        start, stop, step_ = 0, _int(args[0], "islice", allow_none=True), 1
    else:
        start = _int(args[0], "islice", allow_none=True)
        stop = _int(args[1], "islice", allow_none=True)
        step_ = _int(args[2], "islice", allow_none=True) if len(args) == 3 else 1
        start = 0 if start is None else start
        step_ = 1 if step_ is None else step_
    if start < 0 or (stop is not None and stop < 0) or step_ < 1:
        raise FallbackError(UNSUPPORTED_CALL, "islice with a negative index or step (eager raises ValueError)")
    it = _iter(executor, iterable)
    state = {"cnt": 0, "next": start, "done": False}

    def step():   # CPython's islice_next
        if state["done"]:
            return None
        while state["cnt"] < state["next"]:
            if it.next() is None:
                state["done"] = True
                return None
            state["cnt"] += 1
        if stop is not None and state["cnt"] >= stop:
            state["done"] = True
            return None
        item = it.next()
        if item is None:
            state["done"] = True
            return None
        state["cnt"] += 1
        state["next"] += step_
        if stop is not None and state["next"] > stop:
            state["next"] = stop
        return item
    return LazyIteratorVariable(step, itertools.islice)


def b_accumulate(executor, iterable, func=None, *, initial=None):
    it = _iter(executor, iterable)
    fn = None if func is None or (isinstance(func, ConstVariable) and func.value is None) else func
    state = {"total": None if initial is None or (isinstance(initial, ConstVariable) and initial.value is None)
             else initial, "initial": initial is not None}
    if state["total"] is None:
        state["initial"] = False

    def step():
        if state["initial"]:
            state["initial"] = False
            return state["total"]
        item = it.next()
        if item is None:
            return None
        if state["total"] is None:
            state["total"] = item
        elif fn is None:
            state["total"] = dispatch.binary_op(executor.graph, "add", state["total"], item)
        else:
            state["total"] = executor.call_function(fn, [state["total"], item], {})
        return state["total"]
    return LazyIteratorVariable(step, itertools.accumulate)


def b_zip_longest(executor, *iterables, fillvalue=None):
    fill = fillvalue if fillvalue is not None else const(None)
    its: list = [_iter(executor, i) for i in iterables]
    active = [len(its)]

    def step():   # CPython's zip_longest_next: stops at once when the last input ends
        if not its or active[0] == 0:
            return None
        out = []
        for k, it in enumerate(its):
            if it is None:
                out.append(fill)
                continue
            item = it.next()
            if item is None:
                active[0] -= 1
                if active[0] == 0:
                    return None
                its[k] = None
                item = fill
            out.append(item)
        return TupleVariable(out)
    return LazyIteratorVariable(step, itertools.zip_longest)


def b_repeat(executor, obj, times=None):
    n = _int(times, "repeat", None)
    if n is None:
        return LazyIteratorVariable(_bounded(lambda: obj, "repeat"), itertools.repeat)
    return IteratorVariable([obj] * max(n, 0), itertools.repeat)


def b_pairwise(executor, iterable):
    it = _iter(executor, iterable)
    state = {"old": None}

    def step():
        if state["old"] is None:
            state["old"] = it.next()
            if state["old"] is None:
                return None
        new = it.next()
        if new is None:
            return None
        pair = TupleVariable([state["old"], new])
        state["old"] = new
        return pair
    return LazyIteratorVariable(step, itertools.pairwise)


def b_starmap(executor, fn, iterable):
    it = _iter(executor, iterable)

    def step():
        item = it.next()
        if item is None:
            return None
        if not isinstance(item, TupleVariable) or item.python_type() is not tuple:
            raise FallbackError(UNSUPPORTED_CALL, f"starmap over {item.describe()}")
        return executor.call_function(fn, list(item.items), {})
    return LazyIteratorVariable(step, itertools.starmap)


def b_takewhile(executor, pred, iterable):
    it = _iter(executor, iterable)

    def step():
        item = it.next()
        if item is None or not executor.call_function(pred, [item], {}).truth():
            return None       # LazyIteratorVariable stops stepping after a None, as takewhile does
        return item
    return LazyIteratorVariable(step, itertools.takewhile)


def b_compress(executor, data, selectors):
    items, flags = _iter(executor, data), _iter(executor, selectors)

    def step():   # CPython's compress_next: a datum, then its selector, until either ends
        while (item := items.next()) is not None:
            flag = flags.next()
            if flag is None:
                return None
            if user_protocols.truth(executor, flag):
                return item
        return None
    return LazyIteratorVariable(step, itertools.compress)


def _kept(executor, pred, item) -> bool:
    """The truth filterfalse/dropwhile read: of the item itself where pred is None."""
    if isinstance(pred, ConstVariable) and pred.value is None:
        return user_protocols.truth(executor, item)
    return user_protocols.truth(executor, executor.call_function(pred, [item], {}))


def b_filterfalse(executor, pred, iterable):
    it = _iter(executor, iterable)

    def step():
        while (item := it.next()) is not None:
            if not _kept(executor, pred, item):
                return item
        return None
    return LazyIteratorVariable(step, itertools.filterfalse)


def b_dropwhile(executor, pred, iterable):
    it, dropping = _iter(executor, iterable), [True]

    def step():
        while (item := it.next()) is not None:
            if not dropping[0] or not user_protocols.truth(executor, executor.call_function(pred, [item], {})):
                dropping[0] = False
                return item
        return None
    return LazyIteratorVariable(step, itertools.dropwhile)


def b_count(executor, start=None, step=None):
    first, by = _int(start, "count", 0), _int(step, "count", 1)
    state = [first]

    def next_value():
        value = state[0]
        state[0] += by
        return const(value)
    return LazyIteratorVariable(_bounded(next_value, "count"), itertools.count)


def b_cycle(executor, iterable):
    state = {"it": _iter(executor, iterable), "index": 0}
    saved: list = []

    def step():   # CPython's cycle_next: the first pass saves, later passes replay
        if state["it"] is not None:
            item = state["it"].next()
            if item is not None:
                saved.append(item)
                return item
            state["it"] = None
        if not saved:
            return None
        item = saved[state["index"]]
        state["index"] = (state["index"] + 1) % len(saved)
        return item
    return LazyIteratorVariable(_bounded(step, "cycle"), itertools.cycle)


def register(table: dict) -> None:
    table.update({
        itertools.product: b_product, itertools.combinations: b_combinations,
        itertools.permutations: b_permutations, itertools.chain: b_chain, itertools.islice: b_islice,
        itertools.accumulate: b_accumulate, itertools.zip_longest: b_zip_longest, itertools.repeat: b_repeat,
        itertools.starmap: b_starmap, itertools.takewhile: b_takewhile, itertools.count: b_count,
        itertools.cycle: b_cycle, itertools.combinations_with_replacement: b_combinations_with_replacement,
        itertools.compress: b_compress, itertools.filterfalse: b_filterfalse, itertools.dropwhile: b_dropwhile,
    })
    if hasattr(itertools, "pairwise"):   # 3.10+
        table[itertools.pairwise] = b_pairwise
