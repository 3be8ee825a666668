"""Lowering of integer-array indexing to ONNX ``Gather``/``GatherElements``:
``table[ids]`` (an index array or a constant list, alone or among full
slices: ``x[:, ids]``, ``x[..., ids]``), ``np.take`` / ``ndarray.take``
(mode ``'raise'``) and ``np.take_along_axis``.

NumPy and ONNX agree on negative indices (``-d <= i < d``).  An index out
of bounds makes onnxruntime fail where NumPy raises IndexError: a constant
index is checked here (out of bounds: not lowered, NumPy raises), a traced
one at run time by onnxruntime, after which the graph reruns on NumPy and
raises exactly eager's error (``checked``).  uint64 indices are not
lowered: beyond 2**63 they would wrap to valid negative indices.
"""

from __future__ import annotations

import numpy as np

from sot.ir.registry import bind, const_axes
from sot.ir.statement_ir import Symbol

from .builder import I64, NotLowered
from .lowering_shapes import _out, _symbol_operand, dims_of, product, shape_of

__all__ = ["lower_advanced_getitem", "GATHER_RULES", "has_checked_gather"]

_INDEX_KINDS = "iu"


def _is_index_array(item) -> bool:
    if isinstance(item, Symbol):
        return not item.meta.is_python and item.meta.dtype.kind in _INDEX_KINDS
    if isinstance(item, (list, np.ndarray)):
        arr = np.asarray(item)
        return arr.dtype.kind in _INDEX_KINDS or (arr.size == 0 and isinstance(item, list))
    return False


def _indices(b, item, size) -> str:
    """The ONNX int64 value of an index (a Symbol or a constant checked
    against ``size`` when that is static)."""
    if isinstance(item, Symbol):
        if item.meta.is_python:
            raise NotLowered("a Python int of the graph as take's index")
        if item.meta.dtype == np.uint64:
            raise NotLowered("uint64 indices wrap to negative ones in int64")
        return b.cast(b.value(item), I64)
    arr = np.asarray(item)
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype == np.uint64 and arr.size and int(arr.max()) >= 2 ** 63:
        raise NotLowered("index out of bounds")
    arr = arr.astype(np.int64)
    if not isinstance(size, int):
        raise NotLowered("a constant index into a symbolic dim: bounds known only at run time")
    if arr.size and not (-size <= int(arr.min()) and int(arr.max()) < size):
        raise NotLowered("index out of bounds (NumPy raises IndexError)")
    return b.const(arr)


def lower_advanced_getitem(b, st) -> list[str]:
    """``x[..., ids, ...]`` with one index array among full slices."""
    a, index = st.args
    a = _symbol_operand(a, "indexed value")
    items = index if type(index) is tuple else (index,)
    ndim = a.meta.ndim
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise NotLowered("more than one Ellipsis")
    if Ellipsis in [i for i in items if i is Ellipsis]:
        pos = next(k for k, i in enumerate(items) if i is Ellipsis)
        items = items[:pos] + (slice(None),) * (ndim - len(items) + 1) + items[pos + 1:]
    arrays = [k for k, i in enumerate(items) if _is_index_array(i)]
    full = all(isinstance(i, slice) and i == slice(None) for k, i in enumerate(items) if k not in arrays)
    if len(arrays) != 1 or not full or len(items) > ndim:
        raise NotLowered("advanced indexing other than one index array among full slices")
    axis = arrays[0]
    x = b.value(a)
    size = dims_of(b, x, a.meta)[axis]
    idx = _indices(b, items[axis], size)
    return [b.node("Gather", [x, idx], a.meta.dtype, _out(st).shape if not _out(st).symbolic_axes else None,
                   axis=axis)]


def _lower_take(b, st):
    bound = bind("take", ("a", "indices", "axis", "out", "mode"), st.args, st.kwargs,
                 {"a", "indices", "axis", "mode"})
    if bound.get("mode", "raise") != "raise":
        raise NotLowered("take with mode other than 'raise'")
    a = _symbol_operand(bound["a"], "take's operand")
    x = b.value(a)
    dims = dims_of(b, x, a.meta)
    axis = bound.get("axis")
    if axis is None:
        flat = product(b, dims)
        x = b.node("Reshape", [x, shape_of(b, [flat])], a.meta.dtype, (flat,) if isinstance(flat, int) else None)
        axis, size = 0, flat
    else:
        (axis,) = const_axes(axis, a.meta.ndim)
        size = dims[axis]
    idx = _indices(b, bound["indices"], size)
    out = _out(st)
    return [b.node("Gather", [x, idx], a.meta.dtype, out.shape if not out.symbolic_axes else None, axis=axis)]


def _lower_take_along_axis(b, st):
    bound = bind("take_along_axis", ("arr", "indices", "axis"), st.args, st.kwargs, {"arr", "indices", "axis"})
    a = _symbol_operand(bound["arr"], "take_along_axis's operand")
    idx_sym = bound["indices"]
    if not isinstance(idx_sym, Symbol):
        raise NotLowered("take_along_axis with constant indices")
    x = b.value(a)
    axis = bound["axis"]
    if axis is None:
        flat = product(b, dims_of(b, x, a.meta))
        x = b.node("Reshape", [x, shape_of(b, [flat])], a.meta.dtype, (flat,) if isinstance(flat, int) else None)
        axis = 0
    else:
        (axis,) = const_axes(axis, a.meta.ndim)
        im, am = idx_sym.meta, a.meta
        same = all((im.shape[i], (im.shadow or im.shape)[i]) == (am.shape[i], (am.shadow or am.shape)[i])
                   for i in range(am.ndim) if i != axis)
        if not same:  # GatherElements does not broadcast
            raise NotLowered("take_along_axis with broadcast indices")
    idx = _indices(b, idx_sym, None)
    out = _out(st)
    return [b.node("GatherElements", [x, idx], a.meta.dtype, out.shape if not out.symbolic_axes else None,
                   axis=axis)]


GATHER_RULES = {
    ("function", "take"): _lower_take,
    ("method", "take"): _lower_take,
    ("function", "take_along_axis"): _lower_take_along_axis,
}


def has_checked_gather(graph) -> bool:
    """Whether a statement of ``graph`` gathers with traced indices (an out of
    bounds index fails in onnxruntime: see ``checked``)."""
    for st in graph.statements:
        name = (st.op.kind, st.op.name)
        if name in GATHER_RULES or name == ("operator", "getitem"):
            if any(isinstance(s, Symbol) and not s.meta.is_python for s in st.symbols_used()[1:]):
                return True
    return False
