"""collections.deque in a traced frame.

A deque is modelled as eager runs it: `DequeVariable.deque` is a real
``collections.deque`` of the Variables it holds, so maxlen, rotate and the
IndexError of an empty pop are CPython's own. One made during the trace that
outlives it is rebuilt after the graph (`rebuild`); one from outside is
guarded by its type and maxlen, then by its length and items when the trace
reads them, and its mutations are replayed after the graph (`replay`,
side_effects.py). Comparing items that are arrays computed in the graph
(count, index, remove, `in`, `==`) breaks: it needs their data. An iterator
over a deque mutated while iterated falls back (eager raises RuntimeError).
"""
from __future__ import annotations

import collections
import operator

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.guard import TypeGuard, ValueGuard
from ..guards.tracker import AttrTracker
from .collections_models import _int, _items, _no_kwargs, _op, _plain, const
from .variables import ConstVariable, ListVariable, TupleVariable
from .variables.containers import SteppedIterator, _MutableContainer
from .variables.modelled import ModelledObject

DEQUE_ITERATOR = type(iter(collections.deque()))
DEQUE_REVERSE_ITERATOR = type(reversed(collections.deque()))

class DequeVariable(_MutableContainer, ModelledObject):
    """A collections.deque; `deque` is a real deque of the Variables it holds."""

    source_value = None

    def __init__(self, items, maxlen: int | None = None, tracker=None):
        super().__init__(tracker)
        self.maxlen = maxlen
        self._deque = collections.deque(items, maxlen)
        self._load = None
        self.original = None      # the items as loaded, for one from outside
        self.version = 0          # bumped by every mutation (an iterator then raises, as CPython's)

    @classmethod
    def from_source(cls, tracker, load, value, maxlen) -> "DequeVariable":
        var = cls([], maxlen, tracker)
        var._deque, var._load, var.source_value = None, load, value
        return var

    @property
    def loaded(self) -> bool:
        return self._deque is not None

    @property
    def deque(self) -> collections.deque:
        if self._deque is None:
            items = list(self._load())
            self.original = list(items)
            self._deque, self._load = collections.deque(items, self.maxlen), None
        return self._deque

    @property
    def items(self) -> list[Variable]:
        return list(self.deque)

    def python_type(self):
        return collections.deque

    def truth(self) -> bool:
        return bool(self.deque)

    def describe(self) -> str:
        name = self.tracker.name() if self.tracker is not None else None
        return f"deque {name}" if name else "deque"

    def _mutating(self, what: str) -> collections.deque:
        self.check_mutable(what)
        self.version += 1
        return self.deque

    # -- rebuilt and replayed ------------------------------------------------------------
    def rebuild(self, builder) -> str:
        items = "".join(builder.expr(v) + ", " for v in self.deque)
        return f"{builder._bind(collections.deque)}(({items}), {self.maxlen!r})"

    def replay(self, builder) -> list[str]:
        """Statements bringing the deque from outside to the trace's final state."""
        if not self.loaded or [id(v) for v in self.original] == [id(v) for v in self.deque]:
            return []
        target = builder.expr(self)
        items = "".join(builder.expr(v) + ", " for v in self.deque)
        return [f"{target}.clear()", f"{target}.extend(({items}))"]

    def released(self) -> tuple[list, list]:
        """(items before, items after) for side_effects' release check."""
        return (list(self.original or ()), list(self.deque) if self.loaded else [])

    # -- hooks ---------------------------------------------------------------------------
    def attribute(self, executor, name):
        if name == "maxlen":
            return const(self.maxlen)
        if name in DEQUE_METHODS:
            from .variables import BuiltinMethodVariable
            return BuiltinMethodVariable(self, name)
        return NotImplemented

    def method(self, executor, name, args, kwargs):
        _no_kwargs(kwargs, f"deque.{name}")
        what = f"deque.{name}"
        if name in ("append", "appendleft"):
            getattr(self._mutating(what), name)(*args)
        elif name in ("extend", "extendleft"):
            items = _items(executor, args[0])
            getattr(self._mutating(what), name)(items)
        elif name in ("pop", "popleft"):
            if not self.deque:
                return _op(getattr(collections.deque(), name))   # IndexError, as eager
            return getattr(self._mutating(what), name)()
        elif name == "rotate":
            n = _int(args[0], "deque.rotate") if args else 1
            self._mutating(what).rotate(n)
        elif name in ("clear", "reverse"):
            getattr(self._mutating(what), name)()
        elif name in ("copy", "__copy__"):
            return DequeVariable(self.deque, self.maxlen)
        elif name == "insert":
            index = _int(args[0], "deque.insert")
            if self.maxlen is not None and len(self.deque) >= self.maxlen:
                return _op(collections.deque((), 0).insert, index, None)   # IndexError, as eager
            self._mutating(what).insert(index, args[1])
        elif name in ("count", "index", "remove"):
            return self._search(name, args)
        else:
            return NotImplemented
        return const(None)

    def _search(self, name, args):
        """count/index/remove: items compared with `is` first, then `==` (plain constants only)."""
        items = list(self.deque)
        values = _plain(items + [args[0]], f"deque.{name}")
        plain_deque = collections.deque(values[:-1])
        extra = [_int(a, f"deque.{name}") for a in args[1:]]
        if name == "count":
            return const(_op(plain_deque.count, values[-1]))
        index = _op(plain_deque.index, values[-1], *extra) if name == "index" else None
        if name == "index":
            return const(index)
        _op(plain_deque.remove, values[-1])   # ValueError, as eager
        found = values[:-1].index(values[-1])
        del self._mutating("deque.remove")[found]
        return const(None)

    def getitem(self, executor, key):
        if isinstance(key, ConstVariable):
            return _op(operator.getitem, self.deque, key.value)   # IndexError/TypeError as eager
        return NotImplemented

    def setitem(self, executor, key, value):
        if isinstance(key, ConstVariable) and type(key.value) is int:
            _op(operator.getitem, self.deque, key.value)   # IndexError before any mutation
            self._mutating("deque item assignment")[key.value] = value
            return None
        return NotImplemented

    def delitem(self, executor, key):
        if isinstance(key, ConstVariable) and type(key.value) is int:
            _op(operator.getitem, self.deque, key.value)
            del self._mutating("deque item deletion")[key.value]
            return None
        return NotImplemented

    def contains(self, executor, item):
        from .pyidentity import items_equal
        for x in self.deque:
            if x is item:
                return True
            if not (isinstance(x, ConstVariable) and isinstance(item, ConstVariable)):
                raise FallbackError(UNSUPPORTED_OBJECT, "`in` of a deque over items that are not Python constants")
            if items_equal(x, item):
                return True
        return False

    def length(self, executor):
        return const(len(self.deque))

    def iterate(self, executor):
        return DequeIteratorVariable(self, reverse=False)

    def reverse_iterate(self, executor):
        return DequeIteratorVariable(self, reverse=True)

    def binary(self, executor, name, other, left):
        if not left:
            return NotImplemented
        base = name[1:] if name in ("iadd", "imul") else name
        if base == "add" and isinstance(other, DequeVariable):
            if name == "iadd":
                self._mutating("deque +=").extend(list(other.deque))
                return self
            return DequeVariable(list(self.deque) + list(other.deque), self.maxlen)
        if base == "mul" and isinstance(other, ConstVariable) and type(other.value) is int:
            if name == "imul":
                items = list(self.deque) * other.value
                d = self._mutating("deque *=")
                d.clear()
                d.extend(items)
                return self
            return DequeVariable(list(self.deque) * other.value, self.maxlen)
        return NotImplemented

    def compare(self, executor, name, other, left):
        if not isinstance(other, DequeVariable):
            if name in ("eq", "ne") and (type(other) in (ListVariable, TupleVariable) or isinstance(other, ConstVariable)
                                         and type(other.value) in (int, float, str, bytes, bool, type(None), tuple)):
                return const(name == "ne")   # a deque equals only a deque
            return NotImplemented
        a, b = (self, other) if left else (other, self)
        av = collections.deque(_plain(a.deque, "deque comparison"))
        bv = collections.deque(_plain(b.deque, "deque comparison"))
        return const(_op(getattr(operator, name), av, bv))


