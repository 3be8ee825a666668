"""Instances of user subclasses of `list` and `dict` made in the trace
(`class Stack(list): def top(self): ...`, `class Counts(dict): def
__missing__(self, k): return 0`).

Such an instance is a list (dict) with a type of its own and an instance
`__dict__`. `ListSubclassVariable` / `DictSubclassVariable` are the
ListVariable / DictVariable the trace already models, with `cls` as their
Python type and `attrs` for the instance attributes. Attribute lookup goes
through the class's MRO (`attribute`): a name the user classes define binds
as on any user object (methods inlined), a name `list`/`dict` defines is the
builtin method, run by the container's model.

That is exact only while CPython's own list/dict code runs for every
operation, so a class qualifies only when its user classes define no
special method but `__init__` (inlined; `super().__init__(...)` fills the
container as list/dict.__init__ does) and, for a dict, `__missing__`
(inlined where `d[k]` misses). A class overriding `__getitem__`, `__len__`,
`__iter__`, `__eq__`... breaks the graph at the instance's creation, as
before. An instance outliving the graph is rebuilt by `_rebuild`
(`list.__new__(cls)`, its items, then its attributes in eager's order).
"""
from __future__ import annotations

import builtins
import types
import weakref

from ..breaks.reasons import SIDE_EFFECT, UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from ..guards.guard import DictKeysGuard, TypeGuard
from ..guards.invariants import ClassUnchangedGuard
from ..guards.tracker import AttrTracker, ConstTracker
from .variables import BoundMethodVariable, ConstVariable, DictVariable, ListVariable, Variable
from .variables.factory import register
from .variables.modelled import ModelledObject

#: names a qualifying class's own __dict__ may hold besides plain (non-dunder) names
_METADATA = frozenset(("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
                       "__static_attributes__", "__annotations__", "__init__", "__classcell__", "__orig_bases__",
                       "__type_params__", "__annotate__", "__annotate_func__", "__annotations_cache__",
                       "__slotnames__"))   # (copyreg caches that one on the class at the first copy)
#: special methods a class may override: CPython's list/dict code never calls them implicitly (iteration,
#: `in`, len(), the methods read the items directly), so only the operations the trace asks its hooks
#: for (`s[k]`, `s[k] = v`, `del s[k]`, `k in s`) run them; str()/repr() of the instance break anyway
_OVERRIDES = frozenset(("__getitem__", "__setitem__", "__delitem__", "__contains__", "__repr__", "__str__"))
_OWN = {list: _METADATA | _OVERRIDES, dict: _METADATA | _OVERRIDES | {"__missing__"}}
#: the hook each overridable operation comes through, and the special method it runs
_HOOKS = {"getitem": "__getitem__", "setitem": "__setitem__", "delitem": "__delitem__", "contains": "__contains__"}


def builtin_base(cls) -> type | None:
    """list or dict where `cls` is a user subclass of it that qualifies, else None."""
    if not isinstance(cls, type) or type(cls) is not type:
        return None
    mro = cls.__mro__
    if len(mro) < 3 or mro[-1] is not object or mro[-2] not in _OWN:
        return None
    base = mro[-2]
    for k in mro[:-2]:
        if not k.__flags__ & (1 << 9) or k.__module__ == "builtins":   # Py_TPFLAGS_HEAPTYPE: written in Python
            return None
        if any(n.startswith("__") and n.endswith("__") and n not in _OWN[base] for n in vars(k)):
            return None
        if any(n in vars(k) and not isinstance(vars(k)[n], types.FunctionType) for n in _OVERRIDES | {"__missing__"}):
            return None   # a special method that is not a Python function: its code is not seen
    return base


