"""``out=`` of calls that compute a result and then store it: the ufuncs with
two outputs (``np.divmod(x, y, out=(q, r))``, ``np.modf``, ``np.frexp``),
``np.clip(a, lo, hi, out=y)``, ``np.cumsum``/``np.cumprod(a, out=y)``, the
reductions (``np.sum(a, axis=0, out=y)``, ``np.argmax``, ``np.mean``, ...) and
their method forms (``x.clip(lo, hi, out=y)``, ``x.cumsum(out=y)``).

Each is recorded as the out-of-place op followed by ``np.copyto(out,
result)`` into each out array (a write, ``sot.ir.ops_write``), and returns
the out arrays themselves (``r is y``; a tuple of them for two outputs, with
a new array where an out is None).  That is eager's result exactly when
each out array has the result's dtype and shape (same loop, same values:
NumPy computes as if inputs and outputs did not overlap); otherwise the
call is not captured (FallbackError: it runs natively).

Errors: eager checks every out array before writing any, while the copies
run one after the other: the graph's own arrays are written first, and
with two out arrays from outside the graph, the second is first checked
by ``np.positive(b, out=b, where=False)``, which writes nothing and raises
as eager's call does (``output array is read-only``) before any write.  Out arrays that may share memory are not captured.
"""
from __future__ import annotations

import numpy as np

from ..breaks.reasons import UNSUPPORTED_CALL, FallbackError
from ..ir import ops_write, registry
from .variables import ConstVariable, ListVariable, TensorVariable, TupleVariable, Variable

__all__ = ["multi_output_ufunc", "function_out", "method_out", "ufunc_out_argument"]

#: function or method name -> position of ``out`` among its arguments
#: (after the array for a method)
_FUNCTION_OUT = {id(np.clip): 3, id(np.cumsum): 3, id(np.cumprod): 3}
_METHOD_OUT = {"clip": 2, "cumsum": 2, "cumprod": 2}
# reductions (``np.sum(x, axis=0, out=y)``): out after (axis, dtype) or after axis.
# mean/var/std write the sum into out and divide it there: the same values
# (and NumPy reads the input whole before it writes out)
for _names, _position in ((("sum", "prod", "mean", "var", "std", "nansum", "nanprod", "nanmean"), 3),
                          (("max", "min", "amax", "amin", "argmax", "argmin", "any", "all"), 2)):
    for _name in _names:
        _FUNCTION_OUT[id(getattr(np, _name))] = _position
        if hasattr(np.ndarray, _name):
            _METHOD_OUT[_name] = _position - 1


def _is_none(v) -> bool:
    return v is None or (isinstance(v, ConstVariable) and v.value is None)


def _split_out(args: list, kwargs: dict, position: int, what: str):
    """``out`` taken out of ``args``/``kwargs`` (in place); None when absent."""
    out = kwargs.pop("out", None)
    if len(args) > position:
        if out is not None:
            raise FallbackError(UNSUPPORTED_CALL, f"{what}: out given twice")
        out = args[position]
        del args[position:position + 1]
    return None if _is_none(out) else out


def function_out(graph, fn, args: list, kwargs: dict) -> Variable | None:
    """``np.clip``/``np.cumsum``/``np.cumprod`` with ``out=``; None without."""
    position = _FUNCTION_OUT.get(id(fn))
    op = registry.lookup_function(fn) if position is not None else None
    if op is None or op.target is not fn:
        return None
    args, kwargs = list(args), dict(kwargs)
    out = _split_out(args, kwargs, position, f"np.{fn.__name__}")
    if out is None:
        return None
    return _store(graph, op, args, kwargs, [out], f"np.{fn.__name__}(out=)")[0]


def method_out(graph, obj: TensorVariable, name: str, args: list, kwargs: dict) -> Variable | None:
    """``x.clip(lo, hi, out=y)``, ``x.cumsum(out=y)``...; None without ``out``."""
    position = _METHOD_OUT.get(name)
    op = registry.lookup_method(name) if position is not None else None
    if op is None:
        return None
    args, kwargs = list(args), dict(kwargs)
    out = _split_out(args, kwargs, position, f"ndarray.{name}")
    if out is None:
        return None
    return _store(graph, op, [obj] + args, kwargs, [out], f"ndarray.{name}(out=)")[0]


