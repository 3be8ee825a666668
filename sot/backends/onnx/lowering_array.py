"""Lowering of the non-elementwise statements: reductions, matmul/dot,
shape ops (reshape and friends, transposes, broadcast_to), basic indexing,
joining and splitting, astype/copy and creation from constants.

Sizes are Dims (``lowering_shapes``): ints where static, so a static
graph's model holds every size as a constant, and values the model
computes from its inputs' shapes where a dim is symbolic.  An op whose
result is a rearrangement of its operand's elements in C order (reshape,
ravel, squeeze, expand_dims, atleast_*d, integer indexing's dropped axes)
is a ``Reshape`` to the result's dims: static, the statement's known shape;
symbolic, the operand's dims in order (these ops only add or drop 1s) or
the sizes the statement was given (``x.reshape(n, -1)``).
"""

from __future__ import annotations

import math

import numpy as np

from sot.ir.ops_api import SCALAR_TYPES
from sot.ir.ops_reduction import REDUCTIONS
from sot.ir.registry import bind, const_axes, substitute
from sot.ir.statement_ir import Symbol

from .builder import (BOOL, F16, F32, F64, FLOATS, I8, I64, INTS, MODULAR, U8, U64, GraphBuilder,
                      NotLowered, NotSymbolic)
from .lowering_gather import GATHER_RULES
from .lowering_indexing import _lower_getitem, _lower_join, _lower_split
from .lowering_shapes import (INT64_MIN, _annotation, _out, _reshape, _same_dims, _static_dims,
                              _symbol_operand, _tensor, dim, dim_arith, dims_of, product, scalar_dim,
                              set_dims, shape_of)

__all__ = ["ARRAY_RULES", "SIZE_AWARE_RULES", "SIZE_FREE_RULES", "PYTHON_SIZE_OPS"]

_INT64_MIN = INT64_MIN


def _reduced_dims(sdims, axes, keepdims: bool) -> list:
    return [1 if i in axes else d for i, d in enumerate(sdims) if keepdims or i not in axes]


# ----------------------------------------------------------------------------
# reductions

_RED_ALLOWED = frozenset({"a", "axis", "dtype", "keepdims", "ddof", "correction"})
_KWONLY = ("keepdims", "where", "mean", "correction", "initial")


def _reduction_bound(st):
    name = st.op.name
    params = REDUCTIONS[name]
    return bind(name, ("a",) + params, st.args, st.kwargs, _RED_ALLOWED, _KWONLY)


def _axes(bound, ndim):
    axes = const_axes(bound.get("axis"), ndim) if ndim else None
    return tuple(range(ndim)) if axes is None else axes


def _reduce(b, op_type, x, axes, keepdims, dtype, odims=()):
    """``op_type`` over ``axes``; ``odims``: the dims of the result, recorded
    where symbolic so that no Reshape follows."""
    if not axes:
        r = b.node("Identity", [x], dtype)
    else:
        r = b.node(op_type, [x, b.ints(axes)], dtype, keepdims=int(bool(keepdims)))
    return set_dims(b, r, odims)


def _lower_reduction(b: GraphBuilder, st):
    name = st.op.name.lstrip("a") if st.op.name in ("amax", "amin") else st.op.name
    bound = _reduction_bound(st)
    a = bound["a"]
    meta = _out(st)
    if isinstance(a, Symbol):
        src = a.meta
    else:
        raise NotLowered(f"{name} of a constant")
    axes = _axes(bound, src.ndim)
    keepdims = bool(bound.get("keepdims", False))
    out = meta.dtype
    x = b.value(a)
    sdims = dims_of(b, x, src)
    odims = _reduced_dims(sdims, axes, keepdims)   # the shape a Reduce* op gives
    if name in ("sum", "prod"):
        op_type = "ReduceSum" if name == "sum" else "ReduceProd"
        if out == BOOL:
            raise NotLowered(f"{name} with dtype=bool")
        if out in INTS:
            if name == "prod":
                raise NotLowered("integer prod: onnxruntime 1.32's ReduceProd saturates on "
                                 "overflow where NumPy wraps")
            return [_int_sum(b, b.cast(x, out), sdims, axes, odims)]
        compute = b.compute_dtype(op_type, out, {F16: (F32,)})
        r = _reduce(b, op_type, b.cast(x, compute), axes, keepdims, compute, odims)
        return [_reshape(b, b.cast(r, out), odims)]
    if name in ("max", "min"):
        op_type = "ReduceMax" if name == "max" else "ReduceMin"
        if out in INTS:
            r = _int_extreme(b, x, sdims, axes, name == "max", False)
            return [_reshape(b, b.cast(r, out), odims)]
        compute = b.compute_dtype(op_type, out)
        xc = b.cast(x, compute)
        r = _reduce(b, op_type, xc, axes, keepdims, compute, odims)
        if out in FLOATS and axes:   # ReduceMax skips NaN; np.max propagates it
            nan = b.node("IsNaN", [xc], BOOL)
            any_nan = _reduce(b, "ReduceMax", b.cast(nan, U8), axes, keepdims, U8)
            r = set_dims(b, b.where(b.cast(any_nan, BOOL), b.const(np.asarray(np.nan, compute)), r), odims)
        return [_reshape(b, b.cast(r, out), odims)]
    if name in ("any", "all"):
        truth = x if src.dtype == BOOL else b.node(
            "Not", [b.node("Equal", [x, b.const(np.zeros((), src.dtype))], BOOL)], BOOL)
        op_type = "ReduceMax" if name == "any" else "ReduceMin"
        r = _reduce(b, op_type, b.cast(truth, U8), axes, keepdims, U8, odims)
        return [_reshape(b, b.cast(r, BOOL), odims)]
    if name == "mean":
        compute = F32 if out == F16 else out
        if compute not in FLOATS:
            raise NotLowered(f"mean in {out}")
        r = _reduce(b, "ReduceMean", b.cast(x, compute), axes, keepdims, compute, odims)
        return [_reshape(b, b.cast(r, out), odims)]
    if name in ("var", "std"):
        r = set_dims(b, _var(b, x, sdims, bound, axes, keepdims, out, name == "std"), odims)
        return [_reshape(b, r, odims)]
    if name in ("argmax", "argmin"):
        return [_argext(b, x, src, sdims, bound, name, meta)]
    raise NotLowered(f"reduction {name}")


