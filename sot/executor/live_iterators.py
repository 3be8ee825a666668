"""Iterators that read their container at each step, as CPython's do.

``for v in some_list`` and ``for v in array`` take item i when step i is
taken: a list iterator indexes the list (what the loop body appends,
removes or replaces is seen), an array iterator reads row i then (after
what the body wrote into the array). Taking every item when the loop
started gave silent wrong answers: ``for v in l: l.append(...)`` stopped at
the old length, ``for v in x: x[-1] += v`` summed stale values.

At a graph break such an iterator is rebuilt over the same container,
advanced to where the trace left it (`rebuild_iterator`), so the native code
that continues the loop keeps seeing the container as eager does.
"""
from __future__ import annotations

import numpy as np

from .variables import IteratorVariable


def advanced(iterator, steps: int):
    """`iterator` after `steps` items were taken (the rebuilt form)."""
    for _ in range(steps):
        next(iterator, None)
    return iterator


class ListIteratorVariable(IteratorVariable):
    """iter(list): the list's item at `pos`, read at each step. Once
    exhausted it stays exhausted, even if the list grows, as CPython's."""

    live = True

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

    @property
    def items(self):
        out = []
        while (item := self.next()) is not None:
            out.append(item)
        return out

    def remaining(self):
        return [] if self.done else list(self.seq.items[self.pos:])

    def rebuild_iterator(self, builder) -> str:
        if self.done:
            return f"{builder._bind(iter)}([])"
        return f"{builder._bind(advanced)}({builder._bind(iter)}({builder.expr(self.seq)}), {self.pos})"


class RowIteratorVariable(IteratorVariable):
    """iter(array) over its first axis: row i is read (`read(i)`) when
    step i is taken."""

    live = True

    def __init__(self, tensor, count: int, read):
        super().__init__([], type(iter(np.empty(0))))
        self.tensor, self.count, self.read = tensor, count, read

    def next(self):
        if self.pos >= self.count:
            return None
        self.pos += 1
        return self.read(self.pos - 1)

    @property
    def items(self):
        out = []
        while (item := self.next()) is not None:
            out.append(item)
        return out

    def remaining(self):
        return [self.read(i) for i in range(self.pos, self.count)]

    def rebuild_iterator(self, builder) -> str:
        return f"{builder._bind(advanced)}({builder._bind(iter)}({builder.expr(self.tensor)}), {self.pos})"
