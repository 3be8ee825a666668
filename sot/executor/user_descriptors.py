"""Descriptors written in Python (a class with `__get__`/`__set__`), inlined
where an attribute read or an instance store goes through one: `obj.v`
runs `type(d).__get__(d, obj, type(obj))`, `C.v` runs `__get__(d, None, C)`,
and `obj.v = value` on an object made in the trace runs `__set__(d, obj, value)`.

The descriptor object is read from the defining class's `__dict__` (a
tracker that runs no `__get__` when guards load it), and both its class and
the owner class are guarded unchanged, so a replaced descriptor or method
re-translates.
"""
from __future__ import annotations

import types

from ..guards.invariants import ClassUnchangedGuard
from ..guards.tracker import AttrTracker, ConstTracker, ItemTracker
from .function_graph import is_user_class
from .variables import BoundMethodVariable, ConstVariable, Variable


def _method(attr, name: str):
    """`type(attr).<name>` when `attr` is a descriptor of a plain Python class defining it."""
    kind = type(attr)
    if type(kind) is not type or not is_user_class(kind):
        return None
    fn = next((k.__dict__[name] for k in kind.__mro__ if name in k.__dict__), None)
    return fn if isinstance(fn, types.FunctionType) else None


def _in_class(cls: type, name: str):
    """(defining class, attribute) of `name` in cls's MRO dicts, or (None, None)."""
    owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
    return (owner, owner.__dict__[name]) if owner is not None else (None, None)


def _bound(executor, cls: type, owner: type, name: str, attr, method: str) -> BoundMethodVariable:
    """`type(attr).<method>` bound to `attr`, read from `owner.__dict__`."""
    graph = executor.graph
    graph.add_guard(ClassUnchangedGuard(cls))
    graph.add_guard(ClassUnchangedGuard(type(attr)))
    desc = graph.wrap(attr, ItemTracker(AttrTracker(ConstTracker(owner), "__dict__"), name))
    fn = graph.wrap(_method(attr, method), AttrTracker(ConstTracker(type(attr)), method))
    return BoundMethodVariable(fn, desc)


def get(executor, cls: type, name: str, self_var: Variable | None) -> Variable | None:
    """`d.__get__(self_var or None, cls)` inlined for the descriptor `d` that
    `cls` holds as `name`; None where that is no Python descriptor."""
    owner, attr = _in_class(cls, name)
    if owner is None or _method(attr, "__get__") is None:
        return None
    get_ = _bound(executor, cls, owner, name, attr, "__get__")
    owner_var = executor.graph.wrap(cls, ConstTracker(cls))
    return executor.call_function(get_, [self_var if self_var is not None else ConstVariable(None), owner_var], {})


def store(executor, obj: Variable, name: str, value: Variable) -> bool:
    """`obj.name = value` through a Python data descriptor of obj's class
    (`obj`: made in the trace), inlined; False where there is none."""
    owner, attr = _in_class(obj.cls, name)
    if owner is None or _method(attr, "__set__") is None:
        return False
    executor.call_function(_bound(executor, obj.cls, owner, name, attr, "__set__"), [obj, value], {})
    return True
