"""The standard library's record types inside a trace: dataclasses
(`fields`, `asdict`, `replace`), namedtuples (`_fields`, `_replace`,
`_asdict`) and enums (`Cls(value)`, `len(Cls)`, members' own methods and
properties).

Each mirrors the stdlib function it stands for (dataclasses.py, enum.py,
collections' namedtuple); a case that function would raise for, or one
that would run code the simulator does not see (a `dict_factory`, an enum
`_missing_`, a Flag pseudo-member), runs natively.
"""
from __future__ import annotations

import dataclasses
import enum
import inspect
import types

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from ..guards.tracker import AttrTracker, ConstTracker
from . import classes, copies, pyidentity
from .user_operators import user_class
from .variables import (
    BoundMethodVariable, ClassVariable, ConstVariable, DictVariable, ListVariable, TensorVariable, TupleVariable,
    Variable,
)
from .function_graph import function_variable

_ENUM_MODULES = ("enum",)
_HASHABLE = (int, float, str, bool, bytes, type(None))   # hashing runs no user code


class RecordMethod(Variable):
    """`nt._replace` / `nt._asdict` of a namedtuple made or read in the trace."""

    def __init__(self, obj: Variable, name: str):
        super().__init__(None)
        self.obj, self.name = obj, name

    def truth(self) -> bool:
        return True

    def call(self, executor, args, kwargs):
        fields = self.obj.cls._fields
        if self.name == "_asdict":
            if args or kwargs:
                raise FallbackError(UNSUPPORTED_CALL, "_asdict() takes no arguments (eager raises)")
            return DictVariable(dict(zip(fields, self.obj.items)))
        if args or set(kwargs) - set(fields):
            raise FallbackError(UNSUPPORTED_CALL, "_replace() of unknown fields (eager raises)")
        items = [kwargs.get(f, v) for f, v in zip(fields, self.obj.items)]
        return classes.NamedTupleVariable(items, cls=self.obj.cls)


# -- attributes ------------------------------------------------------------------------

def attribute(executor, obj: Variable, name: str) -> Variable | None:
    """A record attribute this module models, or None."""
    if isinstance(obj, classes.NamedTupleVariable) and obj.cls is not tuple and _nt_plain(obj.cls, name):
        if name == "_fields":
            return ConstVariable(obj.cls._fields)
        if name in ("_replace", "_asdict"):
            return RecordMethod(obj, name)
    if isinstance(obj, ClassVariable) and classes.is_namedtuple_class(obj.value) and name == "_fields" \
            and _nt_plain(obj.value, name):
        return ConstVariable(obj.value._fields)
    if isinstance(obj, ConstVariable) and isinstance(obj.value, enum.Enum):
        return _enum_member_attr(executor, obj, name)
    return None


def _nt_plain(cls: type, name: str) -> bool:
    """`name` is collections.namedtuple's own (not redefined by a subclass)."""
    owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
    return owner is not None and tuple in owner.__bases__ and classes.is_namedtuple_class(owner)


def _enum_member_attr(executor, member_var: ConstVariable, name: str) -> Variable | None:
    """A method or property defined by the user's Enum class itself (the
    stdlib's own `name`/`value` and the value type's methods are left to
    their existing models)."""
    cls = type(member_var.value)
    owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
    if owner is None or owner.__module__ in _ENUM_MODULES or owner.__module__ == "builtins" \
            or not classes.is_enum_class(owner) or name in member_var.value.__dict__:
        return None
    attr = owner.__dict__[name]
    tracker = AttrTracker(ConstTracker(cls), name)
    if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
        executor.graph.wrap(attr, tracker)    # identity-guarded: a new property is seen
        getter = function_variable(attr.fget, AttrTracker(tracker, "fget"))
        return executor.call_function(getter, [member_var], {})
    if isinstance(attr, types.FunctionType):
        return BoundMethodVariable(executor.graph.wrap(attr, tracker), member_var)
    return None


# -- enum classes ------------------------------------------------------------------------

