"""Functional lowering of writes into arrays the graph allocated.

A write into an array ``t`` that nothing else can see — the graph made it
(no input, no overlap), and no view of it exists anywhere in the graph
(``onnx_writes.functional_targets``) — is lowered as computing the new
value of ``t``; ``t``'s name is then rebound to it (``rebind``), so later
statements read the new value and the segment exports the last one.
Nothing can tell the two objects apart: no other name reaches the old one.

==================  ==========================================================
write               ONNX
==================  ==========================================================
``t[index] = v``    ints, slices (any step), None, ..., int lists without
                    repeats: ``ScatterElements`` on the flattened ``t`` at
                    the positions NumPy selects (computed when lowering);
                    a boolean mask with a value that fits every count:
                    ``Where``
``t op= v``         the operator's lowering (in NumPy's dtype), cast to t's
``ufunc(…, out=t,   the ufunc's lowering, cast to t's dtype, expanded to t's
where=m)``          shape; ``Where(m, …, t)``
``np.copyto(t, v,   ``v`` cast and expanded (``Where`` with ``where=``)
where=m)``
``t.fill(v)``       ``v`` cast and expanded
==================  ==========================================================

Values are converted to ``t``'s dtype as NumPy's assignment converts them
(a constant by NumPy itself, when lowering).  Anything else (index arrays,
sort, putmask...) is not lowered and runs on NumPy in place.
``np.empty`` is lowered as zeros: its elements are undefined until written.
"""
from __future__ import annotations

import numpy as np

from sot.ir import registry
from sot.ir.ops_write import SETITEM, _base_name
from sot.ir.statement_ir import Statement, Symbol

from .builder import BOOL, NotLowered, NotSymbolic, meta_dtype
from .lowering_shapes import statement_is_symbolic
from .write_views import box_of, class_of

__all__ = ["lower_write", "lower_empty", "POSITIONS_LIMIT"]

#: item assignment is lowered into arrays of at most this many elements (the
#: positions are an int64 constant of the model, up to this size)
POSITIONS_LIMIT = 1 << 20


def _shape(target: Symbol) -> tuple:
    return tuple(int(d) for d in target.meta.shape)


def _converted(b, v, dtype, shape):
    """``v`` (a Symbol or constant) as assignment converts it to ``dtype``,
    broadcast as assignment does (leading 1s dropped) to ``shape``."""
    if isinstance(v, Symbol):
        if v.meta.is_python:
            raise NotLowered("a Python number computed from shapes as a written value")
        name = b.cast(b.value(v), dtype)
        vshape = tuple(int(d) for d in v.meta.shape)
        while len(vshape) > len(shape) and vshape[0] == 1:
            vshape = vshape[1:]
        if vshape != tuple(int(d) for d in v.meta.shape):
            name = b.node("Reshape", [name, b.ints(vshape)], dtype, vshape)
        if vshape == tuple(shape):
            return name
        return b.node("Expand", [name, b.ints(shape)], dtype, shape)
    tmp = np.empty(shape, dtype)
    tmp[...] = v   # NumPy's own conversion; the probe already checked it succeeds
    return b.const(tmp)


def _functional(b, st: Statement, lower_statement) -> str:
    op = st.op
    if op is SETITEM:
        return _setitem(b, *st.args)
    target = st.args[0] if op.kind != "function" or not isinstance(op.target, np.ufunc) else st.kwargs["out"]
    dtype, shape = meta_dtype(target.meta), _shape(target)
    if op.kind == "operator":   # t op= v
        base = registry.lookup_operator(_base_name(op.name))
        return _computed(b, base, st.args, {}, dtype, shape, lower_statement)
    if op.kind == "function" and isinstance(op.target, np.ufunc):
        kwargs = {k: v for k, v in st.kwargs.items() if k not in ("out", "where")}
        if kwargs:
            raise NotLowered(f"{op.name}(out=) with {sorted(kwargs)}")
        new = _computed(b, registry.lookup_function(op.target), st.args, {}, dtype, shape, lower_statement)
        return _where(b, st.kwargs.get("where"), new, target, shape)
    if op.name == "copyto":
        params = dict(zip(("dst", "src", "casting", "where"), st.args), **st.kwargs)
        if params.get("casting", "same_kind") != "same_kind":
            raise NotLowered("copyto with casting=")
        new = _converted(b, params["src"], dtype, shape)
        return _where(b, params.get("where"), new, target, shape)
    if op.name == "fill":
        return _converted(b, st.args[1], dtype, shape)
    raise NotLowered(f"no functional lowering of {op.name}")


