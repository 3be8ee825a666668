"""User classes in the trace: instances created in the frame, super(),
class-level descriptors, namedtuples and Enum members.

`NewObjectVariable` is an instance of a plain user class made during the
trace: the default `object.__new__`, then the class's `__init__` inlined
(a dataclass's generated `__init__`, and its `__post_init__`, included). Its attributes live in the
simulation; attribute reads resolve the way `object.__getattribute__` does
(instance attribute unless a data descriptor, then the class through its
MRO). If it outlives the graph it is rebuilt with `object.__new__` and the
attributes set in the order eager set them.

A class qualifies only when creating and using its instances runs no code
we do not see: plain `type` metaclass (or `abc.ABCMeta`, with no abstract
method left), `object.__new__`, `object.__setattr__`,
no `__del__`, no C base (see function_graph.is_user_class).
"""
from __future__ import annotations

import abc
import builtins
import enum
import inspect
import types

from .._hook import StaticFunction
from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from ..guards.invariants import ClassUnchangedGuard
from ..guards.tracker import AttrTracker, ConstTracker
from . import builtin_subclasses, instance_dicts, local_classes, user_descriptors
from .function_graph import function_variable, is_user_class
from .side_effects import is_data_descriptor
from .variables import (
    BoundMethodVariable, ClassVariable, ConstVariable, TupleVariable, Variable,
)


class NewObjectVariable(Variable):
    def __init__(self, cls: type):
        super().__init__(None)
        self.cls = cls
        self.attrs: dict[str, Variable] = {}

    def python_type(self):
        return self.cls

    def truth(self) -> bool:
        if hasattr(self.cls, "__bool__") or hasattr(self.cls, "__len__"):
            return Variable.truth(self)  # that would run user code
        return True

    def describe(self) -> str:
        return f"new {self.cls.__qualname__} object"

    def rebuild(self, builder) -> str:
        """An expression building the object as eager left it (see output.py)."""
        if any(type(k) is not str for k in self.attrs):   # put there through its __dict__
            raise FallbackError(UNSUPPORTED_OBJECT, f"{self.describe()} has attribute names that are not str")
        values = "".join(builder.expr(v) + ", " for v in self.attrs.values())
        return f"{builder._bind(_rebuild)}({builder._bind(self.cls)}, {builder._bind(tuple(self.attrs))}, ({values}))"


def _rebuild(cls, names, values):
    obj = object.__new__(cls)
    for name, value in zip(names, values):
        object.__setattr__(obj, name, value)
    return obj


def can_create(cls: type) -> str | None:
    """None if instances of `cls` can be made in the trace, else why not."""
    if not is_user_class(cls, python_getattr(cls) is not None) or type(cls) not in (type, abc.ABCMeta):
        return "its class is not a plain Python class"
    if getattr(cls, "__abstractmethods__", None):   # (ABCMeta adds no __call__: type's makes the object)
        return "its class has abstract methods (eager raises TypeError)"
    if cls.__new__ is not object.__new__:
        return "its class defines __new__"
    if cls.__setattr__ is not object.__setattr__ and not isinstance(cls.__setattr__, types.FunctionType) or \
            cls.__delattr__ is not object.__delattr__ and not isinstance(cls.__delattr__, types.FunctionType):
        return "its class defines __setattr__/__delattr__ that are not Python functions"
    if getattr(cls, "__del__", None) is not None:
        return "its class defines __del__ (its lifetime would be observable)"
    return None


def create(executor, cls_var: ClassVariable, args, kwargs) -> Variable:
    cls = cls_var.value
    if is_namedtuple_class(cls):
        return make_namedtuple(executor, cls, args, kwargs)
    if (made := builtin_subclasses.create(executor, cls_var, args, kwargs)) is not None:
        return made   # a subclass of list or dict
    why = can_create(cls)
    if why is not None:
        raise FallbackError(UNSUPPORTED_CALL, f"creating an instance of {cls.__qualname__}: {why}")
    obj = NewObjectVariable(cls)
    init = cls.__init__
    if init is object.__init__:
        if args or kwargs:
            raise FallbackError(UNSUPPORTED_CALL, f"{cls.__qualname__}() takes no arguments (eager raises)")
        return obj
    return run_init(executor, cls_var, obj, args, kwargs)


