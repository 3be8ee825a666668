"""Side effects on objects from outside the call, recorded during the trace
and replayed by the runner after the graph (as Paddle SOT's SideEffects).

What is recorded instead of breaking the graph:

- attribute stores on a user object from outside (``self.t += 1``,
  ``self.state = x``): the simulated object keeps the stored Variable, so
  later reads in the trace see it, and the runner stores the final value;
- stores into module globals (``global G; G = v``): global_stores.py;
- item stores, deletions and method calls on a list or dict from outside
  (``cache[i] = np.concatenate(...)``, ``d[k] = v``, ``acc.append(y)``,
  ``lst.pop()``): the container's Variable is mutated as eager mutates the
  object, and the runner brings the real object to that final state.

The runner replays after the graph has run and before what follows (the
return, or the instruction a graph break runs natively): a graph that
raises reruns the frame natively before anything was replayed, and a break
sees exactly the state eager had at that instruction. Plain stores run no
user code, so the final state of each object is all that is observable;
each object is brought to it with the operations eager would have used
(``setattr``, ``lst[i] = v``, ``lst.extend``, ``d[k] = v``, ``del d[k]``).

Where a store would run user code (a class ``__setattr__``, a property or
other data descriptor, ``__slots__``), or the model of the object is not
sure (a container reached two ways, an instance ``__dict__`` read as a
dict), the trace breaks as before: eager runs the store itself.

Releases: a replayed store or removal releases the value it replaces,
which eagerly happens at that point of the code. So each such value must be
one whose release runs no code (arrays, numbers, strings, containers of
those: checked at ``finish``, by a type guard where the trace never read
it), or the frame is not translated. And once the trace has dropped its
reference to an object whose release may run code (``del n``, ``it = None``
on an argument or a generator: a finalizer, a ``finally``), a later side
effect would be replayed before that code runs: it breaks the graph instead.

Aliasing: the trace assumed which of the objects it reached are the same
object. For every object it mutated, ``finish`` guards that relation
(``SameGuard``) against every other object of the same type it reached, so
a call where two arguments now are (or no longer are) one object translates
again.
"""
from __future__ import annotations

import enum
import inspect
import weakref

import numpy as np

from ..breaks.reasons import SIDE_EFFECT, FallbackError
from ..guards.guard import DictKeysGuard, IdGuard
from ..guards.invariants import SameGuard
from ..guards.tracker import AttrTracker, ItemTracker, LocalTracker
from .exceptions import ExceptionVariable
from .global_stores import GlobalStores
from .releases import guard_unread_release
from .str_data import PassStrVariable
from .variables import (
    ConstVariable, DictVariable, DynamicScalarVariable, ListVariable, SymScalarVariable, TensorVariable,
    TupleVariable,
)

__all__ = ["SideEffects", "is_data_descriptor", "release_runs_code"]


#: types whose objects run no Python code when released
PLAIN_TYPES = frozenset((np.ndarray, int, float, complex, bool, str, bytes, type(None)))
_MISSING = object()


def is_data_descriptor(attr) -> bool:
    """Whether setting or deleting `attr`'s name on an instance goes through it (a property, a slot...)."""
    return hasattr(type(attr), "__set__") or hasattr(type(attr), "__delete__")


def plain(var) -> bool:
    """Whether releasing the value of `var` runs no code."""
    if isinstance(var, (TensorVariable, ConstVariable, SymScalarVariable, DynamicScalarVariable, PassStrVariable)):
        return True
    if type(var) in (TupleVariable, ListVariable) and (type(var) is TupleVariable or var.loaded):
        return all(plain(v) for v in var.items)
    if type(var) is DictVariable:
        return all(plain(v) for v in var.entries.values())
    if isinstance(var, ExceptionVariable):
        # its class has no __del__ (can_model); its traceback holds only frames still
        # running, unless it came out of an inlined call (whose locals it keeps alive)
        return not var.left_a_call and all(plain(v) for v in var.args)
    return False


_HEAP_TYPE = 1 << 9   # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


