"""A plain dict from outside the frame, read key by key.

A step function that records into a dict it is given (``stats[step] = v``,
``cache["n"] = cache.get("n", 0) + 1``, a decode loop's per-step entries)
sees a dict whose keys change on every call. Guarding its whole key set
(DictKeysGuard) retranslated on every call until the cache limit, then ran
natively for good. Instead, as for a list (list_data.py), the dict is
guarded by its exact type only and the trace guards what it observed:

- a key it read: its value, through ``d[key]`` (a dict without the key
  fails the guard's load: a miss);
- a key it found absent (``k in d``, ``d.get(k)``, a store of a new key):
  ``KeyAbsentGuard``;
- a key it found present without reading the value (``k in d``, a store
  over it): the value's exact type (the store releases that value: it must
  be one whose release runs no code, see side_effects.py);
- ``len(d)``: the length, as a Python-number graph input once it varied
  between calls (list_data.LenTracker), plus what the trace added/removed.

Writes (``d[k] = v``, ``del d[k]``, ``setdefault``, ``pop``) are kept as the
final state of each key the trace touched and replayed after the graph with
the operations eager uses, in eager's order (a key deleted, then stored
again, goes to the end, as in eager). A store whose key is a Python-number
graph input (``stats[step] = v`` once ``step`` varied) or a str the trace
passes on (``history[name] = v``, str_data.py) is replayed with the
run-time key; after it the trace no longer knows the state of any key of
that type, so a later read of one breaks the graph.

Anything else (iteration, ``keys()``, ``==``, ``update``, a copy, a dict
given to a call the trace does not model) reads `entries`: the whole dict
is then loaded as before (DictKeysGuard, every value wrapped), and what the
trace already did to it is applied on top. Only exact dicts whose keys are
all str/int when traced; keys the trace uses must be str/int constants
(a bool, float or tuple key loads the dict).
"""
from __future__ import annotations

import operator
import weakref

from ..breaks.reasons import DATA_DEPENDENT, SIDE_EFFECT, FallbackError
from ..guards.guard import Guard, LenGuard, TypeGuard
from ..guards.invariants import KeyAbsentGuard
from ..guards.tracker import ItemTracker, Tracker
from .list_data import LenTracker
from .releases import guard_unread_release
from .str_data import PassStrVariable
from .variables import ConstVariable, DictVariable, SymScalarVariable, Variable

ABSENT = object()    # the key is not in the dict
PRESENT = object()   # the key is in the dict, its value not read by the trace

_KEY_TYPES = (str, int)


def _plain_types():
    from .side_effects import PLAIN_TYPES
    return PLAIN_TYPES


