"""The array-API linear algebra of NumPy 2 (``np.linalg.matrix_norm``,
``vector_norm``, ``svdvals``, ``vecdot``, ``matrix_transpose``, ``outer``,
``trace``/``diagonal`` over the last two axes, ``multi_dot``, ``cond``,
``matrix_rank``, ``tensorsolve``/``tensorinv`` (a reshaped solve/inv)) and the vector/matrix gufuncs ``np.vecdot``, ``np.matvec``,
``np.vecmat``, plus ``np.vdot``.

Shapes follow the operands' shapes; dtypes (and NumPy scalar vs array) come
from the probe.  Only ``np.linalg.matmul`` shares a lowering (``matmul``'s,
the same function); the others run on the NumPy backend within ``auto``.
Functions missing from the running NumPy (``matvec`` before 2.2) are skipped.
"""

from __future__ import annotations

import numpy as np

from .errors import UnsupportedOp
from .ops_linalg import matmul_shape
from .registry import Op, bind, broadcast, const_axes, const_int, meta_of_probe, register, run_probe, shape_of

_la = np.linalg


def _op(name, target, params, shape_rule, allowed=None, kwonly=()):
    """An op of ``target`` (skipped when this NumPy lacks it) whose shape is
    ``shape_rule(bound arguments)``; operands are the parameters named
    ``x``, ``x1``, ``x2``, ``a``, ``b``, ``A`` (all required)."""
    if target is None:
        return None
    allowed = set(params) | set(kwonly) if allowed is None else allowed
    required = [p for p in params if p in ("x", "x1", "x2", "a", "b", "A")]

    def infer(op, args, kwargs):
        b = bind(name, params, args, kwargs, allowed, kwonly)
        if any(p not in b for p in required):
            raise UnsupportedOp(f"{name}: missing operands (NumPy raises)")
        shape = shape_rule(b)
        return meta_of_probe(op, run_probe(op, args, kwargs), shape)
    return register(Op(name, "function", target, infer))


def _matrices(name, shape):
    if len(shape) < 2:
        raise UnsupportedOp(f"{name}: needs at least 2 dims, got {shape}")
    return shape


def _keep(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _bool(value, what):
    if type(value) is not bool:
        raise UnsupportedOp(f"{what} must be a bool")
    return value


# -- products --------------------------------------------------------------------------

_op("matmul", _la.matmul, ("x1", "x2"), lambda b: matmul_shape(shape_of(b["x1"]), shape_of(b["x2"])))


def _linalg_outer_shape(b):
    a, c = shape_of(b["x1"]), shape_of(b["x2"])
    if len(a) != 1 or len(c) != 1:
        raise UnsupportedOp("linalg.outer: needs 1-d operands")
    return (a[0], c[0])


_op("linalg_outer", _la.outer, ("x1", "x2"), _linalg_outer_shape)


def _vecdot_shape(b):
    a, c = shape_of(b["x1"]), shape_of(b["x2"])
    axis = b.get("axis", -1)
    if not a or not c:
        raise UnsupportedOp("vecdot: 0-d operand")
    n = max(len(a), len(c))
    (ax,) = const_axes(axis, n)
    a, c = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(c)) + tuple(c)
    if a[ax] != c[ax]:
        raise UnsupportedOp(f"vecdot: the contracted dims {a[ax]} and {c[ax]} differ")
    return broadcast(a[:ax] + a[ax + 1:], c[:ax] + c[ax + 1:])


_op("linalg_vecdot", _la.vecdot, ("x1", "x2"), _vecdot_shape, kwonly=("axis",))


def _gufunc_vecdot_shape(b):
    a, c = shape_of(b["x1"]), shape_of(b["x2"])
    if not a or not c or a[-1] != c[-1]:
        raise UnsupportedOp(f"vecdot: core dims of {a} and {c} do not match")
    return broadcast(a[:-1], c[:-1])


def _matvec_shape(b):
    m, v = shape_of(b["x1"]), shape_of(b["x2"])
    if len(m) < 2 or not v or m[-1] != v[-1]:
        raise UnsupportedOp(f"matvec: core dims of {m} and {v} do not match")
    return broadcast(m[:-2], v[:-1]) + (m[-2],)