def _flatten_reduced(b, x, shape, axes):
    """``x`` transposed and reshaped to (kept elements, reduced elements)."""
    kept = [i for i in range(len(shape)) if i not in axes]
    perm = kept + list(axes)
    dtype = b.dtype[x]
    if perm != list(range(len(shape))):
        x = b.node("Transpose", [x], dtype, perm=perm)
    n_kept = product(b, [shape[i] for i in kept])
    n_red = product(b, [shape[i] for i in axes])
    if isinstance(n_kept, int) and isinstance(n_red, int):
        return b.node("Reshape", [x, b.ints([n_kept, n_red])], dtype, (n_kept, n_red))
    return b.node("Reshape", [x, shape_of(b, [n_kept, n_red])], dtype)


def _int_extreme(b, x, shape, axes, largest: bool, index: bool):
    """Integer max/min (or argmax/argmin) over ``axes`` with TopK(k=1) in
    int64, which keeps the first of equal values as NumPy does.  (The int64
    ReduceMax/ArgMax of onnxruntime 1.23 lose values in [2**31, 2**32).)
    uint64 is mapped to int64 by flipping the sign bit, which keeps order."""
    dtype = b.dtype[x]
    if not axes:   # nothing reduced: the value itself, or index 0 everywhere
        if not index:
            return b.node("Identity", [x], dtype)
        return b.node("Expand", [b.const(np.zeros((), np.int64)), shape_of(b, shape)], I64)
    if dtype == U64:
        x = b.node("BitwiseXor", [b.cast(x, I64), b.const(np.asarray(-(2 ** 63), np.int64))], I64)
    else:
        x = b.cast(x, I64)
    flat = _flatten_reduced(b, x, shape, axes)
    values, indices = b.node("TopK", [flat, b.ints([1])], I64, n_out=2, axis=-1, largest=int(largest),
                             sorted=1)
    b.dtype[indices] = I64
    if index:
        return indices
    if dtype == U64:
        return b.cast(b.node("BitwiseXor", [values, b.const(np.asarray(-(2 ** 63), np.int64))], I64), U64)
    return b.cast(values, dtype)


def _int_sum(b, x, shape, axes, odims):
    """An integer sum that wraps as NumPy's: a MatMul with a vector of ones
    (onnxruntime 1.32's integer ReduceSum saturates on overflow instead).
    ``x`` is already in the result dtype (NumPy converts before summing)."""
    dtype = b.dtype[x]
    x = _flatten_reduced(b, b.cast(x, I64), shape, axes)
    n_red = product(b, [shape[i] for i in axes])
    if isinstance(n_red, int):
        ones = b.const(np.ones(n_red, np.int64))
    else:
        ones = b.node("ConstantOfShape", [n_red], I64, value=_tensor(np.ones(1, np.int64)))
    r = b.node("MatMul", [x, ones], I64)
    return _reshape(b, b.cast(r, dtype), odims)


