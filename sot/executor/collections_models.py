"""collections.defaultdict, Counter, OrderedDict and ChainMap in a traced
frame (deque: collections_deque.py), and the helpers both share.

Each is modelled as eager runs it, on Variables: the dict kinds are
DictVariables whose missing-key and ordering rules are their class's. One made during the trace
that outlives it is rebuilt after the graph (`rebuild`); one from outside
is guarded like a list or dict (its type, then its length or keys when the
trace reads them) and its mutations are replayed after the graph
(side_effects.py). Where the answer needs the data of arrays computed in
the graph (counting them, ordering or hashing them) the trace breaks.

Not modelled (a break or the frame runs natively): an OrderedDict from
outside (its order is not the guarded dict order), Counter arithmetic on
counts that are not Python constants, comparison of dict kinds
(OrderedDict's order-sensitive ``==``), a ChainMap over other mappings.
"""
from __future__ import annotations

import collections
import operator

from ..breaks.reasons import DATA_DEPENDENT, UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from ..guards.guard import DictKeysGuard, TypeGuard
from ..guards.tracker import AttrTracker
from .variables import ConstVariable, DictVariable, DictViewVariable, ListVariable, TupleVariable, Variable
from .variables.containers import SteppedIterator
from .variables.modelled import ModelledObject


def _dispatch():
    from . import dispatch   # dispatch imports this module's users
    return dispatch


def const(value) -> ConstVariable:
    return ConstVariable(value)


def _int(v: Variable, what: str, allow_none: bool = False):
    _dispatch().concrete(what, v)
    if isinstance(v, ConstVariable) and (type(v.value) in (int, bool) or (allow_none and v.value is None)):
        return v.value
    raise FallbackError(UNSUPPORTED_OBJECT, f"{what} with {v.describe()}, not a Python int")


def _items(executor, iterable: Variable) -> list[Variable]:
    return list(_dispatch().get_iter(executor.graph if executor else None, iterable).items)


def _plain(vs, what: str) -> list:
    from .functional import plain_values
    return plain_values(list(vs), what)


def _op(fn, *args):
    return _dispatch().python_op(fn, *args)


def _no_kwargs(kwargs, what: str):
    if kwargs:
        raise FallbackError(UNSUPPORTED_CALL, f"{what} with keyword arguments")


# -- dict kinds ---------------------------------------------------------------------------

_KEY_TYPES = (int, str, bytes, bool, type(None))


def _key(v: Variable, what: str):
    """The Python value of a dict key made by the trace: a plain constant (or a tuple of them)."""
    _dispatch().concrete(what, v)
    value = v.value if isinstance(v, ConstVariable) else None
    ok = isinstance(v, ConstVariable) and (type(value) in _KEY_TYPES or (
        type(value) is tuple and all(type(x) in _KEY_TYPES for x in value)))
    if not ok:
        raise FallbackError(DATA_DEPENDENT if not isinstance(v, ConstVariable) else UNSUPPORTED_OBJECT,
                            f"{what}: key {v.describe()} is not a plain Python constant",
                            hint="hashing a value computed in the graph needs its data")
    return value


class _DictKind(DictVariable, ModelledObject):
    """A dict subclass from collections: a dict for every operation its class does not change."""

    cls: type = dict

    def python_type(self):
        return self.cls

    def describe(self) -> str:
        name = self.tracker.name() if self.tracker is not None else None
        return f"{self.cls.__name__} {name}" if name else self.cls.__name__

    def _pairs_text(self, builder) -> str:
        return "(" + "".join(f"({builder._bind(k)}, {builder.expr(v)}), " for k, v in self.entries.items()) + ")"

    def attribute(self, executor, name):
        if name in self.METHODS:
            from .variables import BuiltinMethodVariable
            return BuiltinMethodVariable(self, name)
        return NotImplemented

    METHODS: frozenset = frozenset()

    def compare(self, executor, name, other, left):
        raise FallbackError(UNSUPPORTED_OBJECT, f"comparison of {self.describe()} is not modelled")

    def binary(self, executor, name, other, left):
        if name in ("or_", "ior"):
            raise FallbackError(UNSUPPORTED_OBJECT, f"operator | of {self.describe()} is not modelled")
        return NotImplemented