def multi_output_ufunc(graph, ufunc, args: list, kwargs: dict) -> Variable | None:
    """``np.divmod``/``np.modf``/``np.frexp``, with or without ``out=``; None
    for a ufunc that is not captured."""
    op = registry.lookup_function(ufunc)
    if op is None or op.target is not ufunc:
        return None
    args, kwargs = list(args), dict(kwargs)
    out = ufunc_out_argument(ufunc, args, kwargs)
    if out is None:
        return TupleVariable(graph.call_op(op, args, kwargs).items)
    outs = list(out.items) if isinstance(out, (TupleVariable, ListVariable)) else None
    if outs is None or len(outs) != ufunc.nout:
        raise FallbackError(UNSUPPORTED_CALL, f"np.{ufunc.__name__}: out= must be a tuple of {ufunc.nout}")
    return TupleVariable(_store(graph, op, args, kwargs, outs, f"np.{ufunc.__name__}(out=)"))


def ufunc_out_argument(ufunc, args: list, kwargs: dict):
    """A ufunc call's ``out`` (keyword, or the operands past ``nin`` as a
    tuple), taken out of ``args``/``kwargs`` in place; None when absent."""
    out = kwargs.pop("out", None)
    if len(args) > ufunc.nin:
        if out is not None:
            raise FallbackError(UNSUPPORTED_CALL, f"np.{ufunc.__name__}: out given twice")
        out = TupleVariable(args[ufunc.nin:])
        del args[ufunc.nin:]
    return None if _is_none(out) else out


def _store(graph, op, args, kwargs, outs: list, what: str) -> list:
    """Record ``op(*args, **kwargs)`` and a copy of each result into its out
    array (None: the result itself); the out arrays (see the module docstring)."""
    from .function_graph import to_ir_arg
    try:
        metas = op.infer(tuple(to_ir_arg(a) for a in args), {k: to_ir_arg(v) for k, v in kwargs.items()})
    except Exception as e:   # noqa: BLE001 - eager raises or the op is not captured: natively
        raise FallbackError(UNSUPPORTED_CALL, f"{what}: {e}") from None
    metas = metas if isinstance(metas, tuple) else (metas,)
    targets = [t for t in outs if not _is_none(t)]
    for t, meta in zip(outs, metas):
        if _is_none(t):
            continue
        if not isinstance(t, TensorVariable) or t.meta.is_scalar:
            raise FallbackError(UNSUPPORTED_CALL, f"{what}: out is not an array the graph writes")
        if t.meta.dtype != meta.dtype or tuple(t.meta.shape) != tuple(meta.shape):
            raise FallbackError(UNSUPPORTED_CALL, f"{what}: out of {t.meta.dtype}{list(t.meta.shape)} for a result of "
                                f"{meta.dtype}{list(meta.shape)} is not captured")
    order = _write_order(graph, targets, what)
    result = graph.call_op(op, args, kwargs)
    results = list(result.items) if isinstance(result, (TupleVariable, ListVariable)) else [result]
    value_of = {id(t): r for t, r in zip(outs, results)}
    copyto = ops_write.function_write(np.copyto)
    from .writes import record
    for t, checked in order:
        if checked:   # writes nothing; raises, before any write, where eager would (a read-only out)
            record(graph, ops_write.ufunc_out_op(np.positive), (t,), {"out": t, "where": False}, t, what)
    for t, _ in order:
        record(graph, copyto, (t, value_of[id(t)]), None, t, what)
    return [r if _is_none(t) else t for t, r in zip(outs, results)]


def _write_order(graph, targets: list, what: str) -> list:
    """The targets in the order they are written, each with whether its
    writability is checked (a copy into itself) before any is written: the
    graph's own arrays first, then memory from outside.  FallbackError when
    two may share memory."""
    if len(targets) < 2:
        return [(t, False) for t in targets]
    roots = ops_write.memory_roots(graph.ir, allocated=True)
    owned = [roots.get(t.symbol.name, frozenset({t.symbol.name})) for t in targets]
    inputs = {s.name for s in graph.ir.inputs}
    values = graph.trace_values
    for i in range(len(targets)):
        for j in range(i + 1, len(targets)):
            if owned[i] & owned[j] or any(
                    np.may_share_memory(values[a], values[b]) for a in owned[i] & inputs for b in owned[j] & inputs
                    if isinstance(values.get(a), np.ndarray) and isinstance(values.get(b), np.ndarray)):
                raise FallbackError(UNSUPPORTED_CALL, f"{what}: out arrays that may share memory")
    external = [bool(o & inputs) for o in owned]
    ordered = sorted(zip(external, range(len(targets))))
    first_external = next((k for e, k in ordered if e), None)
    return [(targets[k], e and k != first_external) for e, k in ordered]