def release_runs_code(value) -> bool:
    """Whether dropping the last reference to ``value`` runs code: its class
    finalizes (``__del__``, a generator's ``finally``, a file's close), or,
    for an instance of a class statement's class, a weakref (a
    ``weakref.finalize`` callback) points at it."""
    t = type(value)
    return getattr(t, "__del__", None) is not None or bool(
        t.__flags__ & _HEAP_TYPE and not issubclass(t, type) and t.__weakrefoffset__
        and weakref.getweakrefcount(value))   # (a class has weakrefs: its bases' subclass lists; issubclass: isinstance would run a user __getattribute__)


class SideEffects:
    """The side effects one FunctionGraph's trace made on outside objects."""

    def __init__(self):
        self.reached: dict[int, list] = {}   # id(object) -> source Variables of it (objects, lists, dicts)
        self.attrs: dict[int, tuple] = {}    # id(object) -> (ObjectVariable, {name: Variable}) stored
        self.raw_attrs: set = set()          # (id(object), name) stored by object.__setattr__
        self.containers: list = []           # source lists/dicts the trace mutated, in order
        self.globals = GlobalStores()        # stores into module globals
        self._alive: list = []               # the objects: their ids stay theirs while tracing
        self.dropped: str | None = None      # a value whose release may run code, dropped by the trace
        self.enabled = True                  # False: every side effect fails (export: a model has none)
        self.args_owned = False              # the frame's arguments are its own (a resume function's: drop)
        self.releasing: list = []            # its stack values whose release runs code (frame_entry.py)

    def __bool__(self) -> bool:
        return bool(self.attrs or self.containers or self.globals)

    # -- recording ---------------------------------------------------------------
    def reach(self, var, value) -> None:
        """`var` (with a tracker) stands for the mutable object `value`."""
        var.source_object = value
        others = self.reached.setdefault(id(value), [])
        if not others:
            self._alive.append(value)
        elif hasattr(var, "mutated") and any(getattr(o, "mutated", False) for o in others):
            # a container's Variable holds its items: two would disagree (an
            # object's stored attributes are kept by id: any path sees them)
            raise FallbackError(SIDE_EFFECT, f"{var.describe()} was mutated through another path in this call")
        others.append(var)

    def drop(self, var=None, value=_MISSING, tracker=None, last=True) -> None:
        """The trace drops a local's reference (``var``, or a never-loaded
        argument ``value`` reached through ``tracker``); ``last``: the
        frame it translates held no other (stack item, local). A decorated
        function's caller holds its arguments, but a resume function's
        frame holds the only reference to what it was passed: dropping one
        of those breaks the graph there (`args_owned`)."""
        if var is not None:
            if plain(var) or (var.tracker is not None and not isinstance(var.tracker, LocalTracker)):
                return   # held by the object it was read from (a store over it is checked in finish)
            what = var.describe()
            real = var.tracker is not None
        elif type(value) in PLAIN_TYPES or value is _MISSING or isinstance(value, enum.Enum):
            return   # (an enum member, loop_body.UNBOUND too, is held by its class)
        else:
            what = tracker.name()
            real = True
        if real and last and self.args_owned:
            # the frame held the only reference: its finalizer (__del__, weakref.finalize,
            # a generator's finally) runs here and may change what the rest of the trace reads
            raise FallbackError(SIDE_EFFECT, f"the reference to {what} is dropped (eagerly, its release may "
                                "run code that what follows sees)")
        if self.dropped is None:
            self.dropped = what

    def _check_order(self, where: str) -> None:
        if self.dropped is not None:
            raise FallbackError(SIDE_EFFECT, f"{where} after the reference to {self.dropped} was dropped "
                                "(eagerly, its release may run code first)")

    def store_attr(self, obj, name: str, value, raw: bool = False) -> None:
        """``obj.name = value`` on an ObjectVariable from outside the call;
        ``raw``: ``object.__setattr__(obj, name, value)``, which passes by
        the class's own __setattr__ (a frozen dataclass's __init__), and is
        replayed so."""
        real = obj.value
        cls = type(real)
        where = f"attribute assignment .{name} on {obj.describe()}"
        if not self.enabled:
            raise FallbackError(SIDE_EFFECT, where)
        self._check_order(where)
        if not raw and cls.__setattr__ is not object.__setattr__:
            raise FallbackError(SIDE_EFFECT, f"{where}: its class defines __setattr__")
        try:
            class_attr = inspect.getattr_static(cls, name)
        except AttributeError:
            class_attr = None
        else:
            if is_data_descriptor(class_attr):
                raise FallbackError(SIDE_EFFECT, f"{where}: a property, slot or other descriptor")
        inst_dict = getattr(real, "__dict__", None)
        if type(inst_dict) is not dict or name in ("__dict__", "__class__"):
            raise FallbackError(SIDE_EFFECT, f"{where}: no plain instance __dict__")
        entry = self.attrs.get(id(real))
        if entry is None:
            entry = self.attrs[id(real)] = (obj, {})
        entry[1][name] = value
        if raw:
            self.raw_attrs.add((id(real), name))
        else:
            self.raw_attrs.discard((id(real), name))
        obj.mutated = True

    def store_global(self, graph, globals_dict: dict, dict_tracker, name: str, tracker, value) -> None:
        """``global name; name = value`` (see global_stores.py)."""
        self._global_write(f"assignment to global {name!r}", globals_dict)
        self.globals.store(graph, globals_dict, dict_tracker, name, tracker, value, plain)

    def delete_global(self, graph, globals_dict: dict, dict_tracker, name: str, tracker) -> None:
        """``global name; del name`` (see global_stores.py)."""
        self._global_write(f"del of global {name!r}", globals_dict)
        self.globals.delete(graph, globals_dict, dict_tracker, name, tracker, plain)

    def _global_write(self, where: str, globals_dict: dict) -> None:
        if not self.enabled:
            raise FallbackError(SIDE_EFFECT, where)
        self._check_order(where)
        if type(globals_dict) is not dict:
            raise FallbackError(SIDE_EFFECT, f"{where}: the globals are not a plain dict")

    def load_attr(self, obj, name: str):
        """The Variable the trace stored in ``obj.name``, or None."""
        entry = self.attrs.get(id(obj.value))
        return entry[1].get(name) if entry is not None else None

    def mutate(self, container, what: str) -> None:
        """`container` (a source list or dict) is about to be mutated by `what`."""
        tracker = container.tracker
        kind = container.python_type().__name__
        if not self.enabled:
            raise FallbackError(SIDE_EFFECT, f"{what} mutates {tracker.name()}, a {kind} from outside the function")
        self._check_order(what)
        if isinstance(tracker, AttrTracker) and tracker.attr == "__dict__":
            raise FallbackError(SIDE_EFFECT, f"{what} mutates {tracker.name()}, an instance or module __dict__")
        if len(self.reached.get(id(container.source_object), ())) > 1:
            raise FallbackError(SIDE_EFFECT, f"{what} mutates {tracker.name()}, a {kind} reached two ways")
        if not getattr(container, "mutated", False):
            container.mutated = True
            self.containers.append(container)

    # -- replay ----------------------------------------------------------------------
    def finish(self, graph, builder) -> list[str]:
        """Guard the aliasing the trace assumed; the runner's replay statements
        (Python over `builder`'s names), to run after the graph."""
        if not self:
            return []
        mutated = [entry[0] for entry in self.attrs.values()] + self.containers
        for var in mutated:
            self._guard_aliases(graph, var)
        self._check_releases(graph)
        if graph.ir.frozen:
            self._unfreeze_stored(graph)
        lines = []
        for obj, stored in self.attrs.values():
            target = builder.expr(obj)
            lines += [f"object.__setattr__({target}, {name!r}, {builder.expr(value)})"
                      if (id(obj.value), name) in self.raw_attrs else f"{target}.{name} = {builder.expr(value)}"
                      for name, value in stored.items()]
        for container in self.containers:
            if hasattr(container, "replay"):   # a modelled library container (collections_models.py)
                lines += container.replay(builder)
            elif getattr(container, "lazy", None) is not None:   # a dict read key by key (dict_data.py)
                lines += container.lazy.replay(builder, builder.expr(container))
            else:
                lines += _replay_list(builder, container) if container.python_type() is list \
                    else _replay_dict(builder, container)
        return lines + self.globals.replay(builder)

    def _check_releases(self, graph) -> None:
        """What the replay replaces or removes runs no code when released (see module doc)."""
        for obj, stored in self.attrs.values():
            inst_dict = obj.value.__dict__
            for name in stored:
                tracker = AttrTracker(obj.tracker, name)
                old = graph._memo.get(tracker)
                if old is not None:
                    ok = plain(old)
                elif name not in inst_dict:   # a new attribute, as long as it is one
                    graph.add_guard(DictKeysGuard(AttrTracker(obj.tracker, "__dict__"), inst_dict))
                    ok = True
                else:
                    ok = guard_unread_release(graph, tracker, inst_dict[name])
                if not ok:
                    raise FallbackError(SIDE_EFFECT, f"the store into {tracker.name()} releases a value "
                                        "whose release may run code")
        self.globals.check_releases(graph, plain)
        for c in self.containers:
            if c.python_type() is list and not c.loaded:
                continue   # only grown
            if getattr(c, "lazy", None) is not None:
                c.lazy.check_releases(graph, plain)
                continue
            if hasattr(c, "released"):   # (before, after) of a modelled library container
                before, after = c.released()
            else:
                before = c.original if c.python_type() is list else list(c.original.values())
                after = c.items if c.python_type() is list else list(c.entries.values())
            kept = {id(v) for v in after}
            if not all(plain(v) for v in before if id(v) not in kept):
                raise FallbackError(SIDE_EFFECT, f"a value removed from {c.tracker.name()} may run code "
                                    "when released")

    def _unfreeze_stored(self, graph) -> None:
        """freeze=True: an array in a place the trace stores into is another
        object on the next call: an ordinary input, not identity-guarded."""
        stored = {AttrTracker(obj.tracker, name) for obj, names in self.attrs.values() for name in names}
        stored |= self.globals.trackers()
        bases = {c.tracker for c in self.containers}
        for tracker, var in graph.inputs:
            name = getattr(getattr(var, "symbol", None), "name", None)
            if name not in graph.ir.frozen or not (
                    tracker in stored or (isinstance(tracker, ItemTracker) and tracker.base in bases)):
                continue
            del graph.ir.frozen[name]
            graph.guards = [g for g in graph.guards if not (type(g) is IdGuard and g.tracker == tracker)]
            graph.not_frozen.append((tracker.name(), "the function stores another value there"))

    def _guard_aliases(self, graph, var) -> None:
        real_id = id(var.source_object)
        for oid, others in self.reached.items():
            for other in others:
                if other is var or other.tracker is None or other.tracker == var.tracker or \
                        other.python_type() is not var.python_type():
                    continue
                graph.add_guard(SameGuard(var.tracker, other.tracker, oid == real_id))