class DefaultDictVariable(_DictKind):
    """collections.defaultdict: a missing key read by `d[k]` calls the
    factory and inserts its result (a mutation); get/in/pop do not."""

    cls = collections.defaultdict
    METHODS = frozenset({"copy", "__copy__"})

    def __init__(self, entries: dict, factory: Variable, tracker=None):
        super().__init__(entries, tracker)
        self.factory = factory

    def rebuild(self, builder) -> str:
        return f"{builder._bind(collections.defaultdict)}({builder.expr(self.factory)}, {self._pairs_text(builder)})"

    def attribute(self, executor, name):
        if name == "default_factory":
            return self.factory
        return super().attribute(executor, name)

    def method(self, executor, name, args, kwargs):
        if name in ("copy", "__copy__"):
            return DefaultDictVariable(self.entries, self.factory)
        return NotImplemented

    def getitem(self, executor, key):
        if not isinstance(key, ConstVariable) or key.value in self.entries:
            return NotImplemented
        if isinstance(self.factory, ConstVariable) and self.factory.value is None:
            return NotImplemented   # KeyError, as a dict
        k = _key(key, "defaultdict insertion")
        if executor is None:
            raise FallbackError(UNSUPPORTED_OBJECT, "a defaultdict's missing key outside a frame")
        value = executor.call_function(self.factory, [], {})
        self.check_mutable("defaultdict insertion of a missing key")
        self.entries[k] = value
        return value


class CounterVariable(_DictKind):
    """collections.Counter: a missing key reads as 0 (not inserted); the
    counting methods run on a real Counter of the constant counts."""

    cls = collections.Counter
    METHODS = frozenset({"update", "subtract", "most_common", "elements", "total", "copy", "__copy__"})

    def rebuild(self, builder) -> str:
        return f"{builder._bind(_counter_of)}({self._pairs_text(builder)})"

    def getitem(self, executor, key):
        if isinstance(key, ConstVariable) and key.value not in self.entries:
            _key(key, "Counter lookup")
            return const(0)
        return NotImplemented

    def delitem(self, executor, key):
        if isinstance(key, ConstVariable) and key.value not in self.entries:
            _key(key, "Counter deletion")
            return None   # Counter.__delitem__ ignores a missing key
        return NotImplemented

    def real(self, what: str) -> collections.Counter:
        """A real Counter of the counts (each a Python constant)."""
        counts = list(self.entries.values())
        _dispatch().concrete(what, *counts)
        if not all(isinstance(v, ConstVariable) for v in counts):
            raise FallbackError(DATA_DEPENDENT, f"{what}: Counter counts that are not Python constants")
        return _counter_of((k, v.value) for k, v in self.entries.items())

    def method(self, executor, name, args, kwargs):
        if name in ("update", "subtract"):
            counts = self.real(f"Counter.{name}")
            source = _counting_source(executor, args, kwargs, f"Counter.{name}")
            _op(getattr(counts, name), source)
            self.check_mutable(f"Counter.{name}")
            self.entries = _entries_from(self.entries, counts)
            return const(None)
        _no_kwargs(kwargs, f"Counter.{name}")
        if name == "most_common":
            n = _int(args[0], "Counter.most_common", allow_none=True) if args else None
            return _dispatch().folded(_op(self.real("Counter.most_common").most_common, n))
        if name == "elements":
            return self._elements()
        if name == "total":
            return const(_op(self.real("Counter.total").total))
        if name in ("copy", "__copy__"):
            return CounterVariable(self.entries)
        return NotImplemented

    def _elements(self):
        """Counter.elements(): lazy over the counter's items (a chain over a dict view), so a
        change of the counter before it is consumed falls back (eager may raise there)."""
        import itertools
        from .variables import LazyIteratorVariable
        items = [const(k) for k in self.real("Counter.elements").elements()]
        state = list(self.entries.items())
        pos = [0]

        def step():
            if [(k, id(v)) for k, v in self.entries.items()] != [(k, id(v)) for k, v in state]:
                raise FallbackError(UNSUPPORTED_OBJECT, "a Counter changed while its elements() is iterated")
            if pos[0] >= len(items):
                return None
            pos[0] += 1
            return items[pos[0] - 1]
        return LazyIteratorVariable(step, itertools.chain)

    def binary(self, executor, name, other, left):
        if name not in ("add", "sub", "or_", "and_", "iadd", "isub", "ior", "iand"):
            return NotImplemented
        if not (isinstance(other, CounterVariable) and left):
            raise FallbackError(UNSUPPORTED_OBJECT, f"operator {name} of a Counter and {other.describe()}")
        a, b = self.real("Counter arithmetic"), other.real("Counter arithmetic")
        if name.startswith("i"):
            result = _op(getattr(operator, name), a, b)   # in place: keeps the counts' order
            self.check_mutable(f"Counter {name}")
            self.entries = _entries_from(self.entries, result)
            return self
        return CounterVariable({k: const(v) for k, v in _op(getattr(operator, name), a, b).items()})


