"""The object protocols of user objects, inlined: truth (`__bool__`, then
`__len__`), `len()`, `obj[k]`, `k in obj`, `iter(obj)`, `str()`/`repr()`/
f-strings (`__str__`, `__repr__`), and class introspection (`cls.__mro__`). Each asks the *type* for the dunder (as
CPython's slots do) through user_operators' lookup, guards the class
unchanged, and checks what CPython checks of the result (`__bool__` returns a
bool, `__len__` a non-negative int, `__iter__` an iterator); anything else
runs natively, where eager raises its TypeError or ValueError.
"""
from __future__ import annotations

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.invariants import ClassUnchangedGuard
from ..guards.tracker import AttrTracker, ConstTracker
from . import records
from .user_operators import _invoke, _lookup, user_class
from .variables import (
    BoundMethodVariable, ClassVariable, ConstVariable, IteratorVariable, ObjectVariable, SymScalarVariable, TupleVariable,
    Variable,
)


def _protocol_class(ex, v: Variable, *names: str) -> type | None:
    """The user class of `v` when it defines one of `names` (guarded unchanged)."""
    cls = user_class(v)
    if cls is None or all(_lookup(cls, n)[1] in (None, object) for n in names):
        return None
    ex.graph.add_guard(ClassUnchangedGuard(cls))
    return cls


def _call(ex, cls, name: str, v: Variable, *args: Variable) -> Variable:
    result = _invoke(ex, cls, name, v, *args) if args else _invoke(ex, cls, name, v, None)
    if result is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__qualname__}.{name} returned NotImplemented")
    return result


def truth(ex, v: Variable) -> bool:
    """bool(v): a user object's __bool__ (must return a bool) or __len__."""
    cls = _protocol_class(ex, v, "__bool__", "__len__")
    if cls is None:
        return v.truth()
    if _lookup(cls, "__bool__")[0] is not None:
        result = _call(ex, cls, "__bool__", v)
        if not (isinstance(result, ConstVariable) and type(result.value) is bool):
            raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__qualname__}.__bool__ returned {result.describe()} "
                                "(eager raises TypeError unless it is a bool)")
        return result.value
    return _length(ex, cls, v).value != 0


def length(ex, v: Variable) -> Variable | None:
    """len(v) of a user object with __len__ or of an Enum class, or None (neither)."""
    if (n := records.enum_length(v)) is not None:
        return n
    cls = _protocol_class(ex, v, "__len__")
    return None if cls is None else _length(ex, cls, v)


def _length(ex, cls, v: Variable) -> Variable:
    result = _call(ex, cls, "__len__", v)
    if isinstance(result, SymScalarVariable) and result.python_type() is int:
        return result          # a dim of an array: never negative
    if isinstance(result, ConstVariable) and type(result.value) in (int, bool) and result.value >= 0:
        return ConstVariable(int(result.value))
    raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__qualname__}.__len__ returned {result.describe()} "
                        "(eager checks it is a non-negative int)")


def getitem(ex, obj: Variable, key: Variable) -> Variable | None:
    cls = _protocol_class(ex, obj, "__getitem__")
    return None if cls is None else _call(ex, cls, "__getitem__", obj, key)


def contains(ex, item: Variable, container: Variable) -> bool | None:
    """`item in container` by __contains__ (its result's truth), or None."""
    cls = _protocol_class(ex, container, "__contains__")
    if cls is None:
        if user_class(container) is not None and _lookup(user_class(container), "__iter__")[1] not in (None, object):
            raise FallbackError(UNSUPPORTED_OBJECT, f"`in` over {container.describe()} by iteration")
        return None
    return truth(ex, _call(ex, cls, "__contains__", container, item))


def get_iter(ex, obj: Variable) -> Variable | None:
    """iter(obj) by __iter__, whose result must be an iterator the
    simulator steps (a generator, an iterator over a container), or None."""
    cls = _protocol_class(ex, obj, "__iter__")
    if cls is None:
        return None
    result = _call(ex, cls, "__iter__", obj)
    if not isinstance(result, IteratorVariable):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__qualname__}.__iter__ returned {result.describe()}, "
                            "not an iterator the trace steps")
    return result


