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

import types

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from .identities import IdKey, identity_hashed, member_key
from .variables import BoundMethodVariable, BuiltinMethodVariable, ConstVariable, DictVariable, TupleVariable, Variable
from .variables.containers import SteppedIterator
from .variables.modelled import ModelledObject

_METHODS = frozenset(("keys", "values", "items", "get", "pop", "setdefault"))
_VIEW_TYPES = {kind: type(getattr({}, kind)()) for kind in ("keys", "values", "items")}
_ITER_TYPES = {kind: type(iter(getattr({}, kind)())) for kind in ("keys", "values", "items")}


class UserKey:
    """The table key of an object whose class defines __hash__ and __eq__ in
    Python: its hash (inlined once per lookup, as eagerly); equal only to
    itself (which stored key a lookup finds is decided by `_key`)."""
    __slots__ = ("var", "hash")

    def __init__(self, var: Variable, h: int):
        self.var, self.hash = var, h

    def __hash__(self) -> int:
        return self.hash


def user_hashed(v: Variable) -> bool:
    """An object made in the trace whose class defines __hash__ and __eq__ as Python functions."""
    from .classes import NewObjectVariable
    return isinstance(v, NewObjectVariable) and isinstance(getattr(v.cls, "__hash__", None), types.FunctionType) \
        and isinstance(getattr(v.cls, "__eq__", None), types.FunctionType)


def object_key(v: Variable) -> bool:
    return identity_hashed(v) or user_hashed(v)


def _key(executor, var: Variable, table: dict):
    """The key of `table` that `var` finds (or, when none, a new key for it),
    as CPython's lookup decides: an IdKey for an identity-hashed object, the
    constant for a plain one, a UserKey for a user-hashed object, whose
    __hash__ and (for each stored key of the same hash, in insertion order)
    __eq__ are inlined. What a hash the trace cannot know (an address) might
    collide with breaks."""
    from .handlers.operators import dict_key
    graph = _graph(executor)
    users = [k for k in table if type(k) is UserKey]
    if identity_hashed(var):
        if users:
            raise FallbackError(UNSUPPORTED_OBJECT, "a dict mixing identity-hashed and user-hashed object keys: "
                                "whether their hashes collide is not known")
        return member_key(var, graph)   # (guards that the class keeps object's __hash__/__eq__)
    if not user_hashed(var):
        value = dict_key(var)
        if any(k.hash == hash(value) for k in users):
            raise FallbackError(UNSUPPORTED_OBJECT, f"a dict key {value!r} of the same hash as a user-hashed key")
        return value
    if executor is None or any(type(k) is IdKey for k in table):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{var.describe()} as a key here is not modelled")
    from .identities import user_hash
    h = user_hash(executor, var).value
    for k in list(table):
        if type(k) is not UserKey:
            if hash(k) == h:
                raise FallbackError(UNSUPPORTED_OBJECT, f"{var.describe()} has the hash of the dict key {k!r}")
            continue
        if k.hash != h:
            continue
        if k.var is var:
            return k
        if _stored_equals(executor, k.var, var, table):
            return k
    return UserKey(var, h)


def _stored_equals(executor, stored: Variable, var: Variable, table: dict) -> bool:
    """``stored == var`` as the lookup runs it (the stored key's __eq__, inlined)."""
    from ..guards.tracker import AttrTracker, ConstTracker
    from .function_graph import function_variable
    if stored.cls is not var.cls:
        raise FallbackError(UNSUPPORTED_OBJECT, "dict keys of two classes with the same hash")
    eq = var.cls.__eq__
    tracker = AttrTracker(ConstTracker(var.cls), "__eq__")
    executor.graph.wrap(eq, tracker)   # identity-guarded: a replaced __eq__ is seen
    size = len(table)
    result = executor.call_function(BoundMethodVariable(function_variable(eq, tracker), stored), [var], {})
    if len(table) != size:
        raise FallbackError(UNSUPPORTED_OBJECT, "a key's __eq__ changed the dict (eager starts the lookup again)")
    if not (isinstance(result, ConstVariable) and type(result.value) is bool):
        raise FallbackError(UNSUPPORTED_OBJECT, f"__eq__ of {var.describe()} returned {result.describe()}")
    return result.value


def _graph(executor):
    """The simulating graph (None where a caller asks without one: an object
    key then breaks)."""
    return executor.graph if executor is not None else None


def make(executor, keys, values) -> Variable:
    """The dict of a display (BUILD_MAP): a DictVariable unless a key is an
    object made in the trace (identity-hashed or user-hashed)."""
    from .handlers.operators import dict_key
    if not any(object_key(k) for k in keys):
        return DictVariable({dict_key(k): v for k, v in zip(keys, values)})
    d = ObjectKeyDict()
    for k, v in zip(keys, values):
        d.store(executor, k, v)
    return d


def map_add(ex, depth: int, key: Variable, value: Variable) -> None:
    """MAP_ADD of a dict comprehension: its dict is only on the stack, so it
    becomes an ObjectKeyDict at its first object key."""
    from .handlers.operators import dict_key
    target = ex.peek(depth)
    if type(target) is DictVariable and target.tracker is None and object_key(key):
        target = ObjectKeyDict.of(target)
        ex.stack[-depth] = target
    if isinstance(target, ObjectKeyDict):
        target.store(ex, key, value)
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
    def of(cls, d: DictVariable) -> "ObjectKeyDict":
        new = cls()
        for k, v in d.entries.items():
            new.table[k] = [ConstVariable(k), v]
        return new

    def store(self, executor, key: Variable, value: Variable) -> None:
        k = _key(executor, key, self.table)
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
        if any(type(k) is UserKey for k in self.table):   # dict() would call their __hash__ (and __eq__) again
            raise FallbackError(UNSUPPORTED_OBJECT, f"{self.describe()} keyed by objects with a Python __hash__ "
                                "cannot be made again without calling it")
        flat = "".join(f"{builder.expr(k)}, {builder.expr(v)}, " for k, v in self.table.values())
        return f"{builder._bind(_rebuilt)}(({flat}))"

    def _found(self, executor, key: Variable, what: str):
        k = _key(executor, key, self.table)
        if k not in self.table:
            raise FallbackError(UNSUPPORTED_OBJECT, f"{what} of a missing key of {self.describe()} (eager raises)")
        return k

    # -- the hooks dispatch asks -------------------------------------------------------
    def getitem(self, executor, key):
        return self.table[self._found(executor, key, "indexing")][1]

    def setitem(self, executor, key, value):
        self.store(executor, key, value)
        return True

    def delitem(self, executor, key):
        del self.table[self._found(executor, key, "del")]
        self.version += 1
        return True

    def contains(self, executor, item):
        return _key(executor, item, self.table) in self.table

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
        if name in ("keys", "values", "items") and not args:
            return ObjectKeyView(self, name)
        if name == "get" and len(args) in (1, 2):
            k = _key(executor, args[0], self.table)
            return self.table[k][1] if k in self.table else (args[1] if len(args) == 2 else ConstVariable(None))
        if name == "pop" and len(args) in (1, 2):
            k = _key(executor, args[0], self.table)
            if k not in self.table:
                if len(args) == 2:
                    return args[1]
                raise FallbackError(UNSUPPORTED_OBJECT, f"dict.pop of a missing key of {self.describe()} "
                                    "(eager raises)")
            self.version += 1
            return self.table.pop(k)[1]
        if name == "setdefault" and len(args) in (1, 2):
            k = _key(executor, args[0], self.table)
            if k not in self.table:
                self.store(executor, args[0], args[1] if len(args) == 2 else ConstVariable(None))
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
