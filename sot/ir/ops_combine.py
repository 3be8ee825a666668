"""Array-combining helpers client code calls between array ops:
``np.select``, ``np.column_stack``, ``np.cross`` (3-vectors), ``np.kron``,
``np.rot90`` (a view), ``np.unravel_index`` / ``np.ravel_multi_index``,
``np.lexsort``, and the set ops ``np.setdiff1d`` / ``np.intersect1d`` /
``np.union1d`` / ``np.setxor1d`` (a data-dependent length: ``sot.ir.unbacked``).

Same contract as every ``ops_*`` module: the shape from a rule in pure
Python, dtype and Python type from NumPy on probes.  Where the usual probe
(every dim ``min(d, 1)``) would make NumPy raise on valid arguments, the
probe keeps the sizes NumPy checks (``cross``'s 3-vectors) or uses zeros
(indices, which a probe of ones could put out of bounds).
"""

from __future__ import annotations

import numpy as np

from .errors import UnsupportedOp
from .ops_shape import concatenate_shape
from .registry import (Op, bind, broadcast, call_quietly, const_axes, const_int, const_shape, meta_of_probe,
                       probe_value, register, run_probe, shape_of, simple_op)
from .statement_ir import Symbol
from .unbacked import UNBACKED_HINT as U, UnbackedResult


def _required(bound: dict, op: str, *names):
    missing = [n for n in names if n not in bound]
    if missing:
        raise UnsupportedOp(f"{op}: missing {', '.join(missing)} (NumPy raises)")
    return [bound[n] for n in names]


def _sequence(value, what: str) -> list:
    if not isinstance(value, (tuple, list)):
        raise UnsupportedOp(f"{what}: expects a list or tuple of arrays")
    return list(value)


def _select_shape(args, kwargs):
    bound = bind("select", ("condlist", "choicelist", "default"), args, kwargs,
                 {"condlist", "choicelist", "default"})
    conds = _sequence(bound.get("condlist"), "select")
    choices = _sequence(bound.get("choicelist"), "select")
    return broadcast(*(shape_of(v) for v in conds + choices + [bound.get("default", 0)]))


simple_op("select", "function", np.select, _select_shape)


def _column_stack_shape(args, kwargs):
    bound = bind("column_stack", ("tup",), args, kwargs, {"tup"})
    shapes = [shape_of(v) for v in _sequence(bound.get("tup"), "column_stack")]
    if not shapes:
        raise UnsupportedOp("column_stack of nothing (NumPy raises)")
    shapes = [s if len(s) >= 2 else (s[0] if s else 1, 1) for s in shapes]
    return concatenate_shape(shapes, 1)


simple_op("column_stack", "function", np.column_stack, _column_stack_shape)


def _kron_shape(args, kwargs):
    bound = bind("kron", ("a", "b"), args, kwargs, {"a", "b"})
    a, b = shape_of(bound["a"]), shape_of(bound["b"])
    nd = max(len(a), len(b))
    a, b = (1,) * (nd - len(a)) + tuple(a), (1,) * (nd - len(b)) + tuple(b)
    return tuple(x * y for x, y in zip(a, b))


simple_op("kron", "function", np.kron, _kron_shape)


def _rot90_shape(args, kwargs):
    bound = bind("rot90", ("m", "k", "axes"), args, kwargs, {"m", "k", "axes"})
    m = bound["m"]
    if not isinstance(m, Symbol) or m.meta.is_python:
        raise UnsupportedOp("rot90: the operand must be a traced array")
    shape = list(m.meta.shape)
    k = const_int(bound.get("k", 1), "k")
    axes = bound.get("axes", (0, 1))
    if not isinstance(axes, (tuple, list)) or len(axes) != 2 or len(shape) < 2:
        raise UnsupportedOp("rot90: two axes of an array of at least 2 dims (NumPy raises)")
    i, j = (const_int(x, "axes") for x in axes)
    if not (-len(shape) <= i < len(shape) and -len(shape) <= j < len(shape)) or i % len(shape) == j % len(shape):
        raise UnsupportedOp("rot90: axes out of range or equal (NumPy raises)")
    if k % 2:
        i, j = i % len(shape), j % len(shape)
        shape[i], shape[j] = shape[j], shape[i]
    return tuple(shape)


simple_op("rot90", "function", np.rot90, _rot90_shape)


def _lexsort_shape(args, kwargs):
    bound = bind("lexsort", ("keys", "axis"), args, kwargs, {"keys", "axis"})
    keys = bound.get("keys")
    if isinstance(keys, Symbol):
        shapes = [keys.meta.shape[1:]] * keys.meta.shape[0] if keys.meta.ndim else []
    else:
        shapes = [shape_of(k) for k in _sequence(keys, "lexsort")]
    if not shapes or any(s != shapes[0] for s in shapes):
        raise UnsupportedOp("lexsort: keys of one shape, at least one (NumPy raises)")
    if shapes[0]:
        const_axes(bound.get("axis", -1), len(shapes[0]))
    return shapes[0]


