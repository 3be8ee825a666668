"""`id(obj)` of an object the trace made, as autograd-style code uses it:
`seen = set(); if id(node) not in seen: seen.add(id(node))`.

The number is an address, unknown until the object exists at run time;
what the trace knows is which object it names. `IdVariable` stands for
that int and answers only what identity decides: `id(a) == id(b)` (a is
b), and membership in a set of such ids (sets.py keys them by `IdKey`).
Anything that needs the number itself (arithmetic, formatting, ordering,
a set's iteration order, which follows the addresses' hashes) breaks the
graph. If it outlives the graph it is rebuilt as `id(<the object>)`, the
object being rebuilt once by output.py, so the set holding it is eager's.

Only objects made in the trace (`classes.NewObjectVariable`: one Variable
per object, and no other object is it) are modelled. Two objects whose
lifetimes do not overlap may share an id; the trace treats distinct
objects as distinct ids, which Python permits ("two objects with
non-overlapping lifetimes may have the same id() value").
"""
from __future__ import annotations

import builtins

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .classes import NewObjectVariable
from .variables import ConstVariable, Variable
from .variables.modelled import ModelledObject


class IdVariable(ModelledObject, Variable):
    """The int `id(obj)` returns, for an object the trace made."""

    def __init__(self, obj: NewObjectVariable):
        Variable.__init__(self, None)
        self.obj = obj
        self.key = IdKey(self)

    def python_type(self):
        return int

    def truth(self) -> bool:
        return True   # an address is never 0

    def describe(self) -> str:
        return f"id() of {self.obj.describe()}"

    def rebuild(self, builder) -> str:
        return f"{builder._bind(builtins.id)}({builder.expr(self.obj)})"

    def compare(self, executor, name: str, other, left: bool):
        if name in ("eq", "ne") and isinstance(other, IdVariable):
            return ConstVariable((self.obj is other.obj) == (name == "eq"))
        raise FallbackError(UNSUPPORTED_OBJECT, f"comparison of {self.describe()} needs the address it holds")

    def binary(self, executor, name: str, other, left: bool):
        raise FallbackError(UNSUPPORTED_OBJECT, f"arithmetic on {self.describe()} needs the address it holds")


class IdKey:
    """An IdVariable as a set member in the simulation: equal to the id of
    the same object only (never compared with a real int: sets.py keeps
    the two kinds apart)."""
    __slots__ = ("var",)

    def __init__(self, var: IdVariable):
        self.var = var

    def __hash__(self) -> int:
        return hash(id(self.var.obj))

    def __eq__(self, other) -> bool:
        return type(other) is IdKey and other.var.obj is self.var.obj

    def __repr__(self) -> str:
        return f"<{self.var.describe()}>"


def as_key(v: Variable):
    """The set member standing for `v`: an IdKey for an id(), else `v`."""
    return v.key if isinstance(v, IdVariable) else v


def check_kinds(members, new) -> None:
    """A set may hold ids of traced objects or plain values, not both: whether
    an address equals some int is not known (sets.py calls this)."""
    kinds = {type(v) is IdKey for v in members} | {type(v) is IdKey for v in new}
    if len(kinds) > 1:
        raise FallbackError(UNSUPPORTED_OBJECT, "a set mixing id() of objects made in the trace with other "
                            "values: whether an address equals one of them is not known")


def check_unordered(members, what: str) -> None:
    """Break where `what` (iteration, formatting) needs a set of ids in the
    order of their hashes: the addresses, known only at run time."""
    if any(type(v) is IdKey for v in members):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{what} of a set of id() values: its order follows the addresses")


def variable(member) -> Variable:
    """The Variable a set member stands for."""
    return member.var if type(member) is IdKey else ConstVariable(member)


def b_id(executor, obj):
    if isinstance(obj, NewObjectVariable):
        return IdVariable(obj)
    raise FallbackError(UNSUPPORTED_OBJECT, f"id() of {obj.describe()}: only objects made in the trace are modelled")


def register(table) -> None:
    table[builtins.id] = b_id
