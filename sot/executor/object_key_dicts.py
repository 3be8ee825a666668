"""Dicts made in the trace keyed by objects made in the trace: ``{node: v}``
for objects whose class keeps object's ``__hash__`` and ``__eq__`` (the
identity decides every lookup, as eagerly; identities.IdKey stands for the
object), beside plain constant keys.

`ObjectKeyDict` is made by a dict display or comprehension holding such a
key (`make` / `map_add`); a plain dict the trace already holds elsewhere
(``d = {}; d[node] = v``) stays a DictVariable and that store breaks, since
the Variable others hold cannot change kind. The model answers what is
decided by the keys' identity alone: items, ``in``, ``len``, get / pop /
setdefault / keys / values / items, iteration in insertion order (a size
change between steps falls back: eager raises RuntimeError there). A missing
key, anything else (``str(d)``, ``==``, ``update``), breaks, and the dict is
rebuilt for the native code with its keys' objects in eager's order.

A key whose class defines ``__hash__`` or ``__eq__`` is not modelled: which
of them runs, how often and in which order is observable, and follows the
hash table's collisions.
"""
from __future__ import annotations

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from .identities import identity_hashed, member_key
from .variables import BuiltinMethodVariable, ConstVariable, DictVariable, TupleVariable, Variable
from .variables.containers import SteppedIterator
from .variables.modelled import ModelledObject

_METHODS = frozenset(("keys", "values", "items", "get", "pop", "setdefault"))
_VIEW_TYPES = {kind: type(getattr({}, kind)()) for kind in ("keys", "values", "items")}
_ITER_TYPES = {kind: type(iter(getattr({}, kind)())) for kind in ("keys", "values", "items")}


def _key(graph, var: Variable):
    """The simulation's key for `var`: an IdKey for an identity-hashed object
    made in the trace, the constant for a plain one; else the lookup breaks."""
    from .handlers.operators import dict_key
    if identity_hashed(var):
        return member_key(var, graph)   # (guards that the class keeps object's __hash__/__eq__)
    return dict_key(var)


def _graph(executor):
    """The simulating graph (None where a caller asks without one: an object
    key then breaks, in member_key)."""
    return executor.graph if executor is not None else None


def make(graph, keys, values) -> Variable:
    """The dict of a display (BUILD_MAP): a DictVariable unless a key is an
    identity-hashed object made in the trace."""
    from .handlers.operators import dict_key
    if not any(identity_hashed(k) for k in keys):
        return DictVariable({dict_key(k): v for k, v in zip(keys, values)})
    d = ObjectKeyDict()
    for k, v in zip(keys, values):
        d.store(graph, k, v)
    return d


def map_add(ex, depth: int, key: Variable, value: Variable) -> None:
    """MAP_ADD of a dict comprehension: its dict is only on the stack, so it
    becomes an ObjectKeyDict at its first object key."""
    from .handlers.operators import dict_key
    target = ex.peek(depth)
    if type(target) is DictVariable and target.tracker is None and identity_hashed(key):
        target = ObjectKeyDict.of(ex.graph, target)
        ex.stack[-depth] = target
    if isinstance(target, ObjectKeyDict):
        target.store(ex.graph, key, value)
    else:
        target.entries[dict_key(key)] = value


def _rebuilt(flat):
    it = iter(flat)
    return dict(zip(it, it))


