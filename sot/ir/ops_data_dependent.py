"""Ops whose result size depends on the data (``sot.ir.unbacked``).

``np.nonzero``/``ndarray.nonzero``/``np.where(condition)``, ``np.flatnonzero``, ``np.argwhere``,
``np.unique`` (``return_index``/``return_inverse``/``return_counts``,
``axis=None`` or one axis: unique rows), ``np.compress``/``ndarray.compress``, ``np.extract``,
``np.bincount``, ``np.linalg.lstsq`` (its residuals), ``np.repeat`` by an
array of counts (``repeat_by_array``, called by the shape rule) and boolean-mask
indexing ``x[mask]`` (``getitem_mask``, called by the indexing rule).  Each returns an ``UnbackedResult``: the
metas, with the data-dependent count as ``UNBACKED_HINT``, and the axes
that hold it; all results of one call share the one count.  Dtypes and
the Python type come from NumPy on probes, as for every op.
"""

from __future__ import annotations

import numpy as np

from . import ops_elementwise  # noqa: F401 - registers the three-argument np.where first
from .errors import UnsupportedOp
from .registry import Op, bind, const_axes, lookup_function, meta_of_probe, register, run_probe
from .statement_ir import Symbol
from .unbacked import UNBACKED_HINT as U, UnbackedResult

__all__ = ["getitem_mask", "repeat_by_array", "TUPLE_RESULTS"]

#: ops whose several results NumPy returns as a tuple
TUPLE_RESULTS = frozenset({"nonzero", "unique", "lstsq", "where"})


def _array(value, what: str) -> Symbol:
    if not isinstance(value, Symbol) or value.meta.is_python:
        raise UnsupportedOp(f"{what} is not a traced array")
    return value


def _nonzero_infer(op, args, kwargs):
    if kwargs or len(args) != 1:
        raise UnsupportedOp("nonzero takes one array")
    a = _array(args[0], "nonzero's argument")
    result = run_probe(op, args, kwargs)   # a 0-d array: NumPy 2 raises
    metas = tuple(meta_of_probe(op, r, (U,)) for r in result)
    return UnbackedResult(metas, ((0,),) * len(metas)) if a.meta.ndim else _no_result(op)


def _no_result(op):
    raise UnsupportedOp(f"{op.name} of a 0-d array")


def _flatnonzero_infer(op, args, kwargs):
    bound = bind("flatnonzero", ("a",), args, kwargs, {"a"})
    _array(bound.get("a"), "flatnonzero's argument")
    return UnbackedResult(meta_of_probe(op, run_probe(op, args, kwargs), (U,)), ((0,),))


def _argwhere_infer(op, args, kwargs):
    bound = bind("argwhere", ("a",), args, kwargs, {"a"})
    a = _array(bound.get("a"), "argwhere's argument")
    return UnbackedResult(meta_of_probe(op, run_probe(op, args, kwargs), (U, a.meta.ndim)), ((0,),))


_UNIQUE_FLAGS = ("return_index", "return_inverse", "return_counts")


def _unique_infer(op, args, kwargs):
    params = ("ar",) + _UNIQUE_FLAGS + ("axis",)
    bound = bind("unique", params, args, kwargs, set(params) | {"equal_nan", "sorted"}, ("equal_nan", "sorted"))
    a = _array(bound.get("ar"), "unique's argument")
    for name in _UNIQUE_FLAGS + ("equal_nan", "sorted"):
        if type(bound.get(name, False)) is not bool:
            raise UnsupportedOp(f"unique: {name}= must be a constant bool")
    # axis=k: the distinct slices along k (unique rows); the inverse is 1-d along k
    axis = bound.get("axis")
    (axis,) = (None,) if axis is None else const_axes(axis, a.meta.ndim)
    shape = (U,) if axis is None else a.meta.shape[:axis] + (U,) + a.meta.shape[axis + 1:]
    inverse_shape = a.meta.shape if axis is None else (a.meta.shape[axis],)
    result = run_probe(op, args, kwargs)
    values = (0,) if axis is None else (axis,)
    if not any(bound.get(name, False) for name in _UNIQUE_FLAGS):
        return UnbackedResult(meta_of_probe(op, result, shape), (values,))
    metas, axes = [meta_of_probe(op, result[0], shape)], [values]
    for name, r in zip((n for n in _UNIQUE_FLAGS if bound.get(n, False)), result[1:]):
        inverse = name == "return_inverse"
        metas.append(meta_of_probe(op, r, inverse_shape if inverse else (U,)))
        axes.append(() if inverse else (0,))
    return UnbackedResult(tuple(metas), tuple(axes))


