"""Which Variable wraps a Python value from outside the frame, and which guard it needs.

Each kind of value registers a builder here, in priority order:
``build(graph, value, t, tracker)`` returns the Variable (having added the
guards that make the trace valid for it), or None when the value is not
its kind. `FunctionGraph.wrap` asks them in order (`make`); the first answer
wins. Kinds are decided on ``type(value)`` (`t`) alone: ``isinstance`` reads
``value.__class__``, which runs a user ``__getattribute__``.

Two tiers: builders that choose their own guard (arrays by type/dtype/shape,
numbers by value or type, tuples by length, lists and dicts by what the
trace reads of them, objects by type), then, for everything left, the
value is pinned by identity (IdGuard) and
the identity builders choose the Variable (modules, functions, builtins,
classes); what no builder takes is opaque.
"""
from __future__ import annotations

import enum
import types
import weakref
from typing import Callable

import numpy as np

from ... import _skip
from ..._hook import StaticFunction
from ...guards.guard import DictKeysGuard, DimEqualGuard, IdGuard, LenGuard, TensorGuard, TypeGuard, ValueGuard
from ...guards.invariants import ClassUnchangedGuard, PlainKeysGuard
from ...guards.tracker import AttrTracker
from ...ir import TensorMeta, registry
from ...ir.meta import dtype_is_supported
from .. import dict_data, freeze, str_data
from ..function_graph import (
    VALUE_GUARDED, _is_builtin, _is_numpy_callable, _is_plain_opaque, _item, function_variable, is_user_class,
)
from . import (
    BuiltinVariable, ClassVariable, ConstVariable, DictVariable, ListVariable, ModuleVariable,
    NumpyCallableVariable, ObjectVariable, OpaqueVariable, TensorVariable, TupleVariable, Variable, is_const_value,
)

Builder = Callable[..., "Variable | None"]
_GUARDED: list = []      # (priority, name, builder): builders that add their own guards
_IDENTITY: list = []     # (priority, name, builder): after an IdGuard


def register(priority: int, by_identity: bool = False):
    """Decorator: `build(graph, value, t, tracker)` takes part in `make` at
    `priority` (lower first); `by_identity`: asked after the value is
    pinned by identity."""
    def deco(build: Builder) -> Builder:
        table = _IDENTITY if by_identity else _GUARDED
        table.append((priority, build.__name__, build))
        table.sort(key=lambda entry: entry[0])
        return build
    return deco


def make(graph, value, tracker) -> Variable:
    t = type(value)
    for _, _, build in _GUARDED:
        var = build(graph, value, t, tracker)
        if var is not None:
            return var
    graph.add_guard(IdGuard(tracker, value))
    for _, _, build in _IDENTITY:
        var = build(graph, value, t, tracker)
        if var is not None:
            return var
    return OpaqueVariable(value, tracker)


def kinds() -> list[str]:
    """The builders' names in the order `make` asks them (for docs and tests)."""
    return [name for _, name, _ in _GUARDED] + ["(pinned by identity)"] + [name for _, name, _ in _IDENTITY]


# ---- builders that choose their own guard -------------------------------------------------

@register(10)
def array(graph, value, t, tracker):
    """An ndarray or NumPy scalar: a graph input guarded by type, dtype and shape."""
    if not (t is np.ndarray or (issubclass(t, np.generic) and _skip.is_numpy_object(t))):
        return None
    if not dtype_is_supported(value.dtype):
        graph.add_guard(TypeGuard(tracker, t))
        return OpaqueVariable(value, tracker)
    frozen = False
    if graph.freeze and freeze.candidate(tracker, value):
        if graph._views is None:
            graph._views = freeze.ViewScan()
        why = freeze.cannot_freeze(value, graph._views)
        frozen = why is None
        if why is not None:
            graph.not_frozen.append((tracker.name(), why))
    axes = graph.shapes.symbolic_axes(tracker, value) if graph.shapes is not None and not frozen else ()
    graph.add_guard(TensorGuard(tracker, value, axes))
    if frozen:
        graph.add_guard(IdGuard(tracker, value))
    symbol = graph.ir.add_input(TensorMeta.of(value), hint=tracker.name() if tracker else None,
                                symbolic=[(a, (tracker, a)) for a in axes])
    if frozen:
        graph.ir.frozen[symbol.name] = value
    graph.trace_values[symbol.name] = value
    while graph.ir.dim_ties:  # symbolic dims taken as one: guard they stay equal
        (t_, a), (other, other_axis) = graph.ir.dim_ties.pop(0)
        graph.add_guard(DimEqualGuard(t_, a, other, other_axis))
    var = TensorVariable(symbol, tracker)
    var.input_strides = value.strides if t is np.ndarray else None  # see introspect.layout_attr
    graph.inputs.append((tracker, var))
    return var


@register(20)
def number_input(graph, value, t, tracker):
    """A Python number whose value varied between calls (executor/scalar_policy.py)."""
    if graph.numbers is not None and graph.numbers.is_input(tracker, value):
        return graph._number_input(value, tracker)
    return None


@register(25)
def pass_through_str(graph, value, t, tracker):
    """A str that varied between calls, which the trace only passes on (executor/str_data.py)."""
    return str_data.str_input(graph, value, t, tracker)