class LazyDict:
    """What the trace observed of, and did to, a dict from outside."""

    def __init__(self, graph, value: dict, tracker: Tracker, load):
        self.graph = weakref.ref(graph)
        self.value = value          # the real dict (as when traced: the simulation runs no user code)
        self.tracker = tracker
        self.load_all = load        # () -> {key: Variable}, guarding the key set
        self.seen: dict = {}        # key -> Variable | PRESENT | ABSENT, as the real dict had it
        self.now: dict = {}         # key -> Variable | PRESENT | ABSENT, after the trace's writes
        self.deleted: set = set()   # keys present at first, deleted by the trace (maybe stored again)
        self.inserted: list = []    # keys absent (or deleted), then stored: in order of their last store
        self.runtime_writes: list = []   # (key tracker, key Variable, value Variable): d[<number input>] = v
        self.len_var = None

    # -- observing ----------------------------------------------------------------------
    def _state(self, key):
        """The trace's view of `key` (PRESENT: not read), guarding what it learns."""
        self._check_known("a read", key)
        if key in self.now:
            return self.now[key]
        graph = self.graph()
        if key in self.value:
            old = self.value[key]
            graph.add_guard(TypeGuard(ItemTracker(self.tracker, key), type(old)))
            state = PRESENT
        else:
            graph.add_guard(KeyNotInGuard(self.tracker, key))
            state = ABSENT
        self.seen[key] = self.now[key] = state
        return state

    def read(self, key):
        """The Variable of `key`, or ABSENT."""
        state = self._state(key)
        if state is PRESENT:
            state = self.graph().wrap(self.value[key], ItemTracker(self.tracker, key))
            self.now[key] = state
            if self.seen[key] is PRESENT:
                self.seen[key] = state
        return state

    def contains(self, key) -> bool:
        return self._state(key) is not ABSENT

    def length(self, graph):
        self._check_known("len()")
        delta = sum((self.now[k] is not ABSENT) - (self.seen[k] is not ABSENT) for k in self.now)
        tracker = LenTracker(self.tracker)
        n_real = len(self.value)
        if graph.numbers is not None and graph.numbers.is_input(tracker, n_real):
            n = graph._memo.get(tracker)
            if n is None:
                n = graph._memo[tracker] = graph._number_input(n_real, tracker, guard=False)
            if not delta:
                return n
            from ..ir import registry
            return graph.call_op(registry.lookup_operator("add"), (n, ConstVariable(delta, None)))
        graph.add_guard(LenGuard(self.tracker, self.value))
        return ConstVariable(n_real + delta, None)

    def _check_known(self, what: str, key=None) -> None:
        """A store with a run-time key changed a key of its type the trace
        cannot name (a str key is not an int key, and the other way)."""
        if any(key is None or type(key) is _key_type(k) for _, k, _ in self.runtime_writes):
            raise FallbackError(DATA_DEPENDENT, f"{what} of {self.tracker.name()} after a store with a "
                                "run-time key (which key it replaced is known only when it runs)")

    # -- writing -------------------------------------------------------------------------
    def store(self, key, value: Variable) -> None:
        state = self._state(key)
        if state is ABSENT:
            if key in self.inserted:
                self.inserted.remove(key)
            self.inserted.append(key)
        self.now[key] = value

    def delete(self, key) -> None:
        """``del d[key]`` of a key the caller found present."""
        if self.seen[key] is not ABSENT:
            self.deleted.add(key)
        if key in self.inserted:
            self.inserted.remove(key)
        self.now[key] = ABSENT

    def store_runtime_key(self, key_tracker, key: Variable, value: Variable) -> None:
        write = (key_tracker, key, value)
        self.runtime_writes.append(write)
        self.inserted.append(write)   # (replayed in order with the stores of new keys)

    # -- loading the whole dict -------------------------------------------------------------
    def load(self) -> tuple[dict, dict]:
        """(the dict's entries as loaded, with the trace's writes applied; as loaded)."""
        self._check_known("reading all of")
        loaded = self.load_all()
        original = dict(loaded)
        for key in self.deleted:
            del loaded[key]
        for key, state in self.now.items():
            if state is not ABSENT and state is not PRESENT and key not in self.inserted:
                loaded[key] = state   # stored over in place
        for key in self.inserted:
            loaded[key] = self.now[key]   # (no run-time key: _check_known)
        return loaded, original

    # -- after the trace (side_effects.py) ----------------------------------------------------
    def changed(self) -> list:
        """The keys whose final state differs from the dict's: (key, old state, new state)."""
        return [(k, self.seen[k], self.now[k]) for k in self.now
                if k in self.deleted or self.now[k] is not self.seen[k]]

    def check_releases(self, graph, plain) -> None:
        """The values the replay replaces or removes run no code when released."""
        final = {id(v) for v in self.now.values() if isinstance(v, Variable)}
        for key, old, _ in self.changed():
            ok = old is ABSENT or (old is PRESENT and guard_unread_release(
                graph, ItemTracker(self.tracker, key), self.value[key])) or (
                isinstance(old, Variable) and (id(old) in final or plain(old)))
            if not ok:
                raise FallbackError(SIDE_EFFECT, f"a value removed from {self.tracker.name()}[{key!r}] may "
                                    "run code when released")
        if not self.runtime_writes:
            return
        # a run-time key may be one the trace stored into before, or another stored with one
        kinds = {_key_type(k) for _, k, _ in self.runtime_writes}
        replaced = [v for k, v in self.now.items() if type(k) in kinds and isinstance(v, Variable)]
        if not all(plain(v) for v in replaced + [v for _, _, v in self.runtime_writes]) or \
                not all(_slot_plain(self.value, _runtime_value(k)) for _, k, _ in self.runtime_writes):
            raise FallbackError(SIDE_EFFECT, f"a value stored into {self.tracker.name()} with a run-time "
                                "key may run code when replaced")
        for key_tracker, _, _ in self.runtime_writes:   # what it replaces in the real dict
            graph.add_guard(SlotPlainGuard(self.tracker, key_tracker))

    def replay(self, builder, target: str) -> list[str]:
        key = builder._bind
        lines = [f"del {target}[{key(k)}]" for k in self.deleted]
        lines += [f"{target}[{key(k)}] = {builder.expr(new)}" for k, old, new in self.changed()
                  if k not in self.inserted and k not in self.deleted and isinstance(new, Variable)]
        for k in self.inserted:   # in eager's order: stores of new keys and with run-time keys
            lines.append(f"{target}[{builder.expr(k[1])}] = {builder.expr(k[2])}" if type(k) is tuple
                         else f"{target}[{key(k)}] = {builder.expr(self.now[k])}")
        return lines


class KeyNotInGuard(KeyAbsentGuard):
    """``key not in d`` for a dict the trace found without it."""

    def explain_failure(self, value):
        return "%s now has the key %r" % (self.tracker.subject(), self.key)


def _slot_plain(d, key) -> bool:
    """Whether ``d[key] = v`` releases nothing or a value whose release runs no code."""
    old = d.get(key, ABSENT)
    return old is ABSENT or type(old) in _plain_types()


