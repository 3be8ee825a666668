"""Indexing (``x[index]``, and ``np.take``): basic (ints, slices, None, Ellipsis) and
integer-array indexing.

Shape rule (NumPy's): after expanding the Ellipsis, ints drop their axis,
slices keep ``len(range(d)[slice])``, None inserts a 1.  Integer index arrays
(traced arrays, or constant lists of ints) and — when any array is present —
ints are *advanced* indices: their shapes broadcast to B, which replaces them
in place when they are adjacent and goes first otherwise.  Boolean indices
select a data-dependent number of elements and are not captured.  A 0-d
integer array (or NumPy integer) index acts like an int whose value is only
known at run time (an out-of-bounds value raises then, as eagerly).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .errors import UnsupportedOp
from .registry import Op, broadcast, call_quietly, meta_of_probe, probe_shape, register, substitute
from .statement_ir import Symbol


def _classify(item):
    """(kind, payload) for one index item."""
    if item is None:
        return ("new", None)
    if item is Ellipsis:
        return ("ellipsis", None)
    if isinstance(item, slice):
        return ("slice", item)
    if isinstance(item, (bool, np.bool_)):
        raise UnsupportedOp("indexing with a boolean scalar is not captured")
    if isinstance(item, (int, np.integer)):
        return ("int", int(item))
    if isinstance(item, Symbol):
        kind = item.meta.dtype.kind
        if kind == "b":
            raise UnsupportedOp("boolean-array indexing gives a data-dependent shape")
        if kind not in "iu":
            raise UnsupportedOp(f"index array of dtype {item.meta.dtype} (NumPy raises IndexError)")
        if item.meta.shape == ():
            return ("int", None)
        return ("array", (item.meta.shape, None))
    if isinstance(item, (list, tuple)):
        try:
            values = np.asarray(item)
        except Exception:
            raise UnsupportedOp("index sequence is not an array of ints") from None
        if values.size == 0 and values.dtype.kind == "f":
            values = values.astype(np.intp)
        if values.dtype.kind == "b":
            raise UnsupportedOp("boolean-array indexing gives a data-dependent shape")
        if values.dtype.kind not in "iu":
            raise UnsupportedOp("index sequence is not an array of ints")
        return ("array", (values.shape, values))
    raise UnsupportedOp(f"index of type {type(item).__name__} is not captured")


def getitem_shape(shape, index) -> tuple[int, ...]:
    items = index if type(index) is tuple else (index,)
    if type(index) is not tuple and isinstance(index, list):
        items = (index,)
    entries = [_classify(it) for it in items]
    if sum(k == "ellipsis" for k, _ in entries) > 1:
        raise UnsupportedOp("an index can only have a single ellipsis")
    consumed = sum(k in ("int", "slice", "array") for k, _ in entries)
    if consumed > len(shape):
        raise UnsupportedOp(f"too many indices for an array of ndim {len(shape)}")
    fill = [("slice", slice(None))] * (len(shape) - consumed)
    if any(k == "ellipsis" for k, _ in entries):
        i = next(i for i, (k, _) in enumerate(entries) if k == "ellipsis")
        entries = entries[:i] + [("ellipsis", fill)] + entries[i + 1:]
    else:
        entries = entries + [("ellipsis", fill)]
    has_array = any(k == "array" for k, _ in entries)

    out: list = []              # dims, with "ADV" placeholders for advanced indices
    array_checks = []           # (axis size, constant index values or None)
    adv_shapes = []
    adv_positions = []          # positions in the index (an ellipsis counts as one)
    axis = 0
    for pos, (kind, payload) in enumerate(entries):
        if kind == "new":
            out.append(1)
        elif kind == "ellipsis":
            for _ in payload:
                out.append(shape[axis])
                axis += 1
        elif kind == "slice":
            try:
                out.append(len(range(shape[axis])[payload]))
            except (ValueError, TypeError) as e:
                raise UnsupportedOp(f"bad slice {payload!r}: {e}") from None
            axis += 1
        else:
            d = shape[axis]
            if kind == "int":
                if payload is not None and not -d <= payload < d:
                    raise UnsupportedOp(f"index {payload} is out of bounds for size {d} (NumPy raises IndexError)")
                index_shape = ()
            else:
                index_shape, values = payload
                array_checks.append((d, values))
            axis += 1
            if has_array:
                out.append("ADV")
                adv_shapes.append(index_shape)
                adv_positions.append(pos)
    if not has_array:
        return tuple(out)
    b = broadcast(*adv_shapes)
    if math.prod(b):  # NumPy checks index arrays only when they select something
        for d, values in array_checks:
            if values is not None and (values.min() < -d or values.max() >= d):
                raise UnsupportedOp(f"an index is out of bounds for size {d} (NumPy raises IndexError)")
            if values is None and d == 0:
                raise UnsupportedOp("indexing an empty axis with a non-empty index array")
    adjacent = adv_positions == list(range(adv_positions[0], adv_positions[0] + len(adv_positions)))
    first = out.index("ADV")
    rest = [d for d in out if d != "ADV"]
    if adjacent:
        return tuple(rest[:first]) + b + tuple(rest[first:])
    return b + tuple(rest)


def _probe_index_item(item):
    if isinstance(item, Symbol):
        if item.meta.is_scalar:
            return item.meta.dtype.type(0)
        return np.zeros(probe_shape(item.meta.shape), item.meta.dtype)
    if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
        return 0
    if isinstance(item, (list, tuple)):
        arr = np.asarray(item)
        return np.zeros(probe_shape(arr.shape), arr.dtype if arr.dtype.kind in "iu" else np.intp)
    return item


def bool_lists_as_positions(shape, index):
    """``index`` with each constant 1-d list of bools replaced by the
    positions of its Trues, as NumPy reads it (``x[:, [True, False, True]]``
    is ``x[:, [0, 2]]``), so its shape is static.  A mask whose length is not
    its axis's size is refused (NumPy raises IndexError); so is one after an
    Ellipsis (its axis is not counted here)."""
    items = index if type(index) is tuple else (index,)
    out, axis = [], 0
    for item in items:
        if isinstance(item, list) and item and all(isinstance(v, (bool, np.bool_)) for v in item):
            if axis is None or axis >= len(shape) or len(item) != shape[axis]:
                raise UnsupportedOp("a boolean list index must have its axis's length (NumPy raises IndexError)")
            item = [i for i, v in enumerate(item) if v]
        out.append(item)
        if item is Ellipsis:
            axis = None
        elif axis is not None and item is not None:
            axis += 1
    return tuple(out) if type(index) is tuple else out[0]


def _getitem_infer(op, args, kwargs):
    if kwargs or len(args) != 2:
        raise UnsupportedOp("getitem takes (array, index)")
    x, index = args
    if not isinstance(x, Symbol):
        raise UnsupportedOp("only traced arrays are indexed")
    from .ops_data_dependent import getitem_mask
    masked = getitem_mask(x, index)
    if masked is not None:
        return masked
    index = bool_lists_as_positions(x.meta.shape, index)
    shape = getitem_shape(x.meta.shape, index)
    if type(index) is tuple:
        pindex = tuple(_probe_index_item(it) for it in index)
    else:
        pindex = _probe_index_item(index)
    result = call_quietly(op, (substitute(x), pindex), {})
    return meta_of_probe(op, result, shape)


register(Op("getitem", "operator", operator.getitem, _getitem_infer))


def _take_infer(op, args, kwargs):
    from .registry import bind, const_axes
    bound = bind("take", ("a", "indices", "axis", "out", "mode"), args, kwargs, {"a", "indices", "axis", "mode"})
    if "indices" not in bound or not isinstance(bound["a"], Symbol):
        raise UnsupportedOp("take: expects a traced array and indices")
    shape = bound["a"].meta.shape
    kind, payload = _classify(bound["indices"])
    if kind == "int":
        index_shape, values = (), (None if payload is None else np.array([payload]))
    elif kind == "array":
        index_shape, values = payload
    else:
        raise UnsupportedOp("take: indices must be ints")
    axis = bound.get("axis")
    if axis is None:
        d = math.prod(shape)
        out = tuple(index_shape)
    elif not shape:  # NumPy takes along axis 0/-1 of a 0-d array as if it had size 1
        d, out = 1, tuple(index_shape)
    else:
        (axis,) = const_axes(axis, len(shape))
        d = shape[axis]
        out = tuple(shape[:axis]) + tuple(index_shape) + tuple(shape[axis + 1:])
    if values is not None and values.size and bound.get("mode", "raise") == "raise" and (
            values.min() < -d or values.max() >= d):
        raise UnsupportedOp(f"take: an index is out of bounds for size {d}")
    pindex = _probe_index_item(bound["indices"])
    pargs = list(args)
    pkwargs = dict(kwargs)
    if len(args) > 1:
        pargs[1] = pindex
    else:
        pkwargs["indices"] = pindex
    result = call_quietly(op, (substitute(pargs[0]), *pargs[1:]), pkwargs)
    return meta_of_probe(op, result, out)


register(Op("take", "function", np.take, _take_infer))
register(Op("take", "method", "take", _take_infer))
