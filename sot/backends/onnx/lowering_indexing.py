"""Lowering of basic indexing (ints, slices, None, ...), joining
(concatenate, stack, hstack, vstack) and splitting (the split family).

Static dims are constants, symbolic ones Dims (``lowering_shapes``):
bounds the model computes, with Python's slicing semantics.
"""

from __future__ import annotations

import numpy as np

from sot.ir.registry import bind, const_axes
from sot.ir.statement_ir import Symbol

from .builder import BOOL, NotLowered, NotSymbolic
from .lowering_shapes import (INT64_MAX, INT64_MIN, _out, _reshape, _symbol_operand, dim_arith,
                              dims_of, product, scalar_dim, shape_of)

__all__ = ["_lower_getitem", "_lower_join", "_lower_split"]

_INT64_MIN = INT64_MIN


# ----------------------------------------------------------------------------
# basic indexing

def _lower_getitem(b, st):
    a, index = st.args
    a = _symbol_operand(a, "indexed value")
    items = index if type(index) is tuple else (index,)
    shape = a.meta.shape
    for item in items:
        if not (item is None or item is Ellipsis or isinstance(item, slice) or _is_int_index(item)):
            from .lowering_gather import lower_advanced_getitem
            return lower_advanced_getitem(b, st)
    n_real = sum(1 for i in items if i is not None and i is not Ellipsis)
    if Ellipsis in [i for i in items if i is Ellipsis]:
        pos = next(k for k, i in enumerate(items) if i is Ellipsis)
        items = items[:pos] + (slice(None),) * (len(shape) - n_real) + items[pos + 1:]
    if a.meta.symbolic_axes or st.symbols_used()[1:]:
        return [_getitem_symbolic(b, a, items)]
    starts, ends, axes, steps = [], [], [], []
    dim = 0
    for item in items:
        if item is None:
            continue
        d = shape[dim]
        if isinstance(item, slice):
            start, stop, step = item.indices(d)
            if (start, stop, step) != (0, d, 1):
                if step < 0 and stop < 0:
                    stop = _INT64_MIN
                starts.append(start)
                ends.append(stop)
                axes.append(dim)
                steps.append(step)
        else:
            i = int(item)
            i = i + d if i < 0 else i
            if not 0 <= i < d:
                raise NotLowered("index out of bounds")
            starts.append(i)
            ends.append(i + 1)
            axes.append(dim)
            steps.append(1)
        dim += 1
    x = b.value(a)
    if axes:
        x = b.node("Slice", [x, b.ints(starts), b.ints(ends), b.ints(axes), b.ints(steps)], a.meta.dtype)
    else:
        x = b.node("Identity", [x], a.meta.dtype, a.meta.shape)
    return [_reshape(b, x, _out(st).shape) if b.shape.get(x) != _out(st).shape else x]


def _is_int_index(item) -> bool:
    if isinstance(item, Symbol):
        return item.meta.is_python and item.meta.type is int
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _getitem_symbolic(b, a, items) -> str:
    """Basic indexing where a dim or a bound is symbolic: one Slice with
    Python's bounds (ONNX clamps them as ``slice.indices`` does, except a
    start left of the first element with a negative step: not lowered),
    then Squeeze of the int-indexed axes and Unsqueeze of the None ones."""
    starts, ends, axes, steps, dropped, added = [], [], [], [], [], []
    axis = out_axis = 0
    for item in items:
        if item is None:
            added.append(out_axis)
            out_axis += 1
            continue
        static = axis not in a.meta.symbolic_axes
        if isinstance(item, slice) and static and not any(isinstance(v, Symbol) for v in
                                                          (item.start, item.stop, item.step)):
            d = a.meta.shape[axis]
            start, stop, step = item.indices(d)
            if (start, stop, step) != (0, d, 1):
                starts.append(start)
                ends.append(_INT64_MIN if step < 0 and stop < 0 else stop)
                axes.append(axis)
                steps.append(step)
            out_axis += 1
        elif isinstance(item, slice):
            step = 1 if item.step is None else item.step
            if isinstance(step, Symbol):
                raise NotSymbolic("a slice step computed from shapes (its sign decides the bounds)")
            step = int(step)
            start, stop = item.start, item.stop
            if step < 0 and start is not None and (isinstance(start, Symbol) or start < 0):
                raise NotSymbolic("a negative-step slice from a start that may be left of the array")
            starts.append((0 if step > 0 else INT64_MAX) if start is None else scalar_dim(b, start))
            ends.append((INT64_MAX if step > 0 else _INT64_MIN) if stop is None else scalar_dim(b, stop))
            axes.append(axis)
            steps.append(step)
            out_axis += 1
        else:
            i = scalar_dim(b, item)
            if isinstance(i, int):
                end = INT64_MAX if i == -1 else i + 1
            else:   # x[n] with n == -1 at run time reaches the end
                is_last = b.node("Equal", [i, b.ints([-1])], BOOL, (1,))
                end = b.where(is_last, b.ints([INT64_MAX]), dim_arith(b, "Add", i, 1))
            starts.append(i)
            ends.append(end)
            axes.append(axis)
            steps.append(1)
            dropped.append(axis)
        axis += 1
    x = b.value(a)
    if axes:
        x = b.node("Slice", [x, shape_of(b, starts), shape_of(b, ends), b.ints(axes), b.ints(steps)],
                   a.meta.dtype)
    else:
        x = b.node("Identity", [x], a.meta.dtype)
    if dropped:
        x = b.node("Squeeze", [x, b.ints(dropped)], a.meta.dtype)
    if added:
        x = b.node("Unsqueeze", [x, b.ints(added)], a.meta.dtype)
    return x


