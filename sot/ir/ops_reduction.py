"""Reductions (sum, mean, max, argmax, var, any, median, nan*, …) and ops
along an axis (cumsum, cumprod, sort, argsort, diff).

Shape: the reduced axes are dropped, or kept as 1 with ``keepdims=True``;
``axis=None`` reduces every axis.  ``where=`` (a mask broadcast to the
operand) and ``initial=`` change values only.  Cumulative ops keep the shape, or flatten
with ``axis=None``.  Whether a full reduction gives a NumPy scalar, and the
result dtype (``sum`` of int8 → int64, ``mean`` of ints → float64), come
from the probe; a max/min/argmax over an empty axis raises on the probe as
it does eagerly.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import UnsupportedOp
from .registry import bind, const_axes, const_int, shape_of, simple_op

_ALLOWED = frozenset({"a", "axis", "dtype", "keepdims", "ddof", "correction", "initial", "where"})

# positional parameters, after the array, of each reduction (function and method agree)
REDUCTIONS = {
    "sum": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "prod": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "mean": ("axis", "dtype", "out", "keepdims"),
    "max": ("axis", "out", "keepdims", "initial", "where"),
    "min": ("axis", "out", "keepdims", "initial", "where"),
    "amax": ("axis", "out", "keepdims", "initial", "where"),
    "amin": ("axis", "out", "keepdims", "initial", "where"),
    "argmax": ("axis", "out"),
    "argmin": ("axis", "out"),
    "var": ("axis", "dtype", "out", "ddof", "keepdims"),
    "std": ("axis", "dtype", "out", "ddof", "keepdims"),
    "any": ("axis", "out", "keepdims"),
    "all": ("axis", "out", "keepdims"),
}
NAN_REDUCTIONS = {
    "nansum": REDUCTIONS["sum"], "nanprod": REDUCTIONS["prod"], "nanmean": REDUCTIONS["mean"],
    "nanmax": REDUCTIONS["max"], "nanmin": REDUCTIONS["min"], "nanargmax": REDUCTIONS["argmax"],
    "nanargmin": REDUCTIONS["argmin"], "nanvar": REDUCTIONS["var"], "nanstd": REDUCTIONS["std"],
    "median": ("axis", "out", "overwrite_input", "keepdims"),
    "nanmedian": ("axis", "out", "overwrite_input", "keepdims"),
}
_KWONLY = ("keepdims", "where", "mean", "correction", "initial")
CUMULATIVE = {"cumsum": ("axis", "dtype", "out"), "cumprod": ("axis", "dtype", "out")}
METHODS = ("sum", "prod", "mean", "max", "min", "argmax", "argmin", "var", "std",
           "any", "all", "cumsum", "cumprod")


def _reduction_shape(name, params):
    def rule(args, kwargs):
        bound = bind(name, ("a",) + params, args, kwargs, _ALLOWED, _KWONLY)
        shape = shape_of(bound["a"])
        _check_mask_and_initial(name, bound, shape)
        if not shape:  # NumPy accepts axis=0/-1 on 0-d operands (and the probe checked)
            return ()
        axes = const_axes(bound.get("axis"), len(shape))
        if axes is None:
            axes = tuple(range(len(shape)))
        if bound.get("keepdims", False):
            return tuple(1 if i in axes else d for i, d in enumerate(shape))
        return tuple(d for i, d in enumerate(shape) if i not in axes)
    return rule


def _check_mask_and_initial(name, bound, shape) -> None:
    """``where=`` must broadcast to the operand and ``initial=`` be one number, as
    eagerly (the probe runs on small stand-ins that may broadcast where the real
    shapes do not)."""
    if "where" in bound and bound["where"] is not True:
        try:
            fits = np.broadcast_shapes(shape_of(bound["where"]), shape) == tuple(shape)
        except ValueError:
            fits = False
        if not fits:
            raise UnsupportedOp(f"{name}: where= does not broadcast to the operand (NumPy raises)")
    if "initial" in bound and shape_of(bound["initial"]) != ():
        raise UnsupportedOp(f"{name}: initial= must be a scalar")


def _cumulative_shape(name, params):
    def rule(args, kwargs):
        bound = bind(name, ("a",) + params, args, kwargs, _ALLOWED)
        shape = shape_of(bound["a"])
        if bound.get("axis") is None or not shape:  # 0-d operands are raveled first
            return (math.prod(shape),)
        const_axes(bound["axis"], len(shape))
        return shape
    return rule


for _name, _params in REDUCTIONS.items():
    _fn = getattr(np, _name)
    simple_op(_name, "function", _fn, _reduction_shape(_name, _params))
    if _name in METHODS:
        simple_op(_name, "method", _name, _reduction_shape(_name, _params))
for _name, _params in NAN_REDUCTIONS.items():
    simple_op(_name, "function", getattr(np, _name), _reduction_shape(_name, _params))
for _name, _params in CUMULATIVE.items():
    simple_op(_name, "function", getattr(np, _name), _cumulative_shape(_name, _params))
    simple_op(_name, "method", _name, _cumulative_shape(_name, _params))


# ----------------------------------------------------------------------------
# along an axis: sort, argsort, diff

def _sort_shape(name):
    def rule(args, kwargs):
        bound = bind(name, ("a", "axis", "kind", "order"), args, kwargs, {"a", "axis", "kind", "stable"},
                     kwonly=("stable",))
        shape = shape_of(bound["a"])
        if ("axis" in bound and bound["axis"] is None) or (name == "argsort" and not shape):
            return (math.prod(shape),)  # flattened (argsort of 0-d, too)
        if shape:
            const_axes(bound.get("axis", -1), len(shape))
        return shape
    return rule


for _name in ("sort", "argsort"):
    simple_op(_name, "function", getattr(np, _name), _sort_shape(_name))
simple_op("argsort", "method", "argsort", _sort_shape("argsort"))


def _diff_shape(args, kwargs):
    params = ("a", "n", "axis", "prepend", "append")
    bound = bind("diff", params, args, kwargs, set(params))
    shape = list(shape_of(bound["a"]))
    n = const_int(bound.get("n", 1), "n")
    if n == 0:  # diff returns its operand unchanged (prepend/append unused)
        return tuple(shape)
    if n < 0 or not shape:
        raise UnsupportedOp("diff: negative order or 0-d operand")
    (axis,) = const_axes(bound.get("axis", -1), len(shape))
    for name in ("prepend", "append"):  # a 0-d value is broadcast to one slice along the axis
        if name in bound:
            extra = shape_of(bound[name])
            if extra and (len(extra) != len(shape) or any(d != e for i, (d, e) in enumerate(zip(shape, extra))
                                                           if i != axis)):
                raise UnsupportedOp(f"diff: {name}= does not fit the operand (NumPy raises)")
            shape[axis] += extra[axis] if extra else 1
    shape[axis] = max(0, shape[axis] - n)
    return tuple(shape)


simple_op("diff", "function", np.diff, _diff_shape)