simple_op("lexsort", "function", np.lexsort, _lexsort_shape)


# ----------------------------------------------------------------------------
# probes of their own

def _probe_keeping(value, axis: int | None, size: int):
    """The usual probe of ``value``, but ``size`` long along ``axis``."""
    if not isinstance(value, Symbol):
        return value
    meta = value.meta
    if meta.is_python or meta.is_scalar or axis is None:
        return probe_value(meta)
    shape = [min(d, 1) for d in meta.shape]
    shape[axis] = size
    return np.ones(shape, meta.dtype)


def _zeros_probe(value):
    """Indices as zeros: always in bounds, whatever the dims."""
    if not isinstance(value, Symbol):
        return value
    probe = probe_value(value.meta)
    return probe * 0 if not value.meta.is_python else 0


def _cross_infer(op, args, kwargs):
    params = ("a", "b", "axisa", "axisb", "axisc", "axis")
    bound = bind("cross", params, args, kwargs, set(params))
    if bound.get("axis") is not None:
        bound.update(axisa=bound["axis"], axisb=bound["axis"], axisc=bound["axis"])
    a, b = _required(bound, "cross", "a", "b")
    sa, sb = shape_of(a), shape_of(b)
    if not sa or not sb:
        raise UnsupportedOp("cross of a 0-d operand (NumPy raises)")
    (ia,), (ib,) = const_axes(bound.get("axisa", -1), len(sa)), const_axes(bound.get("axisb", -1), len(sb))
    if sa[ia] != 3 or sb[ib] != 3:  # 2-vectors: deprecated in NumPy 2 (a warning per call)
        raise UnsupportedOp("cross: only 3-vectors are captured")
    rest = broadcast(tuple(d for i, d in enumerate(sa) if i != ia), tuple(d for i, d in enumerate(sb) if i != ib))
    (ic,) = const_axes(bound.get("axisc", -1), len(rest) + 1)
    pkwargs = {k: v for k, v in bound.items() if k not in ("a", "b")}
    result = call_quietly(op, (_probe_keeping(a, ia, 3), _probe_keeping(b, ib, 3)), pkwargs)
    return meta_of_probe(op, result, rest[:ic] + (3,) + rest[ic:])


register(Op("cross", "function", np.cross, _cross_infer))


def _unravel_index_infer(op, args, kwargs):
    bound = bind("unravel_index", ("indices", "shape", "order"), args, kwargs, {"indices", "shape", "order"})
    _required(bound, "unravel_index", "indices", "shape")
    dims = const_shape(bound["shape"])
    result = call_quietly(op, (_zeros_probe(bound["indices"]), dims), {"order": bound.get("order", "C")})
    shape = shape_of(bound["indices"])
    return tuple(meta_of_probe(op, r, shape) for r in result)


register(Op("unravel_index", "function", np.unravel_index, _unravel_index_infer))


def _ravel_multi_index_infer(op, args, kwargs):
    params = ("multi_index", "dims", "mode", "order")
    bound = bind("ravel_multi_index", params, args, kwargs, set(params))
    _required(bound, "ravel_multi_index", "multi_index", "dims")
    dims = const_shape(bound["dims"])
    index = _sequence(bound["multi_index"], "ravel_multi_index")
    mode = bound.get("mode", "raise")
    if isinstance(mode, (tuple, list)):
        mode = tuple(mode)
    pkwargs = {"mode": mode, "order": bound.get("order", "C")}
    result = call_quietly(op, ([_zeros_probe(i) for i in index], dims), pkwargs)
    return meta_of_probe(op, result, broadcast(*(shape_of(i) for i in index)))


register(Op("ravel_multi_index", "function", np.ravel_multi_index, _ravel_multi_index_infer))


# ----------------------------------------------------------------------------
# set ops: a data-dependent length

def _set_op_infer(op, args, kwargs):
    params = ("ar1", "ar2") + (("assume_unique",) if op.name != "union1d" else ())
    bound = bind(op.name, params, args, kwargs, set(params))
    if not any(isinstance(bound.get(k), Symbol) for k in ("ar1", "ar2")):
        raise UnsupportedOp(f"{op.name}: no traced operand")
    if type(bound.get("assume_unique", False)) is not bool:
        raise UnsupportedOp(f"{op.name}: assume_unique= must be a constant bool")
    for k in ("ar1", "ar2"):
        shape_of(bound.get(k))  # one traced array or constants
    return UnbackedResult(meta_of_probe(op, run_probe(op, args, kwargs), (U,)), ((0,),))


for _name in ("setdiff1d", "intersect1d", "union1d", "setxor1d"):
    register(Op(_name, "function", getattr(np, _name), _set_op_infer))

__all__ = ["TUPLE_RESULTS"]

#: ops here whose several results NumPy returns as a tuple
TUPLE_RESULTS = frozenset({"unravel_index"})
