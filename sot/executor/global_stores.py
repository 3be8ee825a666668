"""``global G; G = v`` in a traced frame: a side effect replayed after the graph.

A store into a module's globals dict is an item store on that dict: the
trace keeps the stored Variable (later ``LOAD_GLOBAL G`` and ``module.G``
in the trace read it, whichever function or path they come from: entries
are keyed by the dict's identity and the name), and the runner stores the
final value with ``globals_dict[name] = value`` after the graph, before
what follows (the return, or a break's native instruction), as the other
side effects (side_effects.py). The next call's guards read the new value
(a value-guarded global that changed translates again).

What the replay replaces is released then, as eager releases it at the
store: it must be a value whose release runs no code (checked, or guarded
by type, as for attribute stores); a name not yet defined is guarded to
stay undefined (it would otherwise replace a value the trace never saw).

``del G`` is the same entry holding DELETED: replayed as
``globals_dict.pop(name, None)`` (the name was checked to be bound at the
``del``: eagerly unbound raises NameError there, so that breaks and runs
natively), and a later read of the name in the trace breaks (eager reads
the builtin of that name or raises NameError: the native load decides).
"""
from __future__ import annotations

from ..breaks.reasons import SIDE_EFFECT, UNSUPPORTED_OBJECT, FallbackError
from ..guards.guard import GlobalAbsentGuard, TypeGuard
from ..guards.invariants import KeyAbsentGuard
from .releases import guard_unread_release, may_release


#: the value of an entry whose name the trace deleted (``del G``)
DELETED = object()


class GlobalStores:
    """The global stores of one trace: (id(globals dict), name) -> entry."""

    def __init__(self):
        self._stored: dict = {}   # (id(dict), name) -> (dict, dict tracker or None, name, tracker, Variable)

    def __bool__(self) -> bool:
        return bool(self._stored)

    def store(self, graph, globals_dict: dict, dict_tracker, name: str, tracker, value, plain) -> None:
        """``name = value`` into `globals_dict` (reached by `dict_tracker`,
        None for the frame's own globals), read back through `tracker`.
        A value the store would release that may run code breaks the graph
        here, at the store (``check_releases`` checks again at the end)."""
        if (id(globals_dict), name) not in self._stored:
            old = graph._memo.get(tracker)
            if not (plain(old) if old is not None else name not in globals_dict or may_release(globals_dict[name])):
                raise FallbackError(SIDE_EFFECT, f"assignment to global {name!r} releases a value whose "
                                    "release may run code")
        self._stored[(id(globals_dict), name)] = (globals_dict, dict_tracker, name, tracker, value)

    def delete(self, graph, globals_dict: dict, dict_tracker, name: str, tracker, plain) -> None:
        """``del name`` in `globals_dict`; eager raises NameError where it is
        unbound: that breaks, and the native instruction raises it."""
        entry = self._stored.get((id(globals_dict), name))
        if entry is not None and entry[4] is DELETED or entry is None and name not in globals_dict:
            raise FallbackError(UNSUPPORTED_OBJECT, f"del of global {name!r}, which is not defined "
                                "(eager raises NameError)")
        if entry is None:   # bound on every call the translation serves (the type guard reads it)
            graph.add_guard(TypeGuard(tracker, type(globals_dict[name])))
        self.store(graph, globals_dict, dict_tracker, name, tracker, DELETED, plain)

    def load(self, globals_dict: dict, name: str):
        """The Variable the trace stored as `name` in `globals_dict`, or None."""
        entry = self._stored.get((id(globals_dict), name))
        if entry is not None and entry[4] is DELETED:
            raise FallbackError(UNSUPPORTED_OBJECT, f"global {name!r} is read after the trace deleted it "
                                "(eager reads a builtin or raises NameError)")
        return None if entry is None else entry[4]

    def trackers(self) -> set:
        return {entry[3] for entry in self._stored.values()}

    def check_releases(self, graph, plain) -> None:
        """What each replayed store replaces runs no code when released."""
        for globals_dict, dict_tracker, name, tracker, _ in self._stored.values():
            old = graph._memo.get(tracker)
            if old is not None:
                ok = plain(old)
            elif name not in globals_dict:   # a new global, as long as it is one
                graph.add_guard(GlobalAbsentGuard(name) if dict_tracker is None
                                else KeyAbsentGuard(dict_tracker, name))
                ok = True
            else:
                ok = guard_unread_release(graph, tracker, globals_dict[name])
            if not ok:
                raise FallbackError(SIDE_EFFECT, f"the assignment to global {name!r} releases a value "
                                    "whose release may run code")

    def replay(self, builder) -> list[str]:
        """The runner's statements (over `builder`'s names; `g` is the frame's globals)."""
        lines = []
        for _, dict_tracker, name, _, value in self._stored.values():
            target = "g" if dict_tracker is None else builder._load(dict_tracker)
            if value is DELETED:
                lines.append(f"{target}.pop({builder._bind(name)}, None)")
            else:
                lines.append(f"{target}[{builder._bind(name)}] = {builder.expr(value)}")
        return lines