def _var(b, x, sdims, bound, axes, keepdims, out, sqrt):
    """NumPy's _var: mean with keepdims, deviations squared, summed, divided
    by max(n - ddof, 0)."""
    compute = F32 if out == F16 else out
    if compute not in FLOATS:
        raise NotLowered(f"var in {out}")
    ddof = bound.get("ddof", bound.get("correction", 0))
    if isinstance(ddof, Symbol) or not isinstance(ddof, (int, float)):
        raise NotLowered("var: ddof is not a constant number")
    n = product(b, [sdims[i] for i in axes])
    xc = b.cast(x, compute)
    mean = _reduce(b, "ReduceMean", xc, axes, True, compute)
    dev = b.node("Sub", [xc, mean], compute)
    sq = _reduce(b, "ReduceSum", b.node("Mul", [dev, dev], compute), axes, keepdims, compute)
    if isinstance(n, int):
        count = b.const(np.asarray(max(n - ddof, 0), compute))
    else:   # max(n - ddof, 0) as NumPy: in int64 for an int ddof, else in float64
        wide = I64 if isinstance(ddof, int) else F64
        left = b.node("Sub", [b.cast(n, wide), b.const(np.asarray(ddof, wide))], wide)
        zero = b.const(np.zeros((), wide))
        count = b.cast(b.where(b.node("Less", [left, zero], BOOL), zero, left), compute)
        count = b.node("Reshape", [count, b.ints([])], compute, ())
    r = b.node("Div", [sq, count], compute)
    if sqrt:
        r = b.node("Sqrt", [r], compute)
    return b.cast(r, out)


def _argext(b, x, src, sdims, bound, name, meta):
    op_type = "ArgMax" if name == "argmax" else "ArgMin"
    flat = bound.get("axis") is None or src.ndim == 0   # a 0-d operand: as its one element
    keepdims = bool(bound.get("keepdims", False))
    if flat:
        size = product(b, sdims)
        x = _reshape(b, x, (size,))
        axis = 0
        odims = [1] * src.ndim if keepdims else []
    else:
        (axis,) = const_axes(bound["axis"], src.ndim)
        odims = _reduced_dims(sdims, (axis,), keepdims)
    if _static_dims(odims) and tuple(odims) != meta.shape:  # pragma: no cover - the IR agrees
        raise NotLowered(f"internal: {name} result {odims} != {meta.shape}")
    dtype = src.dtype
    if dtype in INTS or dtype == BOOL:
        shape = (size,) if flat else sdims
        r = _int_extreme(b, b.cast(x, U8) if dtype == BOOL else x, shape, (axis,), name == "argmax", True)
        return _reshape(b, b.cast(r, meta.dtype), odims)
    compute = b.compute_dtype(op_type, dtype)
    xc = b.cast(x, compute)
    r = b.node(op_type, [xc], I64, keepdims=0, axis=axis)
    if dtype in FLOATS:  # NumPy gives the first NaN's index
        nan = b.cast(b.node("IsNaN", [xc], BOOL), U8)
        first_nan = b.node("ArgMax", [nan], I64, keepdims=0, axis=axis)
        has_nan = b.cast(b.node("ReduceMax", [nan, b.ints([axis])], U8, keepdims=0), BOOL)
        r = b.where(has_nan, first_nan, r)
    return _reshape(b, b.cast(r, meta.dtype), odims)


def _lower_cumsum(b, st):
    bound = bind(st.op.name, ("a", "axis", "dtype", "out"), st.args, st.kwargs, _RED_ALLOWED)
    a = _symbol_operand(bound["a"], "cumsum operand")
    meta = _out(st)
    x = b.value(a)
    if bound.get("axis") is None or a.meta.ndim == 0:
        x = _reshape(b, x, (product(b, dims_of(b, x, a.meta)),))
        axis = 0
    else:
        (axis,) = const_axes(bound["axis"], a.meta.ndim)
    out = meta.dtype
    if out == BOOL:
        raise NotLowered("cumsum with dtype=bool")
    compute = b.compute_dtype("CumSum", out, MODULAR if out in INTS else {F16: (F32,)})
    r = b.node("CumSum", [b.cast(x, compute), b.const(np.asarray(axis, np.int64))], compute)
    return [b.cast(r, out)]


# ----------------------------------------------------------------------------
# matmul, dot

def _matmul_values(b, x, y, out, shape):
    """MatMul of x and y (already of dtype ``out``) in ``out``; ``shape`` is
    the result's, known to the IR (ONNX MatMul is numpy.matmul, 1-d operands
    included), so that no Reshape is needed after it: a Reshape, even a no-op
    one, keeps onnxruntime from folding a following scale into the MatMul."""
    if out == BOOL:
        r = _matmul_values(b, b.cast(x, np.dtype(np.int64)), b.cast(y, np.dtype(np.int64)), I64, shape)
        return b.node("Greater", [r, b.const(np.zeros((), np.int64))], BOOL, shape)
    compute = b.compute_dtype("MatMul", out, MODULAR if out in INTS else {F16: (F32,)})
    r = b.node("MatMul", [b.cast(x, compute), b.cast(y, compute)], compute, shape)
    return b.cast(r, out)


#: the ops lowered as a MatMul (BLAS products on NumPy)
MATMUL_OPS = ("matmul", "imatmul", "dot")

#: float64 matmuls with more multiply-adds than this stay on NumPy
BIG_F64_MATMUL = 1 << 22


