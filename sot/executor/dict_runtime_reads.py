"""``d.get(name)`` / ``d[name]`` with a str key the trace passes on.

A dict from outside read key by key (dict_data.py) with a key that changes
on every call (``vocab.get(tok)``, ``scales[name]``) needed the key's value:
the trace was redone with it value-guarded, one translation per key.  Where
the dict is unchanged by the trace so far and the key is a str from outside
(str_data.py, its exact type guarded), the read is done when the call runs
(`RuntimeItemTracker`, loaded before the graph, as eager read it) and the
trace guards only the exact type of what it finds (`RuntimeItemTypeGuard`;
a ``.get`` that finds nothing: its absence).  The value is, by type:

- None: the constant (its type is its value); an absent key's ``.get``
  default likewise;
- an int or float: a Python-number graph input (scalar_policy.py); where a
  trace needs its value (a branch, a shape) the key is value-guarded on the
  redo (str_data.specialise_at), as before;
- an exact str: another str the trace passes on.

A key computed from a str (``scales[name + "_w"]``, str_runtime.py) is
recomputed from that str by the guard.  Any other value (a list, an
array, a bool), a key computed from two strs, or a dict the trace already
wrote into: the read needs the key's value, as before. A list is guarded by
its exact type, passed on and grown as it is (`_list_at`), its items not
read.
"""
from __future__ import annotations

from ..breaks.reasons import DATA_DEPENDENT, FallbackError
from ..guards.guard import Guard
from ..guards.tracker import Tracker
from .dict_data import lazy_of
from .str_data import PassStrVariable
from .str_runtime import _roots, key_reader
from ..ir.symbolic import SpecializeDims
from .scalar_policy import scalar_source
from .variables import ConstVariable, ListVariable

NO = NotImplemented   # not a read of this module: the generic path decides

class _Absent:
    """What the guard's lookup finds for a missing key (no value has this type)."""


_ABSENT = _Absent()
_VALUE_TYPES = (type(None), int, float, str)


class RuntimeItemTracker(Tracker):
    """``base[key]`` with `key` a tracker: read when the call runs, after the
    guards found the key present with a value of the traced type."""

    __slots__ = ("base", "key")

    def __init__(self, base: Tracker, key: Tracker):
        self.base, self.key = base, key

    def expr(self, ctx):
        return "%s[%s]" % (ctx.ref(self.base), ctx.ref(self.key))

    def name(self):
        return "%s[%s]" % (self.base.name(), self.key.name())

    def load(self, g, args, cells):
        return self.base.load(g, args, cells)[self.key.load(g, args, cells)]

    def needs_guard(self):
        return False

    def roots(self) -> tuple:
        return (self.base.root(),) + _roots(self.key)

    def _key(self):
        return (self.base, self.key)


class RuntimeListTracker(RuntimeItemTracker):
    """A list read at a run-time key (`_list_at`). The guard program has no
    load for it: a guard that would read it (its length, its identity
    against another list) needs the key's value instead, `sources` (`needs_key`)."""

    __slots__ = ("sources",)
    runtime_key = True   # its length is a number input from the first trace (list_data.source_length)

    def __init__(self, base: Tracker, key: Tracker, sources: frozenset):
        super().__init__(base, key)
        self.sources = sources


def needs_key(guard) -> None:
    """SpecializeDims (the trace redone with the key's strs value-guarded)
    if `guard` reads a `RuntimeListTracker`, or a value read through one."""
    for t in (guard.tracker, getattr(guard, "other", None)):
        while isinstance(t, Tracker):
            if type(t) is RuntimeListTracker:
                raise SpecializeDims(t.sources, f"a guard on {t.name()} needs the value of a str")
            t = getattr(t, "base", None)


_CHECKS: dict = {}


def _type_check(t: type):
    """``(d, k) -> type(d.get(k, <absent>)) is t``, one function per type (the guard op binds it)."""
    fn = _CHECKS.get(t)
    if fn is None:
        def fn(d, k, t=t):
            return type(d.get(k, _ABSENT)) is t
        fn.__qualname__ = f"item_is_{t.__name__}"
        fn = _CHECKS[t] = fn
    return fn