def enum_call(executor, cls: type, args, kwargs) -> Variable:
    """`Cls(value)`: the member whose value it is (EnumType.__call__ with one
    argument), found as Enum.__new__ finds it; a miss runs natively (_missing_, ValueError)."""
    if kwargs or len(args) != 1 or type(cls).__call__ is not type(enum.Enum).__call__ \
            or cls.__new__ is not enum.Enum.__new__:
        raise FallbackError(UNSUPPORTED_CALL, f"calling Enum class {cls.__qualname__} this way is not modelled")
    (value,) = args
    if isinstance(value, ConstVariable) and type(value.value) is cls:
        return value
    if not isinstance(value, ConstVariable) or pyidentity.identity_decides(value.value):
        raise FallbackError(UNSUPPORTED_CALL, f"{cls.__qualname__}({value.describe()}) is not modelled")
    v = value.value
    member = cls._value2member_map_.get(v) if type(v) in _HASHABLE else None
    if member is None:
        raise FallbackError(UNSUPPORTED_CALL, f"{cls.__qualname__}({v!r}) has no member (_missing_ or ValueError "
                            "runs natively)")
    return ConstVariable(member)


def enum_length(cls_var: Variable) -> Variable | None:
    if isinstance(cls_var, ClassVariable) and classes.is_enum_class(cls_var.value) \
            and type(cls_var.value).__len__ is type(enum.Enum).__len__:
        return ConstVariable(len(cls_var.value))
    return None


# -- dataclasses -------------------------------------------------------------------------

def _dataclass(v: Variable, what: str) -> type:
    cls = v.value if isinstance(v, ClassVariable) else user_class(v)
    if cls is None or not dataclasses.is_dataclass(cls):
        raise FallbackError(UNSUPPORTED_CALL, f"{what} of {v.describe()}")
    return cls


def _fields(cls: type) -> list:
    return [f for f in cls.__dict__.get("__dataclass_fields__", getattr(cls, "__dataclass_fields__")).values()
            if f._field_type is dataclasses._FIELD]


def b_fields(executor, obj):
    cls = _dataclass(obj, "dataclasses.fields()")
    return TupleVariable([executor.graph.wrap(f, ConstTracker(f)) for f in _fields(cls)])


def b_asdict(executor, obj, **kwargs):
    if kwargs:
        raise FallbackError(UNSUPPORTED_CALL, "dataclasses.asdict() with a dict_factory")
    if isinstance(obj, ClassVariable):
        raise FallbackError(UNSUPPORTED_CALL, "asdict() of a class (eager raises TypeError)")
    _dataclass(obj, "dataclasses.asdict()")
    return _asdict_inner(executor, obj, {})


def _asdict_inner(executor, v: Variable, memo: dict) -> Variable:
    from .dispatch import getattr_
    cls = user_class(v)
    if cls is not None and dataclasses.is_dataclass(cls):
        return DictVariable({f.name: _asdict_inner(executor, getattr_(executor, v, f.name), memo)
                             for f in _fields(cls)})
    if type(v) is ListVariable:
        return ListVariable([_asdict_inner(executor, x, memo) for x in v.items])
    if type(v) is TupleVariable:
        return TupleVariable([_asdict_inner(executor, x, memo) for x in v.items])
    if type(v) is DictVariable:
        return DictVariable({k: _asdict_inner(executor, x, memo) for k, x in v.entries.items()})
    if isinstance(v, (ConstVariable, TensorVariable)):
        return copies._deep(executor.graph, v, memo)     # copy.deepcopy, as asdict does
    raise FallbackError(UNSUPPORTED_CALL, f"dataclasses.asdict() of a field holding {v.describe()}")


def b_replace(executor, obj, **changes):
    from .calls import call
    from .dispatch import getattr_
    cls = _dataclass(obj, "dataclasses.replace()")
    if isinstance(obj, ClassVariable):
        raise FallbackError(UNSUPPORTED_CALL, "replace() of a class (eager raises TypeError)")
    changes = dict(changes)
    for f in cls.__dataclass_fields__.values():
        if f._field_type is dataclasses._FIELD_CLASSVAR:
            continue
        if not f.init:
            if f.name in changes:
                raise FallbackError(UNSUPPORTED_CALL, f"replace() of init=False field {f.name} (eager raises)")
            continue
        if f.name not in changes:
            if f._field_type is dataclasses._FIELD_INITVAR and f.default is dataclasses.MISSING:
                raise FallbackError(UNSUPPORTED_CALL, f"replace() needs InitVar {f.name} (eager raises)")
            changes[f.name] = getattr_(executor, obj, f.name)
    return call(executor, executor.graph.wrap(cls, ConstTracker(cls)), [], changes)


def register(table: dict) -> None:
    table.update({dataclasses.fields: b_fields, dataclasses.asdict: b_asdict, dataclasses.replace: b_replace})