def matmul_prefers_numpy(st) -> str | None:
    """Why a matmul statement is better left to NumPy, or None.  onnxruntime's
    float64 MatMul is Eigen's, several times slower than NumPy's BLAS (an
    8x1024x1024 @ 1024x64 product: 105 ms against 40 ms here); the result
    is the same up to rounding either way, so this is a choice of speed,
    made by the runtime's plan (``plan(prefer=...)``), never by export."""
    if st.op.name not in MATMUL_OPS:
        return None
    meta = st.outputs[0].meta
    if meta.dtype != F64:
        return None
    a = st.args[0]
    k = a.meta.shape[-1] if isinstance(a, Symbol) and a.meta.shape else 1
    if math.prod(meta.shape) * k > BIG_F64_MATMUL:
        return ("a large float64 matmul runs faster on NumPy's BLAS than on onnxruntime "
                "(Eigen): left on NumPy")
    return None


def _lower_matmul(b, st):
    x, y = st.args[:2]
    meta = _out(st)
    if st.op.name == "dot":
        bound = bind("dot", ("a", "b", "out"), st.args, st.kwargs, {"a", "b"})
        x, y = bound["a"], bound["b"]
    nx = x.meta.ndim if isinstance(x, Symbol) else np.ndim(x)
    ny = y.meta.ndim if isinstance(y, Symbol) else np.ndim(y)
    if st.op.name == "dot":
        if nx == 0 or ny == 0 or nx > 2 or ny > 2:
            raise NotLowered("dot of 0-d or >2-d operands differs from matmul")
    else:
        for k in st.kwargs:
            if k != "out":
                raise NotLowered(f"matmul: keyword {k}= is not lowered")
    out = meta.dtype
    # MatMul's result shape is NumPy's (matmul, and dot of <= 2-d operands), so
    # no Reshape follows it; a result with a symbolic dim records no static shape
    shape = None if meta.symbolic_axes else meta.shape
    x, y = b.operand(x, out), b.operand(y, out)
    if ny == 1 and nx >= 2:
        # a matrix times a vector as a matrix times a column: onnxruntime
        # (1.32, optimisation level extended) fuses Transpose + MatMul with
        # a 1-d second operand into a FusedMatMul that ignores the transpose
        # (X.T @ y gave X.reshape(n, m) @ y)
        axis = b.ints([-1])
        column = b.node("Unsqueeze", [y, axis], out)
        r = _matmul_values(b, x, column, out, None if shape is None else shape + (1,))
        return [b.node("Squeeze", [r, axis], out, shape)]
    return [_matmul_values(b, x, y, out, shape)]


# ----------------------------------------------------------------------------
# shape ops

def _order_is_c(st, position):
    order = st.kwargs.get("order")
    if order is None and len(st.args) > position:
        order = st.args[position]
    return order in (None, "C")


def _lower_reshape_like(b, st):
    name = st.op.name
    order_pos = {"reshape": 2 if st.op.kind == "function" else None, "ravel": 1, "flatten": 1}.get(name)
    if name in ("reshape", "ravel", "flatten") and not _order_is_c(st, order_pos if order_pos else 99):
        raise NotLowered(f"{name} with an order other than 'C'")
    a = _symbol_operand(st.args[0], name)
    x = b.value(a)
    out = _out(st)
    if not out.symbolic_axes and not a.meta.symbolic_axes:
        return [_reshape(b, x, out.shape)]
    if name in ("ravel", "flatten"):
        return [_reshape(b, x, (product(b, dims_of(b, x, a.meta)),))]
    if name == "reshape":
        target = _reshape_target(b, st)
        if -1 not in target:
            return [_reshape(b, x, target)]
        i = target.index(-1)
        if i not in out.symbolic_axes:  # the size NumPy infers is static: record it, never -1
            target[i] = out.shape[i]
            return [_reshape(b, x, target)]
        r = b.node("Reshape", [x, shape_of(b, target)], b.dtype[x])
        target[i] = dim(b, r, i)  # the size Reshape computed
        return [set_dims(b, r, target)]
    return [_reshape(b, x, _same_dims(b, x, a.meta, out))]   # squeeze, expand_dims, atleast_*d


def _reshape_target(b, st) -> list:
    """The Dims a reshape statement was given (-1 stays -1: Reshape computes
    it as NumPy does; a 0 in the target is never reached, zero-size results
    run on NumPy)."""
    args, kwargs = st.args, st.kwargs
    if st.op.kind == "function":
        bound = bind("reshape", ("a", "shape", "order"), args, kwargs,
                     {"a", "shape", "order", "newshape", "copy"}, kwonly=("newshape", "copy"))
        target = bound.get("shape") if bound.get("shape") is not None else bound.get("newshape")
    elif len(args) == 2 and not isinstance(args[1], (int, np.integer, Symbol)):
        target = args[1]
    else:
        target = tuple(args[1:])
    target = target if isinstance(target, (tuple, list)) else (target,)
    return [scalar_dim(b, d) for d in target]


