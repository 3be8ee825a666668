"""itertools iterators that share one input: groupby (and its groupers) and
tee, stepped as CPython's C code steps them (Modules/itertoolsmodule.c).

The groupby and its groupers share one position in the input: advancing
the groupby ends the current group's grouper, and a grouper takes items only
while the key equals its target. Keys are compared as CPython does (`is`,
then `==`), so they must be plain constants; a key computed in the graph
breaks (comparing it needs its data).

tee's iterators share a buffer: the one furthest ahead takes the next item
from the input, when it is asked for, so the input is stepped where eager
steps it. None of these is rebuilt after the graph (a break there).
"""
from __future__ import annotations

import itertools

from ..breaks.reasons import DATA_DEPENDENT, UNSUPPORTED_OBJECT, FallbackError
from .variables import ConstVariable, TupleVariable
from .variables.containers import SteppedIterator

GROUPER = type(next(itertools.groupby([0]))[1])


class GroupByVariable(SteppedIterator):
    def __init__(self, executor, it, keyfunc):
        super().__init__([], itertools.groupby)
        self.executor, self.it, self.keyfunc = executor, it, keyfunc
        self.tgtkey = self.currkey = self.currvalue = None
        self.currgrouper = None

    def step(self) -> bool:
        """groupby_step: False at the end of the input."""
        value = self.it.next()
        if value is None:
            return False
        key = value if self.keyfunc is None else self.executor.call_function(self.keyfunc, [value], {})
        self.currvalue, self.currkey = value, key
        return True

    def next(self):
        self.currgrouper = None
        while True:
            if self.currkey is None:
                pass
            elif self.tgtkey is None or not keys_equal(self.tgtkey, self.currkey):
                break
            if not self.step():
                return None
        self.tgtkey = self.currkey
        grouper = GrouperVariable(self, self.tgtkey)
        self.currgrouper = grouper
        return TupleVariable([self.currkey, grouper])

    def rebuild(self, builder) -> str:
        raise FallbackError(UNSUPPORTED_OBJECT, "a groupby alive after the graph cannot be rebuilt")


class GrouperVariable(SteppedIterator):
    def __init__(self, parent: GroupByVariable, tgtkey):
        super().__init__([], GROUPER)
        self.parent, self.tgtkey = parent, tgtkey

    def next(self):
        p = self.parent
        if p.currgrouper is not self:
            return None
        if p.currvalue is None and not p.step():
            return None
        if not keys_equal(self.tgtkey, p.currkey):
            return None
        value, p.currvalue = p.currvalue, None
        return value

    def rebuild(self, builder) -> str:
        raise FallbackError(UNSUPPORTED_OBJECT, "a groupby group alive after the graph cannot be rebuilt")


def keys_equal(a, b) -> bool:
    """PyObject_RichCompareBool(a, b, Py_EQ) of two keys."""
    if a is b:
        return True
    from . import dispatch
    dispatch.concrete("groupby keys", a, b)
    if not (isinstance(a, ConstVariable) and isinstance(b, ConstVariable)):
        raise FallbackError(DATA_DEPENDENT, "groupby keys that are not Python constants are compared by their data")
    from .pyidentity import items_equal
    return items_equal(a, b)


def b_groupby(executor, iterable, key=None):
    from . import dispatch
    if isinstance(key, ConstVariable) and key.value is None:
        key = None
    return GroupByVariable(executor, dispatch.get_iter(executor.graph, iterable), key)


TEE = type(itertools.tee(())[0])


class TeeIteratorVariable(SteppedIterator):
    def __init__(self, source, buffer: list):
        super().__init__([], TEE)
        self.source, self.buffer, self.index = source, buffer, 0

    def next(self):
        if self.index == len(self.buffer):
            item = self.source.next()
            if item is None:
                return None
            self.buffer.append(item)
        self.index += 1
        return self.buffer[self.index - 1]

    def remaining(self):
        return None

    def rebuild(self, builder) -> str:
        raise FallbackError(UNSUPPORTED_OBJECT, "a tee iterator alive after the graph cannot be rebuilt")


def b_tee(executor, iterable, n=None):
    from . import dispatch
    count = 2 if n is None else n.value if isinstance(n, ConstVariable) and type(n.value) is int else None
    if count is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"tee() with n={n.describe()}, not a constant int")
    if count < 0:
        return dispatch.python_op(itertools.tee, (), count)   # ValueError, as eager
    it = dispatch.get_iter(executor.graph, iterable)
    if isinstance(it, TeeIteratorVariable):
        raise FallbackError(UNSUPPORTED_OBJECT, "tee() of a tee iterator (it copies the iterator) is not modelled")
    buffer: list = []
    return TupleVariable([TeeIteratorVariable(it, buffer) for _ in range(count)])


def register(table: dict) -> None:
    table[itertools.groupby] = b_groupby
    table[itertools.tee] = b_tee