def _compress_infer(op, args, kwargs):
    if op.kind == "method":   # a.compress(condition, axis=None)
        bound = bind("compress", ("a", "condition", "axis"), args, kwargs, {"a", "condition", "axis"})
    else:
        bound = bind("compress", ("condition", "a", "axis"), args, kwargs, {"a", "condition", "axis"})
    a = _array(bound.get("a"), "compress's array")
    if isinstance(bound.get("condition"), (list, tuple)):
        return _compress_constant(op, args, kwargs, a, bound)
    condition = _array(bound.get("condition"), "compress's condition")
    if condition.meta.ndim != 1:   # any dtype: NumPy selects where it is nonzero
        raise UnsupportedOp("compress: the condition must be a 1-d array")
    result = run_probe(op, args, kwargs)
    axis = bound.get("axis")
    if axis is None:
        return UnbackedResult(meta_of_probe(op, result, (U,)), ((0,),))
    (axis,) = const_axes(axis, a.meta.ndim)
    shape = list(a.meta.shape)
    shape[axis] = U
    return UnbackedResult(meta_of_probe(op, result, shape), ((axis,),))


def _compress_constant(op, args, kwargs, a, bound):
    """A constant condition (``[True, False, True]``): the selected count is known."""
    condition = bound["condition"]
    if any(isinstance(c, Symbol) or type(c) not in (bool, int) for c in condition):
        raise UnsupportedOp("compress: a constant condition must hold Python bools or ints")
    axis = bound.get("axis")
    (ax,) = (None,) if axis is None else const_axes(axis, a.meta.ndim)
    n = int(np.prod(a.meta.shape)) if ax is None else a.meta.shape[ax]
    if any(condition[n:]):
        raise UnsupportedOp("compress: the condition selects beyond the axis (NumPy raises)")
    count = sum(1 for c in condition[:n] if c)
    probe = list(args), dict(kwargs)
    if "condition" in kwargs:
        probe[1]["condition"] = []
    else:
        probe[0][1 if op.kind == "method" else 0] = []
    result = run_probe(op, tuple(probe[0]), probe[1])
    if ax is None:
        return meta_of_probe(op, result, (count,))
    shape = list(a.meta.shape)
    shape[ax] = count
    return meta_of_probe(op, result, shape)


def _extract_infer(op, args, kwargs):
    bound = bind("extract", ("condition", "arr"), args, kwargs, {"condition", "arr"})
    _array(bound.get("condition"), "extract's condition")
    _array(bound.get("arr"), "extract's array")
    return UnbackedResult(meta_of_probe(op, run_probe(op, args, kwargs), (U,)), ((0,),))


#: dtype -> one past its largest value, where bincount's minlength= can fix the length
_BINCOUNT_BOUND = {np.dtype(bool): 2, np.dtype(np.uint8): 2 ** 8, np.dtype(np.uint16): 2 ** 16}


def _bincount_infer(op, args, kwargs):
    bound = bind("bincount", ("x", "weights", "minlength"), args, kwargs, {"x", "weights", "minlength"})
    x = _array(bound.get("x"), "bincount's argument")
    if x.meta.ndim != 1:
        raise UnsupportedOp("bincount: the argument must be 1-d (NumPy raises)")
    weights = bound.get("weights")
    if weights is not None and (not isinstance(weights, Symbol) or weights.meta.shape != x.meta.shape):
        raise UnsupportedOp("bincount: weights must be a traced array of the argument's shape")
    minlength = bound.get("minlength")
    if isinstance(minlength, Symbol):
        raise UnsupportedOp("bincount: minlength= is a traced value")
    result = run_probe(op, args, kwargs)
    if type(minlength) is int and minlength >= _BINCOUNT_BOUND.get(x.meta.dtype, minlength + 1):
        # every value is below minlength (a histogram of uint8 pixels): minlength bins, a static size
        return meta_of_probe(op, result, (minlength,))
    # at least minlength bins: a size NumPy never gives below it
    least = minlength if type(minlength) is int and minlength > 0 else 0
    return UnbackedResult(meta_of_probe(op, result, (U,)), ((0,),), least)