def _counter_of(pairs) -> collections.Counter:
    """A Counter holding these (key, count) pairs in this order, as the trace's (runtime helper)."""
    c = collections.Counter()
    for k, v in pairs:
        dict.__setitem__(c, k, v)
    return c


def _entries_from(old: dict, counts) -> dict:
    """Entries for the new counts, keeping the Variable of each unchanged count."""
    return {k: old[k] if k in old and isinstance(old[k], ConstVariable) and type(old[k].value) is type(v)
            and old[k].value == v else const(v) for k, v in counts.items()}


def _counting_source(executor, args, kwargs, what: str):
    """The argument of Counter()/update()/subtract() as a Python value: a mapping of constant
    counts, or the list of the iterable's keys."""
    if len(args) > 1:
        raise FallbackError(UNSUPPORTED_CALL, f"{what} with more than one positional argument (eager raises)")
    if args and kwargs:
        raise FallbackError(UNSUPPORTED_CALL, f"{what} with a source and keyword counts")
    if kwargs:
        return {k: _count(v, what) for k, v in kwargs.items()}
    if not args:
        return {}
    src = args[0]
    if isinstance(src, DictVariable):
        return {k: _count(v, what) for k, v in src.entries.items()}
    return [_key(v, what) for v in _items(executor, src)]


def _count(v: Variable, what: str):
    _dispatch().concrete(what, v)
    if not isinstance(v, ConstVariable):
        raise FallbackError(DATA_DEPENDENT, f"{what}: a count that is not a Python constant")
    return v.value


def b_counter(executor, *args, **kwargs):
    if len(args) == 1 and not kwargs and isinstance(args[0], DictVariable) or not args and kwargs:
        # a mapping into an empty Counter is a dict update: no count is read
        return CounterVariable(dict(args[0].entries if args else kwargs))
    counts = collections.Counter()
    _op(counts.update, _counting_source(executor, args, kwargs, "Counter()"))
    return CounterVariable({k: const(v) for k, v in counts.items()})


class OrderedDictVariable(_DictKind):
    """collections.OrderedDict: `entries` kept in its order (move_to_end reorders)."""

    cls = collections.OrderedDict
    METHODS = frozenset({"move_to_end", "popitem", "copy", "__copy__"})

    def rebuild(self, builder) -> str:
        return f"{builder._bind(collections.OrderedDict)}({self._pairs_text(builder)})"

    def _keys(self) -> collections.OrderedDict:
        return collections.OrderedDict.fromkeys(self.entries)

    def _method(self, executor, name, args, kwargs):
        if name == "move_to_end":
            key = args[0] if args else None
            last = kwargs.get("last", args[1] if len(args) > 1 else const(True)).truth()
            if key is None or not isinstance(key, ConstVariable):
                raise FallbackError(UNSUPPORTED_CALL, "OrderedDict.move_to_end of a key that is not a constant")
            order = self._keys()
            _op(order.move_to_end, key.value, last)   # KeyError, as eager
            self.check_mutable("OrderedDict.move_to_end")
            self.entries = {k: self.entries[k] for k in order}
            return const(None)
        if name == "popitem":
            last = kwargs.get("last", args[0] if args else const(True)).truth()
            order = self._keys()
            k, _ = _op(order.popitem, last)   # KeyError on an empty one, as eager
            self.check_mutable("OrderedDict.popitem")
            return TupleVariable([const(k), self.entries.pop(k)])
        if name in ("copy", "__copy__"):
            return OrderedDictVariable(self.entries)
        return NotImplemented

    def iterate(self, executor):
        return OrderedIteratorVariable(self, "keys")

    def reverse_iterate(self, executor):
        return OrderedIteratorVariable(self, "keys", reverse=True)

    def attribute(self, executor, name):
        if name in ("keys", "values", "items"):
            from .variables import BuiltinMethodVariable
            return BuiltinMethodVariable(self, name)
        return super().attribute(executor, name)

    def method(self, executor, name, args, kwargs):
        if name in ("keys", "values", "items") and not args and not kwargs:
            return OrderedViewVariable(self, name)
        return self._method(executor, name, args, kwargs)