def _replay_list(builder, lst) -> list[str]:
    target = builder.expr(lst)
    if not lst.loaded:   # only grown: its items were never read; the same calls
        return [_grow_call(builder, target, name, args) for name, args in lst.pending]
    old, new = lst.original, lst.items
    n = len(old)
    if len(new) >= n and all(a is b for a, b in zip(old, new)):
        tail = new[n:]
        return [f"{target}.extend(({''.join(builder.expr(v) + ', ' for v in tail)}))"] if tail else []
    if len(new) == n:
        return [f"{target}[{i}] = {builder.expr(b)}" for i, (a, b) in enumerate(zip(old, new)) if a is not b]
    return [f"{target}[:] = [{', '.join(builder.expr(v) for v in new)}]"]


def _grow_call(builder, target: str, name: str, args: tuple) -> str:
    if name == "append":
        return f"{target}.append({builder.expr(args[0])})"
    if name == "extend":
        return f"{target}.extend(({''.join(builder.expr(v) + ', ' for v in args[0])}))"
    return f"{target}.insert({args[0]!r}, {builder.expr(args[1])})"


def _replay_dict(builder, d) -> list[str]:
    target = builder.expr(d)
    old, new = d.original, d.entries
    key = builder._bind
    kept = [k for k in old if k in new]
    if list(new) != kept + [k for k in new if k not in old]:   # keys reordered: rebuild in eager's order
        items = ", ".join(f"{key(k)}: {builder.expr(v)}" for k, v in new.items())
        return [f"{target}.clear()", f"{target}.update({{{items}}})"]
    lines = [f"del {target}[{key(k)}]" for k in old if k not in new]
    lines += [f"{target}[{key(k)}] = {builder.expr(v)}" for k, v in new.items() if old.get(k) is not v]
    return lines

