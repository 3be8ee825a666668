"""Editing and restacking arrays: ``np.append``, ``np.delete``, ``np.insert``
(a scalar, or an array filling the new block, at constant positions or at a
traced 1-d integer array of them), ``np.resize``, ``np.diagflat``,
``np.dstack``, ``np.block`` (2-d blocks), the views ``np.rollaxis``,
``np.unstack`` and ``np.broadcast_arrays``, the index builders
``np.diag_indices(_from)``, ``np.tril_indices_from``/``np.triu_indices_from``
(their values depend only on shapes) and ``np.ix_``, and ``np.choose``.

Same contract as every ``ops_*`` module: the shape from a rule in pure
Python (positions and counts from the constant arguments or the shape of a
traced index array, never from array data), dtype and Python type from NumPy on probes.  They run on the NumPy
backend (no ONNX lowering).
"""

from __future__ import annotations

import math

import numpy as np

from .errors import UnsupportedOp
from .ops_shape import concatenate_shape
from .registry import (Op, bind, broadcast, const_axes, const_int, const_shape, meta_of_probe, register,
                       run_probe, shape_of, simple_op)
from .statement_ir import Symbol

__all__ = ["TUPLE_RESULTS"]

#: ops with several outputs that NumPy returns as a tuple
TUPLE_RESULTS = frozenset({"unstack", "broadcast_arrays", "diag_indices", "diag_indices_from",
                           "tril_indices_from", "triu_indices_from", "ix_"})


def _size(shape) -> int:
    return math.prod(int(d) for d in shape)


def _constant_positions(obj, n: int, what: str) -> int:
    """How many distinct positions of an axis of size ``n`` the constant
    index ``obj`` (int, slice, list of ints) names; NumPy's IndexError for
    an int out of bounds is not captured."""
    if isinstance(obj, Symbol):
        raise UnsupportedOp(f"{what}: positions from a traced array are not captured")
    if isinstance(obj, slice):
        for v in (obj.start, obj.stop, obj.step):
            if v is not None:
                const_int(v, f"{what}: a slice bound")
        return len(range(*obj.indices(n)))
    if isinstance(obj, (list, tuple)):
        if not obj or any(isinstance(i, (bool, np.bool_)) for i in obj):
            raise UnsupportedOp(f"{what}: an empty or boolean position list is not captured")
        items = [const_int(i, f"{what}: a position") for i in obj]
    else:
        items = [const_int(obj, f"{what}: a position")]
    if any(not -n <= i < n for i in items):
        raise UnsupportedOp(f"{what}: a position out of bounds (NumPy raises)")
    return len({i % n for i in items})


def _delete_shape(args, kwargs):
    b = bind("delete", ("arr", "obj", "axis"), args, kwargs, {"arr", "obj", "axis"})
    shape = shape_of(b["arr"])
    if b.get("axis") is None:
        n = _size(shape)
        return (n - _constant_positions(b.get("obj"), n, "delete"),)
    (axis,) = const_axes(b["axis"], len(shape))
    out = list(shape)
    out[axis] -= _constant_positions(b.get("obj"), shape[axis], "delete")
    return tuple(out)


def _positions_probed(shape_rule, name, index: int, stand_in):
    """An op whose constant positions (argument ``index``) the probe cannot
    take (they may be out of its bounds): the probe gets ``stand_in(obj)``."""
    def infer(op, args, kwargs):
        shape = shape_rule(args, kwargs)
        if len(args) > index:
            args = args[:index] + (stand_in(args[index]),) + args[index + 1:]
        elif "obj" in kwargs:
            kwargs = dict(kwargs, obj=stand_in(kwargs["obj"]))
        return meta_of_probe(op, run_probe(op, args, kwargs), shape)
    return register(Op(name, "function", getattr(np, name), infer))


_positions_probed(_delete_shape, "delete", 1, lambda obj: slice(0, 0))


def _insert_shape(args, kwargs):
    b = bind("insert", ("arr", "obj", "values", "axis"), args, kwargs, {"arr", "obj", "values", "axis"})
    shape = shape_of(b["arr"])
    obj, values = b.get("obj"), b.get("values")
    if isinstance(obj, slice):
        raise UnsupportedOp("insert: slice positions are not captured")
    if b.get("axis") is None:
        shape, axis = (_size(shape),), 0
    else:
        (axis,) = const_axes(b["axis"], len(shape))
    if isinstance(obj, Symbol):
        count = _traced_insert_positions(obj)
    else:
        _constant_insert_positions(obj, shape[axis])
        count = 1 if not isinstance(obj, (list, tuple)) else len(obj)
    out = list(shape)
    out[axis] += count
    _insert_values(values, shape, axis, count)
    return tuple(out)