_ODICT_ITERATORS = {kind: type(iter(getattr(collections.OrderedDict(), kind)())) for kind in ("keys", "values", "items")}


class OrderedIteratorVariable(SteppedIterator):
    """iter()/reversed() of an OrderedDict or of its views: key by key; any change of the
    OrderedDict between steps falls back (eager raises its own RuntimeError there)."""

    def __init__(self, od: OrderedDictVariable, kind: str, reverse: bool = False):
        kinds = _ODICT_ITERATORS if not reverse else {"keys": type(reversed(collections.OrderedDict()))}
        super().__init__([], kinds[kind])
        self.od, self.kind, self.reverse, self.index = od, kind, reverse, 0
        self.keys = list(od.entries)[::-1] if reverse else list(od.entries)

    def next(self):
        now = list(self.od.entries)
        if now != (self.keys[::-1] if self.reverse else self.keys):
            raise FallbackError(UNSUPPORTED_OBJECT, "an OrderedDict changed while iterated (eager raises)")
        if self.index >= len(self.keys):
            return None
        key = self.keys[self.index]
        self.index += 1
        if self.kind == "keys":
            return const(key)
        value = self.od.entries[key]
        return value if self.kind == "values" else TupleVariable([const(key), value])

    def remaining(self):
        return None

    def rebuild(self, builder) -> str:
        raise FallbackError(UNSUPPORTED_OBJECT, "an OrderedDict iterator alive after the graph cannot be rebuilt")


class OrderedViewVariable(DictViewVariable, ModelledObject):
    """od.keys()/values()/items(): iterated by OrderedIteratorVariable."""

    def python_type(self):
        return type(getattr(collections.OrderedDict(), self.kind)())

    def iterate(self, executor):
        return OrderedIteratorVariable(self.dict, self.kind)

    def reverse_iterate(self, executor):
        if self.kind != "keys":
            return NotImplemented
        return OrderedIteratorVariable(self.dict, self.kind, reverse=True)


def b_defaultdict(executor, factory=None, *args, **kwargs):
    from .calls import b_dict
    factory = factory if factory is not None else const(None)
    if not (isinstance(factory, ConstVariable) and factory.value is None) and not _callable(factory):
        return _op(collections.defaultdict, 1)   # TypeError, as eager
    base = b_dict(executor, *args, **kwargs)
    return DefaultDictVariable(base.entries, factory)


def _callable(v: Variable) -> bool:
    from .calls import b_callable
    return b_callable(None, v).value


def b_ordereddict(executor, *args, **kwargs):
    from .calls import b_dict
    return OrderedDictVariable(b_dict(executor, *args, **kwargs).entries)


# -- ChainMap ---------------------------------------------------------------------------------

