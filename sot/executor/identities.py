"""`id(obj)` and the default `hash(obj)` of an object the trace made, and
such objects as set members, as autograd-style code uses them:
`seen = set(); if id(node) not in seen: seen.add(id(node))`.

The number is an address (the default hash is the address rotated), unknown
until the object exists at run time; what the trace knows is which object
it names. `IdVariable` stands for that int and answers only what identity
decides: `id(a) == id(b)` (a is b), and membership in a set (sets.py keys
members by `IdKey`; an object whose class keeps object's `__hash__` and
`__eq__` is keyed the same way). Anything that needs the number itself
(arithmetic, formatting, ordering, a set's iteration order, which follows
the addresses' hashes) breaks the graph. If it outlives the graph it is
rebuilt as `id(<the object>)`, the object being rebuilt once by output.py,
so the set holding it is eager's.

`hash(obj)` where the class defines `__hash__` in Python inlines it (the
int it returns folded as CPython's slot does).

Only objects made in the trace (`classes.NewObjectVariable`: one Variable
per object, and no other object is it) are modelled. Two objects whose
lifetimes do not overlap may share an id (`id(A()) == id(A())` is
usually True): `==` of the ids of two objects is decided only when both
are a local's value at the comparison (alive at once), and breaks
otherwise. A set of ids compares by object (``IdKey``).
"""
from __future__ import annotations

import builtins
import types

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from ..guards.invariants import ClassUnchangedGuard
from ..guards.tracker import AttrTracker, ConstTracker
from .classes import NewObjectVariable
from .variables import BoundMethodVariable, ConstVariable, Variable
from .variables.modelled import ModelledObject


class IdVariable(ModelledObject, Variable):
    """The int `id(obj)` returns, for an object the trace made."""

    def __init__(self, obj: NewObjectVariable, fn=builtins.id):
        Variable.__init__(self, None)
        self.obj, self.fn = obj, fn   # id or hash
        self.key = IdKey(self, obj, fn.__name__)

    def python_type(self):
        return int

    def truth(self) -> bool:
        return True   # an address is never 0

    def describe(self) -> str:
        return f"{self.fn.__name__}() of {self.obj.describe()}"

    def rebuild(self, builder) -> str:
        return f"{builder._bind(self.fn)}({builder.expr(self.obj)})"

    def compare(self, executor, name: str, other, left: bool):
        if name in ("eq", "ne") and isinstance(other, IdVariable) and other.fn is self.fn \
                and (self.obj is other.obj or _both_held(executor, self.obj, other.obj)):
            return ConstVariable((self.obj is other.obj) == (name == "eq"))
        # two objects not both held: eagerly `id(A()) == id(A())` is usually
        # True (the first is freed before the second takes its memory)
        raise FallbackError(UNSUPPORTED_OBJECT, f"comparison of {self.describe()} needs the address it holds")

    def binary(self, executor, name: str, other, left: bool):
        raise FallbackError(UNSUPPORTED_OBJECT, f"arithmetic on {self.describe()} needs the address it holds")


def _both_held(executor, a: Variable, b: Variable) -> bool:
    """Both objects are a local's value in the current frame: alive at once,
    so their ids differ (a temporary's id may be reused by the next object)."""
    held = executor.locals.values()
    return any(v is a for v in held) and any(v is b for v in held)


class IdKey:
    """A set member in the simulation standing for `var`: an id()/hash() of
    `obj` (kind "id"/"hash"), or `obj` itself (kind "object"), equal only to
    the key of the same kind and object. An id or hash is never compared
    with a real int (check_kinds); an object with object's `__eq__` equals
    nothing else, as eagerly."""
    __slots__ = ("var", "obj", "kind")

    def __init__(self, var: Variable, obj: Variable, kind: str):
        self.var, self.obj, self.kind = var, obj, kind

    def __hash__(self) -> int:
        return hash(id(self.obj))

    def __eq__(self, other) -> bool:
        return type(other) is IdKey and other.obj is self.obj and other.kind == self.kind

    def __repr__(self) -> str:
        return f"<{self.var.describe()}>"


def identity_hashed(v: Variable) -> bool:
    """An object made in the trace whose hash and == are object's own (its identity)."""
    return isinstance(v, NewObjectVariable) and v.cls.__hash__ is object.__hash__ and v.cls.__eq__ is object.__eq__


def member_key(v: Variable, graph=None):
    """The IdKey standing for `v` as a set member, or None for a plain value;
    `graph` guards that an object's class keeps object's __hash__ and __eq__."""
    if isinstance(v, IdVariable):
        return v.key
    if identity_hashed(v):
        if graph is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"{v.describe()} as a set member here is not modelled")
        graph.add_guard(ClassUnchangedGuard(v.cls))
        return IdKey(v, v, "object")
    return None


def check_kinds(members, new) -> None:
    """A set may hold ids/hashes of traced objects or plain values, not both:
    whether an address equals some int is not known (sets.py calls this)."""
    kinds = {"plain" if type(v) is not IdKey else v.kind for v in (*members, *new)}
    if "plain" in kinds and kinds & {"id", "hash"}:   # (an object with object's __eq__ equals no plain value)
        raise FallbackError(UNSUPPORTED_OBJECT, "a set mixing id()/hash() of objects made in the trace with other "
                            "values: whether an address equals one of them is not known")


def check_unordered(members, what: str) -> None:
    """Break where `what` (iteration, formatting) needs a set of ids in the
    order of their hashes: the addresses, known only at run time."""
    if any(type(v) is IdKey for v in members):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{what} of a set of id() values: its order follows the addresses")


def b_id(executor, obj):
    if isinstance(obj, NewObjectVariable):
        return IdVariable(obj)
    raise FallbackError(UNSUPPORTED_OBJECT, f"id() of {obj.describe()}: only objects made in the trace are modelled")


def user_hash(executor, obj: Variable) -> Variable | None:
    """hash() of an object made in the trace (None: not one, the caller decides)."""
    if not isinstance(obj, NewObjectVariable):
        return None
    method = obj.cls.__hash__
    executor.graph.add_guard(ClassUnchangedGuard(obj.cls))   # __hash__ stays what it is
    if method is object.__hash__:
        return IdVariable(obj, builtins.hash)
    if not isinstance(method, types.FunctionType):   # None (eager raises TypeError), or written in C
        raise FallbackError(UNSUPPORTED_CALL, f"hash() of {obj.describe()}: its __hash__ is not a Python function")
    from .function_graph import function_variable
    tracker = AttrTracker(ConstTracker(obj.cls), "__hash__")
    executor.graph.wrap(method, tracker)   # identity-guarded: a replaced __hash__ is seen
    result = executor.call_function(BoundMethodVariable(function_variable(method, tracker), obj), [], {})
    if not (isinstance(result, ConstVariable) and isinstance(result.value, int)):
        raise FallbackError(UNSUPPORTED_OBJECT, f"__hash__ of {obj.describe()} returned {result.describe()}")
    value = int(result.value)
    if -(1 << 63) <= value < (1 << 63):   # as CPython's slot: the int itself, -1 reserved for errors
        return ConstVariable(-2 if value == -1 else value)
    return ConstVariable(hash(value))


def register(table) -> None:
    table[builtins.id] = b_id
