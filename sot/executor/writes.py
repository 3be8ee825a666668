"""Recording writes into arrays: ``x[i] = v``, ``x += y`` on an array that
may share memory, a ufunc's ``out=``, ``np.copyto``, ``x.fill``, ``x.sort``…

Each becomes a write statement (``sot.ir.ops_write``) on the Symbol of the
written array; the graph runs it on the same memory as eagerly, in program
order, so every view of that memory (made in the graph or before the call)
and every returned array sees it, and ``np.add(a, b, out=c) is c`` holds.

Aliasing is decided when the trace is recorded: ``finish(graph)`` guards,
for each input array the graph writes into (through the views it makes),
whether every other input array may share its memory (``OverlapGuard``),
so a call where that changes translates again; and that the input is
writeable: a write into a read-only array raises NumPy's "assignment
destination is read-only", which must meet the frame's own handlers, so
such a write is not recorded (it runs natively), and a call with a
read-only array where the graph writes translates again.
"""
from __future__ import annotations

import numpy as np

from ..breaks.reasons import SIDE_EFFECT, UNSUPPORTED_CALL, FallbackError
from ..guards.guard import ValueGuard
from ..guards.overlap import OverlapGuard
from ..guards.tracker import AttrTracker
from ..ir import ops_write
from . import writes_out
from .read_only import read_only_source
from .variables import ConstVariable, TensorVariable, TupleVariable, Variable

__all__ = ["record", "setitem", "inplace", "call_function", "call_method", "stores_back", "finish"]


def record(graph, op, args, kwargs, target: Variable, what: str) -> None:
    """Record the write ``op(*args, **kwargs)`` into ``target``."""
    if not isinstance(target, TensorVariable) or target.meta.is_scalar:
        raise FallbackError(SIDE_EFFECT, f"{what} into {target.describe()}: not an array the graph writes")
    if (maker := read_only_source(graph.ir, target.symbol)) is not None:
        raise FallbackError(SIDE_EFFECT, f"{what} into a read-only array made by {maker} (NumPy raises)")
    graph.call_op(op, args, kwargs, inplace=True)
    roots = ops_write.last_write_roots(graph.ir)
    for name in roots:
        value = graph.trace_values.get(name)
        if isinstance(value, np.ndarray) and not value.flags.writeable:
            raise FallbackError(SIDE_EFFECT, f"{what} into a read-only array (NumPy raises)")
    if graph.ir.frozen:   # an array the graph writes is no constant: not frozen (freeze=True)
        for name in roots & set(graph.ir.frozen):
            del graph.ir.frozen[name]
            graph.not_frozen.append((graph.ir.hint(_input(graph, name)) or name, "the function writes into it"))
    # Later in-place operators on it are writes too (never the functional
    # rebinding that is exact only for fresh, unshared arrays).
    target.has_views = True


def _input(graph, name: str):
    return next(s for s in graph.ir.inputs if s.name == name)


def setitem(graph, obj: TensorVariable, key: Variable, value: Variable) -> None:
    """``obj[key] = value``."""
    record(graph, ops_write.SETITEM, (obj, key, value), None, obj, "item assignment")


def inplace(graph, name: str, a: TensorVariable, b: Variable) -> TensorVariable:
    """``a op= b`` where ``a`` may share memory: written in place; ``a`` is the result."""
    record(graph, _op(ops_write.inplace_op, name), (a, b), None, a, f"in-place '{name}'")
    return a