class ChainMapVariable(Variable, ModelledObject):
    """collections.ChainMap over plain dicts: lookups in `maps` order, writes to maps[0]."""

    def __init__(self, maps: list[Variable], tracker=None, maps_var=None):
        super().__init__(tracker)
        for m in maps:
            if not (isinstance(m, DictVariable) and m.python_type() is dict):
                raise FallbackError(UNSUPPORTED_OBJECT, f"a ChainMap over {m.describe()} (only plain dicts are modelled)")
        self.maps = maps_var if maps_var is not None else ListVariable(maps or [DictVariable({})])

    def python_type(self):
        return collections.ChainMap

    def describe(self) -> str:
        return "ChainMap"

    def _dicts(self) -> list[DictVariable]:
        maps = self.maps.items
        for m in maps:
            if not (isinstance(m, DictVariable) and m.python_type() is dict):
                raise FallbackError(UNSUPPORTED_OBJECT, f"a ChainMap over {m.describe()} (only plain dicts are modelled)")
        return maps

    def _keys(self) -> dict:
        d = {}
        for m in reversed(self._dicts()):
            d.update(dict.fromkeys(m.entries))
        return d

    def truth(self) -> bool:
        return any(m.entries for m in self._dicts())

    def rebuild(self, builder) -> str:
        return f"{builder._bind(chainmap_of)}({builder.expr(self.maps)})"

    def attribute(self, executor, name):
        if name == "maps":
            return self.maps
        if name == "parents":
            return ChainMapVariable(self._dicts()[1:])
        if name in ("get", "new_child", "copy"):
            from .variables import BuiltinMethodVariable
            return BuiltinMethodVariable(self, name)
        return NotImplemented

    def _lookup(self, key):
        k = _key(key, "ChainMap lookup")
        for m in self._dicts():
            if k in m.entries:
                return m.entries[k]
        return None

    def method(self, executor, name, args, kwargs):
        if name == "get":
            found = self._lookup(args[0])
            return found if found is not None else (args[1] if len(args) > 1 else const(None))
        if name == "new_child":
            rest = dict(kwargs)
            child = args[0] if args else rest.pop("m", None)
            if child is None or isinstance(child, ConstVariable) and child.value is None:
                child = DictVariable(rest)   # new_child(**kwargs): a dict of them
            elif rest:
                raise FallbackError(UNSUPPORTED_CALL, "ChainMap.new_child(m, **kwargs) updates m: not modelled")
            return ChainMapVariable([child] + self._dicts())
        if name == "copy":
            first = self._dicts()[0]
            return ChainMapVariable([DictVariable(first.entries)] + self._dicts()[1:])
        return NotImplemented

    def getitem(self, executor, key):
        found = self._lookup(key)
        if found is None:
            return _op(operator.getitem, {}, _key(key, "ChainMap lookup"))   # KeyError, as eager
        return found

    def setitem(self, executor, key, value):
        return _dispatch().setitem(executor.graph if executor else None, self._dicts()[0], key, value)

    def delitem(self, executor, key):
        first = self._dicts()[0]
        k = _key(key, "ChainMap deletion")
        if k not in first.entries:   # ChainMap's own KeyError text
            return _op(collections.ChainMap().__delitem__, k)
        return _dispatch().delitem(executor.graph if executor else None, first, key)

    def contains(self, executor, item):
        return self._lookup(item) is not None

    def length(self, executor):
        return const(len(self._keys()))

    def iterate(self, executor):
        from .variables import IteratorVariable
        return IteratorVariable([const(k) for k in self._keys()], type(iter({})))


def chainmap_of(maps: list) -> collections.ChainMap:
    """A ChainMap whose .maps is this very list (runtime helper: the trace's maps list may be shared)."""
    m = collections.ChainMap()
    m.maps = maps
    return m


def b_chainmap(executor, *maps):
    return ChainMapVariable(list(maps))


# -- inputs -------------------------------------------------------------------------------------

def chainmap_input(graph, value, t, tracker):
    """A ChainMap from outside: its exact type guarded; its `maps` list (and the
    dicts in it) are read and guarded as any list and dict the trace reads."""
    if t is not collections.ChainMap or tracker is None or type(vars(value).get("maps")) is not list:
        return None
    graph.add_guard(TypeGuard(tracker, t))
    graph.add_guard(DictKeysGuard(AttrTracker(tracker, "__dict__"), vars(value)))   # no other instance attribute
    return ChainMapVariable([], tracker, maps_var=graph.wrap(value.maps, AttrTracker(tracker, "maps")))


def dict_kind_input(graph, value, t, tracker):
    """A defaultdict or Counter from outside: guarded like a dict (type and
    keys; a defaultdict's factory by identity)."""
    if t not in (collections.defaultdict, collections.Counter) or tracker is None:
        return None
    if not all(type(k) in (str, int) for k in value):
        return None
    from .function_graph import _item
    graph.add_guard(DictKeysGuard(tracker, value))
    entries = {k: graph.wrap(v, _item(tracker, k)) for k, v in value.items()}
    if t is collections.Counter:
        var = CounterVariable(entries, tracker)
    else:
        var = DefaultDictVariable(entries, graph.wrap(value.default_factory, AttrTracker(tracker, "default_factory")),
                                  tracker)
    var.original = dict(var.entries)
    return graph.mutable(var, value)


CONSTRUCTORS = {
    collections.defaultdict: b_defaultdict,
    collections.Counter: b_counter,
    collections.OrderedDict: b_ordereddict,
    collections.ChainMap: b_chainmap,
}


def register(table: dict) -> None:
    """Add the constructors to the builtins table of calls.py."""
    from . import collections_deque
    table.update(CONSTRUCTORS)
    collections_deque.register(table)
