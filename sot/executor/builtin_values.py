"""Facts about builtin values folded exactly at trace time: the names of a
class, `==` between classes, hash() of a tuple of constants, and a tuple's
count/index. Each answer depends only on values the trace already guards
(a class by identity, a constant by value)."""
from __future__ import annotations

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.tracker import AttrTracker, ConstTracker
from . import dispatch
from .variables import ConstVariable, TupleVariable, Variable

_IMMUTABLE_TYPE = 1 << 8     # Py_TPFLAGS_IMMUTABLETYPE
_HEAP_TYPE = 1 << 9          # Py_TPFLAGS_HEAPTYPE
CLASS_NAMES = ("__name__", "__qualname__")


def _plain_class(v: Variable):
    """The class `v` holds when its metaclass leaves names and `==` to
    `type` (a user metaclass may override them), else None."""
    cls = getattr(v, "value", None)
    if not isinstance(cls, type):
        return None
    meta = type(cls)
    if meta is not type and any(n in vars(k) for k in meta.__mro__ if k is not type
                                for n in CLASS_NAMES + ("__eq__", "__ne__", "__getattribute__")):
        return None
    return cls


def class_name(graph, v: Variable, name: str) -> Variable | None:
    """`cls.__name__` / `cls.__qualname__`, or None where not modelled here.
    A builtin type's name cannot change; a Python class's can be assigned,
    so its value is guarded."""
    cls = _plain_class(v) if name in CLASS_NAMES else None
    if cls is None:
        return None
    value = getattr(cls, name)
    if cls.__flags__ & _IMMUTABLE_TYPE or not cls.__flags__ & _HEAP_TYPE:
        return dispatch.const(value)
    tracker = getattr(v, "tracker", None) or ConstTracker(cls)
    return graph.wrap(value, AttrTracker(tracker, name))


def classes_equal(name: str, a: Variable, b: Variable) -> Variable | None:
    """`a == b` / `a != b` of two classes: identity (type.__eq__), or None."""
    if name not in ("eq", "ne"):
        return None
    ca, cb = _plain_class(a), _plain_class(b)
    if ca is None or cb is None:
        return None
    return dispatch.const((ca is cb) == (name == "eq"))


_HASHABLE = (int, float, complex, bool, str, bytes, type(None))


_NOT_CONSTANT = object()


def _constant(v: Variable):
    """The plain hashable constant `v` stands for (tuples of them included), or _NOT_CONSTANT."""
    if isinstance(v, ConstVariable):
        return v.value if type(v.value) in _HASHABLE else _NOT_CONSTANT
    if isinstance(v, TupleVariable) and v.python_type() is tuple:
        items = tuple(_constant(x) for x in v.items)
        return _NOT_CONSTANT if any(i is _NOT_CONSTANT for i in items) else items
    return _NOT_CONSTANT


def hash_of(v: Variable) -> Variable | None:
    """hash() of a tuple of constants (as CPython hashes it), or None."""
    value = _constant(v) if isinstance(v, TupleVariable) else _NOT_CONSTANT
    return None if value is _NOT_CONSTANT else dispatch.const(hash(value))


TUPLE_METHODS = ("count", "index")


def tuple_method(obj: TupleVariable, name: str, args: list) -> Variable:
    """tuple.count / tuple.index over plain constants (compared without user code)."""
    if not args or not all(isinstance(a, ConstVariable) and type(a.value) is int for a in args[1:]):
        raise FallbackError(UNSUPPORTED_OBJECT, f"tuple.{name} with these arguments")
    from . import functional   # imports dispatch, which imports this module
    values = functional.plain_values(list(obj.items) + list(args[:1]), f"tuple.{name}")
    return dispatch.const(dispatch.python_op(getattr(tuple(values[:-1]), name), values[-1], *[a.value for a in args[1:]]))
