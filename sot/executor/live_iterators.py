"""Iterators over mutable containers, live as CPython's are.

`iter(a)` over a list reads the list at each step: an item appended after
the iterator was made is still yielded, one removed before it is reached
is not (`for v in a: a.append(...)` loops over the new items too), and an
iterator that reported the end stays at the end. A dict or set iterator
raises RuntimeError on the first step after the container changed size;
a dict view (`d.keys()`, `d.values()`, `d.items()`) shows the dict as it
is when it is read. An array's rows, ``a.flat`` and ``np.ndenumerate(a)``
read item k at step k, after what the loop body wrote into the array
(ReadingIteratorVariable). A snapshot of the items taken when the iterator was
made gave eager's answer only while the container did not change.

Where CPython's answer depends on its table layout (a dict or set that
kept its size but changed its keys), the step is not modelled: the
region runs natively.
"""
from __future__ import annotations

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .variables import ConstVariable, TupleVariable, Variable
from .variables.containers import SteppedIterator

LIST_ITERATOR = type(iter([]))
LIST_REVERSE_ITERATOR = type(reversed([]))
DICT_ITERATORS = {"keys": type(iter({})), "values": type(iter({}.values())), "items": type(iter({}.items()))}
DICT_REVERSE_ITERATORS = {kind: type(reversed(getattr({}, kind)())) for kind in DICT_ITERATORS}
SET_ITERATOR = type(iter(set()))


def list_iterator_at(seq: list, index: int, reverse: bool):
    """The real iterator a ListIteratorVariable stands for (runtime helper of
    the rebuilt frame state): over `seq`, at `index`."""
    it = reversed(seq) if reverse else iter(seq)
    it.__setstate__(index)
    return it


def dict_iterator_at(d: dict, kind: str, pos: int, reverse: bool = False):
    """The real iterator over `d` (unchanged since the trace made its
    iterator) after `pos` steps."""
    it = (reversed if reverse else iter)(getattr(d, kind)())
    for _ in range(pos):
        next(it)
    return it


class ListIteratorVariable(SteppedIterator):
    """`iter(list)` / `reversed(list)`: CPython's listiterator, index by index."""

    def __init__(self, seq, reverse: bool = False):
        super().__init__([], LIST_REVERSE_ITERATOR if reverse else LIST_ITERATOR)
        self.seq = seq
        self.reverse = reverse
        self.index = len(seq.items) - 1 if reverse else 0
        self.done = False

    def next(self) -> Variable | None:
        if self.done:
            return None
        items = self.seq.items
        if 0 <= self.index < len(items):
            item = items[self.index]
            self.index += -1 if self.reverse else 1
            return item
        self.done = True   # CPython drops the list: the iterator stays exhausted
        return None

    def remaining(self) -> list[Variable]:
        items = self.seq.items
        if self.done or not 0 <= self.index < len(items):
            return []
        return items[self.index::-1] if self.reverse else items[self.index:]

    def rebuild(self, builder) -> str:
        if self.done:
            return f"{builder._bind(reversed if self.reverse else iter)}([])"
        return f"{builder._bind(list_iterator_at)}({builder.expr(self.seq)}, {self.index}, {self.reverse})"


def _size_changed(what: str):
    from . import exceptions
    from .signals import RaiseSignal
    return RaiseSignal(exceptions.ExceptionVariable(RuntimeError, [ConstVariable(f"{what} changed size during iteration")]))