def _traced_insert_positions(obj: Symbol) -> int:
    """How many positions a traced index array names (NumPy reads them when
    the graph runs: one out of bounds raises IndexError there, as eagerly)."""
    if obj.meta.is_python or obj.meta.ndim != 1 or obj.meta.dtype.kind != "i":
        # unsigned positions: NumPy's `indices[indices < 0] += N` raises its casting error
        raise UnsupportedOp("insert: traced positions must be a 1-d signed integer array")
    return shape_of(obj)[0]


def _insert_values(values, shape, axis: int, count: int) -> None:
    """A scalar fills every new position; an array must broadcast to the new
    block (``shape`` with ``count`` at ``axis``), which it fills.  One position
    takes as many slots as the values have there: only a scalar is captured."""
    v = shape_of(values)
    if v == ():
        return
    block = tuple(count if i == axis else d for i, d in enumerate(shape))
    if count == 1:
        raise UnsupportedOp("insert: an array of values at one position is not captured")
    if len(v) > len(block) or broadcast(v, block) != block:
        raise UnsupportedOp(f"insert: values of shape {v} into {block} (NumPy raises)")


def _constant_insert_positions(obj, n: int) -> None:
    items = obj if isinstance(obj, (list, tuple)) else [obj]
    if not items or any(isinstance(i, (bool, np.bool_)) for i in items):
        raise UnsupportedOp("insert: an empty or boolean position list is not captured")
    if any(not -n <= const_int(i, "insert: a position") <= n for i in items):
        raise UnsupportedOp("insert: a position out of bounds (NumPy raises)")


def _insert_stand_in(obj):
    """Positions the probe can take: as many zeros as ``obj`` names."""
    if isinstance(obj, Symbol):
        return [0] * obj.meta.shape[0]
    return [0] * len(obj) if isinstance(obj, (list, tuple)) else 0


_positions_probed(_insert_shape, "insert", 1, _insert_stand_in)


def _append_shape(args, kwargs):
    b = bind("append", ("arr", "values", "axis"), args, kwargs, {"arr", "values", "axis"})
    a, v = shape_of(b["arr"]), shape_of(b.get("values"))
    if b.get("axis") is None:
        return (_size(a) + _size(v),)
    if len(a) != len(v):
        raise UnsupportedOp("append: operands of different ndim (NumPy raises)")
    (axis,) = const_axes(b["axis"], len(a))
    return concatenate_shape([a, v], axis)


simple_op("append", "function", np.append, _append_shape)


def _resize_shape(args, kwargs):
    b = bind("resize", ("a", "new_shape"), args, kwargs, {"a", "new_shape"})
    shape = const_shape(b.get("new_shape"), "new_shape")
    if any(d < 0 for d in shape):
        raise UnsupportedOp("resize: a negative size (NumPy raises)")
    return shape


simple_op("resize", "function", np.resize, _resize_shape)


def _diagflat_shape(args, kwargs):
    b = bind("diagflat", ("v", "k"), args, kwargs, {"v", "k"})
    n = _size(shape_of(b["v"])) + abs(const_int(b.get("k", 0), "k"))
    return (n, n)


simple_op("diagflat", "function", np.diagflat, _diagflat_shape)


def _dstack_shape(args, kwargs):
    b = bind("dstack", ("tup",), args, kwargs, {"tup"})
    tup = b.get("tup")
    if not isinstance(tup, (list, tuple)) or not tup:
        raise UnsupportedOp("dstack: expects a non-empty list or tuple of arrays")
    shapes = []
    for s in (shape_of(v) for v in tup):
        shapes.append((1, 1, 1) if not s else (1, s[0], 1) if len(s) == 1 else tuple(s) + (1,) if len(s) == 2
                      else tuple(s))
    return concatenate_shape(shapes, 2)


simple_op("dstack", "function", np.dstack, _dstack_shape)