def run_init(executor, cls_var: ClassVariable, obj: Variable, args, kwargs) -> Variable:
    """`obj`, made in the trace, after its class's Python `__init__` ran on it (inlined)."""
    cls = cls_var.value
    init = cls.__init__
    if not isinstance(init, types.FunctionType):
        raise FallbackError(UNSUPPORTED_CALL, f"{cls.__qualname__}.__init__ is not a Python function")
    tracker = AttrTracker(cls_var.tracker or ConstTracker(cls), "__init__")
    executor.graph.wrap(init, tracker)  # identity-guarded: a replaced __init__ is seen
    result = executor.call_function(function_variable(init, tracker), [obj] + list(args), kwargs)
    if not (isinstance(result, ConstVariable) and result.value is None):
        raise FallbackError(UNSUPPORTED_OBJECT, "__init__ returned a value (eager raises TypeError)")
    return obj


def binds_like_function(attr) -> bool:
    """``attr`` found on a class binds to an instance as a plain function
    does: a function, or a to_static wrapper of one (its ``__get__`` makes
    the same bound method; the wrapper is inlined as what it wraps)."""
    return inspect.isfunction(attr) or type(attr) is StaticFunction


def new_object_getattr(executor, obj: NewObjectVariable, name: str) -> Variable:
    try:
        class_attr = inspect.getattr_static(obj.cls, name)
        in_class = True
    except AttributeError:
        class_attr, in_class = None, False
    slot = isinstance(class_attr, types.MemberDescriptorType)
    if name in obj.attrs and (slot or not (in_class and is_data_descriptor(class_attr))):
        return obj.attrs[name]
    if name == "__dict__" and instance_dicts.is_plain_dict_attr(class_attr):
        return instance_dicts.instance_dict(obj)
    hook = python_getattr(obj.cls)
    if not in_class or slot:
        if hook is not None:   # not found: type(obj).__getattr__(obj, name), inlined
            executor.graph.add_guard(ClassUnchangedGuard(obj.cls))   # (while no class in its MRO gains the name)
            fn = executor.graph.wrap(hook, AttrTracker(ConstTracker(obj.cls), "__getattr__"))
            return executor.call_function(BoundMethodVariable(fn, obj), [ConstVariable(name)], {})
        raise FallbackError(UNSUPPORTED_OBJECT, f"{obj.describe()} has no attribute {name!r} (eager raises)")
    if hook is not None and not binds_like_function(class_attr) and hasattr(type(class_attr), "__get__"):
        raise FallbackError(UNSUPPORTED_OBJECT, f"descriptor {name} of a class with __getattr__ (an "
                            "AttributeError it raises would go to __getattr__)")
    return class_level(executor, obj.cls, name, class_attr, obj)


def python_getattr(cls: type):
    """cls.__getattr__ where it is a Python function, else None."""
    hook = getattr(cls, "__getattr__", None)
    return hook if isinstance(hook, types.FunctionType) else None


def class_level(executor, cls: type, name: str, attr, self_var: Variable | None,
                cls_tracker=None, owner: Variable | None = None) -> Variable:
    """`attr`, found on `cls` (or a base) under `name`, bound the way
    attribute lookup binds it: to `self_var` (an instance), or to the class;
    a classmethod to `owner` where the lookup started below `cls` (super())."""
    if (stored := local_classes.stored_class_attr(cls, name)) is not None:
        return stored   # set in the trace on a class the trace made
    graph = executor.graph
    graph.add_guard(ClassUnchangedGuard(cls))  # e.g. that `name` stays what it is (no new descriptor)
    tracker = AttrTracker(cls_tracker or ConstTracker(cls), name)
    if isinstance(attr, staticmethod):
        return graph.wrap(attr.__func__, tracker)
    if isinstance(attr, classmethod):
        fn = graph.wrap(attr.__func__, AttrTracker(tracker, "__func__"))
        return BoundMethodVariable(fn, owner or graph.wrap(cls, cls_tracker or ConstTracker(cls)))
    if isinstance(attr, property) and self_var is not None:
        if attr.fget is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"property {name} has no getter")
        graph.wrap(attr, tracker)
        getter = function_variable(attr.fget, AttrTracker(tracker, "fget"))
        return executor.call_function(getter, [self_var], {})
    if binds_like_function(attr):
        fn = graph.wrap(attr, tracker)
        return BoundMethodVariable(fn, self_var) if self_var is not None else fn
    if hasattr(type(attr), "__get__"):
        if (got := user_descriptors.get(executor, cls, name, self_var)) is not None:
            return got   # a descriptor written in Python, inlined
        raise FallbackError(UNSUPPORTED_OBJECT, f"descriptor {name} of {cls.__qualname__} is not modelled")
    return graph.wrap(attr, tracker)