def call_function(graph, fn, args: list, kwargs: dict) -> Variable | None:
    """A NumPy call that writes into an argument, recorded; its result
    (``out`` for a ufunc, None for the others).  ``np.empty`` too (what a
    program allocates to fill).  None when ``fn`` is none of those."""
    value = fn.value
    if isinstance(value, np.ufunc):
        if value.nout > 1:
            return writes_out.multi_output_ufunc(graph, value, list(args), dict(kwargs))
        return _ufunc_out(graph, value, list(args), dict(kwargs))
    stored = writes_out.function_out(graph, value, args, kwargs)
    if stored is not None:
        return stored
    if isinstance(getattr(value, "__self__", None), np.ufunc) and value.__name__ == "at":
        op = _op(ops_write.ufunc_at_op, value.__self__)
        record(graph, op, args, kwargs, args[0] if args else None, f"np.{op.name}")
        return ConstVariable(None)
    op = ops_write.allocation(value)
    if op is not None:  # np.empty: memory to write into
        return graph.call_op(op, args, kwargs)
    op = ops_write.function_write(value)
    if op is None:
        return None
    record(graph, op, args, kwargs, args[0] if args else None, f"np.{op.name}")
    return ConstVariable(None)


def _ufunc_out(graph, ufunc, args: list, kwargs: dict) -> Variable | None:
    out = writes_out.ufunc_out_argument(ufunc, args, kwargs)
    if out is None:
        return None
    if isinstance(out, TupleVariable):
        if len(out.items) != 1:
            raise FallbackError(UNSUPPORTED_CALL, f"np.{ufunc.__name__} with {len(out.items)} outputs")
        out = out.items[0]
    where = kwargs.get("where")
    if isinstance(where, ConstVariable) and where.value is True:
        del kwargs["where"]
    op = _op(ops_write.ufunc_out_op, ufunc)
    record(graph, op, args, dict(kwargs, out=out), out, f"np.{ufunc.__name__}(out=)")
    return out


def _op(make, *args):
    from ..ir import UnsupportedOp
    try:
        return make(*args)
    except UnsupportedOp as e:
        raise FallbackError(UNSUPPORTED_CALL, str(e)) from None


def call_method(graph, obj: TensorVariable, name: str, args: list, kwargs: dict) -> Variable | None:
    """``obj.fill(v)``, ``obj.sort()``: recorded, None returned; None when
    ``name`` writes nothing."""
    op = ops_write.method_write(name)
    if op is None:
        return writes_out.method_out(graph, obj, name, args, kwargs)
    record(graph, op, [obj] + list(args), kwargs, obj, f"ndarray.{name}")
    return ConstVariable(None)


def stores_back(value: Variable, place) -> bool:
    """Whether storing ``value`` to ``place`` (the tracker of an attribute,
    global, cell or item from outside the frame) changes nothing: ``value``
    is the array read from that very place, written in place since — the
    store of ``self.state += dt`` or ``G *= 2`` puts back the same object."""
    return (isinstance(value, TensorVariable) and place is not None and value.tracker == place
            and value.is_unchanged_input())


def finish(graph) -> None:
    """Guard the aliasing the graph's writes were recorded with (see the
    module docstring).  Called once the region is complete."""
    values, graph.trace_values = graph.trace_values, {}   # the caller's arrays are not kept
    roots = ops_write.written_roots(graph.ir)
    if not roots:
        return
    arrays = [(tracker, var.input_symbol.name, values.get(var.input_symbol.name))
              for tracker, var in graph.inputs
              if isinstance(var, TensorVariable) and var.input_symbol is not None and not var.meta.is_scalar]
    for k, (tracker, name, value) in enumerate(arrays):
        if name not in roots:
            continue
        if isinstance(value, np.ndarray):   # writeable when traced (record): still so
            graph.add_guard(ValueGuard(AttrTracker(AttrTracker(tracker, "flags"), "writeable"), True))
        for j, (other, other_name, other_value) in enumerate(arrays):
            if other_name == name or type(value) is not np.ndarray or type(other_value) is not np.ndarray:
                continue
            if other_name in roots and j < k:   # the pair was guarded from the other side
                continue
            overlap = bool(np.may_share_memory(value, other_value))
            graph.add_guard(OverlapGuard(tracker, other, overlap, (value.itemsize, other_value.itemsize)))
            if overlap:
                graph.ir.shared.append((name, other_name))
