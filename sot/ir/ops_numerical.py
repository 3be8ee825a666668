"""Numerical helpers scientific code calls between array ops: ``np.gradient``
(one array: a 1-D operand or one ``axis``), ``trapezoid``, ``polyval``,
``ediff1d``, ``digitize``, ``isin``,
``average`` (no ``returned=True``: a tuple),
``count_nonzero`` (without an axis only where NumPy returns a NumPy integer:
older NumPy's Python int is ``executor/numpy_counts.py``'s),
and the window functions ``hanning``, ``hamming``, ``blackman``,
``bartlett``, ``kaiser``.

Same contract as every ``ops_*`` module: the shape from a rule in pure
Python (valid for symbolic dims), dtype and Python type from a probe run.
The probes here are larger than one element where NumPy needs them to be
(``gradient`` needs ``edge_order + 1`` points along its axis).
"""

from __future__ import annotations

import math

import numpy as np

from .errors import UnsupportedOp
from .registry import (Op, bind, call_quietly, const_axes, const_int, meta_of_probe, probe_value, register, run_probe,
                       shape_of, simple_op)
from .statement_ir import Symbol


def _gradient_infer(op, args, kwargs):
    if not args:
        raise UnsupportedOp("gradient: no operand")
    f, spacing = args[0], args[1:]
    bound = bind("gradient", ("f",), (f,), kwargs, {"f", "axis", "edge_order"}, kwonly=("axis", "edge_order"))
    shape = shape_of(f)
    if not isinstance(f, Symbol) or not shape:
        raise UnsupportedOp("gradient: one traced operand of at least one dim")
    axes = const_axes(bound.get("axis"), len(shape))
    if axes is None:
        if len(shape) != 1:  # one array per axis: a tuple
            raise UnsupportedOp("gradient over several axes returns a tuple; not captured")
        axes = (0,)
    if len(axes) != 1 or isinstance(bound.get("axis"), (tuple, list)):
        raise UnsupportedOp("gradient over several axes returns a tuple; not captured")
    (axis,) = axes
    edge_order = const_int(bound.get("edge_order", 1), "edge_order")
    if edge_order not in (1, 2) or shape[axis] < edge_order + 1:
        raise UnsupportedOp("gradient: too few points for edge_order (eager raises)")
    if len(spacing) > 1:
        raise UnsupportedOp("gradient: one spacing per axis")
    points = min(shape[axis], 3)
    probes = []
    for h in spacing:  # a scalar step, or the coordinates along the axis
        h_shape = shape_of(h)
        if h_shape not in ((), (shape[axis],)):
            raise UnsupportedOp("gradient: spacing is a scalar or one coordinate per point")
        if h_shape and not isinstance(h, Symbol):
            raise UnsupportedOp("gradient: constant coordinate arrays are not captured")
        probes.append(np.arange(points, dtype=h.meta.dtype) if h_shape
                      else (probe_value(h.meta) if isinstance(h, Symbol) else h))
    probe_f = np.ones(tuple(min(d, 1) if i != axis else points for i, d in enumerate(shape)), f.meta.dtype)
    result = call_quietly(op, (probe_f, *probes), kwargs)
    return meta_of_probe(op, result, shape)


register(Op("gradient", "function", np.gradient, _gradient_infer))


def _window_infer(params):
    def infer(op, args, kwargs):
        bound = bind(op.name, params, args, kwargs, set(params))
        m = const_int(bound.get("M"), "M")
        if "beta" in params and ("beta" not in bound or isinstance(bound["beta"], Symbol)):
            raise UnsupportedOp("kaiser: beta must be a constant")
        probe_args = (min(max(m, 0), 2),) + tuple(bound[p] for p in params[1:] if p in bound)
        result = call_quietly(op, probe_args, {})
        return meta_of_probe(op, result, (max(m, 0),))
    return infer


for _name in ("hanning", "hamming", "blackman", "bartlett"):
    register(Op(_name, "function", getattr(np, _name), _window_infer(("M",))))
register(Op("kaiser", "function", np.kaiser, _window_infer(("M", "beta"))))


def _trapezoid_shape(args, kwargs):
    bound = bind("trapezoid", ("y", "x", "dx", "axis"), args, kwargs, {"y", "x", "dx", "axis"})
    shape = shape_of(bound["y"])
    if not shape:
        raise UnsupportedOp("trapezoid of a 0-d operand (NumPy raises)")
    (axis,) = const_axes(bound.get("axis", -1), len(shape))
    x = bound.get("x")
    if x is not None and shape_of(x) not in ((shape[axis],), tuple(shape)):
        raise UnsupportedOp("trapezoid: x is 1-d along the axis or of y's shape")
    if isinstance(bound.get("dx"), Symbol) and bound["dx"].meta.shape != ():
        raise UnsupportedOp("trapezoid: dx is a scalar")
    return tuple(d for i, d in enumerate(shape) if i != axis)


