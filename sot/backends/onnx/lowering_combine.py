"""ONNX lowerings of ``sot.ir.ops_combine`` ops with an exact ONNX form:
``column_stack`` (Concat), ``kron`` (one Mul of interleaved reshapes, as
NumPy computes it) and ``select`` (a Where per case, last case first, as
NumPy's ``copyto`` does).  Static sizes only (NotSymbolic otherwise); the
rest of ops_combine runs on NumPy (index bounds and set sizes depend on
the data; ``rot90`` is a view)."""

from __future__ import annotations

import numpy as np

from sot.ir.registry import bind
from sot.ir.statement_ir import Symbol

from .builder import BOOL, NotLowered, NotSymbolic
from .lowering_shapes import _out, _reshape

__all__ = ["COMBINE_RULES"]


def _static(st):
    for s in st.symbols_used() + list(st.outputs):
        if not s.meta.is_python and s.meta.symbolic_axes:
            raise NotSymbolic(f"{st.op.name}: lowered at static sizes only")


def _lower_column_stack(b, st):
    _static(st)
    meta = _out(st)
    seq = bind("column_stack", ("tup",), st.args, st.kwargs, {"tup"})["tup"]
    values = []
    for v in seq:
        shape = tuple(np.shape(v)) if not isinstance(v, Symbol) else v.meta.shape
        shape = shape if len(shape) >= 2 else (shape[0] if shape else 1, 1)
        values.append(_reshape(b, b.operand(v, meta.dtype), shape))
    return [b.node("Concat", values, meta.dtype, meta.shape, axis=1)]


def _lower_kron(b, st):
    from .lowering_elementwise import UFUNC_RULES, resolve_loop
    _static(st)
    bound = bind("kron", ("a", "b"), st.args, st.kwargs, {"a", "b"})
    x, y = bound["a"], bound["b"]
    if not (isinstance(x, Symbol) and isinstance(y, Symbol)) or not x.meta.ndim or not y.meta.ndim:
        raise NotLowered("kron of a constant or a 0-d operand")
    nd = max(x.meta.ndim, y.meta.ndim)
    xs = (1,) * (nd - x.meta.ndim) + x.meta.shape
    ys = (1,) * (nd - y.meta.ndim) + y.meta.shape
    ins, out = resolve_loop(np.multiply, [x, y])
    xv = _reshape(b, b.cast(b.value(x), ins[0]), [d for a in xs for d in (a, 1)])
    yv = _reshape(b, b.cast(b.value(y), ins[1]), [d for a in ys for d in (1, a)])
    r = UFUNC_RULES["multiply"](b, [xv, yv], ins, out)
    return [_reshape(b, b.cast(r, _out(st).dtype), _out(st).shape)]


def _lower_select(b, st):
    _static(st)
    bound = bind("select", ("condlist", "choicelist", "default"), st.args, st.kwargs,
                 {"condlist", "choicelist", "default"})
    dtype = _out(st).dtype
    acc = b.operand(bound.get("default", 0), dtype)
    for cond, choice in reversed(list(zip(bound["condlist"], bound["choicelist"]))):
        c = b.operand(cond, BOOL) if isinstance(cond, Symbol) else b.const(np.asarray(cond, bool))
        acc = b.where(c, b.operand(choice, dtype), acc)
    if b.shape.get(acc) != _out(st).shape:   # Where records no shape: Expand to the result's (a no-op there)
        acc = b.node("Expand", [acc, b.ints(_out(st).shape)], dtype, _out(st).shape)
    return [acc]


COMBINE_RULES = {("function", "column_stack"): _lower_column_stack, ("function", "kron"): _lower_kron,
                 ("function", "select"): _lower_select}