class _KeyCheck:
    """``check(d, key_of(v))``: a guard's check of a dict with a key computed from a str."""

    __slots__ = ("check", "key_of")

    def __init__(self, check, key_of):
        self.check, self.key_of = check, key_of

    def __call__(self, d, v):
        return self.check(d, self.key_of(v))


class RuntimeItemTypeGuard(Guard):
    """``type(d.get(key, <absent>)) is t`` for a dict whose exact type the
    guards fixed and a key of exact type str (guarded before, or computed
    from one by `key_reader`): the lookup runs no user code. The guard program's two-register call op."""

    def __init__(self, tracker: Tracker, key: Tracker, t: type):
        self.tracker, self.other, self.t = tracker, key, t

    def describe(self):
        what = "absent" if self.t is _Absent else f"of type {self.t.__name__}"
        return "%s[%s] is %s" % (self.tracker.name(), self.other.name(), what)

    def explain(self, read):
        return "%s[%s] changed type (or presence)" % (self.tracker.subject(), self.other.name())

    def c_ops(self, prog):
        source, key_of = key_reader(self.other)
        check = _type_check(self.t)
        if key_of is not None:   # a key computed from a str: recomputed from it (pure str operations)
            check = _KeyCheck(check, key_of)
        return [("overlap", prog.reg(self.tracker), prog.reg(source), check, True)]

    def _key(self):
        return (self.other, self.t)


def read(graph, obj, key, default=_ABSENT):
    """``obj[key]`` (`default` _ABSENT) or ``obj.get(key, default)``, or NO."""
    lazy = lazy_of(obj)
    if lazy is None or type(key) is not PassStrVariable or key_reader(key.tracker) is None:
        return NO
    if lazy.changed() or lazy.runtime_writes:   # the real dict no longer is the trace's
        return NO
    value = lazy.value.get(key.value, _ABSENT)
    if value is _ABSENT:
        if default is _ABSENT:
            return NO   # KeyError: the specialised trace raises it as eager
        graph.add_guard(RuntimeItemTypeGuard(lazy.tracker, key.tracker, _Absent))
        return default
    if type(value) is list:
        return _list_at(graph, lazy, key, value)
    tracker = RuntimeItemTracker(lazy.tracker, key.tracker)
    if type(value) not in _VALUE_TYPES:
        return NO
    if graph.numbers is None or graph.numbers.needs_value(tracker):
        raise FallbackError(DATA_DEPENDENT, f"the value of {tracker.name()} is needed")
    graph.add_guard(RuntimeItemTypeGuard(lazy.tracker, key.tracker, type(value)))
    if value is None:
        return ConstVariable(None)
    if type(value) is str:
        var = PassStrVariable(value, tracker)
        var.sources = key.sources or (key.tracker,)
        return var
    var = graph._memo.get(tracker)
    if var is None:
        var = graph._memo[tracker] = graph._number_input(value, tracker, guard=False)
    return var


def _list_at(graph, lazy, key, value):
    """A list read at a run-time key (``history[name].append(v)``): guarded
    by its exact type; the trace may pass it on and grow it (append, extend,
    insert: replayed on the list the call read, loaded before the graph).
    Reading its items, or a guard on it, needs the key's value: the trace
    is redone with it guarded."""
    sources = frozenset(scalar_source(t) for t in key.sources or (key.tracker,))
    tracker = RuntimeListTracker(lazy.tracker, key.tracker, sources)
    var = graph._memo.get(tracker)
    if var is not None:
        return var
    graph.add_guard(RuntimeItemTypeGuard(lazy.tracker, key.tracker, list))
    graph.runtime_lists = True

    def items():
        raise SpecializeDims(sources, f"reading the items of {tracker.name()} needs the value of a str")

    var = graph._memo[tracker] = graph.mutable(ListVariable.from_source(tracker, items, value), value)
    return var