def _block_shape(args, kwargs):
    """``np.block([[a, b], [c, d]])`` of 2-d blocks (or a flat list of 1-d/2-d ones)."""
    b = bind("block", ("arrays",), args, kwargs, {"arrays"})
    rows = b.get("arrays")
    if not isinstance(rows, list) or not rows:
        raise UnsupportedOp("block: expects a non-empty list")
    if all(isinstance(r, list) for r in rows):
        row_shapes = []
        for r in rows:
            shapes = [shape_of(v) for v in r]
            if not r or any(len(s) != 2 for s in shapes):
                raise UnsupportedOp("block: only nested lists of 2-d blocks are captured")
            row_shapes.append(concatenate_shape(shapes, 1))
        return concatenate_shape(row_shapes, 0)
    shapes = [shape_of(v) for v in rows]
    if any(isinstance(r, list) for r in rows) or len({len(s) for s in shapes}) != 1 or len(shapes[0]) not in (1, 2):
        raise UnsupportedOp("block: mixed nesting or ndim is not captured")
    return concatenate_shape(shapes, len(shapes[0]) - 1)


simple_op("block", "function", np.block, _block_shape)


# -- views ---------------------------------------------------------------------------

def _view_shape(fn, a, *rest, **kw) -> tuple[int, ...]:
    """The shape of the view ``fn(a, ...)``: ``fn`` run on a zero-stride
    stand-in of ``a``'s full shape (no data, O(1) memory)."""
    stand_in = np.broadcast_to(np.empty((), np.int8), shape_of(a))
    try:
        return fn(stand_in, *rest, **kw).shape
    except Exception as e:  # noqa: BLE001 - eager NumPy raises on these arguments too
        raise UnsupportedOp(f"{fn.__name__}: NumPy raises {type(e).__name__}: {e}") from None


def _rollaxis_shape(args, kwargs):
    b = bind("rollaxis", ("a", "axis", "start"), args, kwargs, {"a", "axis", "start"})
    axis, start = const_int(b.get("axis"), "axis"), const_int(b.get("start", 0), "start")
    return _view_shape(np.rollaxis, b["a"], axis, start)


simple_op("rollaxis", "function", np.rollaxis, _rollaxis_shape)


def _several(name, target, shapes_rule):
    """An op with one output per shape of ``shapes_rule(args, kwargs)``."""
    def infer(op, args, kwargs):
        shapes = shapes_rule(args, kwargs)
        result = run_probe(op, args, kwargs)
        if not isinstance(result, tuple) or len(result) != len(shapes):
            raise UnsupportedOp(f"{name}: {len(shapes)} results expected")
        return tuple(meta_of_probe(op, r, s) for r, s in zip(result, shapes))
    return register(Op(name, "function", target, infer))


_MAX_RESULTS = 64  # one graph value per result: beyond that, not captured


def _unstack_shapes(args, kwargs):
    b = bind("unstack", ("x",), args, kwargs, {"x", "axis"}, kwonly=("axis",))
    shape = shape_of(b["x"])
    if not shape:
        raise UnsupportedOp("unstack: 0-d operand (NumPy raises)")
    (axis,) = const_axes(b.get("axis", 0), len(shape))
    if not 1 <= shape[axis] <= _MAX_RESULTS:
        raise UnsupportedOp(f"unstack into {shape[axis]} arrays is not captured")
    rest = tuple(d for i, d in enumerate(shape) if i != axis)
    return [rest] * shape[axis]


if hasattr(np, "unstack"):
    def _unstack_infer(op, args, kwargs):
        shapes = _unstack_shapes(args, kwargs)
        meta = meta_of_probe(op, run_probe(op, args, kwargs)[0], shapes[0])
        return (meta,) * len(shapes)
    register(Op("unstack", "function", np.unstack, _unstack_infer))


def _broadcast_arrays_shapes(args, kwargs):
    if kwargs or not args:
        raise UnsupportedOp("broadcast_arrays: only arrays (no subok=)")
    shape = broadcast(*(shape_of(a) for a in args))
    return [shape] * len(args)


_several("broadcast_arrays", np.broadcast_arrays, _broadcast_arrays_shapes)


# -- index builders ------------------------------------------------------------------

def _diag_indices_shapes(args, kwargs):
    b = bind("diag_indices", ("n", "ndim"), args, kwargs, {"n", "ndim"})
    n, ndim = const_int(b.get("n"), "n"), const_int(b.get("ndim", 2), "ndim")
    if n < 0 or not 1 <= ndim <= _MAX_RESULTS:
        raise UnsupportedOp("diag_indices: n or ndim out of range")
    return [(n,)] * ndim


