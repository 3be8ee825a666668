"""Iterators that read their container at each step, as CPython's do.

``for v in some_list`` and ``for v in array`` take item i when step i is
taken: a list iterator indexes the list (what the loop body appends,
removes or replaces is seen), an array iterator reads row i then (after
what the body wrote into the array); the same for reversed(list), dicts
and their views, ``a.flat`` and ``np.ndenumerate(a)``; a set or dict
whose size changes meanwhile is eager's RuntimeError (the frame falls back). Taking every item when the loop
started gave silent wrong answers: ``for v in l: l.append(...)`` stopped at
the old length, ``for v in x: x[-1] += v`` summed stale values.

At a graph break such an iterator is rebuilt over the same container,
advanced to where the trace left it (`rebuild_iterator`), so the native code
that continues the loop keeps seeing the container as eager does.
"""
from __future__ import annotations

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .variables import IteratorVariable
from .variables.containers import view_items


def advanced(iterator, steps: int):
    """`iterator` after `steps` items were taken (the rebuilt form)."""
    for _ in range(steps):
        next(iterator, None)
    return iterator


class _Stepping(IteratorVariable):
    """Its items are taken one `next()` at a time, also by `items` (the
    rest, consumed) and by enumerate/zip over it (calls.py: `live`)."""

    live = True

    @property
    def items(self):
        out = []
        while (item := self.next()) is not None:
            out.append(item)
        return out


class ListIteratorVariable(_Stepping):
    """iter(list): the list's item at `pos`, read at each step. Once
    exhausted it stays exhausted, even if the list grows, as CPython's."""


    def __init__(self, seq):
        super().__init__([], type(iter([])))
        self.seq = seq
        self.done = False

    def next(self):
        if self.done:
            return None
        items = self.seq.items
        if self.pos >= len(items):
            self.done = True
            return None
        self.pos += 1
        return items[self.pos - 1]

    def remaining(self):
        return [] if self.done else list(self.seq.items[self.pos:])

    def rebuild_iterator(self, builder) -> str:
        if self.done:
            return f"{builder._bind(iter)}([])"
        return f"{builder._bind(advanced)}({builder._bind(iter)}({builder.expr(self.seq)}), {self.pos})"


class ReversedListIteratorVariable(_Stepping):
    """reversed(list): from the last index down, each item read when its
    step is taken; an index past the list's end (it shrank) ends it, as
    CPython's list_reverseiterator."""


    def __init__(self, seq):
        super().__init__([], type(reversed([])))
        self.seq = seq
        self.index = len(seq.items) - 1

    def next(self):
        items = self.seq.items
        if not 0 <= self.index < len(items):
            self.index = -1
            return None
        self.index -= 1
        return items[self.index + 1]

    def remaining(self):
        items = self.seq.items
        return [items[i] for i in range(self.index, -1, -1)] if self.index < len(items) else []

    def rebuild_iterator(self, builder) -> str:
        return f"{builder._bind(reversed_from)}({builder.expr(self.seq)}, {self.index})"


def reversed_from(seq: list, index: int):
    """A list_reverseiterator of `seq` whose next item is seq[index]."""
    it = reversed(seq)
    if not 0 <= index < len(seq):   # exhausted
        for _ in it:
            pass
        return it
    for _ in range(len(seq) - 1 - index):
        next(it, None)
    return it


_DICT_ITERATORS = {"keys": type(iter({}.keys())), "values": type(iter({}.values())),
                   "items": type(iter({}.items()))}


class DictIteratorVariable(_Stepping):
    """Iteration over a dict or one of its views: entry i of the dict as it
    is when step i is taken (values stored by the loop body are seen). A
    dict whose keys changed meanwhile raises RuntimeError eagerly: the
    frame then runs natively."""


    def __init__(self, dict_var, kind: str):
        super().__init__([], _DICT_ITERATORS[kind])
        self.dict, self.view_kind = dict_var, kind
        self.keys = list(dict_var.entries)

    def _check(self):
        if list(self.dict.entries) != self.keys:
            raise FallbackError(UNSUPPORTED_OBJECT, "the dict changed size or keys during iteration "
                                                    "(eagerly a RuntimeError)")

    def next(self):
        self._check()
        if self.pos >= len(self.keys):
            return None
        self.pos += 1
        return view_items(self.dict, self.view_kind)[self.pos - 1]

    def remaining(self):
        self._check()
        return view_items(self.dict, self.view_kind)[self.pos:]

    def rebuild_iterator(self, builder) -> str:
        view = f"{builder._bind(getattr)}({builder.expr(self.dict)}, {builder._bind(self.view_kind)})()"
        return f"{builder._bind(advanced)}({builder._bind(iter)}({view}), {self.pos})"


class SetIteratorVariable(_Stepping):
    """iter(set): its members in the order they were when it started; a set
    whose size changed meanwhile raises RuntimeError eagerly at the next
    step: the frame then runs natively."""


    def __init__(self, set_var):
        super().__init__(list(set_var.items), type(iter(set())))
        self.set = set_var

    def next(self):
        if len(self.set.items) != len(self._items):
            raise FallbackError(UNSUPPORTED_OBJECT, "the set changed size during iteration (eagerly a RuntimeError)")
        return super().next()


class ReadingIteratorVariable(_Stepping):
    """An iterator over `count` items of an array (its rows, its .flat,
    np.ndenumerate): item k is read (`read(k)`) when step k is taken.
    `fresh(builder)`: the source of a new eager iterator of the same kind,
    which a rebuild advances to where the trace is."""


    def __init__(self, count: int, read, kind: type, fresh):
        super().__init__([], kind)
        self.count, self.read, self.fresh = count, read, fresh

    def next(self):
        if self.pos >= self.count:
            return None
        self.pos += 1
        return self.read(self.pos - 1)

    def remaining(self):
        return [self.read(i) for i in range(self.pos, self.count)]

    def rebuild_iterator(self, builder) -> str:
        return f"{builder._bind(advanced)}({builder._bind(iter)}({self.fresh(builder)}), {self.pos})"