def _vecmat_shape(b):
    v, m = shape_of(b["x1"]), shape_of(b["x2"])
    if len(m) < 2 or not v or v[-1] != m[-2]:
        raise UnsupportedOp(f"vecmat: core dims of {v} and {m} do not match")
    return broadcast(v[:-1], m[:-2]) + (m[-1],)


# gufuncs: only the plain call (no axes=, out=, where=)
for _name, _rule in (("vecdot", _gufunc_vecdot_shape), ("matvec", _matvec_shape), ("vecmat", _vecmat_shape)):
    _op(_name, getattr(np, _name, None), ("x1", "x2"), _rule, allowed={"x1", "x2", "dtype", "casting"},
        kwonly=("dtype", "casting"))


def _vdot_shape(b):
    a, c = shape_of(b["a"]), shape_of(b["b"])
    if int(np.prod(a, dtype=np.int64)) != int(np.prod(c, dtype=np.int64)):
        raise UnsupportedOp(f"vdot: sizes of {a} and {c} differ")
    return ()


_op("vdot", np.vdot, ("a", "b"), _vdot_shape)


def _multi_dot_infer(op, args, kwargs):
    b = bind("multi_dot", ("arrays", "out"), args, kwargs, {"arrays"})
    arrays = b.get("arrays")
    if type(arrays) not in (list, tuple) or len(arrays) < 2:
        raise UnsupportedOp("multi_dot: expects a list of at least two arrays")
    shapes = [shape_of(a) for a in arrays]
    if any(len(s) != 2 for s in shapes[1:-1]) or not 1 <= len(shapes[0]) <= 2 or not 1 <= len(shapes[-1]) <= 2:
        raise UnsupportedOp("multi_dot: inner operands must be 2-d, the outer ones 1-d or 2-d")
    shape = shapes[0]
    for s in shapes[1:]:
        shape = matmul_shape(shape, s)
    return meta_of_probe(op, run_probe(op, args, kwargs), shape)


register(Op("multi_dot", "function", _la.multi_dot, _multi_dot_infer))


# -- views and reductions over the last two axes -------------------------------------------

def _matrix_transpose_shape(b):
    shape = _matrices("matrix_transpose", shape_of(b["x"]))
    return tuple(shape[:-2]) + (shape[-1], shape[-2])


_op("matrix_transpose", getattr(np, "matrix_transpose", None), ("x",), _matrix_transpose_shape)
_op("matrix_transpose", _la.matrix_transpose, ("x",), _matrix_transpose_shape)


def _linalg_diagonal_shape(b):
    shape = _matrices("linalg.diagonal", shape_of(b["x"]))
    k = const_int(b.get("offset", 0), "offset")
    n, m = shape[-2], shape[-1]
    length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
    return tuple(shape[:-2]) + (length,)


_op("linalg_diagonal", _la.diagonal, ("x",), _linalg_diagonal_shape, kwonly=("offset",))
_op("linalg_trace", _la.trace, ("x",), lambda b: _linalg_diagonal_shape(b)[:-1], kwonly=("offset", "dtype"))


def _matrix_norm_shape(b):
    shape = _matrices("matrix_norm", shape_of(b["x"]))
    keep = _bool(b.get("keepdims", False), "keepdims")
    return _keep(shape, (len(shape) - 2, len(shape) - 1), keep)


def _vector_norm_shape(b):
    shape = shape_of(b["x"])
    keep = _bool(b.get("keepdims", False), "keepdims")
    axes = const_axes(b.get("axis"), len(shape))
    return _keep(shape, tuple(range(len(shape))) if axes is None else axes, keep)


_op("matrix_norm", _la.matrix_norm, ("x",), _matrix_norm_shape, kwonly=("keepdims", "ord"))
_op("vector_norm", _la.vector_norm, ("x",), _vector_norm_shape, kwonly=("axis", "keepdims", "ord"))


def _svdvals_shape(b):
    shape = _matrices("svdvals", shape_of(b["x"]))
    return tuple(shape[:-2]) + (min(shape[-2], shape[-1]),)


_op("svdvals", _la.svdvals, ("x",), _svdvals_shape)


def _cond_shape(b):
    shape = _matrices("cond", shape_of(b["x"]))
    if b.get("p") not in (None, 2, -2) and shape[-1] != shape[-2]:
        raise UnsupportedOp("cond: this p needs square matrices")
    return tuple(shape[:-2])