def _lstsq_infer(op, args, kwargs):
    """``np.linalg.lstsq(a, b, rcond)``: the residuals have K (or 1) entries
    when M > N and ``a`` has full rank, else none: a data-dependent length."""
    bound = bind("lstsq", ("a", "b", "rcond"), args, kwargs, {"a", "b", "rcond"})
    a, b = _array(bound.get("a"), "lstsq's a"), _array(bound.get("b"), "lstsq's b")
    if isinstance(bound.get("rcond"), Symbol):
        raise UnsupportedOp("lstsq: rcond= is a traced value")
    if a.meta.ndim != 2 or b.meta.ndim not in (1, 2) or b.meta.shape[0] != a.meta.shape[0]:
        raise UnsupportedOp(f"lstsq: shapes {a.meta.shape} and {b.meta.shape} (NumPy raises LinAlgError)")
    m, n = a.meta.shape
    x, residuals, rank, s = run_probe(op, args, kwargs)
    metas = (meta_of_probe(op, x, (n,) + b.meta.shape[1:]), meta_of_probe(op, residuals, (U,)),
             meta_of_probe(op, rank, ()), meta_of_probe(op, s, (min(m, n),)))
    return UnbackedResult(metas, ((), (0,), (), ()))


def repeat_by_array(op, args, kwargs, bound):
    """``np.repeat(a, repeats, axis)`` / ``a.repeat(...)`` with a traced array
    of counts: one count for all (0-d or one element) or one per element
    along the axis (the same size in both worlds: ``np.repeat(values,
    counts)`` of one ``np.unique`` shares its size); the repeated axis has a
    data-dependent size.  A negative count raises ValueError when the graph
    runs, as eagerly."""
    a, repeats = _array(bound.get("a"), "repeat's array"), bound["repeats"]
    if not np.can_cast(repeats.meta.dtype, np.intp, "safe"):
        raise UnsupportedOp(f"repeat: counts of dtype {repeats.meta.dtype} (NumPy raises TypeError)")
    axis = bound.get("axis")
    shape = list(a.meta.shape)
    (ax,) = (None,) if axis is None or not shape else const_axes(axis, len(shape))
    shadow = list(a.meta.shadow or a.meta.shape)
    n, n_shadow = (int(np.prod(shape)), int(np.prod(shadow))) if ax is None else (shape[ax], shadow[ax])
    counts = (tuple(repeats.meta.shape), tuple(repeats.meta.shadow or repeats.meta.shape))
    if counts not in (((), ()), ((1,), (1,)), ((n,), (n_shadow,))):
        raise UnsupportedOp(f"repeat: {repeats.meta.shape} counts for {n} elements (NumPy raises)"
                            if repeats.meta.ndim <= 1 and not repeats.meta.symbolic_axes
                            else "repeat: the counts' length is not the repeated axis'")
    probe_args, probe_kwargs = list(args), dict(kwargs)
    if "repeats" in kwargs:
        probe_kwargs["repeats"] = 1
    else:
        probe_args[1] = 1
    result = run_probe(op, tuple(probe_args), probe_kwargs)
    if ax is None:
        return UnbackedResult(meta_of_probe(op, result, (U,)), ((0,),))
    shape[ax] = U
    return UnbackedResult(meta_of_probe(op, result, shape), ((ax,),))