simple_op("trapezoid", "function", np.trapezoid, _trapezoid_shape)


def _polyval_shape(args, kwargs):
    bound = bind("polyval", ("p", "x"), args, kwargs, {"p", "x"})
    if len(shape_of(bound["p"])) != 1:
        raise UnsupportedOp("polyval: the coefficients are 1-d")
    return shape_of(bound["x"])


simple_op("polyval", "function", np.polyval, _polyval_shape)


def _ediff1d_shape(args, kwargs):
    bound = bind("ediff1d", ("ary", "to_end", "to_begin"), args, kwargs, {"ary", "to_end", "to_begin"})
    # to_begin / to_end are raveled around the differences (None: nothing)
    extra = sum(math.prod(shape_of(bound[k])) for k in ("to_end", "to_begin") if bound.get(k) is not None)
    return (max(math.prod(shape_of(bound["ary"])) - 1, 0) + extra,)


simple_op("ediff1d", "function", np.ediff1d, _ediff1d_shape)


def _digitize_shape(args, kwargs):
    bound = bind("digitize", ("x", "bins", "right"), args, kwargs, {"x", "bins", "right"})
    if len(shape_of(bound["bins"])) != 1:
        raise UnsupportedOp("digitize: bins are 1-d (NumPy raises)")
    return shape_of(bound["x"])


simple_op("digitize", "function", np.digitize, _digitize_shape)


def _isin_shape(args, kwargs):
    params = ("element", "test_elements", "assume_unique", "invert")
    bound = bind("isin", params, args, kwargs, set(params) | {"kind"}, kwonly=("kind",))
    shape_of(bound["test_elements"])  # one traced array or constants
    return shape_of(bound["element"])


simple_op("isin", "function", np.isin, _isin_shape)


#: NumPy >= 2.3 counts without an axis into a NumPy integer, older NumPy into a Python int
SCALAR_COUNT = isinstance(np.count_nonzero(np.zeros(1)), np.generic)


def _count_nonzero_shape(args, kwargs):
    bound = bind("count_nonzero", ("a", "axis"), args, kwargs, {"a", "axis", "keepdims"}, kwonly=("keepdims",))
    shape = shape_of(bound["a"])
    axes = const_axes(bound.get("axis"), len(shape))
    keepdims = bound.get("keepdims", False)
    if axes is None and not keepdims:
        if not SCALAR_COUNT:  # a Python int: executor/numpy_counts.py
            raise UnsupportedOp("count_nonzero without axis= gives a Python int")
        return ()
    if axes is None:
        axes = range(len(shape))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


simple_op("count_nonzero", "function", np.count_nonzero, _count_nonzero_shape)


def _average_shape(args, kwargs):
    params = ("a", "axis", "weights", "returned")
    bound = bind("average", params, args, kwargs, {"a", "axis", "weights", "keepdims", "returned"},
                 kwonly=("keepdims",))
    shape = shape_of(bound["a"])
    axes = const_axes(bound.get("axis"), len(shape))
    weights = bound.get("weights")
    if weights is not None:
        w_shape = shape_of(weights)
        one_axis = axes is not None and len(axes) == 1 and w_shape == (shape[axes[0]],)
        if w_shape != tuple(shape) and not one_axis:
            raise UnsupportedOp("average: weights of the operand's shape, or 1-d along one axis (NumPy raises)")
    if axes is None:
        axes = tuple(range(len(shape)))
    if bound.get("keepdims", False):
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _average_infer(op, args, kwargs):
    """np.average; with ``returned=True`` the pair (average, sum of weights), the sum
    broadcast to the average's shape (a NumPy scalar of a full reduction, as the average)."""
    shape = _average_shape(args, kwargs)
    returned = dict(zip(("a", "axis", "weights", "returned"), args), **kwargs).get("returned", False)
    if type(returned) is not bool:
        raise UnsupportedOp("average: returned= must be a constant bool")
    result = run_probe(op, args, kwargs)
    if returned:
        return meta_of_probe(op, result[0], shape), meta_of_probe(op, result[1], shape)
    return meta_of_probe(op, result, shape)


register(Op("average", "function", np.average, _average_infer))