def _transpose_perm(st):
    a = st.args[0]
    ndim = a.meta.ndim
    name = st.op.name
    if name == "T":
        return tuple(reversed(range(ndim)))
    if name in ("mT", "matrix_transpose"):
        return tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)
    if name == "rollaxis":  # the permutation NumPy's rollaxis applies (its shape rule already checked it)
        bound = bind("rollaxis", ("a", "axis", "start"), st.args, st.kwargs, {"a", "axis", "start"})
        axis, start = bound["axis"] % ndim, bound.get("start", 0)
        start = start + ndim if start < 0 else start
        order = [n for n in range(ndim) if n != axis]
        order.insert(start - 1 if axis < start else start, axis)
        return tuple(order)
    if name == "transpose":
        axes = st.kwargs.get("axes") if st.kwargs else (st.args[1:] if len(st.args) > 1 else None)
        if isinstance(axes, tuple) and len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        if axes is None:
            return tuple(reversed(range(ndim)))
        return const_axes(axes, ndim, "axes")
    if name == "swapaxes":
        bound = bind("swapaxes", ("a", "axis1", "axis2"), st.args, st.kwargs, {"a", "axis1", "axis2"})
        (i,), (j,) = const_axes(bound["axis1"], ndim), const_axes(bound["axis2"], ndim)
        perm = list(range(ndim))
        perm[i], perm[j] = perm[j], perm[i]
        return tuple(perm)
    if name == "moveaxis":
        bound = bind("moveaxis", ("a", "source", "destination"), st.args, st.kwargs,
                     {"a", "source", "destination"})
        source = const_axes(bound["source"], ndim, "source")
        destination = const_axes(bound["destination"], ndim, "destination")
        order = [n for n in range(ndim) if n not in source]
        for dest, src in sorted(zip(destination, source)):
            order.insert(dest, src)
        return tuple(order)
    raise NotLowered(name)


def _lower_transpose(b, st):
    a = _symbol_operand(st.args[0], st.op.name)
    perm = _transpose_perm(st)
    x = b.value(a)
    if list(perm) == list(range(len(perm))):
        return [b.node("Identity", [x], a.meta.dtype, a.meta.shape)]
    return [b.node("Transpose", [x], a.meta.dtype, _out(st).shape, perm=list(perm))]


def _lower_broadcast_to(b, st):
    meta = _out(st)
    if not meta.symbolic_axes:
        a = st.args[0] if st.args else st.kwargs["array"]
        x = b.operand(a, meta.dtype)
        return [b.node("Expand", [x, b.ints(meta.shape)], meta.dtype, meta.shape)]
    bound = bind("broadcast_to", ("array", "shape", "subok"), st.args, st.kwargs, {"array", "shape"})
    x = b.operand(bound["array"], meta.dtype)
    shape = bound["shape"]
    target = [scalar_dim(b, d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,))]
    return [set_dims(b, b.node("Expand", [x, shape_of(b, target)], meta.dtype), target)]


def _lower_astype(b, st):
    a = _symbol_operand(st.args[0], "astype operand")
    meta = _out(st)
    # float -> int: NumPy and onnxruntime both convert with a C cast
    return [b.cast(b.node("Identity", [b.value(a)], a.meta.dtype, a.meta.shape), meta.dtype)]


def _lower_copy(b, st):
    a = _symbol_operand(st.args[0], "copy operand")
    if not _order_is_c(st, 1) and st.kwargs.get("order", "C") not in ("C", "K", "A", None):
        raise NotLowered("copy with order")
    return [b.node("Identity", [b.value(a)], a.meta.dtype, a.meta.shape)]


# ----------------------------------------------------------------------------
# flips, creation

def _lower_flip(b, st):
    a = _symbol_operand(st.args[0] if st.args else st.kwargs["m"], "flip operand")
    ndim = a.meta.ndim
    if st.op.name == "fliplr":
        axes = (1,)
    elif st.op.name == "flipud":
        axes = (0,)
    else:
        axis = st.kwargs.get("axis", st.args[1] if len(st.args) > 1 else None)
        axes = tuple(range(ndim)) if axis is None else const_axes(axis, ndim)
    if not axes:
        return [b.node("Identity", [b.value(a)], a.meta.dtype, a.meta.shape)]
    n = len(axes)
    x = b.node("Slice", [b.value(a), b.ints([-1] * n), b.ints([_INT64_MIN] * n), b.ints(axes),
                         b.ints([-1] * n)], a.meta.dtype, a.meta.shape)
    return [x]


_CREATION_LIMIT = 1 << 16