class _SubclassInstance(ModelledObject):
    """What list and dict subclass instances share: their class and attributes."""

    def _init_subclass_state(self, cls: type) -> None:
        self.cls = cls
        self.attrs: dict[str, Variable] = {}

    def python_type(self):
        return self.cls

    def describe(self) -> str:
        return f"new {self.cls.__qualname__} object"

    def attribute(self, executor, name: str):
        from . import classes   # classes imports this module
        executor.graph.add_guard(ClassUnchangedGuard(self.cls))   # no class in the MRO gains `name`
        owner = next((k for k in self.cls.__mro__ if name in vars(k)), None)
        attr = vars(owner)[name] if owner is not None else None
        data_descr = attr is not None and hasattr(type(attr), "__set__")
        if name in self.attrs and not data_descr:
            return self.attrs[name]
        if self.tracker is not None and (got := self._source_attr(executor, name, data_descr)) is not None:
            return got
        if name == "__class__":
            return executor.graph.wrap(self.cls, ConstTracker(self.cls))
        if owner is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"{self.describe()} has no attribute {name!r} (eager raises)")
        if owner not in (list, dict, object):
            return classes.class_level(executor, owner, name, attr, self)
        return builtin_method(self, name)

    def _override(self, name: str):
        """(function, class) of the special method `name` where a user class overrides it, else None."""
        owner = next((k for k in self.cls.__mro__ if name in vars(k)), None)
        return None if owner in (None, list, dict, object) else (vars(owner)[name], owner)

    def _run_override(self, executor, name: str, args):
        """`type(self).name(self, *args)`, inlined, or NotImplemented where the class keeps list's/dict's."""
        found = self._override(name)
        if found is None:
            return NotImplemented
        fn, owner = found
        executor.graph.add_guard(ClassUnchangedGuard(self.cls))
        fn_var = executor.graph.wrap(fn, AttrTracker(ConstTracker(owner), name))
        return executor.call_function(BoundMethodVariable(fn_var, self), list(args), {})

    def setitem(self, executor, key, value):
        return self._run_override(executor, "__setitem__", [key, value])

    def delitem(self, executor, key):
        return self._run_override(executor, "__delitem__", [key])

    def contains(self, executor, item):
        result = self._run_override(executor, "__contains__", [item])
        if result is NotImplemented:
            return result
        from .user_protocols import truth   # (`in` takes the truth of what __contains__ returns)
        return truth(executor, result)

    def _source_attr(self, executor, name: str, data_descr: bool):
        """An instance attribute of one from outside the frame (its __dict__'s keys guarded)."""
        inst_dict = vars(self.source_value)
        executor.graph.add_guard(DictKeysGuard(AttrTracker(self.tracker, "__dict__"), inst_dict))
        if name in inst_dict and not data_descr:
            return executor.graph.wrap(inst_dict[name], AttrTracker(self.tracker, name))
        return None

    def check_mutable(self, what: str):
        if self.tracker is not None:   # its class's code could observe the replay: not modelled
            raise FallbackError(SIDE_EFFECT, f"{what} mutates {self.tracker.name()}, a {self.cls.__qualname__} "
                                "from outside the function")

    def store(self, name: str, value: Variable) -> None:
        self.check_mutable(f"attribute assignment .{name}")
        owner = next((k for k in self.cls.__mro__ if name in vars(k)), None)
        if owner is not None and hasattr(type(vars(owner)[name]), "__set__"):
            raise FallbackError(UNSUPPORTED_OBJECT, f"assignment through descriptor {name} of {self.describe()}")
        self.attrs[name] = value

    def _rebuild_with(self, builder, data: str) -> str:
        if any(type(k) is not str for k in self.attrs):
            raise FallbackError(UNSUPPORTED_OBJECT, f"{self.describe()} has attribute names that are not str")
        values = "".join(builder.expr(v) + ", " for v in self.attrs.values())
        return f"{builder._bind(_rebuild)}({builder._bind(self.cls)}, {data}, {builder._bind(tuple(self.attrs))}, " \
               f"({values}))"


class ListSubclassVariable(_SubclassInstance, ListVariable):
    def __init__(self, cls: type, tracker=None):
        ListVariable.__init__(self, [], tracker)
        self._init_subclass_state(cls)

    def binary(self, executor, name: str, other, left: bool):
        """`+`, `*` give a plain list (list's own operators); `+=` extends this one."""
        if name == "iadd" and left and type(other) in (ListVariable, ListSubclassVariable):
            self.check_mutable("+=")
            self.grow("extend", (list(other.items),))
            return self
        if name == "add" and type(other) in (ListVariable, ListSubclassVariable):
            return ListVariable(self.items + other.items if left else other.items + self.items)
        if name == "mul" and isinstance(other, ConstVariable) and type(other.value) is int:
            return ListVariable(self.items * other.value)
        return NotImplemented

    def getitem(self, executor, key):
        """The class's __getitem__, inlined; else list's: a slice is a plain list."""
        if (r := self._run_override(executor, "__getitem__", [key])) is not NotImplemented:
            return r
        return self.base_getitem(executor, key)

    def base_getitem(self, executor, key):
        if isinstance(key, ConstVariable) and type(key.value) is slice:
            return ListVariable(self.items[key.value])
        return NotImplemented

    @classmethod
    def from_source(cls, tracker, load, value=None) -> "ListSubclassVariable":
        """An instance from outside the frame: read (and guarded) as a list is, never mutated."""
        var = cls(type(value), tracker)
        var._items, var._load, var.source_value = None, load, value
        return var

    def rebuild(self, builder) -> str:
        return self._rebuild_with(builder, "[" + ", ".join(builder.expr(v) for v in self.items) + "]")

    def plain_view(self) -> ListVariable:
        """A plain list model over this one's items (the same Python list of Variables)."""
        view = ListVariable([])
        view._items = self.items
        return view