def store_attr(obj: NewObjectVariable, name: str, value: Variable) -> None:
    try:
        class_attr = inspect.getattr_static(obj.cls, name)
    except AttributeError:
        class_attr = None
    if isinstance(class_attr, types.MemberDescriptorType):
        obj.attrs[name] = value  # a __slots__ slot
        return
    if class_attr is not None and is_data_descriptor(class_attr):
        raise FallbackError(UNSUPPORTED_OBJECT, f"assignment through descriptor {name} of {obj.describe()}")
    if not obj.cls.__dictoffset__:  # __slots__ and no instance dict
        raise FallbackError(UNSUPPORTED_OBJECT, f"{obj.describe()} has no attribute {name!r} (eager raises)")
    obj.attrs[name] = value


def delete_attr(graph, obj: NewObjectVariable, name: str) -> None:
    """`del obj.name` on an object made in the trace: the name leaves its
    instance dict, and a later read finds the class's attribute, as eagerly.
    A class's own __delattr__, a descriptor or slot of that name, or a name
    the object lacks (eager raises AttributeError) breaks."""
    if obj.cls.__delattr__ is not object.__delattr__:
        raise FallbackError(UNSUPPORTED_OBJECT, f"del .{name} on {obj.describe()}: its class defines __delattr__")
    try:
        class_attr = inspect.getattr_static(obj.cls, name)
    except AttributeError:
        class_attr = None
    if class_attr is not None and (is_data_descriptor(class_attr) or
                                   isinstance(class_attr, types.MemberDescriptorType)):
        raise FallbackError(UNSUPPORTED_OBJECT, f"del .{name} on {obj.describe()} through a descriptor or slot")
    if name not in obj.attrs:
        raise FallbackError(UNSUPPORTED_OBJECT, f"del .{name} on {obj.describe()}, which has no such attribute")
    graph.add_guard(ClassUnchangedGuard(obj.cls))   # no __delattr__ or descriptor `name` appears
    del obj.attrs[name]


# -- super() -------------------------------------------------------------------

class SuperVariable(Variable):
    """super(cls, obj): attribute lookup starts after `cls` in type(obj)'s MRO."""

    def __init__(self, cls: type, obj: Variable):
        super().__init__(None)
        self.cls, self.obj = cls, obj

    def python_type(self):
        return builtins.super

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"super({self.cls.__qualname__})"


def make_super(executor, cls_var: Variable, obj: Variable) -> SuperVariable:
    cls = getattr(cls_var, "value", None)
    if not isinstance(cls, type):
        raise FallbackError(UNSUPPORTED_OBJECT, "super() with a class that is not known")
    return SuperVariable(cls, obj)


def b_super(executor, *args):
    if len(args) == 2:
        return make_super(executor, *args)
    if args:
        raise FallbackError(UNSUPPORTED_CALL, "super() with one argument")
    code = executor.code
    if "__class__" not in code.co_freevars or not code.co_argcount:
        raise FallbackError(UNSUPPORTED_OBJECT, "super() outside a method (eager raises RuntimeError)")
    first = code.co_varnames[0]
    if first in code.co_cellvars:
        raise FallbackError(UNSUPPORTED_OBJECT, "super() in a method whose first argument is captured")
    return make_super(executor, executor.load_cell_contents("__class__"), executor.load_local(first))