@register(30)
def value_guarded_constant(graph, value, t, tracker):
    if t in VALUE_GUARDED:
        graph.add_guard(ValueGuard(tracker, value))
        return ConstVariable(value, tracker)
    return None


@register(40)
def tuple_(graph, value, t, tracker):
    if t is tuple:
        graph.add_guard(LenGuard(tracker, value))
        return TupleVariable([graph.wrap(v, _item(tracker, i)) for i, v in enumerate(value)], tracker)
    return None


@register(50)
def list_(graph, value, t, tracker):
    if t is not list:
        return None
    if tracker is None:
        var = ListVariable([graph.wrap(v, None) for v in value])
        var.wrapped = True
        return var
    graph.add_guard(TypeGuard(tracker, list))  # length and items: when the trace reads them
    ref = weakref.ref(graph)   # no cycle: the list (and what the graph holds) goes when unused
    var = ListVariable.from_source(tracker, lambda: ref()._list_items(value, tracker), value)
    return graph.mutable(var, value)


@register(60)
def dict_(graph, value, t, tracker):
    if t is not dict:
        return None
    if not all(type(k) in (str, int) for k in value):
        graph.add_guard(IdGuard(tracker, value))
        return OpaqueVariable(value, tracker)
    if tracker is None:
        return DictVariable({k: graph.wrap(v, None) for k, v in value.items()})
    graph.add_guard(TypeGuard(tracker, dict))  # keys and values: as the trace reads them (dict_data.py)
    graph.add_guard(PlainKeysGuard(tracker))   # so that reading them runs no user __eq__
    ref = weakref.ref(graph)
    var = dict_data.source_dict(graph, value, tracker, lambda: ref()._dict_entries(value, tracker))
    return graph.mutable(var, value)


def _collections_kinds():
    from .. import collections_deque, collections_models   # (they import the executor)
    register(55)(collections_deque.deque_input)
    register(65)(collections_models.dict_kind_input)
    register(66)(collections_models.chainmap_input)


@register(70)
def other_constant(graph, value, t, tracker):
    """dtypes, NumPy scalar types, slices, ranges."""
    if not is_const_value(value):
        return None
    graph.add_guard(IdGuard(tracker, value) if issubclass(t, (type, np.dtype)) else TypeGuard(tracker, t))
    if not issubclass(t, (type, np.dtype)):
        return OpaqueVariable(value, tracker)
    return ConstVariable(value, tracker)


@register(80)
def enum_member(graph, value, t, tracker):
    if issubclass(t, enum.Enum):  # members are fixed objects: compared by identity
        graph.add_guard(IdGuard(tracker, value))
        return ConstVariable(value, tracker)
    return None


@register(90)
def named_tuple(graph, value, t, tracker):
    if not issubclass(t, tuple):
        return None
    from ..classes import NamedTupleVariable, is_namedtuple_class
    if not is_namedtuple_class(t):
        return None
    graph.add_guard(LenGuard(tracker, value))
    return NamedTupleVariable([graph.wrap(v, _item(tracker, i)) for i, v in enumerate(value)], tracker, cls=t)


@register(95)
def closure(graph, value, t, tracker):
    """A closure of user code, by its code (closures.py)."""
    from ..closures import closure_input
    return closure_input(graph, value, t, tracker)


@register(100)
def user_object(graph, value, t, tracker):
    if not is_user_class(t):
        return None
    graph.add_guard(TypeGuard(tracker, t))
    graph.add_guard(ClassUnchangedGuard(t))  # what the trace reads of the class stays so
    var = ObjectVariable(value, tracker)
    if tracker is not None:
        graph.effects.reach(var, value)   # its attribute stores are replayed (side_effects.py)
    return var


@register(110)
def plain_opaque(graph, value, t, tracker):
    if _is_plain_opaque(value):  # the trace only passes it on: its type is all it relied on
        graph.add_guard(TypeGuard(tracker, t))
        return OpaqueVariable(value, tracker)
    return None


# ---- after an identity guard --------------------------------------------------------------

@register(10, by_identity=True)
def static_function(graph, value, t, tracker):
    if t is StaticFunction:  # a to_static wrapper: inline what it wraps
        return graph.wrap(value.__sot_fn__, AttrTracker(tracker, "__sot_fn__"))
    return None


@register(20, by_identity=True)
def module(graph, value, t, tracker):
    return ModuleVariable(value, tracker) if issubclass(t, types.ModuleType) else None


@register(30, by_identity=True)
def numpy_callable(graph, value, t, tracker):
    if issubclass(t, np.ufunc) or _is_numpy_callable(value):
        return NumpyCallableVariable(value, registry.lookup_function(value), tracker)
    return None


@register(40, by_identity=True)
def python_function(graph, value, t, tracker):
    if not issubclass(t, types.FunctionType) or _is_builtin(value):  # copy.copy: modelled (calls.BUILTINS)
        return None
    if not _skip.is_user_code(value.__code__) and not _skip.is_not_to_static(value.__code__):
        return OpaqueVariable(value, tracker)  # library code is called, never inlined
    graph.guard_inlined(value, tracker)
    return function_variable(value, tracker)


@register(50, by_identity=True)
def builtin(graph, value, t, tracker):
    return BuiltinVariable(value, tracker) if _is_builtin(value) else None


@register(60, by_identity=True)
def class_(graph, value, t, tracker):
    return ClassVariable(value, tracker) if issubclass(t, type) else None


_collections_kinds()