_op("cond", _la.cond, ("x", "p"), _cond_shape)


def _matrix_rank_shape(b):
    shape = shape_of(b["A"])
    if len(shape) < 2:
        return ()
    return tuple(shape[:-2])


_op("matrix_rank", _la.matrix_rank, ("A", "tol", "hermitian"), _matrix_rank_shape, kwonly=("rtol",))


# -- np.cumulative_sum / cumulative_prod (NumPy 2.1) ------------------------------------------

def _cumulative_shape(b):
    shape = list(shape_of(b["x"]))
    axis = b.get("axis")
    if axis is None:
        if len(shape) > 1:
            raise UnsupportedOp("cumulative_sum: axis= is required for more than one dim")
        axis = 0
    if not shape:
        raise UnsupportedOp("cumulative_sum: 0-d operand")
    (ax,) = const_axes(axis, len(shape))
    if _bool(b.get("include_initial", False), "include_initial"):
        shape[ax] += 1
    return tuple(shape)


for _name in ("cumulative_sum", "cumulative_prod"):
    _op(_name, getattr(np, _name, None), ("x",), _cumulative_shape, kwonly=("axis", "dtype", "include_initial"))


# -- np.linalg.tensorsolve / tensorinv: a reshaped solve / inv --------------------------------

def _solve_dtype(name, *operands):
    """The dtype NumPy's solve (two operands) or inv (one) gives these
    operands' dtypes: the operands themselves cannot be probed at one
    element (the reshape needs their sizes)."""
    from .meta import dtype_is_supported
    probes = [np.ones((1, 1) if i == 0 else (1,), s.meta.dtype) for i, s in enumerate(operands)]
    try:
        with np.errstate(all="ignore"):
            dtype = (_la.solve if len(operands) == 2 else _la.inv)(*probes).dtype
    except Exception as e:
        raise UnsupportedOp(f"{name}: NumPy raises {type(e).__name__}: {e}") from None
    if not dtype_is_supported(dtype):
        raise UnsupportedOp(f"{name}: result dtype {dtype} is not supported")
    return dtype


def _traced(value, what):
    from .statement_ir import Symbol
    if not isinstance(value, Symbol) or value.meta.is_python or value.meta.is_scalar:
        raise UnsupportedOp(f"{what} is not a traced array")
    return value


def _tensorsolve_infer(op, args, kwargs):
    from .meta import TensorMeta
    b = bind("tensorsolve", ("a", "b", "axes"), args, kwargs, {"a", "b", "axes"})
    a, rhs = _traced(b.get("a"), "tensorsolve's a"), _traced(b.get("b"), "tensorsolve's b")
    if b.get("axes") is not None:
        raise UnsupportedOp("tensorsolve: axes= is not captured")
    shape, n = shape_of(a), len(shape_of(rhs))
    if len(shape) <= n:
        raise UnsupportedOp("tensorsolve: a must have more dims than b")
    old = tuple(shape[n:])   # NumPy's a.shape[-(a.ndim - b.ndim):]
    size = int(np.prod(old))
    if size ** 2 != int(np.prod(shape)) or int(np.prod(shape_of(rhs))) != size or size == 0:
        raise UnsupportedOp(f"tensorsolve: shapes {shape} and {shape_of(rhs)} (NumPy raises)")
    return TensorMeta(old, _solve_dtype(op.name, a, rhs), False)


def _tensorinv_infer(op, args, kwargs):
    from .meta import TensorMeta
    b = bind("tensorinv", ("a", "ind"), args, kwargs, {"a", "ind"})
    a = _traced(b.get("a"), "tensorinv's a")
    ind = const_int(b.get("ind", 2), "ind")
    shape = shape_of(a)
    if ind <= 0 or int(np.prod(shape[:ind])) != int(np.prod(shape[ind:])) or not int(np.prod(shape)):
        raise UnsupportedOp(f"tensorinv: shape {shape} with ind={ind} (NumPy raises)")
    return TensorMeta(tuple(shape[ind:]) + tuple(shape[:ind]), _solve_dtype(op.name, a), False)


register(Op("tensorsolve", "function", _la.tensorsolve, _tensorsolve_infer))
register(Op("tensorinv", "function", _la.tensorinv, _tensorinv_infer))