def _diag_indices_from_shapes(args, kwargs):
    b = bind("diag_indices_from", ("arr",), args, kwargs, {"arr"})
    shape = shape_of(b["arr"])
    if len(shape) < 2 or len(set(shape)) != 1:
        raise UnsupportedOp("diag_indices_from: needs a square array of at least 2 dims (NumPy raises)")
    return [(shape[0],)] * len(shape)


def _triangle_count(n: int, m: int, k: int, lower: bool) -> int:
    if lower:  # row i keeps columns j <= i + k
        return sum(min(max(i + k + 1, 0), m) for i in range(n))
    return sum(m - min(max(i + k, 0), m) for i in range(n))  # columns j >= i + k


def _triangle_from_shapes(lower):
    name = "tril_indices_from" if lower else "triu_indices_from"

    def rule(args, kwargs):
        b = bind(name, ("arr", "k"), args, kwargs, {"arr", "k"})
        shape = shape_of(b["arr"])
        if len(shape) != 2:
            raise UnsupportedOp(f"{name}: needs a 2-d array (NumPy raises)")
        count = _triangle_count(shape[0], shape[1], const_int(b.get("k", 0), "k"), lower)
        return [(count,)] * 2
    return rule


_several("diag_indices", np.diag_indices, _diag_indices_shapes)
_several("diag_indices_from", np.diag_indices_from, _diag_indices_from_shapes)
_several("tril_indices_from", np.tril_indices_from, _triangle_from_shapes(True))
_several("triu_indices_from", np.triu_indices_from, _triangle_from_shapes(False))


def _ix_shapes(args, kwargs):
    """``np.ix_(rows, cols, ...)`` of 1-d integer index sequences."""
    if kwargs or not args:
        raise UnsupportedOp("ix_: expects 1-d sequences")
    shapes = []
    for i, a in enumerate(args):
        shape = shape_of(a)
        kind = a.meta.dtype.kind if isinstance(a, Symbol) else np.asarray(a).dtype.kind
        if len(shape) != 1 or kind not in "iu" and not (kind == "f" and shape == (0,)):
            raise UnsupportedOp("ix_: only 1-d integer sequences are captured (booleans select data-dependently)")
        shapes.append(tuple(shape[0] if j == i else 1 for j in range(len(args))))
    return shapes


_several("ix_", np.ix_, _ix_shapes)


# -- choose ------------------------------------------------------------------------------

def _choose_infer(op, args, kwargs):
    """``np.choose(a, choices)`` / ``a.choose(choices)``: broadcast shapes (an
    array of choices is the list of its rows); the probe picks choice 0 (a
    probe of ones could be out of range)."""
    b = bind("choose", ("a", "choices", "out", "mode"), args, kwargs, {"a", "choices", "mode"})
    choices = b.get("choices")
    if isinstance(choices, Symbol) and not choices.meta.is_python and choices.meta.ndim and choices.meta.shape[0]:
        rows = [shape_of(choices)[1:]]   # an array of choices: its rows are the choices
    elif isinstance(choices, (list, tuple)) and choices:
        rows = [shape_of(c) for c in choices]
    else:
        raise UnsupportedOp("choose: expects an index array and a list (or an array) of choices")
    if "a" not in b:
        raise UnsupportedOp("choose: expects an index array (NumPy raises)")
    a = b["a"]
    if isinstance(a, Symbol) and (a.meta.is_python or not np.can_cast(a.meta.dtype, np.intp, "safe")):
        raise UnsupportedOp("choose: the index array must hold integers or bools (NumPy raises TypeError)")
    shape = broadcast(shape_of(a), *rows)
    probe_a = np.zeros(tuple(min(int(d), 1) for d in shape_of(a)), a.meta.dtype if isinstance(a, Symbol) else int)
    probe = dict(b, a=probe_a)
    if op.kind == "method":   # ndarray.choose takes its choices positionally only
        result = run_probe(op, (probe.pop("a"), probe.pop("choices")), probe)
    else:
        result = run_probe(op, (), probe)
    return meta_of_probe(op, result, shape)


register(Op("choose", "function", np.choose, _choose_infer))
register(Op("choose", "method", "choose", _choose_infer))