# ----------------------------------------------------------------------------
# joining and splitting

def _lower_join(b, st):
    name = st.op.name
    meta = _out(st)
    seq = st.args[0] if st.args else st.kwargs.get("arrays", st.kwargs.get("tup"))
    if not isinstance(seq, (tuple, list)):
        raise NotLowered(f"{name}: not a sequence")
    for k in st.kwargs:
        if k not in ("axis", "arrays", "tup", "dtype", "casting", "out"):
            raise NotLowered(f"{name}: keyword {k}=")
    axis = st.kwargs.get("axis", st.args[1] if len(st.args) > 1 else 0)
    values = []
    for v in seq:
        x = b.operand(v, meta.dtype)
        shape = dims_of(b, x, v.meta) if isinstance(v, Symbol) else np.shape(v)
        values.append((x, tuple(shape)))
    if name == "concatenate":
        if axis is None:
            values = [(_reshape(b, x, (product(b, s),)), (product(b, s),)) for x, s in values]
            axis = 0
        (axis,) = const_axes(axis, len(values[0][1]))
    elif name == "stack":
        (axis,) = const_axes(axis, len(values[0][1]) + 1)
        values = [(_reshape(b, x, s[:axis] + (1,) + s[axis:]), s[:axis] + (1,) + s[axis:]) for x, s in values]
    elif name == "hstack":
        values = [(_reshape(b, x, s or (1,)), s or (1,)) for x, s in values]
        axis = 0 if len(values[0][1]) == 1 else 1
    elif name == "vstack":
        values = [(_reshape(b, x, (1,) * (2 - len(s)) + s), (1,) * (2 - len(s)) + s) if len(s) < 2 else (x, s)
                  for x, s in values]
        axis = 0
    else:
        raise NotLowered(name)
    return [b.node("Concat", [x for x, _ in values], meta.dtype, meta.shape, axis=axis)]


def _lower_split(b, st):
    a = st.args[0] if st.args else st.kwargs["ary"]
    a = _symbol_operand(a, "split operand")
    metas = [s.meta for s in st.outputs]
    ndim = a.meta.ndim
    if any(m.symbolic_axes for m in metas) or st.symbols_used()[1:]:
        return _split_symbolic(b, st, a)
    axis = next(i for i in range(ndim) if any(m.shape[i] != a.meta.shape[i] for m in metas)) \
        if any(m.shape != a.meta.shape for m in metas) else None
    if axis is None:  # one piece: the whole array
        return [b.node("Identity", [b.value(a)], a.meta.dtype, a.meta.shape)]
    sizes = [m.shape[axis] for m in metas]
    outs = b.node("Split", [b.value(a), b.ints(sizes)], a.meta.dtype, n_out=len(sizes), axis=axis)
    outs = outs if isinstance(outs, list) else [outs]
    for o, m in zip(outs, metas):
        b.shape[o] = m.shape
    return outs


_SPLIT_AXIS = {"hsplit": lambda ndim: 1 if ndim > 1 else 0, "vsplit": lambda ndim: 0,
               "dsplit": lambda ndim: 2}


def _split_symbolic(b, st, a):
    """Pieces as Slices between split points (Python's slicing clamps them as
    ONNX does); sections of a symbolic dim n at ``j * (n // k) + min(j, n % k)``,
    as np.array_split (np.split raises unless k divides n: such sizes run on
    NumPy)."""
    name = st.op.name
    params = ("ary", "indices_or_sections") + (("axis",) if name not in _SPLIT_AXIS else ())
    bound = bind(name, params, st.args, st.kwargs, set(params))
    ndim = a.meta.ndim
    if name in _SPLIT_AXIS:
        axis = _SPLIT_AXIS[name](ndim)
    else:
        (axis,) = const_axes(bound.get("axis", 0), ndim)
    x = b.value(a)
    n = dims_of(b, x, a.meta)[axis]
    sections = bound["indices_or_sections"]
    if isinstance(sections, (tuple, list)):
        points = [0] + [scalar_dim(b, i) for i in sections] + [INT64_MAX]
    else:
        k = scalar_dim(b, sections)
        if not isinstance(k, int) or k <= 0:
            raise NotSymbolic(f"{name}: a number of sections computed from shapes")
        each, extra = dim_arith(b, "Div", n, k), dim_arith(b, "Mod", n, k)
        points = []
        for j in range(k + 1):
            if isinstance(extra, int):
                bonus = min(j, extra)
            else:
                j_const = b.ints([j])
                bonus = b.where(b.node("Less", [j_const, extra], BOOL, (1,)), j_const, extra)
            points.append(dim_arith(b, "Add", dim_arith(b, "Mul", each, j), bonus))
    outs = []
    for lo, hi in zip(points[:-1], points[1:]):
        outs.append(b.node("Slice", [x, shape_of(b, [lo]), shape_of(b, [hi]), b.ints([axis])], a.meta.dtype))
    if len(outs) != len(st.outputs):   # pragma: no cover - the IR agrees
        raise NotLowered("internal: split piece count")
    return outs