class DictIteratorVariable(SteppedIterator):
    """`iter(d)`, `iter(d.values())`, `iter(d.items())` over a DictVariable
    (`reverse`: `reversed()` of the dict or of the view)."""

    def __init__(self, d, kind: str = "keys", reverse: bool = False):
        super().__init__([], (DICT_REVERSE_ITERATORS if reverse else DICT_ITERATORS)[kind])
        self.dict = d
        self.what = kind
        self.reverse = reverse
        self.keys = self._order()
        self.pos = 0
        self.done = False
        self.broken = False   # changed size: every later step raises (CPython's sticky state)

    def _order(self) -> list:
        keys = list(self.dict.entries)
        return keys[::-1] if self.reverse else keys

    def _changed(self) -> bool:
        entries = self.dict.entries
        if len(entries) != len(self.keys) or self.broken:
            self.broken = True
            return True
        if self._order() != self.keys:
            raise FallbackError(UNSUPPORTED_OBJECT, "a dict iterated over kept its size but changed its keys")
        return False

    def next(self) -> Variable | None:
        if self.done:
            return None
        if self._changed():
            raise _size_changed("dictionary")
        if self.pos >= len(self.keys):
            self.done = True
            return None
        key = self.keys[self.pos]
        self.pos += 1
        return _entry(self.dict, key, self.what)

    def remaining(self) -> list[Variable] | None:
        if self.done:
            return []
        if len(self.dict.entries) != len(self.keys) or self._order() != self.keys:
            return None
        return [_entry(self.dict, k, self.what) for k in self.keys[self.pos:]]

    def rebuild(self, builder) -> str:
        make = builder._bind(reversed if self.reverse else iter)
        if self.done:
            return f"{make}({builder._bind(getattr)}({{}}, {self.what!r})())"
        if self.remaining() is None:
            raise FallbackError(UNSUPPORTED_OBJECT, "an iterator over a dict that changed cannot be rebuilt")
        return f"{builder._bind(dict_iterator_at)}({builder.expr(self.dict)}, {self.what!r}, {self.pos}, " \
            f"{self.reverse})"


def _entry(d, key, kind: str) -> Variable:
    if kind == "keys":
        return ConstVariable(key)
    if kind == "values":
        return d.entries[key]
    return TupleVariable([ConstVariable(key), d.entries[key]])


class SetIteratorVariable(SteppedIterator):
    """`iter(s)` over a SetVariable made in the frame (never rebuilt: see sets.py)."""

    def __init__(self, s):
        super().__init__([], SET_ITERATOR)
        from .identities import check_unordered   # here: identities imports classes (an import cycle)
        check_unordered(s.values, "iteration")
        self.set = s
        self.members = list(s.values)
        self.pos = 0
        self.done = False
        self.broken = False

    def next(self) -> Variable | None:
        if self.done:
            return None
        if len(self.set.values) != len(self.members) or self.broken:
            self.broken = True
            raise _size_changed("Set")
        if set(self.members) != self.set.values:
            raise FallbackError(UNSUPPORTED_OBJECT, "a set iterated over kept its size but changed its members")
        if self.pos >= len(self.members):
            self.done = True
            return None
        self.pos += 1
        return ConstVariable(self.members[self.pos - 1])

    def remaining(self) -> list[Variable] | None:
        if self.done:
            return []
        if self.set.values != set(self.members):
            return None
        return [ConstVariable(v) for v in self.members[self.pos:]]

    def rebuild(self, builder) -> str:
        raise FallbackError(UNSUPPORTED_OBJECT, "an iterator over a set created during the trace cannot be rebuilt")


def advanced(iterator, steps: int):
    """`iterator` after `steps` items were taken (runtime helper of a rebuilt
    ReadingIteratorVariable)."""
    for _ in range(steps):
        next(iterator, None)
    return iterator


class ReadingIteratorVariable(SteppedIterator):
    """An iterator over `count` items of an array (its rows, its .flat,
    np.ndenumerate): item k is read (`read(k)`) when step k is taken, so a
    loop that writes into the array sees its writes (`for v in x: x[-1] += v`
    summed stale values when every row was read as the loop started).
    `fresh(builder)`: the source of a new eager iterator of the same kind,
    which a rebuild advances to where the trace is."""

    def __init__(self, count: int, read, kind: type, fresh):
        super().__init__([], kind)
        self.count, self.read, self.fresh = count, read, fresh

    def next(self) -> Variable | None:
        if self.pos >= self.count:
            return None
        self.pos += 1
        return self.read(self.pos - 1)

    def remaining(self) -> list[Variable]:
        return [self.read(i) for i in range(self.pos, self.count)]

    def rebuild(self, builder) -> str:
        return f"{builder._bind(advanced)}({builder._bind(iter)}({self.fresh(builder)}), {self.pos})"