def _lower_creation(b, st):
    """A creation op depends on no array data: its value is computed by NumPy
    when the graph is compiled (a fill becomes ConstantOfShape)."""
    if st.multi_output:   # np.linspace(..., retstep=True): left to NumPy
        raise NotLowered(f"{st.op.name} with several results")
    meta = _out(st)
    like = st.op.name.endswith("_like")
    symbols = st.symbols_used()
    if meta.symbolic_axes or any(s.meta.is_python for s in symbols):
        return _creation_symbolic(b, st, meta, like)
    if symbols and not (like and len(symbols) == 1 and (st.args[:1] == (symbols[0],)
                                                        or st.kwargs.get("a") is symbols[0])):
        raise NotLowered(f"{st.op.name} with traced arguments")
    if like:
        probe = st.op.call(substitute(st.args), substitute(st.kwargs))
        flat = np.asarray(probe).reshape(-1)
        fill = flat[:1].astype(meta.dtype) if flat.size else np.zeros(1, meta.dtype)
        if meta.shape and flat.size == 0 and math.prod(meta.shape):
            raise NotLowered("fill value unknown")
        return [b.node("ConstantOfShape", [b.ints(meta.shape)], meta.dtype, meta.shape,
                       value=_tensor(fill))]
    if meta.size > _CREATION_LIMIT and st.op.name not in ("zeros", "ones", "full"):
        raise NotLowered(f"{st.op.name}: constant of {meta.size} elements")
    value = np.asarray(st.op.call(st.args, st.kwargs))
    if value.dtype != meta.dtype or value.shape != meta.shape:
        raise NotLowered("creation result differs from its meta")
    flat = value.reshape(-1)
    if flat.size and (flat == flat[0]).all() and not (flat.dtype.kind == "f" and np.isnan(flat[0])):
        if value.shape == ():
            return [b.node("Identity", [b.const(value)], meta.dtype, ())]
        return [b.node("ConstantOfShape", [b.ints(meta.shape)], meta.dtype, meta.shape,
                       value=_tensor(flat[:1]))]
    if meta.size > _CREATION_LIMIT:
        raise NotLowered(f"{st.op.name}: non-uniform constant of {meta.size} elements")
    return [b.node("Identity", [b.const(value)], meta.dtype, meta.shape)]


_FILLS = {"zeros": ("shape", "dtype", "order"), "ones": ("shape", "dtype", "order"),
          "full": ("shape", "fill_value", "dtype", "order"),
          "zeros_like": ("a", "dtype", "order", "subok", "shape"),
          "ones_like": ("a", "dtype", "order", "subok", "shape"),
          "full_like": ("a", "fill_value", "dtype", "order", "subok", "shape"),
          # np.empty is lowered as zeros (onnx_lowering_writes.lower_empty)
          "empty": ("shape", "dtype", "order"), "empty_like": ("a", "dtype", "order", "subok", "shape")}


def _creation_symbolic(b, st, meta, like):
    """A fill of a symbolic shape (ConstantOfShape of the given sizes, or of
    the prototype's dims), or np.arange of Python ints (Range in int64)."""
    name = st.op.name
    if name == "arange":
        return [_arange_symbolic(b, st, meta)]
    params = _FILLS.get(name)
    if params is None:
        raise NotSymbolic(f"{name} with a size computed from shapes")
    bound = bind(name, params, st.args, st.kwargs, set(params))
    fill = bound.get("fill_value", 1 if name.startswith("ones") else 0)
    if isinstance(fill, Symbol) or np.ndim(fill) != 0:
        raise NotSymbolic(f"{name}: the fill value is not a constant number")
    shape = bound.get("shape")
    if shape is not None:
        target = [scalar_dim(b, d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,))]
    elif like and isinstance(bound["a"], Symbol):
        a = bound["a"]
        target = dims_of(b, b.value(a), a.meta)
    else:
        raise NotSymbolic(f"{name} of a constant prototype")
    with np.errstate(all="ignore"):
        value = np.asarray(fill).astype(meta.dtype).reshape(1)   # as np.full converts it
    return [set_dims(b, b.node("ConstantOfShape", [shape_of(b, target)], meta.dtype, value=_tensor(value)),
                     target)]


def _arange_symbolic(b, st, meta):
    bound = bind("arange", ("start", "stop", "step", "dtype"), st.args, st.kwargs,
                 {"start", "stop", "step", "dtype"})
    if bound.get("stop") is None:
        start, stop, step = 0, bound["start"], bound.get("step", 1)
    else:
        start, stop, step = bound.get("start", 0), bound["stop"], bound.get("step", 1)
    args = [start, stop, 1 if step is None else step]
    if meta.dtype != I64 or any(isinstance(v, Symbol) and v.meta.type is not int for v in args) or \
            any(not isinstance(v, Symbol) and type(v) is not int for v in args):
        raise NotSymbolic("np.arange of a size computed from shapes, other than of Python ints")
    values = [b.value(v) if isinstance(v, Symbol) else b.const(np.asarray(v, np.int64)) for v in args]
    return b.node("Range", values, I64)


def _lower_triangle(b, st):
    bound = bind(st.op.name, ("m", "k"), st.args, st.kwargs, {"m", "k"})
    a = _symbol_operand(bound["m"], st.op.name)
    k = bound.get("k", 0)
    if a.meta.ndim < 2 or isinstance(k, Symbol):
        raise NotLowered(f"{st.op.name} of a vector (it becomes a matrix) or with a traced k")
    dtype = a.meta.dtype
    compute = b.compute_dtype("Trilu", dtype, {**MODULAR, I8: (I64,), U8: (I64,), U64: (I64,)})
    r = b.node("Trilu", [b.cast(b.value(a), compute), b.const(np.asarray(int(k), np.int64))], compute,
               a.meta.shape, upper=int(st.op.name == "triu"))
    return [b.cast(r, dtype)]


