"""Shape ops: reshape, transpose/T/mT, swapaxes, moveaxis, expand_dims,
squeeze, ravel, flatten, broadcast_to, copy, astype, real/imag, atleast_*d,
flips and rolls, tile and repeat, and joining and splitting (concatenate,
stack, hstack, vstack, split, array_split, hsplit, vsplit, dsplit)."""

from __future__ import annotations

import math

import numpy as np

from .errors import UnsupportedOp
from .meta import TensorMeta
from .registry import (Op, bind, call_quietly, const_axes, const_int, const_shape, meta_of_probe,
                       probe_shape, probe_value, register, shape_of, simple_op, substitute)
from .statement_ir import Symbol


def _array_shape(value, what="operand"):
    if not isinstance(value, Symbol):
        raise UnsupportedOp(f"{what} must be a traced array")
    return value.meta.shape


# ----------------------------------------------------------------------------
# reshape

def resolve_reshape(size: int, newshape: tuple[int, ...]) -> tuple[int, ...]:
    if any(d < -1 for d in newshape) or newshape.count(-1) > 1:
        raise UnsupportedOp(f"reshape: invalid shape {newshape}")
    known = math.prod(d for d in newshape if d != -1)
    if -1 in newshape:
        if known == 0 or size % known:
            raise UnsupportedOp(f"reshape: cannot reshape size {size} into {newshape}")
        return tuple(size // known if d == -1 else d for d in newshape)
    if known != size:
        raise UnsupportedOp(f"reshape: cannot reshape size {size} into {newshape}")
    return newshape


def _reshape_infer(op, args, kwargs):
    args, kwargs = list(args), dict(kwargs)
    if op.kind == "function":
        bound = bind("reshape", ("a", "shape", "order"), args, kwargs,
                     {"a", "shape", "order", "newshape", "copy"}, kwonly=("newshape", "copy"))
        key = "shape" if bound.get("shape") is not None else "newshape"
        if bound.get(key) is None:
            raise UnsupportedOp("reshape: no shape given")
        newshape = const_shape(bound[key])
        where = ("args", 1) if len(args) > 1 else ("kwargs", key)
    else:
        for k in kwargs:
            if k not in ("order", "copy"):
                raise UnsupportedOp(f"reshape: keyword {k}= not captured")
        bound = dict(kwargs, a=args[0])
        if len(args) == 2 and not isinstance(args[1], (int, np.integer)):
            newshape = const_shape(args[1])
            where = ("args", 1)
        else:
            newshape = const_shape(tuple(args[1:]))
            where = ("varargs", None)
    if bound.get("copy") is False:
        raise UnsupportedOp("reshape: copy=False depends on the memory layout")
    shape = resolve_reshape(math.prod(_array_shape(bound["a"])), newshape)
    probe_target = probe_shape(shape)
    if where[0] == "args":
        args[1] = probe_target
    elif where[0] == "kwargs":
        kwargs[where[1]] = probe_target
    else:
        args = [args[0], *probe_target] if probe_target else [args[0], ()]
    result = call_quietly(op, substitute(tuple(args)), substitute(kwargs))
    return meta_of_probe(op, result, shape)


register(Op("reshape", "function", np.reshape, _reshape_infer))
register(Op("reshape", "method", "reshape", _reshape_infer))


# ----------------------------------------------------------------------------
# axis permutations

def _transpose_shape(args, kwargs):
    shape = _array_shape(args[0])
    if len(args) > 1 and kwargs:
        raise UnsupportedOp("transpose: axes given twice")
    axes = kwargs.get("axes") if kwargs else (args[1:] if len(args) > 1 else None)
    if kwargs and set(kwargs) != {"axes"}:
        raise UnsupportedOp("transpose: unknown keyword")
    if isinstance(axes, tuple) and len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    if axes is None:
        return tuple(reversed(shape))
    perm = const_axes(axes, len(shape), "axes")
    return tuple(shape[p] for p in perm)


simple_op("transpose", "function", np.transpose, _transpose_shape)
simple_op("transpose", "method", "transpose", _transpose_shape)
simple_op("T", "attribute", "T", lambda args, kwargs: tuple(reversed(_array_shape(args[0]))))


def _mT_shape(args, kwargs):
    shape = _array_shape(args[0])
    return shape[:-2] + (shape[-1], shape[-2])


if hasattr(np.ndarray, "mT"):
    simple_op("mT", "attribute", "mT", _mT_shape)


def _swapaxes_shape(args, kwargs):
    bound = bind("swapaxes", ("a", "axis1", "axis2"), args, kwargs, {"a", "axis1", "axis2"})
    shape = list(_array_shape(bound["a"]))
    (i,), (j,) = const_axes(bound["axis1"], len(shape)), const_axes(bound["axis2"], len(shape))
    shape[i], shape[j] = shape[j], shape[i]
    return tuple(shape)


simple_op("swapaxes", "function", np.swapaxes, _swapaxes_shape)
simple_op("swapaxes", "method", "swapaxes", _swapaxes_shape)


def _moveaxis_shape(args, kwargs):
    bound = bind("moveaxis", ("a", "source", "destination"), args, kwargs,
                 {"a", "source", "destination"})
    shape = _array_shape(bound["a"])
    source = const_axes(bound["source"], len(shape), "source")
    destination = const_axes(bound["destination"], len(shape), "destination")
    order = [n for n in range(len(shape)) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return tuple(shape[i] for i in order)


simple_op("moveaxis", "function", np.moveaxis, _moveaxis_shape)


# ----------------------------------------------------------------------------
# adding and removing unit axes, flattening, broadcasting

def _expand_dims_shape(args, kwargs):
    bound = bind("expand_dims", ("a", "axis"), args, kwargs, {"a", "axis"})
    shape = _array_shape(bound["a"])
    axis = bound["axis"]
    n = len(axis) if isinstance(axis, (tuple, list)) else 1
    axes = const_axes(axis, len(shape) + n)
    it = iter(shape)
    return tuple(1 if i in axes else next(it) for i in range(len(shape) + n))


simple_op("expand_dims", "function", np.expand_dims, _expand_dims_shape)


def _squeeze_shape(args, kwargs):
    bound = bind("squeeze", ("a", "axis"), args, kwargs, {"a", "axis"})
    shape = _array_shape(bound["a"])
    if not shape:  # NumPy accepts axis=0/-1 on 0-d operands (and the probe checks)
        return ()
    axes = const_axes(bound.get("axis"), len(shape))
    if axes is None:
        return tuple(d for d in shape if d != 1)
    if any(shape[i] != 1 for i in axes):
        raise UnsupportedOp("squeeze: cannot select an axis whose size is not one")
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _squeeze_infer(op, args, kwargs):
    # the probe keeps exactly the unit dimensions unit (others become 0), since
    # squeeze's behaviour depends on which dimensions are 1
    shape = _squeeze_shape(args, kwargs)

    def probe(sym):
        if sym.meta.is_scalar:
            return probe_value(sym.meta)
        return np.ones(tuple(1 if d == 1 else 0 for d in sym.meta.shape), sym.meta.dtype)

    result = call_quietly(op, substitute(args, probe), substitute(kwargs, probe))
    return meta_of_probe(op, result, shape)


register(Op("squeeze", "function", np.squeeze, _squeeze_infer))
register(Op("squeeze", "method", "squeeze", _squeeze_infer))


def _flat_shape(name, params):
    def rule(args, kwargs):
        bound = bind(name, ("a",) + params, args, kwargs, {"a", "order"})
        return (math.prod(_array_shape(bound["a"])),)
    return rule


simple_op("ravel", "function", np.ravel, _flat_shape("ravel", ("order",)))
simple_op("ravel", "method", "ravel", _flat_shape("ravel", ("order",)))
simple_op("flatten", "method", "flatten", _flat_shape("flatten", ("order",)))


def _broadcast_to_infer(op, args, kwargs):
    bound = bind("broadcast_to", ("array", "shape", "subok"), args, kwargs, {"array", "shape"})
    if "shape" not in bound:
        raise UnsupportedOp("broadcast_to: no shape given")
    src = shape_of(bound["array"])
    shape = const_shape(bound["shape"])
    if any(d < 0 for d in shape) or len(src) > len(shape) or any(
            s != t and s != 1 for s, t in zip(reversed(src), reversed(shape))):
        raise UnsupportedOp(f"broadcast_to: cannot broadcast {src} to {shape}")
    pargs = list(args)
    pkwargs = dict(kwargs)
    if len(args) > 1:
        pargs[1] = probe_shape(shape)
    else:
        pkwargs["shape"] = probe_shape(shape)
    result = call_quietly(op, substitute(tuple(pargs)), substitute(pkwargs))
    return meta_of_probe(op, result, shape)


register(Op("broadcast_to", "function", np.broadcast_to, _broadcast_to_infer))


# ----------------------------------------------------------------------------
# same-shape conversions

def _same_shape(name, params, allowed, kwonly=()):
    def rule(args, kwargs):
        bound = bind(name, ("a",) + params, args, kwargs, allowed, kwonly)
        return shape_of(bound["a"])
    return rule


simple_op("copy", "function", np.copy, _same_shape("copy", ("order",), {"a", "order"}))
simple_op("copy", "method", "copy", _same_shape("copy", ("order",), {"a", "order"}))
simple_op("astype", "method", "astype", _same_shape(
    "astype", ("dtype", "order", "casting", "subok", "copy"), {"a", "dtype", "order", "casting", "copy"}))
if hasattr(np, "astype"):
    simple_op("astype", "function", np.astype, _same_shape(
        "astype", ("dtype",), {"a", "dtype", "copy"}, ("copy", "device")))
simple_op("real", "attribute", "real", lambda args, kwargs: _array_shape(args[0]))
simple_op("imag", "attribute", "imag", lambda args, kwargs: _array_shape(args[0]))


# ----------------------------------------------------------------------------
# joining and splitting

def _sequence(value, name):
    if not isinstance(value, (tuple, list)) or not value:
        raise UnsupportedOp(f"{name}: expects a non-empty sequence of arrays")
    return [tuple(shape_of(v)) for v in value]


def concatenate_shape(shapes, axis) -> tuple[int, ...]:
    if axis is None:
        return (sum(math.prod(s) for s in shapes),)
    ndim = len(shapes[0])
    if ndim == 0 or any(len(s) != ndim for s in shapes):
        raise UnsupportedOp("concatenate: operands differ in ndim or are 0-d")
    (axis,) = const_axes(axis, ndim)
    for s in shapes[1:]:
        if any(a != b for i, (a, b) in enumerate(zip(s, shapes[0])) if i != axis):
            raise UnsupportedOp(f"concatenate: shapes {shapes} differ off the axis")
    return tuple(sum(s[axis] for s in shapes) if i == axis else d for i, d in enumerate(shapes[0]))


_JOIN_ALLOWED = {"arrays", "tup", "axis", "dtype", "casting"}


def _concatenate_shape(args, kwargs):
    bound = bind("concatenate", ("arrays", "axis", "out"), args, kwargs, _JOIN_ALLOWED, ("dtype", "casting"))
    return concatenate_shape(_sequence(bound["arrays"], "concatenate"), bound.get("axis", 0))


def _stack_shape(args, kwargs):
    bound = bind("stack", ("arrays", "axis", "out"), args, kwargs, _JOIN_ALLOWED, ("dtype", "casting"))
    shapes = _sequence(bound["arrays"], "stack")
    if any(s != shapes[0] for s in shapes):
        raise UnsupportedOp(f"stack: shapes {shapes} differ")
    (axis,) = const_axes(bound.get("axis", 0), len(shapes[0]) + 1)
    return shapes[0][:axis] + (len(shapes),) + shapes[0][axis:]


def _hstack_shape(args, kwargs):
    bound = bind("hstack", ("tup",), args, kwargs, _JOIN_ALLOWED, ("dtype", "casting"))
    shapes = [s if s else (1,) for s in _sequence(bound["tup"], "hstack")]
    return concatenate_shape(shapes, 0 if len(shapes[0]) == 1 else 1)


def _vstack_shape(args, kwargs):
    bound = bind("vstack", ("tup",), args, kwargs, _JOIN_ALLOWED, ("dtype", "casting"))
    shapes = [(1,) * (2 - len(s)) + s if len(s) < 2 else s for s in _sequence(bound["tup"], "vstack")]
    return concatenate_shape(shapes, 0)


simple_op("concatenate", "function", np.concatenate, _concatenate_shape)
simple_op("stack", "function", np.stack, _stack_shape)
simple_op("hstack", "function", np.hstack, _hstack_shape)
simple_op("vstack", "function", np.vstack, _vstack_shape)


def split_lengths(dim: int, sections, equal: bool) -> list[int]:
    if isinstance(sections, (tuple, list)):
        bounds = [0] + [const_int(i, "split index") for i in sections] + [dim]
        return [len(range(dim)[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    n = const_int(sections, "sections")
    if n <= 0 or (equal and dim % n):
        raise UnsupportedOp(f"split: {dim} does not divide into {n} equal sections")
    each, extra = divmod(dim, n)
    return [each + 1] * extra + [each] * (n - extra)


# name -> (the axis, given the ndim; the least ndim; equal sections only)
_SPLITS = {
    "split": (None, 1, True),
    "array_split": (None, 1, False),
    "hsplit": (lambda ndim: 1 if ndim > 1 else 0, 1, True),
    "vsplit": (lambda ndim: 0, 2, True),
    "dsplit": (lambda ndim: 2, 3, True),
}


def _split_infer(op, args, kwargs):
    axis_of, min_ndim, equal = _SPLITS[op.name]
    params = ("ary", "indices_or_sections") + (("axis",) if axis_of is None else ())
    bound = bind(op.name, params, args, kwargs, set(params))
    if "indices_or_sections" not in bound:
        raise UnsupportedOp(f"{op.name}: no sections given")
    meta = bound["ary"].meta if isinstance(bound["ary"], Symbol) else None
    if meta is None:
        raise UnsupportedOp(f"{op.name}: operand must be a traced array")
    shape = meta.shape
    if len(shape) < min_ndim:
        raise UnsupportedOp(f"{op.name}: operand has too few dimensions")
    if axis_of is None:
        (axis,) = const_axes(bound.get("axis", 0), len(shape))
    else:
        axis = axis_of(len(shape))
    lengths = split_lengths(shape[axis], bound["indices_or_sections"], equal)
    return tuple(TensorMeta(shape[:axis] + (k,) + shape[axis + 1:], meta.dtype, False)
                 for k in lengths)


for _name in _SPLITS:
    register(Op(_name, "function", getattr(np, _name), _split_infer))


# ----------------------------------------------------------------------------
# flips, rolls, tiling and repeating

def _flip_shape(args, kwargs):
    bound = bind("flip", ("m", "axis"), args, kwargs, {"m", "axis"})
    shape = shape_of(bound["m"])
    const_axes(bound.get("axis"), len(shape))
    return shape


simple_op("flip", "function", np.flip, _flip_shape)
simple_op("fliplr", "function", np.fliplr, lambda args, kwargs: _one_array("fliplr", args, kwargs, 2))
simple_op("flipud", "function", np.flipud, lambda args, kwargs: _one_array("flipud", args, kwargs, 1))


def _one_array(name, args, kwargs, min_ndim=0):
    if len(args) != 1 or kwargs:
        raise UnsupportedOp(f"{name}: takes one array")
    shape = _array_shape(args[0])
    if len(shape) < min_ndim:
        raise UnsupportedOp(f"{name}: needs at least {min_ndim} dimensions")
    return shape


def _roll_shape(args, kwargs):
    bound = bind("roll", ("a", "shift", "axis"), args, kwargs, {"a", "shift", "axis"})
    if "shift" not in bound or isinstance(bound["shift"], Symbol):
        raise UnsupportedOp("roll: shift must be a constant")
    return shape_of(bound["a"])


simple_op("roll", "function", np.roll, _roll_shape)


def _atleast_shape(n):
    def rule(args, kwargs):
        shape = tuple(_one_array(f"atleast_{n}d", args, kwargs))
        if len(shape) >= n:
            return shape
        if n == 3 and len(shape) == 2:
            return shape + (1,)
        if n == 3 and len(shape) == 1:
            return (1,) + shape + (1,)
        return (1,) * (n - len(shape)) + shape
    return rule


for _n in (1, 2, 3):
    simple_op(f"atleast_{_n}d", "function", getattr(np, f"atleast_{_n}d"), _atleast_shape(_n))


def _tile_infer(op, args, kwargs):
    bound = bind("tile", ("A", "reps"), args, kwargs, {"A", "reps"})
    if "reps" not in bound:
        raise UnsupportedOp("tile: no reps given")
    reps = const_shape(bound["reps"], "reps")
    if any(r < 0 for r in reps):
        raise UnsupportedOp("tile: negative reps")
    shape = shape_of(bound["A"])
    d = max(len(shape), len(reps))
    shape = (1,) * (d - len(shape)) + tuple(shape)
    full_reps = (1,) * (d - len(reps)) + reps
    out = tuple(s * r for s, r in zip(shape, full_reps))
    probe_reps = probe_shape(reps) if isinstance(bound["reps"], (tuple, list)) else min(reps[0], 1)
    pargs, pkwargs = list(args), dict(kwargs)
    if len(args) > 1:
        pargs[1] = probe_reps
    else:
        pkwargs["reps"] = probe_reps
    result = call_quietly(op, substitute(tuple(pargs)), substitute(pkwargs))
    return meta_of_probe(op, result, out)


register(Op("tile", "function", np.tile, _tile_infer))


def _repeat_infer(op, args, kwargs):
    bound = bind("repeat", ("a", "repeats", "axis"), args, kwargs, {"a", "repeats", "axis"})
    if "repeats" not in bound:
        raise UnsupportedOp("repeat: no repeats given")
    shape = shape_of(bound["a"])
    axis = bound.get("axis")
    if isinstance(bound["repeats"], (list, tuple)):   # a count per element: constant ints
        return _repeat_counts(op, args, kwargs, shape, bound["repeats"], axis)
    if isinstance(bound["repeats"], Symbol) and not bound["repeats"].meta.is_python:
        from .ops_data_dependent import repeat_by_array   # counts from the data: a data-dependent size
        return repeat_by_array(op, args, kwargs, bound)
    r = const_int(bound["repeats"], "repeats (only a constant int or list of ints is captured)")
    if r < 0:
        raise UnsupportedOp("repeat: negative repeats")
    if axis is None:
        out = (math.prod(shape) * r,)
    else:
        (axis,) = const_axes(axis, len(shape)) if shape else (0,)
        out = tuple(d * r if i == axis else d for i, d in enumerate(shape)) if shape else (r,)
    pargs, pkwargs = list(args), dict(kwargs)
    if len(args) > 1:
        pargs[1] = min(r, 1)
    else:
        pkwargs["repeats"] = min(r, 1)
    result = call_quietly(op, substitute(tuple(pargs)), substitute(pkwargs))
    return meta_of_probe(op, result, out)


def _repeat_counts(op, args, kwargs, shape, counts, axis):
    counts = [const_int(c, "repeats") for c in counts]
    if any(c < 0 for c in counts):
        raise UnsupportedOp("repeat: negative repeats (NumPy raises)")
    n = math.prod(shape) if axis is None or not shape else shape[const_axes(axis, len(shape))[0]]
    if len(counts) not in (1, n):
        raise UnsupportedOp(f"repeat: {len(counts)} repeats for {n} elements (NumPy raises)")
    total = sum(counts) if len(counts) == n else counts[0] * n
    if axis is None or not shape:
        out = (total,)
    else:
        (ax,) = const_axes(axis, len(shape))
        out = tuple(total if i == ax else d for i, d in enumerate(shape))
    pargs, pkwargs = list(args), dict(kwargs)
    if len(args) > 1:
        pargs[1] = 1
    else:
        pkwargs["repeats"] = 1
    result = call_quietly(op, substitute(tuple(pargs)), substitute(pkwargs))
    return meta_of_probe(op, result, out)


register(Op("repeat", "function", np.repeat, _repeat_infer))
register(Op("repeat", "method", "repeat", _repeat_infer))