class SlotPlainGuard(Guard):
    """``_slot_plain(d, key)`` for a dict whose exact type the guards fixed
    and a run-time key (an int graph input or a passed-through str, its
    exact type guarded): a store with that key releases nothing that runs
    code. The guard program's two-register call op (as OverlapGuard's)."""

    def __init__(self, tracker: Tracker, key: Tracker):
        self.tracker, self.other = tracker, key

    def describe(self):
        return "%s[%s] is absent or a plain value" % (self.tracker.name(), self.other.name())

    def explain(self, read):
        return "%s[%s] holds a value whose release may run code" % (self.tracker.subject(), self.other.name())

    def c_ops(self, prog):
        from .dict_runtime_reads import _KeyCheck
        from .str_runtime import key_reader
        source, key_of = key_reader(self.other)   # a str key computed from a str: recomputed
        check = _slot_plain if key_of is None else _KeyCheck(_slot_plain, key_of)
        return [("overlap", prog.reg(self.tracker), prog.reg(source), check, True)]

    def _key(self):
        return (self.other,)


# -- the Variable -----------------------------------------------------------------------------

def source_dict(graph, value: dict, tracker: Tracker, load) -> DictVariable:
    """The lazily guarded DictVariable of an exact dict from outside (its
    type guarded by the caller); `load()` wraps all of it."""
    var = DictVariable({}, tracker)
    var.lazy = LazyDict(graph, value, tracker, load)
    var._entries = None
    return var


def lazy_of(obj) -> LazyDict | None:
    return obj.lazy if type(obj) is DictVariable and obj.lazy is not None else None


def _const_key(key: Variable):
    if isinstance(key, ConstVariable) and type(key.value) in _KEY_TYPES:
        return key.value
    return None


def _python_op(fn, *values):
    from .dispatch import python_op
    return python_op(fn, *values)


NO = object()   # the operation is not done key by key: the caller loads the dict


def getitem(obj, key: Variable):
    lazy, k = lazy_of(obj), _const_key(key)
    if lazy is None or k is None:
        return NO
    v = lazy.read(k)
    return _python_op(operator.getitem, {}, k) if v is ABSENT else v   # KeyError as eager's


def contains(obj, key: Variable):
    lazy, k = lazy_of(obj), _const_key(key)
    if lazy is None or k is None:
        return NO
    return lazy.contains(k)


def setitem(graph, obj, key: Variable, value: Variable):
    lazy = lazy_of(obj)
    if lazy is None:
        return NO
    k = _const_key(key)
    if k is None:
        key_tracker = _number_input_tracker(graph, key)
        if key_tracker is None:
            return NO
        obj.check_mutable("item assignment")
        lazy.store_runtime_key(key_tracker, key, value)
        return None
    obj.check_mutable("item assignment")
    lazy.store(k, value)
    return None


def _key_type(key: Variable) -> type:
    """The exact type of a run-time key (guarded)."""
    return str if type(key) is PassStrVariable else int


def _runtime_value(key: Variable):
    return key.value if type(key) is PassStrVariable else key.meta.hint


def _number_input_tracker(graph, key: Variable):
    """The tracker of an int graph input used as a key (not one computed from
    it), or of a str the trace passes on (str_data.py)."""
    if type(key) is PassStrVariable:
        from .str_runtime import key_reader
        return key.tracker if key_reader(key.tracker) is not None else None   # (SlotPlainGuard reads it)
    if type(key) is not SymScalarVariable or key.meta.type is not int:
        return None
    for tracker, var in graph.inputs:
        if var is key:
            return tracker
    return None


def delitem(obj, key: Variable):
    lazy, k = lazy_of(obj), _const_key(key)
    if lazy is None or k is None:
        return NO
    obj.check_mutable("item deletion")
    if lazy._state(k) is ABSENT:   # (the released value's type is checked in finish)
        return _python_op(operator.delitem, {}, k)
    lazy.delete(k)
    return None


def method(obj, name: str, args, kwargs):
    """dict.get / setdefault / pop with a constant key (and len via `length`)."""
    lazy = lazy_of(obj)
    if lazy is None or name not in ("get", "setdefault", "pop") or kwargs or not 1 <= len(args) <= 2:
        return NO
    k = _const_key(args[0])
    if k is None:
        return NO
    default = args[1] if len(args) > 1 else ConstVariable(None)
    if name != "get":
        obj.check_mutable(f"dict.{name}")
    v = lazy.read(k)
    if name == "get":
        return default if v is ABSENT else v
    if name == "setdefault":
        if v is ABSENT:
            lazy.store(k, default)
            return default
        return v
    if v is ABSENT:   # pop
        return default if len(args) > 1 else _python_op({}.pop, k)   # KeyError as eager's
    lazy.delete(k)
    return v


def length(graph, obj):
    lazy = lazy_of(obj)
    return NO if lazy is None else lazy.length(graph)