def _lower_roll(b, st):
    bound = bind("roll", ("a", "shift", "axis"), st.args, st.kwargs, {"a", "shift", "axis"})
    a = _symbol_operand(bound["a"], "roll operand")
    meta = _out(st)
    x = b.value(a)
    sdims = dims_of(b, x, a.meta)
    shift, axis = bound["shift"], bound.get("axis")
    if axis is None:
        shape = (product(b, sdims),)
        x = _reshape(b, x, shape)
        pairs = [(shift, 0)]
        if isinstance(shift, (tuple, list)):
            raise NotLowered("roll: a sequence of shifts without axes")
    else:
        shape = tuple(sdims)
        shifts = shift if isinstance(shift, (tuple, list)) else [shift]
        axes = axis if isinstance(axis, (tuple, list)) else [axis]
        if len(shifts) != len(axes):
            if len(shifts) == 1:
                shifts = list(shifts) * len(axes)
            elif len(axes) == 1:
                axes = list(axes) * len(shifts)
            else:
                raise NotLowered("roll: shifts and axes differ in length")
        pairs = [(s, const_axes(ax, len(shape))[0]) for s, ax in zip(shifts, axes)]
    total: dict[int, int] = {}
    for sh, ax in pairs:
        if isinstance(sh, Symbol) or isinstance(sh, bool) or not isinstance(sh, (int, np.integer)):
            raise NotLowered("roll: shift is not a constant int")
        total[ax] = total.get(ax, 0) + int(sh)
    for ax, sh in total.items():
        n = shape[ax]
        if isinstance(n, int):
            k = sh % n if n else 0
            if k:
                head = b.node("Slice", [x, b.ints([n - k]), b.ints([n]), b.ints([ax])], meta.dtype)
                tail = b.node("Slice", [x, b.ints([0]), b.ints([n - k]), b.ints([ax])], meta.dtype)
                x = b.node("Concat", [head, tail], meta.dtype, _annotation(shape), axis=ax)
            continue
        # n - sh % n (Python's %: n > 0); a cut at n leaves x whole
        cut = dim_arith(b, "Sub", n, dim_arith(b, "Mod", dim_arith(b, "Add", dim_arith(b, "Mod", sh, n), n), n))
        head = b.node("Slice", [x, cut, n, b.ints([ax])], meta.dtype)
        tail = b.node("Slice", [x, b.ints([0]), cut, b.ints([ax])], meta.dtype)
        x = b.node("Concat", [head, tail], meta.dtype, axis=ax)
    if not meta.symbolic_axes:
        return [_reshape(b, b.node("Identity", [x], meta.dtype, shape), meta.shape)]
    return [_reshape(b, set_dims(b, b.node("Identity", [x], meta.dtype), shape), sdims)]


def _lower_tile(b, st):
    bound = bind("tile", ("A", "reps"), st.args, st.kwargs, {"A", "reps"})
    a = _symbol_operand(bound["A"], "tile operand")
    reps = bound["reps"]
    reps = list(reps) if isinstance(reps, (tuple, list)) else [reps]
    if any(isinstance(r, Symbol) for r in reps):
        raise NotLowered("tile: traced reps")
    meta = _out(st)
    d = max(a.meta.ndim, len(reps))
    x = b.value(a)
    src = (1,) * (d - a.meta.ndim) + tuple(dims_of(b, x, a.meta))
    reps = [1] * (d - len(reps)) + [int(r) for r in reps]
    x = _reshape(b, x, src)
    r = b.node("Tile", [x, b.ints(reps)], meta.dtype)
    if meta.symbolic_axes:   # Tile's result has np.tile's shape
        return [r]
    return [_reshape(b, r, meta.shape)]


def _lower_repeat(b, st):
    bound = bind("repeat", ("a", "repeats", "axis"), st.args, st.kwargs, {"a", "repeats", "axis"})
    a = _symbol_operand(bound["a"], "repeat operand")
    r = bound["repeats"]
    if isinstance(r, (Symbol, bool)) or not isinstance(r, (int, np.integer)):
        raise NotLowered("repeat: repeats is not a constant int")
    meta = _out(st)
    x = b.value(a)
    sdims = tuple(dims_of(b, x, a.meta))
    if bound.get("axis") is None or a.meta.ndim == 0:
        shape, axis = (product(b, sdims),), 0
        x = _reshape(b, x, shape)
    else:
        shape = sdims
        (axis,) = const_axes(bound["axis"], len(shape))
    spread = shape[:axis + 1] + (1,) + shape[axis + 1:]
    target = shape[:axis + 1] + (int(r),) + shape[axis + 1:]
    x = b.node("Expand", [_reshape(b, x, spread), shape_of(b, target)], meta.dtype, _annotation(target))
    if not meta.symbolic_axes:
        return [_reshape(b, x, meta.shape)]
    out = shape[:axis] + (dim_arith(b, "Mul", shape[axis], int(r)),) + shape[axis + 1:]
    return [_reshape(b, x, out)]