DEQUE_METHODS = {"append", "appendleft", "extend", "extendleft", "pop", "popleft", "rotate", "clear", "reverse",
                 "copy", "insert", "count", "index", "remove", "__copy__"}


class DequeIteratorVariable(SteppedIterator):
    """iter(deque)/reversed(deque): index by index; a mutation of the deque
    between steps falls back (eager raises RuntimeError there)."""

    def __init__(self, d: DequeVariable, reverse: bool):
        super().__init__([], DEQUE_REVERSE_ITERATOR if reverse else DEQUE_ITERATOR)
        self.d, self.reverse, self.index, self.version = d, reverse, 0, d.version

    def next(self):
        if self.d.version != self.version:
            raise FallbackError(UNSUPPORTED_OBJECT, "a deque mutated while iterated (eager raises RuntimeError)")
        items = self.d.deque
        if self.index >= len(items):
            return None
        self.index += 1
        return items[-self.index] if self.reverse else items[self.index - 1]

    def remaining(self):
        rest = list(self.d.deque)
        rest = rest[::-1] if self.reverse else rest
        return rest[self.index:]

    def rebuild(self, builder) -> str:
        if self.d.version != self.version:
            raise FallbackError(UNSUPPORTED_OBJECT, "an iterator over a mutated deque cannot be rebuilt")
        return f"{builder._bind(deque_iterator_at)}({builder.expr(self.d)}, {self.index}, {self.reverse})"


def deque_iterator_at(d, index: int, reverse: bool):
    """The real iterator a DequeIteratorVariable stands for (runtime helper)."""
    it = reversed(d) if reverse else iter(d)
    for _ in range(index):
        next(it)
    return it


def b_deque(executor, iterable=None, maxlen=None):
    n = None if maxlen is None else _int(maxlen, "deque(maxlen=)", allow_none=True)
    if n is not None and n < 0:
        return _op(collections.deque, (), n)   # ValueError, as eager
    return DequeVariable(_items(executor, iterable) if iterable is not None else [], n)



def deque_input(graph, value, t, tracker):
    """A deque from outside: guarded by type and maxlen; its length and items when read."""
    if t is not collections.deque or tracker is None:
        return None
    import weakref
    from ..guards.guard import LenGuard
    from .function_graph import _item
    graph.add_guard(TypeGuard(tracker, t))
    graph.add_guard(ValueGuard(AttrTracker(tracker, "maxlen"), value.maxlen))
    ref = weakref.ref(graph)

    def load():
        g = ref()
        g.add_guard(LenGuard(tracker, value))
        return [g.wrap(v, _item(tracker, i)) for i, v in enumerate(value)]
    var = DequeVariable.from_source(tracker, load, value, value.maxlen)
    var.original = None
    return graph.mutable(var, value)


def register(table: dict) -> None:
    table[collections.deque] = b_deque
