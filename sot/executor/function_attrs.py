"""Attributes of functions and bound methods read in the trace: a function's
`__name__`, `__qualname__`, `__module__`, `__code__` (and the plain `co_*`
facts of a code object; `__doc__` too for a function from outside), a bound method's `__self__`,
`__func__` and names. (What functools.update_wrapper set is
functools_models' and answered first.)"""
from __future__ import annotations

import types

from ..guards.tracker import AttrTracker
from .variables import BoundMethodVariable, ConstVariable, UserFunctionVariable, Variable

_NAMES = ("__name__", "__qualname__", "__module__", "__doc__")
# code object facts that are plain values (ints, strs, tuples of strs)
_CODE_FACTS = frozenset(("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_flags",
                         "co_name", "co_qualname", "co_filename", "co_firstlineno", "co_varnames",
                         "co_cellvars", "co_freevars", "co_names"))


def attribute(executor, obj: Variable, name: str) -> Variable | None:
    if isinstance(obj, BoundMethodVariable):
        if name == "__self__":
            return obj.self_var
        if name == "__func__":
            return obj.func
        if name in ("__name__", "__qualname__", "__module__", "__doc__"):
            return attribute(executor, obj.func, name)
        return None
    code = getattr(obj, "value", None)
    if type(code) is types.CodeType and name in _CODE_FACTS and hasattr(code, name):
        value = getattr(code, name)
        return ConstVariable(value) if obj.tracker is None else executor.graph.wrap(value, AttrTracker(obj.tracker, name))
    if not isinstance(obj, UserFunctionVariable) or (name not in _NAMES and name != "__code__"):
        return None
    if obj.value is not None:   # a function from outside: read and guarded
        if obj.tracker is None:
            return None
        return executor.graph.wrap(getattr(obj.value, name), AttrTracker(obj.tracker, name))
    if name == "__name__":
        return ConstVariable(obj.name)
    if name == "__qualname__":
        return ConstVariable(getattr(obj, "qualname", None) or obj.name)
    if name == "__module__":
        module = obj.globals.get("__name__")
        return ConstVariable(module) if type(module) is str else None
    if name == "__code__":
        return ConstVariable(obj.code)
    return None   # __doc__ of a function made in the trace: not modelled
