"""Tracing a function for export: one simulation per probe size, one graph.

`trace(fn, resolved_inputs, probe_sizes)` simulates the function's code once
over zero-filled arrays of the probe shapes (nothing of the function runs)
and returns a `Trace`: the StatementIR, which graph inputs are arguments and
which are weights (with their values), the outputs, and the source line of
every statement.  Anything that is not one graph raises ExportError.  With
``symbolic`` (the dynamic axes of each argument), those dims are symbolic
in the graph (``sot.ir.symbolic``); a trace that needs their size raises
SpecializeDims.
"""
from __future__ import annotations

import os
import sys
import types
from dataclasses import dataclass, field

import numpy as np

from sot.breaks.reasons import FallbackError
from sot.executor.executor import OpcodeExecutor
from sot.executor.function_graph import FunctionGraph
from sot.executor.variables import ListVariable, TensorVariable, TupleVariable
from sot.guards.tracker import LocalTracker
from sot.ir.errors import UnsupportedOp

from .spec import ExportError

__all__ = ["Target", "Trace", "resolve_target", "trace"]


@dataclass
class Target:
    """The function whose code is simulated, and what precedes the spec'd
    arguments in its argument vector (``self`` of a method or callable)."""
    function: types.FunctionType
    bound: list
    params: list           # names of the parameters the specs feed
    description: str


def resolve_target(fn, n_specs: int | None) -> Target:
    seen = 0
    while hasattr(fn, "__wrapped__") and seen < 100:   # to_static / functools.wraps
        fn, seen = fn.__wrapped__, seen + 1
    bound = []
    if isinstance(fn, types.MethodType):
        bound, fn = [fn.__self__], fn.__func__
    elif not isinstance(fn, types.FunctionType):
        call = getattr(type(fn), "__call__", None)
        if not isinstance(call, types.FunctionType):
            raise ExportError(f"cannot export {type(fn).__name__} object {fn!r}: only Python functions, "
                              f"methods and objects of a class defining __call__ in Python are supported")
        bound, fn = [fn], call
    code = fn.__code__
    if code.co_flags & 0x20 or code.co_flags & 0x80 or code.co_flags & 0x200:
        raise ExportError(f"cannot export {fn.__qualname__}: generators and coroutines are not graphs")
    positional = list(code.co_varnames[:code.co_argcount])
    if len(bound) > len(positional):
        raise ExportError(f"cannot export {fn.__qualname__}: it takes no 'self' parameter")
    free = positional[len(bound):]
    n_defaults = len(fn.__defaults__ or ())
    required = len(free) - n_defaults
    if n_specs is None:
        n_specs = required
    if n_specs < required or n_specs > len(free):
        raise ExportError(f"{fn.__qualname__} takes {required}"
                          + (f" to {len(free)}" if n_defaults else "")
                          + f" array argument(s) ({', '.join(free)}), but {n_specs} input spec(s) were given")
    kwonly = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    missing = [k for k in kwonly if k not in (fn.__kwdefaults__ or {})]
    if missing:
        raise ExportError(f"cannot export {fn.__qualname__}: keyword-only parameter(s) without a default: "
                          f"{', '.join(missing)}")
    where = f"{code.co_filename}:{code.co_firstlineno}"
    return Target(fn, bound, free[:n_specs], f"{fn.__qualname__} ({where})")


def _argument_vector(target: Target, arrays: list) -> tuple:
    fn = target.function
    code = fn.__code__
    positional = code.co_varnames[:code.co_argcount]
    defaults = fn.__defaults__ or ()
    args = list(target.bound) + list(arrays)
    for i in range(len(args), len(positional)):
        args.append(defaults[i - (len(positional) - len(defaults))])
    for name in code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]:
        args.append(fn.__kwdefaults__[name])
    if code.co_flags & 0x04:
        args.append(())
    if code.co_flags & 0x08:
        args.append({})
    return tuple(args)


@dataclass
class Trace:
    graph: FunctionGraph
    args: dict = field(default_factory=dict)        # input symbol name -> spec index
    weights: dict = field(default_factory=dict)     # input symbol name -> (tracker name, value, id)
    outputs: list = field(default_factory=list)     # [Symbol], in return order (may repeat)
    kind: str = "single"                            # "single", "tuple" or "list"
    locations: dict = field(default_factory=dict)   # statement output name -> (file, line)


# the simulator's own frames (handlers and OpcodeExecutor.run) are the only ones looked at
_EXECUTOR_DIR = os.path.dirname(os.path.abspath(sys.modules[OpcodeExecutor.__module__].__file__))


