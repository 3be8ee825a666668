"""getattr(obj, name, default) and hasattr(obj, name): whether an attribute
is missing, decided only where that is exact without running user code.

A missing attribute is known for an array or NumPy scalar (no instance dict:
the type's names are all there is), a Python constant of a builtin type, and
an object made in the trace (its attributes are modelled; its class has no
__getattr__, else it would not be one: classes.py), under a guard that the
class keeps its names. Anything else is looked up as `obj.name` is, and an
exception raised inside that lookup makes the frame run natively (eager's
getattr/hasattr would catch an AttributeError there).
"""
from __future__ import annotations

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.invariants import ClassUnchangedGuard
from . import dispatch
from .classes import NewObjectVariable
from .dispatch import const
from .signals import RaiseSignal
from .variables import ConstVariable, TensorVariable, Variable

# builtin types whose instances have no attribute dict: hasattr(value, name)
# asks only the (immutable) type, whose attributes never fail to load
_BUILTIN_TYPES = frozenset({int, float, complex, bool, str, bytes, tuple, frozenset, type(None), list, dict, set})


def is_missing(executor, obj: Variable, name: str) -> bool | None:
    """True/False where the simulator knows exactly; None where it does not."""
    if isinstance(obj, TensorVariable):
        return not hasattr(obj.python_type(), name)
    if _builtin_type(obj) is not None:
        return not hasattr(_builtin_type(obj), name)
    if isinstance(obj, NewObjectVariable):
        if name in obj.attrs:
            return None          # present, unless a data descriptor wins: the lookup decides
        if any(name in vars(k) for k in obj.cls.__mro__) or hasattr(obj.cls, "__getattr__"):
            return None   # what instance lookup searches, or what __getattr__ answers
        executor.graph.add_guard(ClassUnchangedGuard(obj.cls))  # no such name is added later
        return True
    return None


def _builtin_type(obj: Variable):
    """The exact builtin type of `obj` (its Variable guards it), or None."""
    if isinstance(obj, ConstVariable):
        return type(obj.value) if type(obj.value) in _BUILTIN_TYPES else None
    try:
        t = obj.python_type()
    except Exception:   # a Variable that does not model its type
        return None
    return t if t in _BUILTIN_TYPES else None


def _lookup(executor, obj: Variable, name: str, what: str) -> Variable:
    try:
        return dispatch.getattr_(executor, obj, name)
    except RaiseSignal:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{what}: the attribute lookup raised in the trace") from None


def getattr_default(executor, obj: Variable, name: str, default: Variable) -> Variable:
    if is_missing(executor, obj, name):
        return default
    try:
        return _lookup(executor, obj, name, "getattr() with a default")
    except FallbackError:
        raise FallbackError(UNSUPPORTED_OBJECT, "getattr() with a default on a missing attribute") from None


def hasattr_(executor, obj: Variable, name: str) -> Variable:
    if is_missing(executor, obj, name):
        return const(False)
    if _builtin_type(obj) is not None:
        return const(True)
    _lookup(executor, obj, name, "hasattr()")   # eager runs the lookup too (a property's getter)
    return const(True)
