"""More of NumPy's API: conversions (asarray, array, ascontiguousarray,
asfortranarray, ndarray.view), elementwise helpers (angle, sinc), ptp and
nancumsum/nancumprod, partition/argpartition, searchsorted,
take_along_axis, convolve/correlate, quantiles, interp, cov/corrcoef, and
constructors from sizes (tri, indices, tril/triu_indices, meshgrid, diag,
histogram with static bins).

Same contract as every ``ops_*`` module: the shape from a rule in pure
Python (valid for symbolic dims), dtype and Python type from a probe run.
Where a probe (every dim at most 1) would fail on arguments that are valid
for the real sizes (``kth``, a bin count), the rule checks them against the
real shape and the probe gets a stand-in that is valid at size 1.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import UnsupportedOp
from .ops_linalg import diagonal_shape
from .ops_reduction import _cumulative_shape, _reduction_shape
from .registry import (Op, bind, broadcast, call_quietly, const_axes, const_int, meta_of_probe,
                       probe_value, register, run_probe, shape_of, simple_op)
from .statement_ir import Symbol

#: ops whose eager result is a tuple of arrays (the IR's multi-output ops give a list)
TUPLE_RESULTS = frozenset({"average", "linspace", "meshgrid", "tril_indices", "triu_indices", "histogram", "histogram2d", "divmod", "modf",
                           "frexp"})


def _probed(op, args, kwargs, shape):
    return meta_of_probe(op, run_probe(op, args, kwargs), shape)


# ----------------------------------------------------------------------------
# conversions

def _nested_shape(value) -> tuple[int, ...]:
    """The shape ``np.array`` gives a (nested) sequence of arrays and numbers;
    ragged nests (an error in NumPy 2) are refused."""
    if isinstance(value, Symbol):
        return value.meta.shape
    if isinstance(value, (list, tuple)):
        if not value:
            return (0,)
        inner = {_nested_shape(v) for v in value}
        if len(inner) != 1:
            raise UnsupportedOp("array: ragged nested sequence")
        return (len(value),) + inner.pop()
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return ()
    raise UnsupportedOp(f"array: operand of type {type(value).__name__}")


def _array_infer(op, args, kwargs):
    if op.name == "array":
        b = bind("array", ("object", "dtype"), args, kwargs, {"object", "dtype", "ndmin", "order", "copy"},
                 kwonly=("copy", "order", "ndmin"))
        if b.get("copy", True) is not True:
            raise UnsupportedOp("array: copy= other than True may share memory")
        ndmin = const_int(b.get("ndmin", 0), "ndmin")
    else:
        b = bind(op.name, ("a", "dtype", "order"), args, kwargs, {"a", "dtype", "order"})
        ndmin = 0
    obj = b.get("object", b.get("a"))
    if obj is None and "object" not in b and "a" not in b:
        raise UnsupportedOp(f"{op.name}: expects an operand")
    shape = _nested_shape(obj)
    shape = (1,) * max(0, ndmin - len(shape)) + shape
    return _probed(op, args, kwargs, shape)


register(Op("array", "function", np.array, _array_infer))
register(Op("asarray", "function", np.asarray, _array_infer))
# asarray that raises ValueError on an inf or NaN when the graph runs, as eagerly
register(Op("asarray_chkfinite", "function", np.asarray_chkfinite, _array_infer))


def _contiguous_infer(op, args, kwargs):
    b = bind(op.name, ("a", "dtype"), args, kwargs, {"a", "dtype"})
    shape = _nested_shape(b["a"]) if "a" in b else None
    if shape is None:
        raise UnsupportedOp(f"{op.name}: expects an operand")
    return _probed(op, args, kwargs, shape or (1,))  # 0-d becomes 1-d


register(Op("ascontiguousarray", "function", np.ascontiguousarray, _contiguous_infer))
register(Op("asfortranarray", "function", np.asfortranarray, _contiguous_infer))


def _view_infer(op, args, kwargs):
    if kwargs or len(args) > 2:
        raise UnsupportedOp("view: only view() and view(dtype) are captured")
    a = args[0]
    if len(args) == 2:
        try:
            dtype = np.dtype(args[1])
        except TypeError:
            raise UnsupportedOp("view: the argument is not a dtype") from None
        if dtype.itemsize != a.meta.dtype.itemsize:
            raise UnsupportedOp("view: a dtype of another size depends on the strides")
    return _probed(op, args, kwargs, a.meta.shape)


register(Op("view", "method", "view", _view_infer))


# ----------------------------------------------------------------------------
# elementwise helpers, ptp, nancumsum/nancumprod

def _same_shape(name, params, allowed):
    def rule(args, kwargs):
        return shape_of(bind(name, params, args, kwargs, allowed)["x" if "x" in params else "z"])
    return rule


simple_op("angle", "function", np.angle, _same_shape("angle", ("z", "deg"), {"z", "deg"}))
simple_op("sinc", "function", np.sinc, _same_shape("sinc", ("x",), {"x"}))
simple_op("ptp", "function", np.ptp, _reduction_shape("ptp", ("axis", "out", "keepdims")))
for _name in ("nancumsum", "nancumprod"):
    simple_op(_name, "function", getattr(np, _name), _cumulative_shape(_name, ("axis", "dtype", "out")))


# ----------------------------------------------------------------------------
# partition, searchsorted, take_along_axis

def _partition_infer(op, args, kwargs):
    b = bind(op.name, ("a", "kth", "axis", "kind", "order"), args, kwargs, {"a", "kth", "axis", "kind"})
    if "kth" not in b:
        raise UnsupportedOp(f"{op.name}: expects kth")
    shape = shape_of(b["a"])
    if "axis" in b and b["axis"] is None:
        n, out = math.prod(shape), (math.prod(shape),)
    else:
        if not shape:
            raise UnsupportedOp(f"{op.name}: 0-d operand")
        (axis,) = const_axes(b.get("axis", -1), len(shape))
        n, out = shape[axis], shape
    kth = b["kth"]
    kths = [const_int(k, "kth") for k in (kth if isinstance(kth, (list, tuple)) else [kth])]
    empty = math.prod(shape) == 0  # NumPy checks nothing on an empty array
    if not empty and any(not -n <= k < n for k in kths):  # eager raises ValueError
        raise UnsupportedOp(f"{op.name}: kth out of bounds")
    b["kth"] = [0] * len(kths) if isinstance(kth, (list, tuple)) else 0
    return _probed(op, (), b, out)


register(Op("partition", "function", np.partition, _partition_infer))
register(Op("argpartition", "function", np.argpartition, _partition_infer))


def _searchsorted_infer(op, args, kwargs):
    b = bind("searchsorted", ("a", "v", "side", "sorter"), args, kwargs, {"a", "v", "side", "sorter"})
    if "a" not in b or "v" not in b:
        raise UnsupportedOp("searchsorted: expects a and v")
    if len(shape_of(b["a"])) != 1:
        raise UnsupportedOp("searchsorted: the sorted operand must be 1-d")
    sorter = b.get("sorter")
    if sorter is not None:
        # a permutation of a's positions (np.argsort(a)); one of another size raises eagerly
        if shape_of(sorter) != shape_of(b["a"]):
            raise UnsupportedOp("searchsorted: NumPy raises ValueError: sorter.size must equal a.size")
        if isinstance(sorter, Symbol):   # position 0 is in range of every probe (past it raises at run time)
            b["sorter"] = np.zeros(tuple(min(d, 1) for d in sorter.meta.shape), sorter.meta.dtype)
    return _probed(op, (), b, shape_of(b["v"]))


register(Op("searchsorted", "function", np.searchsorted, _searchsorted_infer))


def _searchsorted_method_infer(op, args, kwargs):
    if not args:
        raise UnsupportedOp("searchsorted: expects an array")
    b = bind("searchsorted", ("v", "side", "sorter"), args[1:], kwargs, {"v", "side", "sorter"})
    function = Op("searchsorted", "function", np.searchsorted, _searchsorted_infer)
    return _searchsorted_infer(function, (args[0],), b)


register(Op("searchsorted", "method", "searchsorted", _searchsorted_method_infer))


def _take_along_axis_shape(args, kwargs):
    b = bind("take_along_axis", ("arr", "indices", "axis"), args, kwargs, {"arr", "indices", "axis"})
    if "indices" not in b or "axis" not in b:
        raise UnsupportedOp("take_along_axis: expects arr, indices and axis")
    arr, idx = shape_of(b["arr"]), shape_of(b["indices"])
    if "axis" not in b:
        raise UnsupportedOp("take_along_axis: axis must be given")
    if b["axis"] is None:
        if len(idx) != 1:
            raise UnsupportedOp("take_along_axis: indices must be 1-d with axis=None")
        return idx
    if len(arr) != len(idx) or not arr:
        raise UnsupportedOp("take_along_axis: indices and arr differ in ndim")
    (axis,) = const_axes(b["axis"], len(arr))
    outer = broadcast(arr[:axis] + (1,) + arr[axis + 1:], idx[:axis] + (1,) + idx[axis + 1:])
    return outer[:axis] + (idx[axis],) + outer[axis + 1:]


def _take_along_axis_infer(op, args, kwargs):
    shape = _take_along_axis_shape(args, kwargs)
    b = bind("take_along_axis", ("arr", "indices", "axis"), args, kwargs, {"arr", "indices", "axis"})
    idx = b["indices"]
    if isinstance(idx, Symbol):  # index 0 is in bounds of every probe (out of bounds raises at run time)
        b["indices"] = np.zeros(tuple(min(d, 1) for d in idx.meta.shape), idx.meta.dtype)
    return _probed(op, (), b, shape)


register(Op("take_along_axis", "function", np.take_along_axis, _take_along_axis_infer))


# ----------------------------------------------------------------------------
# convolve, correlate, quantiles, interp, cov

def _convolve_shape(name, default_mode):
    def rule(args, kwargs):
        b = bind(name, ("a", "v", "mode"), args, kwargs, {"a", "v", "mode"})
        a, v = shape_of(b["a"]), shape_of(b["v"])
        if len(a) > 1 or len(v) > 1:
            raise UnsupportedOp(f"{name}: operands must be 1-d")
        n, m = math.prod(a), math.prod(v)
        if n == 0 or m == 0:
            raise UnsupportedOp(f"{name}: empty operand")
        mode = b.get("mode", default_mode)
        sizes = {"full": n + m - 1, "same": max(n, m), "valid": max(n, m) - min(n, m) + 1}
        if mode not in sizes:
            raise UnsupportedOp(f"{name}: mode {mode!r}")
        return (sizes[mode],)
    return rule


simple_op("convolve", "function", np.convolve, _convolve_shape("convolve", "full"))
simple_op("correlate", "function", np.correlate, _convolve_shape("correlate", "valid"))


def _quantile_infer(op, args, kwargs):
    b = bind(op.name, ("a", "q", "axis", "out", "overwrite_input", "method", "keepdims"), args, kwargs,
             {"a", "q", "axis", "method", "keepdims"})
    if "q" not in b:
        raise UnsupportedOp(f"{op.name}: no q (NumPy raises)")
    # traced q (np.linspace(0, 1, 5)): its shape leads the result's; a q out of
    # range raises ValueError when the graph runs, as eagerly
    q = shape_of(b["q"])
    rest = _reduction_shape(op.name, ("axis",))((b["a"],), {"axis": b.get("axis"),
                                                             "keepdims": b.get("keepdims", False)})
    return _probed(op, args, kwargs, tuple(q) + tuple(rest))


for _name in ("percentile", "quantile", "nanpercentile", "nanquantile"):
    register(Op(_name, "function", getattr(np, _name), _quantile_infer))


def _interp_shape(args, kwargs):
    b = bind("interp", ("x", "xp", "fp", "left", "right", "period"), args, kwargs,
             {"x", "xp", "fp", "left", "right", "period"})
    period = b.get("period")
    # a period of 0 raises ValueError: only a constant one other than 0 (a traced one could be 0)
    if period is not None and (type(period) not in (int, float) or period == 0):
        raise UnsupportedOp("interp: period= must be a constant number other than 0")
    xp, fp = shape_of(b["xp"]), shape_of(b["fp"])
    if len(xp) != 1 or xp != fp or not xp[0]:
        raise UnsupportedOp("interp: xp and fp must be non-empty 1-d of one length")
    return shape_of(b["x"])


simple_op("interp", "function", np.interp, _interp_shape)


def _cov_variables(shape, rowvar):
    """(variables, observations) of a cov/corrcoef operand: NumPy's
    ``array(m, ndmin=2)``, transposed where ``rowvar`` is False and it has more
    than one row."""
    s2 = (1,) * (2 - len(shape)) + tuple(shape)
    return s2[::-1] if not rowvar and s2[0] != 1 else s2


def _cov_probe(value):
    """A stand-in keeping which dims are 1 (the result squeezes one variable to 0-d)."""
    if not isinstance(value, Symbol) or value.meta.is_scalar:
        return probe_value(value.meta) if isinstance(value, Symbol) else value
    return np.ones(tuple(min(d, 2) for d in value.meta.shape), value.meta.dtype)


def _cov_infer(op, args, kwargs):
    params = ("m", "y", "rowvar", "bias", "ddof", "fweights", "aweights") if op.name == "cov" else \
        ("x", "y", "rowvar")
    b = bind(op.name, params, args, kwargs, {params[0], "y", "rowvar", "bias", "ddof", "dtype", "fweights", "aweights"},
             kwonly=("dtype",))
    m, y = b[params[0]], b.get("y")
    rowvar = b.get("rowvar", True)
    operands = [m] if y is None else [m, y]
    if any(len(shape_of(v)) > 2 for v in operands) or type(rowvar) is not bool or not isinstance(m, Symbol) or \
            not all(isinstance(v, Symbol) for v in operands):
        raise UnsupportedOp(f"{op.name}: traced operands of at most 2 dims")
    shapes = [_cov_variables(shape_of(v), rowvar) for v in operands]
    if len({obs for _, obs in shapes}) != 1:
        raise UnsupportedOp(f"{op.name}: m and y differ in observations (NumPy raises)")
    n = sum(variables for variables, _ in shapes)
    for k, v in zip((params[0], "y"), operands):
        b[k] = _cov_probe(v)
    for k in ("fweights", "aweights"):   # one per observation; a negative one raises when the graph runs
        if b.get(k) is not None:
            if shape_of(b[k]) != (shapes[0][1],):
                raise UnsupportedOp(f"{op.name}: {k}= must be 1-d, one per observation (NumPy raises)")
            dtype = b[k].meta.dtype if isinstance(b[k], Symbol) else np.asarray(b[k]).dtype
            b[k] = np.ones(min(shapes[0][1], 2), dtype)
    result = call_quietly(op, (), b)
    return meta_of_probe(op, result, () if n == 1 else (n, n))


register(Op("cov", "function", np.cov, _cov_infer))
register(Op("corrcoef", "function", np.corrcoef, _cov_infer))


# ----------------------------------------------------------------------------
# constructors from sizes: tri, indices, tril/triu_indices, meshgrid, diag, histogram

def _size(value, what):
    n = const_int(value, what)
    if n < 0:
        raise UnsupportedOp(f"{what} is negative")
    return n


def _tri_infer(op, args, kwargs):
    b = bind("tri", ("N", "M", "k", "dtype"), args, kwargs, {"N", "M", "k", "dtype"}, kwonly=("like",))
    n = _size(b["N"], "N")
    m = n if b.get("M") is None else _size(b["M"], "M")
    const_int(b.get("k", 0), "k")
    return _probed(op, (), dict(b, N=min(n, 1), M=min(m, 1)), (n, m))


register(Op("tri", "function", np.tri, _tri_infer))


def _indices_infer(op, args, kwargs):
    b = bind("indices", ("dimensions", "dtype", "sparse"), args, kwargs, {"dimensions", "dtype"})
    dims = b["dimensions"]
    if not isinstance(dims, (tuple, list)):
        raise UnsupportedOp("indices: dimensions must be a sequence")
    dims = tuple(_size(d, "dimensions") for d in dims)
    return _probed(op, (), dict(b, dimensions=tuple(min(d, 1) for d in dims)), (len(dims),) + dims)


register(Op("indices", "function", np.indices, _indices_infer))


def _tri_indices_infer(op, args, kwargs):
    b = bind(op.name, ("n", "k", "m"), args, kwargs, {"n", "k", "m"})
    n = _size(b["n"], "n")
    k = const_int(b.get("k", 0), "k")
    m = n if b.get("m") is None else _size(b["m"], "m")
    result = call_quietly(op, (1,), {})
    return tuple(meta_of_probe(op, r, (_tri_count(op.name, n, m, k),)) for r in result)


def _tri_count(name, n, m, k) -> int:
    """How many (i, j) of an n x m grid have j - i <= k (tril) or j - i >= k (triu)."""
    if name == "tril_indices":
        return sum(min(max(i + k + 1, 0), m) for i in range(n))
    return sum(m - min(max(i + k, 0), m) for i in range(n))


register(Op("tril_indices", "function", np.tril_indices, _tri_indices_infer))
register(Op("triu_indices", "function", np.triu_indices, _tri_indices_infer))


def _meshgrid_infer(op, args, kwargs):
    for k, v in kwargs.items():
        if k not in ("indexing", "sparse", "copy"):
            raise UnsupportedOp(f"meshgrid: keyword {k}=")
    if kwargs.get("copy", True) is not True:
        raise UnsupportedOp("meshgrid: copy=False gives views")
    if not args:
        raise UnsupportedOp("meshgrid: no operands")
    sizes = [math.prod(shape_of(a)) for a in args]
    sparse, indexing = kwargs.get("sparse", False), kwargs.get("indexing", "xy")
    if indexing not in ("xy", "ij") or type(sparse) is not bool:
        raise UnsupportedOp("meshgrid: bad indexing or sparse")
    full = list(sizes)
    if indexing == "xy" and len(full) > 1:
        full[0], full[1] = full[1], full[0]
    shapes = []
    for i in range(len(sizes)):
        if not sparse:
            shapes.append(tuple(full))
            continue
        s = [1] * len(sizes)
        axis = i if indexing == "ij" or len(sizes) < 2 or i > 1 else 1 - i
        s[axis] = sizes[i]
        shapes.append(tuple(s))
    result = run_probe(op, args, kwargs)
    return tuple(meta_of_probe(op, r, s) for r, s in zip(result, shapes))


register(Op("meshgrid", "function", np.meshgrid, _meshgrid_infer))


def _diag_shape(args, kwargs):
    b = bind("diag", ("v", "k"), args, kwargs, {"v", "k"})
    shape = shape_of(b["v"])
    k = const_int(b.get("k", 0), "k")
    if len(shape) == 1:
        n = shape[0] + abs(k)
        return (n, n)
    if len(shape) == 2:
        return diagonal_shape(shape, k, 0, 1)
    raise UnsupportedOp("diag: input must be 1-d or 2-d")


simple_op("diag", "function", np.diag, _diag_shape)


def _histogram_infer(op, args, kwargs):
    b = bind("histogram", ("a", "bins", "range", "density", "weights"), args, kwargs,
             {"a", "bins", "range", "density", "weights"})
    bins, rng = b.get("bins", 10), b.get("range")
    def number(x):
        return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))

    if b.get("weights") is not None and shape_of(b["weights"]) != shape_of(b.get("a")):
        raise UnsupportedOp("histogram: weights must have the shape of a (NumPy raises)")
    if isinstance(bins, Symbol):   # traced edges: NumPy checks that they increase when the graph runs
        if bins.meta.is_python or bins.meta.ndim != 1 or bins.meta.shape[0] < 2:
            raise UnsupportedOp("histogram: traced bins must be 1-d edges (at least two)")
        n = bins.meta.shape[0] - 1
        b["bins"] = np.arange(2, dtype=bins.meta.dtype)
        result = run_probe(op, (), b)
        return (meta_of_probe(op, result[0], (n,)), meta_of_probe(op, result[1], (n + 1,)))
    if isinstance(bins, (list, tuple)):
        n = len(bins) - 1
        if n < 1 or not all(number(x) for x in bins):
            raise UnsupportedOp("histogram: bins must be constant edges")
    else:
        n = const_int(bins, "bins")   # without range, the graph computes the edges from the data's min and max
        if n < 1:
            raise UnsupportedOp("histogram: bins must be positive (NumPy raises)")
    if rng is not None:
        if not isinstance(rng, (list, tuple)) or len(rng) != 2 or not all(number(x) for x in rng):
            raise UnsupportedOp("histogram: range must be two constant numbers")
        lo, hi = rng
        if not lo <= hi or not np.isfinite([lo, hi]).all():
            raise UnsupportedOp("histogram: range must be constant and finite")
    if isinstance(bins, (list, tuple)) and any(x > y for x, y in zip(bins, bins[1:])):
        raise UnsupportedOp("histogram: bins must increase")
    result = run_probe(op, args, kwargs)
    return (meta_of_probe(op, result[0], (n,)), meta_of_probe(op, result[1], (n + 1,)))


register(Op("histogram", "function", np.histogram, _histogram_infer))


def _int_bins(value, what: str) -> int:
    n = const_int(value, f"{what}: bins (an int; edges or a rule name are not captured)")
    if n < 1:
        raise UnsupportedOp(f"{what}: bins must be positive (NumPy raises)")
    return n


def _constant_range(rng, pairs: int, what: str) -> None:
    if rng is None:
        return
    items = rng if pairs > 1 else [rng]
    if not isinstance(rng, (list, tuple)) or len(items) != pairs or any(
            not isinstance(r, (list, tuple)) or len(r) != 2 or shape_of(r) != (2,) for r in items):
        raise UnsupportedOp(f"{what}: range must be constant pairs of numbers")


def _bin_edges_infer(op, args, kwargs):
    b = bind("histogram_bin_edges", ("a", "bins", "range", "weights"), args, kwargs, {"a", "bins", "range"})
    n = _int_bins(b.get("bins", 10), "histogram_bin_edges")
    _constant_range(b.get("range"), 1, "histogram_bin_edges")
    return meta_of_probe(op, run_probe(op, args, kwargs), (n + 1,))


register(Op("histogram_bin_edges", "function", np.histogram_bin_edges, _bin_edges_infer))


def _bins_of_axis(value) -> int:
    """How many bins one axis of histogram2d has: ``bins=[3, edges]``, edges a traced
    1-d array (returned as it is: NumPy's asarray of it; edges out of order raise at run time)."""
    if isinstance(value, Symbol) and not value.meta.is_python:
        if value.meta.ndim != 1 or value.meta.shape[0] < 1:
            raise UnsupportedOp("histogram2d: bin edges must be a 1-d array of at least one edge")
        return value.meta.shape[0] - 1
    return _int_bins(value, "histogram2d")


def _histogram2d_infer(op, args, kwargs):
    b = bind("histogram2d", ("x", "y", "bins", "range", "density", "weights"), args, kwargs,
             {"x", "y", "bins", "range", "density", "weights"})
    x, y = shape_of(b.get("x")), shape_of(b.get("y"))
    if len(x) != 1 or x != y:
        raise UnsupportedOp("histogram2d: x and y must be 1-d of one length (NumPy raises)")
    if b.get("weights") is not None and shape_of(b["weights"]) != x:
        raise UnsupportedOp("histogram2d: weights must have the shape of x")
    bins = b.get("bins", 10)
    nx, ny = ([_bins_of_axis(v) for v in bins] if isinstance(bins, (list, tuple)) and len(bins) == 2
              else [_int_bins(bins, "histogram2d")] * 2)
    _constant_range(b.get("range"), 2, "histogram2d")
    result = run_probe(op, args, kwargs)
    return tuple(meta_of_probe(op, r, s) for r, s in zip(result, ((nx, ny), (nx + 1,), (ny + 1,))))


register(Op("histogram2d", "function", np.histogram2d, _histogram2d_infer))

__all__ = ["TUPLE_RESULTS"]


# ----------------------------------------------------------------------------
# NumPy scalar types called on a value: np.float32(x) is a cast (a scalar of
# a 0-d array or NumPy scalar, an ndarray of anything else)

def _scalar_type_shape(args, kwargs):
    if len(args) != 1 or kwargs:
        raise UnsupportedOp("a NumPy scalar type takes one operand")
    return _nested_shape(args[0])


SCALAR_TYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                np.float16, np.float32, np.float64, np.complex64, np.complex128)
for _t in SCALAR_TYPES:
    simple_op(_t.__name__, "function", _t, _scalar_type_shape)