class DictSubclassVariable(_SubclassInstance, DictVariable):
    def __init__(self, cls: type):
        DictVariable.__init__(self, {})
        self._init_subclass_state(cls)

    def rebuild(self, builder) -> str:
        return self._rebuild_with(builder, "{" + ", ".join(f"{builder._bind(k)}: {builder.expr(v)}"
                                                           for k, v in self.entries.items()) + "}")

    def plain_view(self) -> DictVariable:
        """A plain dict model over this one's entries (the same Python dict)."""
        view = DictVariable({})
        view.entries = self.entries
        return view

    def getitem(self, executor, key):
        """The class's __getitem__, inlined; else dict's (see base_getitem)."""
        if (r := self._run_override(executor, "__getitem__", [key])) is not NotImplemented:
            return r
        return self.base_getitem(executor, key)

    def base_getitem(self, executor, key):
        """`d[k]` where k is missing: the class's __missing__, inlined."""
        missing = next((vars(k)["__missing__"] for k in self.cls.__mro__ if "__missing__" in vars(k)), None)
        if missing is None:
            return NotImplemented
        from . import dispatch   # dispatch imports this module's users
        key = dispatch.as_dict_key(self, key)
        if not isinstance(key, ConstVariable):
            raise FallbackError(UNSUPPORTED_OBJECT, f"indexing {self.describe()} (its __missing__) with {key.describe()}")
        from .pyidentity import identity_decides
        if identity_decides(key.value):
            raise FallbackError(UNSUPPORTED_OBJECT, "`in` of a NaN in a dict depends on object identity")
        if key.value in self.entries:
            return NotImplemented
        if not isinstance(missing, types.FunctionType):
            raise FallbackError(UNSUPPORTED_OBJECT, f"__missing__ of {self.cls.__qualname__} is not a Python function")
        fn = executor.graph.wrap(missing, AttrTracker(ConstTracker(self.cls), "__missing__"))
        return executor.call_function(BoundMethodVariable(fn, self), [key], {})


SUBCLASS_INSTANCES = (ListSubclassVariable, DictSubclassVariable)


def _rebuild(cls, data, names, values):
    base = list if type(data) is list else dict
    obj = base.__new__(cls)
    (list.extend if base is list else dict.update)(obj, data)
    for name, value in zip(names, values):
        object.__setattr__(obj, name, value)
    return obj


def builtin_method(obj: Variable, name: str) -> Variable:
    """`list.<name>` / `dict.<name>` bound to `obj` (found past the user classes, or through super())."""
    from .dispatch import DICT_METHODS, LIST_METHODS   # dispatch imports this module's users
    from .variables import BuiltinMethodVariable
    if name in (LIST_METHODS if isinstance(obj, ListVariable) else DICT_METHODS):
        return BuiltinMethodVariable(obj, name)
    if name == "__init__":
        return _BuiltinInit(obj)
    if name in _HOOKS.values() and isinstance(obj, _SubclassInstance):
        return _BuiltinOperation(obj, name)
    raise FallbackError(UNSUPPORTED_OBJECT, f"attribute .{name} of {obj.describe()} is not captured")


class _BuiltinInit(ModelledObject, Variable):
    """`super().__init__` reaching list.__init__ / dict.__init__: empties the
    container and fills it from the arguments."""

    def __init__(self, obj: Variable):
        Variable.__init__(self, None)
        self.obj = obj

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"__init__ of {self.obj.describe()}"

    def call(self, executor, args, kwargs):
        fill(executor, self.obj, args, kwargs)
        return ConstVariable(None)