def _computed(b, base, args, kwargs, dtype, shape, lower_statement) -> str:
    """``base(*args)`` lowered as its own statement would be, in the target's dtype and shape."""
    if base is None:
        raise NotLowered("no out-of-place op")
    meta = base.infer(args, kwargs)
    out = Symbol(b.fresh("w"), meta)
    (name,) = lower_statement(b, Statement(base, args, kwargs, (out,)))
    name = b.cast(name, dtype)
    if tuple(int(d) for d in meta.shape) != tuple(shape):
        name = b.node("Expand", [name, b.ints(shape)], dtype, shape)
    return name


def _where(b, where, new: str, target: Symbol, shape) -> str:
    if where is None or where is True:
        return new
    mask = b.operand(where, BOOL) if isinstance(where, Symbol) else b.const(np.broadcast_to(
        np.asarray(where, bool), shape).copy())
    return b.where(mask, new, b.value(target))


def _setitem(b, target: Symbol, index, value) -> str:
    dtype, shape = meta_dtype(target.meta), _shape(target)
    if isinstance(index, Symbol) and index.meta.dtype.kind == "b":   # a mask: Where
        rest = shape[len(index.meta.shape):]
        mask = b.value(index)
        if rest:
            mask = b.node("Reshape", [mask, b.ints(tuple(index.meta.shape) + (1,) * len(rest))], BOOL)
        if isinstance(value, Symbol):
            vshape = [int(d) for d in value.meta.shape]
            while vshape and vshape[0] == 1 and len(vshape) > len(rest):
                vshape.pop(0)
            if len(vshape) > len(rest):
                raise NotLowered("masked value with a dim for the selected count")
            new = b.cast(b.value(value), dtype)
            new = b.node("Reshape", [new, b.ints(vshape)], dtype, vshape) if vshape != list(value.meta.shape) else new
        else:
            new = _converted(b, value, dtype, ())
        return b.where(mask, new, b.value(target))
    items = index if type(index) is tuple else (index,)
    if any(isinstance(i, Symbol) for i in items):
        raise NotLowered("an index computed by the graph (bounds checked at run time)")
    if int(np.prod(shape, dtype=np.int64)) > POSITIONS_LIMIT:
        raise NotLowered(f"assignment into more than {POSITIONS_LIMIT} elements: in place, on NumPy")
    positions = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)[index]
    positions = np.asarray(positions).reshape(-1)
    if len(np.unique(positions)) != positions.size:
        raise NotLowered("repeated positions: the last value wins in NumPy, in no set order in ONNX")
    if positions.size == 0:
        return b.value(target)
    selected = tuple(np.shape(np.empty(shape, bool)[index]))
    updates = _converted(b, value, dtype, selected)
    flat_shape = (positions.size,)
    updates = b.node("Reshape", [updates, b.ints((-1,))], dtype, flat_shape)
    data = b.node("Reshape", [b.value(target), b.ints((-1,))], dtype, (int(np.prod(shape)),))
    scattered = b.node("ScatterElements", [data, b.const(positions), updates], dtype,
                       (int(np.prod(shape)),), axis=0)
    return b.node("Reshape", [scattered, b.ints(shape)], dtype, shape)


def lower_write(b, st: Statement, lower_statement) -> list:
    """Lower the write ``st`` functionally and rebind its target (see the
    module docstring); returns ``[]`` (a write has no outputs).  A write into
    memory with box views (``write_views``) rebinds the root and the
    views read after it."""
    target = st.kwargs["out"] if st.op.kind == "function" and isinstance(st.op.target, np.ufunc) else st.args[0]
    if statement_is_symbolic(st) and not _size_free(st):
        raise NotSymbolic(f"{st.op.name} into an array with symbolic dims: its lowering uses the sizes")
    vc = class_of(getattr(b, "write_views", None), target)
    if vc is None or target.name not in vc.boxes:
        new = _functional(b, st, lower_statement)
        _check_dtype(b, new, target)
        b.env[target.name] = new
        b.meta[new] = target.meta
        return []
    root = vc.root
    dtype = meta_dtype(root.meta)
    region = box_of(root.meta.shape, vc.chains[target.name] + (st.args[1],)) if st.op is SETITEM else None
    if region is not None and _same_memory(vc, st.args[2], region):
        return []   # u[1:-1, 1:-1] = t where t is u[1:-1, 1:-1] (after ``u[1:-1, 1:-1] += v``): no change
    if region is not None:   # t[basic index] = v: the box of that index
        new = _converted(b, st.args[2], dtype, region.shape)
    else:
        new = _functional(b, st, lower_statement)
        _check_dtype(b, new, target)
        region = vc.boxes[target.name]
    new = _reshaped(b, new, dtype, region.box_shape)
    new_root = _embed(b, b.value(root), new, region, _shape(root))
    b.env[root.name] = new_root
    b.meta[new_root] = root.meta
    for m in [target] + vc.refresh.get(id(st), []):
        if m.name != root.name:
            value = _reshaped(b, _sliced(b, new_root, vc.boxes[m.name], _shape(root), dtype), dtype, _shape(m))
            b.env[m.name] = value
            b.meta[value] = m.meta
    return []