class ObjectKeyDict(ModelledObject, Variable):
    def __init__(self):
        Variable.__init__(self, None)
        self.table: dict = {}   # key (constant or IdKey) -> [key Variable, value Variable]
        self.version = 0        # bumped when the size changes (iterators check it)

    @classmethod
    def of(cls, graph, d: DictVariable) -> "ObjectKeyDict":
        new = cls()
        for k, v in d.entries.items():
            new.table[k] = [ConstVariable(k), v]
        return new

    def store(self, graph, key: Variable, value: Variable) -> None:
        k = _key(graph, key)
        if k in self.table:
            self.table[k][1] = value   # the first key object stays, as eagerly
        else:
            self.table[k] = [key, value]
            self.version += 1

    def python_type(self):
        return dict

    def truth(self) -> bool:
        return bool(self.table)

    def describe(self) -> str:
        return f"dict of {len(self.table)} with object keys"

    def rebuild(self, builder) -> str:
        flat = "".join(f"{builder.expr(k)}, {builder.expr(v)}, " for k, v in self.table.values())
        return f"{builder._bind(_rebuilt)}(({flat}))"

    def _found(self, graph, key: Variable, what: str):
        k = _key(graph, key)
        if k not in self.table:
            raise FallbackError(UNSUPPORTED_OBJECT, f"{what} of a missing key of {self.describe()} (eager raises)")
        return k

    # -- the hooks dispatch asks -------------------------------------------------------
    def getitem(self, executor, key):
        return self.table[self._found(_graph(executor), key, "indexing")][1]

    def setitem(self, executor, key, value):
        self.store(_graph(executor), key, value)
        return True

    def delitem(self, executor, key):
        del self.table[self._found(_graph(executor), key, "del")]
        self.version += 1
        return True

    def contains(self, executor, item):
        return _key(_graph(executor), item) in self.table

    def length(self, executor):
        return ConstVariable(len(self.table))

    def iterate(self, executor):
        return ObjectKeyIterator(self, "keys")

    def attribute(self, executor, name):
        if name in _METHODS:
            return BuiltinMethodVariable(self, name)
        return NotImplemented

    def method(self, executor, name, args, kwargs):
        if kwargs:
            return NotImplemented
        graph = _graph(executor)
        if name in ("keys", "values", "items") and not args:
            return ObjectKeyView(self, name)
        if name == "get" and len(args) in (1, 2):
            k = _key(graph, args[0])
            return self.table[k][1] if k in self.table else (args[1] if len(args) == 2 else ConstVariable(None))
        if name == "pop" and len(args) in (1, 2):
            k = _key(graph, args[0])
            if k not in self.table:
                if len(args) == 2:
                    return args[1]
                raise FallbackError(UNSUPPORTED_OBJECT, f"dict.pop of a missing key of {self.describe()} "
                                    "(eager raises)")
            self.version += 1
            return self.table.pop(k)[1]
        if name == "setdefault" and len(args) in (1, 2):
            k = _key(graph, args[0])
            if k not in self.table:
                self.store(graph, args[0], args[1] if len(args) == 2 else ConstVariable(None))
            return self.table[k][1]
        if name in ("get", "pop", "setdefault"):
            raise FallbackError(UNSUPPORTED_CALL, f"dict.{name} with {len(args)} arguments (eager raises)")
        return NotImplemented   # the generic path breaks


class ObjectKeyView(ModelledObject, Variable):
    """keys()/values()/items() of an ObjectKeyDict: sized and iterable."""

    def __init__(self, d: ObjectKeyDict, kind: str):
        Variable.__init__(self, None)
        self.d, self.kind = d, kind

    def python_type(self):
        return _VIEW_TYPES[self.kind]

    def truth(self) -> bool:
        return bool(self.d.table)

    def describe(self) -> str:
        return f"{self.kind}() of {self.d.describe()}"

    def rebuild(self, builder) -> str:
        return f"{builder.expr(self.d)}.{self.kind}()"

    def length(self, executor):
        return self.d.length(executor)

    def contains(self, executor, item):
        if self.kind == "keys":
            return self.d.contains(executor, item)
        return NotImplemented

    def iterate(self, executor):
        return ObjectKeyIterator(self.d, self.kind)


def _iterator_at(d, kind: str, index: int):
    it = iter(getattr(d, kind)())
    for _ in range(index):
        next(it)
    return it


class ObjectKeyIterator(SteppedIterator):
    """An iterator over an ObjectKeyDict (or a view of it), step by step."""

    def __init__(self, d: ObjectKeyDict, kind: str):
        super().__init__([], _ITER_TYPES[kind])
        self.d, self.kind, self.index, self.version = d, kind, 0, d.version

    def _check(self) -> None:
        if self.d.version != self.version:
            raise FallbackError(UNSUPPORTED_OBJECT, "a dict resized while iterated (eager raises RuntimeError)")

    def next(self):
        self._check()
        pairs = list(self.d.table.values())
        if self.index >= len(pairs):
            return None
        k, v = pairs[self.index]
        self.index += 1
        return k if self.kind == "keys" else v if self.kind == "values" else TupleVariable([k, v])

    def remaining(self):
        self._check()
        pairs = list(self.d.table.values())[self.index:]
        return [k if self.kind == "keys" else v if self.kind == "values" else TupleVariable([k, v])
                for k, v in pairs]

    def rebuild(self, builder) -> str:
        self._check()
        return f"{builder._bind(_iterator_at)}({builder.expr(self.d)}, {self.kind!r}, {self.index})"


__all__ = ["ObjectKeyDict", "make", "map_add"]