def _current_location():
    """(file, line) of the instruction the innermost simulator is running."""
    frame = sys._getframe(2)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_EXECUTOR_DIR):
            frame = frame.f_back
            continue
        f_locals = frame.f_locals
        for key in ("self", "ex"):
            ex = f_locals.get(key)
            if isinstance(ex, OpcodeExecutor) and ex.current is not None:
                return ex.code.co_filename, ex.lines.get(ex.current.offset)
        frame = frame.f_back
    return None


def _record_locations(graph: FunctionGraph, locations: dict) -> None:
    ir = graph.ir
    add_op = ir.add_op

    def recording_add_op(op, args, kwargs=None):
        result = add_op(op, args, kwargs)
        try:
            loc = _current_location()
        except Exception:  # best effort: locations only improve messages
            loc = None
        for s in ir.statements[-1].outputs:
            locations[s.name] = loc
        locations[id(ir.statements[-1])] = loc  # a write has no outputs (sot.ir.ops_write)
        return result
    ir.add_op = recording_add_op


class SimulationFailed(Exception):
    def __init__(self, reason):
        super().__init__(str(reason))
        self.reason = reason


class SpecShapes:
    """The shape policy of an export trace: the spec's dynamic axes of each
    argument are symbolic (as ``sot.executor.shape_policy.ShapePolicy``)."""

    def __init__(self, target: Target, axes: list):
        self.first = len(target.bound)
        self.axes = axes    # per spec'd argument: its dynamic axes

    def symbolic_axes(self, tracker, value) -> tuple:
        if not isinstance(tracker, LocalTracker) or type(value) is not np.ndarray:
            return ()
        k = tracker.index - self.first
        if not 0 <= k < len(self.axes):
            return ()
        return tuple(a for a in self.axes[k] if value.shape[a] >= 2)

    def specialise(self, dims) -> None:   # pragma: no cover - an export trace is not redone
        pass


def trace(target: Target, arrays: list, symbolic: list | None = None) -> Trace:
    """Simulate ``target`` over ``arrays``; raises SimulationFailed (with a
    BreakReason) when the simulator cannot capture it, ExportError when the
    result is not made of graph outputs.  ``symbolic``: the dynamic axes of
    each argument, made symbolic dims."""
    from sot.executor.frame_entry import simulate as _simulate

    fn = target.function
    code = fn.__code__
    args = _argument_vector(target, arrays)
    frame = types.SimpleNamespace(f_code=code, f_globals=fn.__globals__, args=args,
                                  closure=fn.__closure__ or ())
    shapes = SpecShapes(target, symbolic) if symbolic is not None else None
    graph = FunctionGraph(f"{code.co_name}_export", shapes)
    graph.effects.enabled = False   # a saved model changes nothing outside it
    result = Trace(graph)
    _record_locations(graph, result.locations)
    try:
        value = _simulate(frame, graph).run()
    except FallbackError as e:
        raise SimulationFailed(e.reason) from None
    except UnsupportedOp as e:  # raised outside any handler
        raise SimulationFailed(str(e)) from None
    first = len(target.bound)
    for tracker, var in graph.inputs:
        sym = var.input_symbol
        if isinstance(tracker, LocalTracker) and first <= tracker.index < first + len(arrays):
            result.args[sym.name] = tracker.index - first
            if not var.is_unchanged_input():
                raise ExportError(f"{target.description} updates its argument "
                                  f"{target.params[tracker.index - first]!r} in place; an exported "
                                  f"model cannot change its caller's array (compute a new array instead)")
            continue
        if not var.is_unchanged_input():
            raise ExportError(f"{target.description} updates {tracker.subject()} in place; an exported "
                              f"model's weights are constants (compute a new array instead)")
        try:
            real = tracker.load(fn.__globals__, args, fn.__closure__ or ())
        except Exception as e:  # noqa: BLE001
            raise ExportError(f"cannot read {tracker.subject()} of {target.description}: "
                              f"{type(e).__name__}: {e}") from None
        result.weights[sym.name] = (tracker.name(), np.array(real, copy=True), id(real))
    items = None
    if isinstance(value, TensorVariable):
        items = [value]
    elif isinstance(value, (TupleVariable, ListVariable)):
        items = list(value.items)
        result.kind = "tuple" if isinstance(value, TupleVariable) else "list"
    if items is None or not all(isinstance(v, TensorVariable) for v in items):
        raise ExportError(f"{target.description} returns {value.describe()}: an exported function must "
                          f"return an array, or a tuple or list of arrays, computed from its inputs")
    result.outputs = [v.symbol for v in items]
    return result
