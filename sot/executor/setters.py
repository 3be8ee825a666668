"""Attribute stores that run user code, simulated by inlining that code.

``obj.name = value`` where ``name`` is a ``property`` of the object's class
with a Python setter runs the setter; the trace inlines it (as it inlines a
property getter: dispatch.object_getattr), so what the setter stores is an
ordinary side effect (side_effects.py) and a setter that cannot be
simulated breaks the graph at the store, where eager calls it.

Reads of a ``__slots__`` slot of an object from outside (a member
descriptor: no user code) are a value read through the object's tracker.
Stores into a slot and stores through a class ``__setattr__`` still break
at the store (the hook then translates a Python ``__setattr__`` on its own).
"""
from __future__ import annotations

import inspect
import types

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.tracker import AttrTracker, ConstTracker
from .function_graph import function_variable


def _class_attr(cls: type, name: str):
    try:
        return inspect.getattr_static(cls, name)
    except AttributeError:
        return None


def property_setter(cls: type, name: str):
    """The Python setter that ``obj.name = v`` runs on an instance of `cls`, or None."""
    if cls.__setattr__ is not object.__setattr__:
        return None
    attr = _class_attr(cls, name)
    if type(attr) is not property or type(attr.fset) is not types.FunctionType:
        return None
    return attr


def inline_setter(ex, obj, cls: type, name: str, value) -> bool:
    """Simulate ``obj.name = value`` by inlining a property setter (True), or
    False when `name` is not such a property of `cls`."""
    prop = property_setter(cls, name)
    if prop is None:
        return False
    graph = ex.graph
    prop_tracker = AttrTracker(ConstTracker(cls), name)   # the class is guarded by the object's type guard
    graph.wrap(prop, prop_tracker)
    fset_tracker = AttrTracker(prop_tracker, "fset")
    graph.guard_inlined(prop.fset, fset_tracker)
    ex.call_function(function_variable(prop.fset, fset_tracker), [obj, value], {})
    return True


def slot_value(graph, obj, name: str):
    """The Variable of slot `name` of `obj` (an ObjectVariable) when its
    class defines it as a ``__slots__`` member, else None. An unset slot
    breaks (eager raises AttributeError there)."""
    cls = type(obj.value)
    member = _class_attr(cls, name)
    if type(member) is not types.MemberDescriptorType:
        return None
    try:
        value = member.__get__(obj.value, cls)
    except AttributeError:
        raise FallbackError(UNSUPPORTED_OBJECT, f"slot {name} of {obj.describe()} is not set (eager raises)")
    return graph.wrap(value, AttrTracker(obj.tracker, name) if obj.tracker else ConstTracker(value))