def _lower_outer(b, st):
    from .lowering_elementwise import UFUNC_RULES, resolve_loop
    bound = bind("outer", ("a", "b", "out"), st.args, st.kwargs, {"a", "b"})
    x, y = bound["a"], bound["b"]
    if not (isinstance(x, Symbol) and isinstance(y, Symbol)):
        raise NotLowered("outer of a constant")
    ins, out = resolve_loop(np.multiply, [x, y])
    xv, yv = b.cast(b.value(x), ins[0]), b.cast(b.value(y), ins[1])
    xv = _reshape(b, xv, (product(b, dims_of(b, xv, x.meta)), 1))
    yv = _reshape(b, yv, (1, product(b, dims_of(b, yv, y.meta))))
    r = UFUNC_RULES["multiply"](b, [xv, yv], ins, out)
    return [b.cast(r, _out(st).dtype)]


# (kind, name) -> rule; kind None matches function and method alike
ARRAY_RULES = {}
for _name in ("sum", "prod", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "var",
              "std", "any", "all"):
    ARRAY_RULES[("function", _name)] = ARRAY_RULES[("method", _name)] = _lower_reduction
ARRAY_RULES[("function", "cumsum")] = ARRAY_RULES[("method", "cumsum")] = _lower_cumsum
for _key in (("function", "matmul"), ("operator", "matmul"), ("operator", "imatmul"),
             ("function", "dot"), ("method", "dot")):
    ARRAY_RULES[_key] = _lower_matmul
for _name in ("reshape", "ravel", "flatten", "squeeze"):
    ARRAY_RULES[("function", _name)] = ARRAY_RULES[("method", _name)] = _lower_reshape_like
for _name in ("expand_dims", "atleast_1d", "atleast_2d", "atleast_3d"):
    ARRAY_RULES[("function", _name)] = _lower_reshape_like
for _key in (("attribute", "T"), ("attribute", "mT"), ("function", "transpose"),
             ("method", "transpose"), ("function", "swapaxes"), ("method", "swapaxes"),
             ("function", "moveaxis"), ("function", "matrix_transpose"), ("function", "rollaxis")):
    ARRAY_RULES[_key] = _lower_transpose
ARRAY_RULES[("function", "broadcast_to")] = _lower_broadcast_to
ARRAY_RULES[("method", "astype")] = ARRAY_RULES[("function", "astype")] = _lower_astype
ARRAY_RULES[("method", "copy")] = ARRAY_RULES[("function", "copy")] = _lower_copy
ARRAY_RULES[("operator", "getitem")] = _lower_getitem
for _name in ("concatenate", "stack", "hstack", "vstack"):
    ARRAY_RULES[("function", _name)] = _lower_join
for _name in ("split", "array_split", "hsplit", "vsplit", "dsplit"):
    ARRAY_RULES[("function", _name)] = _lower_split
for _name in ("flip", "fliplr", "flipud"):
    ARRAY_RULES[("function", _name)] = _lower_flip
for _name in ("zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "arange", "linspace",
              "eye", "identity", "tri"):
    ARRAY_RULES[("function", _name)] = _lower_creation
ARRAY_RULES[("function", "tril")] = ARRAY_RULES[("function", "triu")] = _lower_triangle
ARRAY_RULES[("function", "roll")] = _lower_roll
ARRAY_RULES[("function", "tile")] = _lower_tile
ARRAY_RULES[("function", "repeat")] = ARRAY_RULES[("method", "repeat")] = _lower_repeat
ARRAY_RULES[("function", "outer")] = _lower_outer
ARRAY_RULES.update(GATHER_RULES)
for _type in SCALAR_TYPES:   # np.float32(x): a cast
    ARRAY_RULES[("function", _type.__name__)] = _lower_astype

#: rules whose sizes are Dims (right for every size of a symbolic dim)
SIZE_AWARE_RULES = frozenset([_lower_reduction, _lower_cumsum, _lower_matmul, _lower_reshape_like,
                              _lower_broadcast_to, _lower_getitem, _lower_join, _lower_split,
                              _lower_creation, _lower_roll, _lower_tile, _lower_repeat, _lower_outer,
                              *GATHER_RULES.values()])
#: rules that use no size at all
SIZE_FREE_RULES = frozenset([_lower_transpose, _lower_astype, _lower_copy, _lower_flip, _lower_triangle])
#: ops that may take Python numbers of the graph as sizes or bounds
PYTHON_SIZE_OPS = frozenset([("function", "reshape"), ("method", "reshape"), ("function", "broadcast_to"),
                             ("operator", "getitem")]
                            + [("function", n) for n in ("split", "array_split", "hsplit", "vsplit",
                                                         "dsplit", "zeros", "ones", "full", "zeros_like",
                                                         "ones_like", "full_like", "arange")])
