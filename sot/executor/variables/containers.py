"""tuple, list, dict and iterators over them."""
from __future__ import annotations

from ...breaks.reasons import SIDE_EFFECT, FallbackError
from .base import Variable
from .basic import ConstVariable


class TupleVariable(Variable):
    def __init__(self, items: list[Variable], tracker=None):
        super().__init__(tracker)
        self.items = list(items)

    def python_type(self):
        return tuple

    def truth(self) -> bool:
        return bool(self.items)


class _MutableContainer(Variable):
    """A container that existed before the frame (it has a tracker) is
    mutated during simulation only where its graph's SideEffects records
    the mutation for replay (executor/side_effects.py); otherwise the
    mutation breaks the graph."""

    effects = None   # () -> the SideEffects of the graph that wrapped it (a weak reference)
    mutated = False

    def check_mutable(self, what: str):
        if self.tracker is None:
            return
        effects = self.effects() if self.effects is not None else None
        if effects is None:
            kind = self.python_type().__name__
            raise FallbackError(SIDE_EFFECT, f"{what} mutates {self.tracker.name()}, a {kind} from outside the function")
        effects.mutate(self, what)


class ListVariable(_MutableContainer):
    """A list.

    A list from outside the frame (`from_source`) is guarded by its type
    only until the trace reads its contents: `items` is then loaded, which
    guards its length and wraps each element. A trace that only passes the
    list on or calls a method that breaks (`acc.append(y)` on an argument)
    therefore holds for the next call, when the list has grown."""

    def __init__(self, items: list[Variable], tracker=None):
        super().__init__(tracker)
        self._items = list(items)
        self._load = None
        self.pending: list[tuple] = []   # growth before the items were read: (method, args), side_effects.py
        self.original = None             # the items as loaded, for one from outside

    source_value = None  # the real list, for one from outside the frame
    #: wrapped from a real list without a tracker (factory.list_): which
    #: object it is is not known, so it is not certainly a new one
    wrapped = False

    def is_new(self) -> bool:
        """Made by the trace (a display, list(), a slice, copy(), sorted(),
        a comprehension): one Variable per list, and no list that existed
        before is it, since each of those makes a fresh object in CPython."""
        return self.tracker is None and not self.wrapped

    @classmethod
    def from_source(cls, tracker, load, value=None) -> "ListVariable":
        """The list reached through `tracker`; `load()` guards and wraps its items."""
        var = cls([], tracker)
        var._items, var._load = None, load
        var.source_value = value
        return var

    @property
    def loaded(self) -> bool:
        """Whether the items were read (and guarded) by the trace."""
        return self._items is not None

    @property
    def items(self) -> list[Variable]:
        if self._items is None:
            loaded = list(self._load())
            self.original = list(loaded)
            for name, args in self.pending:
                getattr(loaded, name)(*args)
            self._items, self._load = loaded, None
        return self._items

    #: methods that grow a list the same way whatever its length
    GROWING = ("append", "extend", "insert")

    def grow(self, name: str, args: tuple) -> None:
        """``list.append/extend/insert`` (extend: a list of Variables; insert:
        a constant index): on a list from outside whose items the trace has
        not read, recorded without reading them (no length guard: a list
        that grows on every call does not retranslate); replayed as is."""
        if self._items is None:
            self.pending.append((name, args))
        else:
            getattr(self._items, name)(*args)

    def pending_growth(self) -> int:
        return sum(len(args[0]) if name == "extend" else 1 for name, args in self.pending)

    @items.setter
    def items(self, items: list[Variable]) -> None:
        self._items, self._load = list(items), None

    def python_type(self):
        return list

    def truth(self) -> bool:
        return bool(self.items)


class DictVariable(_MutableContainer):
    """A dict with constant keys; `entries` maps the real key to a Variable.

    A plain dict from outside the frame is read key by key while `lazy` is
    set (executor/dict_data.py); `entries` then loads all of it."""

    lazy = None

    def __init__(self, entries: dict, tracker=None):
        super().__init__(tracker)
        self._entries = dict(entries)

    @property
    def entries(self) -> dict:
        if self._entries is None:
            self._entries, self.original = self.lazy.load()
            self.lazy = None
        return self._entries

    @entries.setter
    def entries(self, entries: dict) -> None:
        self._entries, self.lazy = entries, None

    def python_type(self):
        return dict

    def truth(self) -> bool:
        return bool(self.entries)


class DictViewVariable(Variable):
    """dict.keys()/values()/items(): iterable and sized, nothing else; a
    view of the DictVariable, read when it is used (it sees later stores)."""

    def __init__(self, d: DictVariable, kind: str):
        super().__init__(None)
        self.dict = d
        self.kind = kind

    @property
    def items(self) -> list[Variable]:
        entries = self.dict.entries
        if self.kind == "keys":
            return [ConstVariable(k) for k in entries]
        if self.kind == "values":
            return list(entries.values())
        return [TupleVariable([ConstVariable(k), v]) for k, v in entries.items()]

    def python_type(self):
        return type(getattr({}, self.kind)())

    def truth(self) -> bool:
        return bool(self.dict.entries)


class IteratorVariable(Variable):
    """An iterator whose items are known at trace time (range, list, tuple,
    dict views, enumerate, zip, reversed, rows of an array).

    Reading `items` consumes what is left, as `list(it)` does; `remaining()`
    looks without consuming."""

    live = False   # True: reads its source at each step (lazy, or over a mutable container)
    origin = None  # (builder) -> source of a fresh one, as it was made (executor/iterator_rebuild.py)

    def __init__(self, items: list[Variable], kind: type = type(iter(()))):
        super().__init__(None)
        self._items = list(items)
        self.pos = 0
        self.kind = kind

    def python_type(self):
        return self.kind

    def truth(self) -> bool:
        return True

    def next(self) -> Variable | None:
        if self.pos >= len(self._items):
            return None
        self.pos += 1
        return self._items[self.pos - 1]

    @property
    def items(self) -> list[Variable]:
        rest = self._items[self.pos:]
        self.pos = len(self._items)
        return rest

    def remaining(self) -> list[Variable] | None:
        """What is left, without consuming it (None: not known without running code)."""
        return self._items[self.pos:]


class SteppedIterator(IteratorVariable):
    """An iterator whose items are taken by stepping (subclasses define
    `next`): `items` takes what is left, step by step, as `list(it)` does."""

    live = True

    @property
    def items(self) -> list[Variable]:
        out = []
        while (item := self.next()) is not None:
            out.append(item)
        return out


class LazyIteratorVariable(SteppedIterator):
    """An iterator whose next item is computed when it is asked for: map,
    filter, zip and enumerate over lazy iterators. Each step may run user
    code (inlined), so the steps happen where eager takes them."""

    #: (expr) -> source of the real iterator in this state, for the zip and
    #: enumerate of iterators that can be rebuilt (expr: a Variable's or a
    #: value's source); None: not rebuilt (map and filter would rerun code)
    rebuilt_as = None

    def __init__(self, step, kind: type):
        super().__init__([], kind)
        self._step = step   # () -> Variable, or None when exhausted
        self._done = False

    def next(self) -> Variable | None:
        if self._done:
            return None
        item = self._step()
        if item is None:
            self._done = True
        return item

    def remaining(self):
        return None