def _same_memory(vc, value, region) -> bool:
    """Whether ``value`` is the view of ``region`` itself, as NumPy sees it
    (same dtype, shape and box: assigning it copies the memory onto itself)."""
    box = vc.boxes.get(value.name) if isinstance(value, Symbol) else None
    return (box is not None and (box.starts, box.stops, box.shape) == (region.starts, region.stops, region.shape)
            and value.meta.dtype == vc.root.meta.dtype)


def _size_free(st: Statement) -> bool:
    """Whether the write's lowering uses no size: an operator or a ufunc's
    ``out=`` (``where=``) whose operands have the target's shape, or a whole-array boolean
    mask with a scalar value (``Where``)."""
    target = st.kwargs["out"] if st.op.kind == "function" and isinstance(st.op.target, np.ufunc) else st.args[0]
    if st.op is SETITEM:
        index, value = st.args[1], st.args[2]
        return (isinstance(index, Symbol) and index.meta.dtype.kind == "b"
                and tuple(index.meta.shape) == tuple(target.meta.shape)
                and not isinstance(value, Symbol) and np.ndim(value) == 0)
    if st.op.kind == "operator" or (st.op.kind == "function" and isinstance(st.op.target, np.ufunc)):
        operands = (tuple(st.args) + tuple(v for k, v in st.kwargs.items() if k == "where")
                    if st.op.kind == "function" else st.args[1:])
        return all(
            not isinstance(a, Symbol) or tuple(a.meta.shape) == tuple(target.meta.shape) or a.meta.is_scalar
            for a in operands)
    return False


def _check_dtype(b, new, target) -> None:
    if b.dtype[new] != meta_dtype(target.meta):
        raise NotLowered("internal: written dtype")


def _reshaped(b, name, dtype, shape):
    if tuple(b.shape.get(name) or ()) == tuple(shape) and b.shape.get(name) is not None:
        return name
    return b.node("Reshape", [name, b.ints(shape)], dtype, tuple(shape))


def _sliced(b, name, box, shape, dtype):
    """``name[box]``: a box-shaped value."""
    axes = [k for k in range(len(shape)) if (box.starts[k], box.stops[k]) != (0, shape[k])]
    for k in axes:
        name, shape = _axis_slice(b, name, shape, dtype, k, box.starts[k], box.stops[k])
    return name


def _axis_slice(b, name, shape, dtype, k, lo, hi):
    """``name[..., lo:hi, ...]`` on axis ``k``, and its shape."""
    out = tuple(shape[:k]) + (hi - lo,) + tuple(shape[k + 1:])
    return b.node("Slice", [name, b.ints([lo]), b.ints([hi]), b.ints([k])], dtype, out), out


def _embed(b, root: str, new: str, box, shape, k=0):
    """``root`` (of ``shape``) with its ``box`` replaced by ``new`` (box-shaped),
    from axis ``k`` on: the slices of ``root`` around the box concatenated
    with it, axis by axis (exact for every dtype; no positions constant)."""
    shape = tuple(shape)
    dtype = b.dtype[root]
    while k < len(shape) and (box.starts[k], box.stops[k]) == (0, shape[k]):
        k += 1
    if k == len(shape):
        return new
    lo, hi = box.starts[k], box.stops[k]
    middle, middle_shape = _axis_slice(b, root, shape, dtype, k, lo, hi)
    parts = [_axis_slice(b, root, shape, dtype, k, 0, lo)[0]] if lo > 0 else []
    parts.append(_embed(b, middle, new, box, middle_shape, k + 1))
    if hi < shape[k]:
        parts.append(_axis_slice(b, root, shape, dtype, k, hi, shape[k])[0])
    return b.node("Concat", parts, dtype, shape, axis=k)


def lower_empty(b, st: Statement) -> list:
    """``np.empty``/``empty_like``: zeros of its shape and dtype."""
    from .lowering_array import _creation_symbolic, _tensor
    out = st.outputs[0]
    if statement_is_symbolic(st):
        return _creation_symbolic(b, st, out.meta, st.op.name == "empty_like")
    dtype, shape = meta_dtype(out.meta), _shape(out)
    if out.meta.is_scalar or not shape:
        return [b.node("Identity", [b.const(np.zeros((), dtype))], dtype, ())]
    return [b.node("ConstantOfShape", [b.ints(shape)], dtype, shape, value=_tensor(np.zeros(1, dtype)))]
