"""Numerical helpers scientific code calls between array ops: ``np.gradient``
(one array: a 1-D operand or one ``axis``) and the window functions
``hanning``, ``hamming``, ``blackman``, ``bartlett``, ``kaiser``.

Same contract as every ``ops_*`` module: the shape from a rule in pure
Python (valid for symbolic dims), dtype and Python type from a probe run.
The probes here are larger than one element where NumPy needs them to be
(``gradient`` needs ``edge_order + 1`` points along its axis).
"""

from __future__ import annotations

import numpy as np

from .errors import UnsupportedOp
from .registry import Op, bind, call_quietly, const_axes, const_int, meta_of_probe, probe_value, register, shape_of
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