def dunder_attr(ex, obj: Variable, name: str) -> Variable | None:
    """`obj.__class__` of a user object whose class keeps object's
    descriptor (its guarded type); `cls.__mro__` of a user class (its
    classes, fixed while the class is unchanged); None otherwise."""
    if name == "__class__":
        cls = user_class(obj)
        if cls is None or _lookup(cls, "__class__")[1] is not object:
            return None
        return ex.graph.wrap(cls, ConstTracker(cls))
    if name == "__setattr__" and getattr(obj, "value", None) is object:
        return ex.graph.wrap(object.__setattr__, ConstTracker(object.__setattr__))   # a modelled builtin
    if name != "__mro__" or not isinstance(obj, ClassVariable) or user_class_of_class(obj.value) is None:
        return None
    cls = obj.value
    ex.graph.add_guard(ClassUnchangedGuard(cls))   # a new __bases__ changes the version tag
    return TupleVariable([ex.graph.wrap(k, ConstTracker(k)) for k in cls.__mro__])


def text(ex, conv, obj: Variable) -> Variable | None:
    """`str(obj)` / `repr(obj)` (conv) of a user object whose class defines
    them in Python: inlined; None where object's default would answer (it
    shows the address) or the object is no user object."""
    cls = user_class(obj)
    if cls is None or conv not in (str, repr):
        return None
    name = "__str__" if conv is str and _lookup(cls, "__str__")[1] is not object else "__repr__"
    if _lookup(cls, name)[1] in (None, object):
        return None
    ex.graph.add_guard(ClassUnchangedGuard(cls))
    result = _call(ex, cls, name, obj)
    if not (isinstance(result, ConstVariable) and type(result.value) is str):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__qualname__}.{name} returned {result.describe()}, "
                            "not a str")   # eager raises TypeError, or keeps a str subclass
    return result


def formats_as_str(obj: Variable, spec: str) -> bool:
    """format(obj, spec) is str(obj): object's own __format__ with no spec."""
    cls = user_class(obj)
    return cls is not None and spec == "" and _lookup(cls, "__format__")[1] is object


def custom_setattr(ex, obj: Variable, name: str, value: Variable) -> bool:
    """`obj.name = value` on an object made in the trace whose class defines
    __setattr__ (a frozen dataclass's raises FrozenInstanceError): inlined."""
    from .classes import NewObjectVariable
    if not isinstance(obj, NewObjectVariable) or obj.cls.__setattr__ is object.__setattr__:
        return False
    ex.graph.add_guard(ClassUnchangedGuard(obj.cls))
    fn = ex.graph.wrap(obj.cls.__setattr__, AttrTracker(ConstTracker(obj.cls), "__setattr__"))
    ex.call_function(BoundMethodVariable(fn, obj), [ConstVariable(name), value], {})
    return True


def b_object_setattr(ex, obj: Variable, name: Variable, value: Variable) -> Variable:
    """`object.__setattr__(obj, name, value)`: the store without the class's
    own __setattr__ (how a frozen dataclass's __init__ sets its fields)."""
    from .classes import NewObjectVariable
    from .handlers.names import set_attribute
    if not (isinstance(name, ConstVariable) and type(name.value) is str):
        raise FallbackError(UNSUPPORTED_OBJECT, "object.__setattr__ with a non-constant name")
    if isinstance(obj, NewObjectVariable):
        from .classes import store_attr
        from . import setters
        if setters.property_setter(obj.cls, name.value) is not None:
            setters.inline_setter(ex, obj, obj.cls, name.value, value)
        else:
            store_attr(obj, name.value, value)
    elif user_class(obj) is not None and user_class(obj).__setattr__ is object.__setattr__:
        set_attribute(ex, obj, name.value, value)
    elif user_class(obj) is not None and isinstance(obj, ObjectVariable) and obj.tracker is not None:
        ex.graph.effects.store_attr(obj, name.value, value, raw=True)   # replayed as object.__setattr__
    else:
        raise FallbackError(UNSUPPORTED_OBJECT, f"object.__setattr__ on {obj.describe()}")
    return ConstVariable(None)


def register(table: dict) -> None:
    table[object.__setattr__] = b_object_setattr


def user_class_of_class(cls) -> type | None:
    from .function_graph import is_user_class
    return cls if isinstance(cls, type) and type(cls) is type and is_user_class(cls) else None