def getitem_mask(x: Symbol, index):
    """``x[index]`` when ``index`` is one traced boolean array, or a tuple of
    one with ints and slices (``S[mask, t]``, ``X[:, mask]``); None when it
    holds none.  NumPy reads the mask as the positions of its Trues, one
    index array per axis it masks: the result's shape is that of an index of
    such arrays (NumPy's rule), whose common length is data-dependent."""
    items = index if type(index) is tuple else (index,)
    masks = [i for i, it in enumerate(items) if _is_mask(it)]
    if not masks:
        return None
    if len(masks) > 1 or not all(_plain_item(it) for i, it in enumerate(items) if i != masks[0]):
        raise UnsupportedOp("a boolean index beside other index arrays, None or an Ellipsis is not captured")
    p = masks[0]
    mask = items[p]
    k = mask.meta.ndim
    if mask.meta.is_scalar or k == 0:
        raise UnsupportedOp("indexing with a 0-d boolean array is not captured")
    if x.meta.is_scalar or tuple(mask.meta.shape) != tuple(x.meta.shape[p:p + k]):
        raise UnsupportedOp("a boolean index must have the shape of the axes it masks")
    from .meta import TensorMeta
    from .ops_indexing import getitem_shape

    # the masked axes only bound the positions (which are in bounds): 1 each,
    # so that positions on an empty axis are not refused
    bounds = tuple(x.meta.shape[:p]) + (1,) * k + tuple(x.meta.shape[p + k:])

    def shape_for(count):
        positions = Symbol("mask#positions", TensorMeta((count,), np.dtype(np.intp), False))
        return getitem_shape(bounds, items[:p] + (positions,) * k + items[p + 1:])
    shape = shape_for(U)
    axis = next(i for i, (a, b) in enumerate(zip(shape, shape_for(U + 1))) if a != b)
    return UnbackedResult(TensorMeta(shape, x.meta.dtype, False), ((axis,),))


def _is_mask(item) -> bool:
    return isinstance(item, Symbol) and not item.meta.is_python and item.meta.dtype.kind == "b"


def _plain_item(item) -> bool:
    """An int, a slice, or an int known at run time (a 0-d integer array)."""
    if isinstance(item, Symbol):
        return not item.meta.is_python and item.meta.shape == () and item.meta.dtype.kind in "iu"
    return isinstance(item, slice) or (isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)))


for _name, _fn, _infer in (("nonzero", np.nonzero, _nonzero_infer), ("flatnonzero", np.flatnonzero, _flatnonzero_infer),
                           ("argwhere", np.argwhere, _argwhere_infer), ("unique", np.unique, _unique_infer),
                           ("compress", np.compress, _compress_infer), ("extract", np.extract, _extract_infer),
                           ("bincount", np.bincount, _bincount_infer)):
    register(Op(_name, "function", _fn, _infer))
register(Op("lstsq", "function", np.linalg.lstsq, _lstsq_infer))
_WHERE = lookup_function(np.where)   # ops_elementwise: the three-argument form


def _where_infer(op, args, kwargs):
    """``np.where(condition)`` is ``np.nonzero(condition)``."""
    if len(args) == 1 and not kwargs:
        return _nonzero_infer(op, args, kwargs)
    return _WHERE.infer(args, kwargs)


register(Op("where", "function", np.where, _where_infer))
register(Op("nonzero", "method", "nonzero", _nonzero_infer))
register(Op("compress", "method", "compress", _compress_infer))


# -- the array-API unique functions (NumPy 2): unique_values, unique_counts,
# unique_inverse, unique_all; their several results are named tuples

_UNIQUE_API = {"unique_values": ("values",), "unique_counts": ("values", "counts"),
               "unique_inverse": ("values", "inverse_indices"),
               "unique_all": ("values", "indices", "inverse_indices", "counts")}
#: op name -> the named-tuple class NumPy returns
NAMED_RESULTS = {name: type(getattr(np, name)(np.zeros(1))) for name, fields in _UNIQUE_API.items()
                 if hasattr(np, name) and len(fields) > 1}


def _unique_api_infer(op, args, kwargs):
    bound = bind(op.name, ("x",), args, kwargs, {"x"})
    x = _array(bound.get("x"), f"{op.name}'s argument")
    result = run_probe(op, args, kwargs)
    fields = _UNIQUE_API[op.name]
    if len(fields) == 1:
        return UnbackedResult(meta_of_probe(op, result, (U,)), ((0,),))
    inverse = [f == "inverse_indices" for f in fields]
    metas = tuple(meta_of_probe(op, r, x.meta.shape if inv else (U,)) for r, inv in zip(result, inverse))
    return UnbackedResult(metas, tuple(() if inv else (0,) for inv in inverse))


for _name in _UNIQUE_API:
    if hasattr(np, _name):
        register(Op(_name, "function", getattr(np, _name), _unique_api_infer))