def super_getattr(executor, sup: SuperVariable, name: str) -> Variable:
    obj_type = sup.obj.python_type()
    if isinstance(sup.obj, ClassVariable):
        obj_type = sup.obj.value
    mro = obj_type.__mro__
    if sup.cls not in mro:
        raise FallbackError(UNSUPPORTED_OBJECT, "super(type, obj): obj is not an instance of type (eager raises)")
    for klass in mro[mro.index(sup.cls) + 1:]:
        if name in vars(klass):
            attr = vars(klass)[name]
            if klass is object and name == "__init__":
                return ObjectInit()
            if klass in (list, dict) and isinstance(sup.obj, builtin_subclasses.SUBCLASS_INSTANCES):
                return builtin_subclasses.builtin_method(sup.obj, name)
            self_var = None if isinstance(sup.obj, ClassVariable) else sup.obj
            # a classmethod binds to the class super() was given (or the instance's), not to `klass`
            owner = sup.obj if self_var is None else executor.graph.wrap(obj_type, ConstTracker(obj_type))
            return class_level(executor, klass, name, attr, self_var, owner=owner)
    raise FallbackError(UNSUPPORTED_OBJECT, f"'super' object has no attribute {name!r} (eager raises)")


class ObjectInit(Variable):
    """super().__init__ reaching object.__init__: does nothing."""

    def __init__(self):
        super().__init__(None)

    def truth(self) -> bool:
        return True

    def call(self, executor, args, kwargs):
        if args or kwargs:
            raise FallbackError(UNSUPPORTED_CALL, "object.__init__() takes no arguments (eager raises)")
        return ConstVariable(None)





# -- namedtuple and Enum --------------------------------------------------------------

def is_namedtuple_class(cls) -> bool:
    """A class made by collections.namedtuple (or a plain subclass of one)."""
    return (isinstance(cls, type) and issubclass(cls, tuple) and type(cls) is type
            and isinstance(vars(cls).get("_fields", getattr(cls, "_fields", None)), tuple)
            and isinstance(cls.__new__, types.FunctionType)
            and str(cls.__new__.__globals__.get("__name__", "")).startswith("namedtuple_")
            and cls.__getattribute__ is tuple.__getattribute__)


class NamedTupleVariable(TupleVariable):
    """A namedtuple instance; `cls` tuple for the plain tuples that slicing
    and concatenation of one give (TupleVariable builds those as type(obj)(items))."""

    def __init__(self, items, tracker=None, cls: type = tuple):
        super().__init__(items, tracker)
        self.cls = cls

    def python_type(self):
        return self.cls

    def rebuild(self, builder) -> str:
        items = "".join(builder.expr(v) + ", " for v in self.items)
        if self.cls is tuple:
            return f"({items})"
        return f"{builder._bind(tuple.__new__)}({builder._bind(self.cls)}, ({items}))"


def make_namedtuple(executor, cls: type, args, kwargs) -> NamedTupleVariable:
    try:
        bound = inspect.signature(cls.__new__).bind(cls, *args, **kwargs)
    except TypeError as e:
        raise FallbackError(UNSUPPORTED_CALL, f"{cls.__qualname__}(): {e} (eager raises TypeError)") from None
    bound.apply_defaults()
    values = list(bound.arguments.values())[1:]
    return NamedTupleVariable([v if isinstance(v, Variable) else ConstVariable(v) for v in values], cls=cls)


def namedtuple_getattr(obj: NamedTupleVariable, name: str) -> Variable:
    fields = obj.cls._fields if obj.cls is not tuple else ()
    if name in fields and type(inspect.getattr_static(obj.cls, name)).__name__ == "_tuplegetter":
        return obj.items[fields.index(name)]
    raise FallbackError(UNSUPPORTED_OBJECT, f"attribute .{name} of {obj.describe()} is not captured")


def is_enum_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, enum.Enum)


def enum_member_attr(member: enum.Enum, name: str):
    """`.name` / `.value` of an Enum member (plain reads of _name_/_value_), or None."""
    if name in ("name", "value") and inspect.getattr_static(type(member), name) is \
            inspect.getattr_static(enum.Enum, name):
        return ConstVariable(getattr(member, name))
    return None


def enum_class_member(cls: type, name) -> Variable | None:
    """`Cls.NAME` or `Cls["NAME"]`: the member, fixed for the (identity-guarded) class."""
    member = cls.__members__.get(name) if isinstance(name, str) else None
    return ConstVariable(member) if member is not None else None