# ----------------------------------------------------------------------------
# np.pad, sliding_window_view

_PAD_MODES = frozenset({"constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum", "reflect",
                        "symmetric", "wrap", "empty"})


def _pad_widths(pad_width, ndim):
    """NumPy's normalisation of pad_width to ((before, after),) * ndim."""
    arr = np.asarray(pad_width)
    if arr.dtype.kind not in "iu" or arr.ndim > 2:
        raise UnsupportedOp("pad: pad_width must be ints")
    if (arr < 0).any():
        raise UnsupportedOp("pad: negative pad width")
    try:
        return np.broadcast_to(arr, (ndim, 2)).tolist()
    except ValueError:
        raise UnsupportedOp("pad: pad_width does not fit the operand") from None


def _pad_infer(op, args, kwargs):
    b = bind("pad", ("array", "pad_width", "mode"), args, kwargs,
             {"array", "pad_width", "mode", "constant_values", "end_values", "reflect_type"},
             kwonly=("constant_values", "end_values", "reflect_type", "stat_length"))
    if "pad_width" not in b:
        raise UnsupportedOp("pad: expects pad_width")
    mode = b.get("mode", "constant")
    if mode not in _PAD_MODES or mode == "empty":  # "empty" leaves uninitialised memory
        raise UnsupportedOp(f"pad: mode {mode!r}")
    for k in ("constant_values", "end_values"):
        if k in b and (isinstance(b[k], Symbol) or np.asarray(b[k]).dtype.kind not in "biufc"):
            raise UnsupportedOp(f"pad: {k} must be constant numbers")
    shape = shape_of(b["array"])
    if isinstance(b["pad_width"], Symbol):
        raise UnsupportedOp("pad: traced pad_width")
    widths = _pad_widths(b["pad_width"], len(shape))
    out = tuple(d + lo + hi for d, (lo, hi) in zip(shape, widths))
    if mode != "constant" and any(d == 0 and lo + hi for d, (lo, hi) in zip(shape, widths)):
        raise UnsupportedOp(f"pad: mode {mode!r} cannot extend an empty axis")
    probe_widths = [[min(lo, 1), min(hi, 1)] for lo, hi in widths] if widths else b["pad_width"]
    return _probed(op, (), dict(b, pad_width=probe_widths), out)