class _BuiltinOperation(ModelledObject, Variable):
    """`super().__getitem__` (and `__setitem__`, `__delitem__`, `__contains__`)
    reaching list's or dict's: the container's own operation, past the
    class's override (run on a plain view sharing its items)."""

    def __init__(self, obj: "_SubclassInstance", name: str):
        Variable.__init__(self, None)
        self.obj, self.name = obj, name

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"{self.name} of {self.obj.describe()}"

    def call(self, executor, args, kwargs):
        from . import dispatch   # dispatch imports this module's users
        obj, graph = self.obj, executor.graph
        arity = 2 if self.name == "__setitem__" else 1
        if kwargs or len(args) != arity:
            raise FallbackError(UNSUPPORTED_CALL, f"{self.describe()} with these arguments")
        if self.name == "__getitem__" and (r := obj.base_getitem(executor, args[0])) is not NotImplemented:
            return r
        if self.name in ("__setitem__", "__delitem__"):
            obj.check_mutable(f"item {'assignment' if arity == 2 else 'deletion'}")
        view = obj.plain_view()
        if self.name == "__getitem__":
            return dispatch.getitem(graph, view, args[0])
        if self.name == "__contains__":
            return ConstVariable(dispatch.contains_op(graph, args[0], view))
        (dispatch.setitem if arity == 2 else dispatch.delitem)(graph, view, *args)
        return ConstVariable(None)


def fill(executor, obj: Variable, args, kwargs) -> None:
    """list.__init__ / dict.__init__ on `obj`, a container made in the trace."""
    from .calls import BUILTINS   # calls imports classes, which imports this module
    if isinstance(obj, ListVariable):
        if kwargs or len(args) > 1:
            raise FallbackError(UNSUPPORTED_CALL, "list() takes at most one positional argument (eager raises)")
        obj.items = BUILTINS[builtins.list](executor, *args).items
    else:
        obj.entries = dict(BUILTINS[builtins.dict](executor, *args, **kwargs).entries)


def create(executor, cls_var, args, kwargs) -> Variable | None:
    """An instance of `cls_var`'s class, a qualifying subclass of list or
    dict; None where the class is not one."""
    cls = cls_var.value
    base = builtin_base(cls)
    if base is None:
        return None
    executor.graph.add_guard(ClassUnchangedGuard(cls))   # it qualifies (no special method added) on later calls
    obj = ListSubclassVariable(cls) if base is list else DictSubclassVariable(cls)
    if cls.__init__ is base.__init__:
        fill(executor, obj, args, kwargs)
        return obj
    from .classes import run_init   # classes imports this module
    return run_init(executor, cls_var, obj, args, kwargs)


@register(51)   # before plain lists (50 tests the exact type)
def list_subclass_input(graph, value, t, tracker):
    """A factory builder (variables/factory.py): an instance of a qualifying
    list subclass from outside the frame, guarded by its exact type."""
    if tracker is None or builtin_base(t) is not list or any(name in vars(k) for k in t.__mro__[:-2]
                                                           for name in _HOOKS.values()):
        return None   # (its items are loaded and guarded by subscripting: an override would run)
    graph.add_guard(TypeGuard(tracker, t))   # length and items: when the trace reads them
    graph.add_guard(ClassUnchangedGuard(t))   # it qualifies on later calls
    ref = weakref.ref(graph)
    return ListSubclassVariable.from_source(tracker, lambda: ref()._list_items(value, tracker), value)


def _unbound(base: type, name: str):
    """`list.<name>(obj, *args)` / `dict.<name>(...)` called through the class, as an
    override calls its base (`list.__getitem__(self, i)`): the container's own operation."""
    def handler(executor, obj=None, *args, **kwargs):
        if not isinstance(obj, (ListVariable, DictVariable)) or not issubclass(obj.python_type(), base):
            raise FallbackError(UNSUPPORTED_CALL, f"{base.__name__}.{name} of "
                                f"{obj.describe() if obj is not None else 'nothing'}")
        if isinstance(obj, _SubclassInstance):
            method = builtin_method(obj, name)
        elif name in _HOOKS.values() or name == "__init__":
            raise FallbackError(UNSUPPORTED_CALL, f"{base.__name__}.{name} of {obj.describe()} is not modelled")
        else:
            from .variables import BuiltinMethodVariable
            method = BuiltinMethodVariable(obj, name)
        return executor.call_function(method, list(args), kwargs)
    return handler


def register_unbound_methods() -> None:
    """Add `list.<name>` and `dict.<name>` to operator_models' modelled class attributes (calls.py calls this)."""
    from .dispatch import DICT_METHODS, LIST_METHODS   # dispatch imports this module's users
    from .operator_models import CLASS_METHODS
    for base, names in ((list, LIST_METHODS), (dict, DICT_METHODS)):
        for name in set(names) | set(_HOOKS.values()) | {"__init__"}:
            CLASS_METHODS.setdefault((base, name), _unbound(base, name))
