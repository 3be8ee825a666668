"""Side effects on objects from outside the call, recorded during the trace
and replayed by the runner after the graph (as Paddle SOT's SideEffects).

What is recorded instead of breaking the graph:

- attribute stores on a user object from outside (``self.t += 1``,
  ``self.state = x``): the simulated object keeps the stored Variable, so
  later reads in the trace see it, and the runner stores the final value;
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

Aliasing: the trace assumed which of the objects it reached are the same
object. For every object it mutated, ``finish`` guards that relation
(``SameGuard``) against every other object of the same type it reached, so
a call where two arguments now are (or no longer are) one object translates
again.
"""
from __future__ import annotations

import inspect

from ..breaks.reasons import SIDE_EFFECT, FallbackError
from ..guards.invariants import SameGuard
from ..guards.tracker import AttrTracker

__all__ = ["SideEffects"]


def _is_data_descriptor(attr) -> bool:
    t = type(attr)
    return hasattr(t, "__set__") or hasattr(t, "__delete__")


class SideEffects:
    """The side effects one FunctionGraph's trace made on outside objects."""

    def __init__(self):
        self.reached: dict[int, list] = {}   # id(object) -> source Variables of it (objects, lists, dicts)
        self.attrs: dict[int, tuple] = {}    # id(object) -> (ObjectVariable, {name: Variable}) stored
        self.containers: list = []           # source lists/dicts the trace mutated, in order
        self._alive: list = []               # the objects: their ids stay theirs while tracing

    def __bool__(self) -> bool:
        return bool(self.attrs or self.containers)

    # -- recording ---------------------------------------------------------------
    def reach(self, var, value) -> None:
        """`var` (with a tracker) stands for the mutable object `value`."""
        var.source_object = value
        others = self.reached.setdefault(id(value), [])
        if not others:
            self._alive.append(value)
        elif any(getattr(o, "mutated", False) for o in others):
            raise FallbackError(SIDE_EFFECT, f"{var.describe()} was mutated through another path in this call")
        others.append(var)

    def store_attr(self, obj, name: str, value) -> None:
        """``obj.name = value`` on an ObjectVariable from outside the call."""
        real = obj.value
        cls = type(real)
        where = f"attribute assignment .{name} on {obj.describe()}"
        if cls.__setattr__ is not object.__setattr__:
            raise FallbackError(SIDE_EFFECT, f"{where}: its class defines __setattr__")
        try:
            class_attr = inspect.getattr_static(cls, name)
        except AttributeError:
            class_attr = None
        else:
            if _is_data_descriptor(class_attr):
                raise FallbackError(SIDE_EFFECT, f"{where}: a property, slot or other descriptor")
        inst_dict = getattr(real, "__dict__", None)
        if type(inst_dict) is not dict or name in ("__dict__", "__class__"):
            raise FallbackError(SIDE_EFFECT, f"{where}: no plain instance __dict__")
        if len(self.reached.get(id(real), ())) > 1 and \
                any(not isinstance(o, type(obj)) for o in self.reached[id(real)]):
            raise FallbackError(SIDE_EFFECT, f"{where}: the object is reached two ways")
        entry = self.attrs.get(id(real))
        if entry is None:
            entry = self.attrs[id(real)] = (obj, {})
        entry[1][name] = value
        obj.mutated = True

    def load_attr(self, obj, name: str):
        """The Variable the trace stored in ``obj.name``, or None."""
        entry = self.attrs.get(id(obj.value))
        return entry[1].get(name) if entry is not None else None

    def mutate(self, container, what: str) -> None:
        """`container` (a source list or dict) is about to be mutated by `what`."""
        tracker = container.tracker
        kind = container.python_type().__name__
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
        lines = []
        for obj, stored in self.attrs.values():
            target = builder.expr(obj)
            lines += [f"{target}.{name} = {builder.expr(value)}" for name, value in stored.items()]
        for container in self.containers:
            lines += _replay_list(builder, container) if container.python_type() is list \
                else _replay_dict(builder, container)
        return lines

    def _guard_aliases(self, graph, var) -> None:
        real_id = id(var.source_object)
        for oid, others in self.reached.items():
            for other in others:
                if other is var or other.tracker == var.tracker or other.python_type() is not var.python_type():
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