register(Op("pad", "function", np.pad, _pad_infer))


def _sliding_window_infer(op, args, kwargs):
    b = bind("sliding_window_view", ("x", "window_shape", "axis"), args, kwargs, {"x", "window_shape", "axis"},
             kwonly=("subok", "writeable"))
    shape = shape_of(b["x"])
    window = b.get("window_shape")
    window = [const_int(w, "window_shape") for w in (window if isinstance(window, (list, tuple)) else [window])]
    axis = b.get("axis")
    if axis is None:
        if len(window) != len(shape):
            raise UnsupportedOp("sliding_window_view: window_shape must have one entry per axis")
        axes = list(range(len(shape)))
    else:
        axes = [const_axes(a, len(shape))[0] for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
        if len(axes) != len(window):
            raise UnsupportedOp("sliding_window_view: window_shape and axis differ in length")
    out = list(shape)
    for a, w in zip(axes, window):
        if w < 0 or out[a] < w:
            raise UnsupportedOp("sliding_window_view: window larger than the input or negative")
        out[a] -= w - 1
    probe = dict(b, window_shape=tuple(min(w, 1) for w in window))
    result = _probed(op, (), probe, tuple(out) + tuple(window))
    return result


register(Op("sliding_window_view", "function", np.lib.stride_tricks.sliding_window_view, _sliding_window_infer))
