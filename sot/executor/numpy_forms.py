"""NumPy call forms that are several graph ops: ``np.atleast_2d(a, b)``
(a tuple of one result per operand), ``np.gradient`` over several axes (one
op per axis), ``np.einsum_path`` (planned from shapes at trace time),
``np.histogramdd`` (its tuple and edges list) and the index tricks ``np.r_[a, b]`` /
``np.c_[a, b]`` of traced arrays (a concatenation); and the forms whose
answer NumPy fixes without looking at data: a conversion that returns its
operand (``np.asarray(x)``, ``x.astype(x.dtype, copy=False)``), which is
that very object, and the identity of arrays the graph allocated."""
from __future__ import annotations

import weakref

import numpy as np

from ..ir import registry
from ..ir.symbolic import ScalarMeta
from .variables import ConstVariable, TensorVariable, TupleVariable, Variable

_ATLEAST = (np.atleast_1d, np.atleast_2d, np.atleast_3d)

#: methods of a constant NumPy scalar folded at trace time: their results are
#: immutable Python values or NumPy scalars (not arrays, which are mutable)
SCALAR_METHODS = frozenset({"is_integer", "as_integer_ratio", "bit_count", "item", "tolist", "conjugate",
                            "hex", "fromhex"})


def call_form(graph, fn, args, kwargs) -> Variable | None:
    """A multi-operand form of ``fn``, or None."""
    if any(fn is f for f in _ATLEAST) and len(args) > 1 and not kwargs:
        op = registry.lookup_function(fn)
        return TupleVariable([graph.call_op(op, [a]) for a in args])
    if fn is np.gradient:
        return _gradient_axes(graph, args, kwargs)
    if fn is np.einsum_path:
        return _einsum_path(graph, args, kwargs)
    if fn is np.einsum and "optimize" not in kwargs and args and isinstance(args[0], TensorVariable):
        subscripts = _einsum_sublists(args)
        if subscripts is not None:
            operands = args[0:len(args) - len(args) % 2:2]
            return graph.call_op(registry.lookup_function(fn), [ConstVariable(subscripts)] + list(operands), kwargs)
    if fn is np.histogramdd and args and isinstance(args[0], TensorVariable):
        from ..ir.ops_histogramdd import HISTOGRAMDD
        from .variables import ListVariable
        hist, *edges = graph.call_op(HISTOGRAMDD, args, kwargs).items   # NumPy's (hist, [edges...])
        return TupleVariable([hist, ListVariable(edges)])
    if (fn is np.asarray or fn is np.asanyarray) and len(args) == 1:
        same = _unchanged(args[0], kwargs, {"dtype": None, "order": ("K", None), "copy": (None, False)})
        if same is not None or not _new_dtype(args[0], kwargs.get("dtype")):
            return same
        return _new(graph.call_op(registry.lookup_function(fn), args, kwargs))
    return None


def _einsum_sublists(args) -> str | None:
    """The subscripts string of ``np.einsum(a, [0, 1], b, [1, 2], [0, 2])`` as NumPy's C
    code writes it (label k < 26 is 'A' + k, else 'a' + k - 26; Ellipsis '...'), which it
    then runs as that string; None where a sublist is not constant labels (eager may raise)."""
    from .variables import ListVariable

    def term(sublist):
        if isinstance(sublist, (ListVariable, TupleVariable)) and all(
                isinstance(i, ConstVariable) or getattr(i, "value", None) is Ellipsis for i in sublist.items):
            labels = [i.value for i in sublist.items]
        elif isinstance(sublist, ConstVariable) and isinstance(sublist.value, (list, tuple)):
            labels = sublist.value
        else:
            return None
        out = []
        for label in labels:
            if label is Ellipsis:
                out.append("...")
            elif type(label) is int and 0 <= label < 52:
                out.append(chr(ord("A") + label) if label < 26 else chr(ord("a") + label - 26))
            else:
                return None
        return "".join(out)
    terms = [term(s) for s in args[1::2]]
    output = term(args[-1]) if len(args) % 2 else ""
    if not terms or None in terms or output is None or \
            not all(isinstance(a, TensorVariable) for a in args[0:len(args) - len(args) % 2:2]):
        return None
    return ",".join(terms) + ("->" + output if len(args) % 2 else "")


def _gradient_axes(graph, args, kwargs) -> Variable | None:
    """``np.gradient(f)`` of an n-d array (n > 1) or over a sequence of axes:
    NumPy computes each axis on its own and returns their tuple (one axis: its
    array), so this is one single-axis gradient op per axis (spacings: none,
    one scalar for all, or one per axis).  None for ``axis=int`` and 1-d
    ``f`` (a registered op) and for what eager rejects."""
    from numpy.lib.array_utils import normalize_axis_tuple
    if not args or not isinstance(args[0], TensorVariable) or set(kwargs) - {"axis", "edge_order"}:
        return None
    from .variables import ListVariable
    f, spacing = args[0], list(args[1:])
    axis = kwargs.get("axis")
    if isinstance(axis, (TupleVariable, ListVariable)) and all(isinstance(i, ConstVariable) for i in axis.items):
        axis = [i.value for i in axis.items]
    elif axis is not None:
        axis = axis.value if isinstance(axis, ConstVariable) else _MISSING
    if axis is _MISSING or (axis is None and f.meta.ndim < 2) or type(axis) is int:
        return None
    try:
        axes = normalize_axis_tuple(range(f.meta.ndim) if axis is None else axis, f.meta.ndim)
    except (TypeError, ValueError):
        return None   # eager raises
    if not axes or len(spacing) not in (0, 1, len(axes)):
        return None
    if len(spacing) == 1 and not (isinstance(spacing[0], ConstVariable) and np.ndim(spacing[0].value) == 0):
        return None   # one spacing for several axes: only a scalar
    op = registry.lookup_function(np.gradient)
    out = []
    for k, ax in enumerate(axes):
        h = spacing if len(spacing) < 2 else [spacing[k]]
        out.append(graph.call_op(op, [f, *h], dict(kwargs, axis=ConstVariable(ax))))
    return TupleVariable(out) if len(out) > 1 else out[0]   # one axis in a tuple: its array


def _einsum_path(graph, args, kwargs) -> Variable | None:
    """``np.einsum_path(subscripts, *operands, optimize=...)``: NumPy plans from
    the operands' shapes alone, so the plan (a new list and its report) is
    computed at trace time on stand-ins of those shapes, read statically."""
    from .dispatch import folded
    if not args or not isinstance(args[0], ConstVariable) or type(args[0].value) is not str \
            or set(kwargs) - {"optimize"} or not all(isinstance(v, ConstVariable) for v in kwargs.values()):
        return None
    operands = args[1:]
    if not operands or not all(isinstance(a, TensorVariable) and not a.meta.symbolic_axes for a in operands):
        return None
    for a in operands:
        graph.ir.note_static_read(a.symbol, range(a.meta.ndim))
    stand_ins = [np.broadcast_to(np.zeros((), a.meta.dtype), a.meta.shape) for a in operands]
    try:
        plan = np.einsum_path(args[0].value, *stand_ins, **{k: v.value for k, v in kwargs.items()})
    except Exception:   # noqa: BLE001 - eager raises it: natively
        return None
    return folded(plan)


def _new_dtype(x: Variable, dtype: Variable | None) -> bool:
    """Whether converting the ndarray ``x`` to ``dtype`` changes its dtype (so copies)."""
    if not isinstance(x, TensorVariable) or x.meta.is_scalar or not isinstance(dtype, ConstVariable):
        return False
    new = _dtype(dtype.value) if dtype.value is not None else None
    return new is not None and new != x.meta.dtype


def _new(result: Variable) -> Variable:
    if isinstance(result, TensorVariable):
        result.fresh = True  # a copy: no view of anything
    return result


def method_form(graph, obj: TensorVariable, name: str, args, kwargs) -> Variable | None:
    """``x.astype(x.dtype, copy=False)`` is ``x``; ``x.astype(dt)`` (copy=True)
    is a new array, never ``x`` (``fresh``); None for every other call."""
    if name != "astype" or len(args) != 1 or obj.meta.is_scalar:
        return None
    if "copy" in kwargs:  # copy=False: x itself when nothing changes
        return _unchanged(obj, dict(kwargs, dtype=args[0]), {"dtype": None, "order": ("K",), "copy": (False,),
                                                             "casting": ("unsafe", "same_kind", "safe", "equiv", "no")})
    if set(kwargs) - {"casting", "order"}:
        return None
    op = registry.lookup_method("astype")
    if op is None:
        return None
    return _new(graph.call_op(op, [obj] + list(args), kwargs))  # astype copies unless copy=False


def _unchanged(x: Variable, kwargs, allowed) -> Variable | None:
    """``x`` itself when the conversion with ``kwargs`` returns its ndarray
    operand (no dtype change, layout kept), else None."""
    if not isinstance(x, TensorVariable) or x.meta.is_scalar or x.meta.is_python:
        return None
    for k, v in kwargs.items():
        value = getattr(v, "value", _MISSING) if isinstance(v, ConstVariable) else _MISSING
        if k not in allowed or value is _MISSING:
            return None
        if k == "dtype":
            if value is not None and _dtype(value) != x.meta.dtype:
                return None
        elif value not in allowed[k]:
            return None
    return x


_MISSING = object()


def _dtype(value):
    try:
        return np.dtype(value)
    except TypeError:
        return None


def new_array(v: Variable) -> bool:
    """Whether ``v`` is an ndarray the graph allocated (no view of anything)."""
    return isinstance(v, TensorVariable) and v.fresh and not v.meta.is_scalar


def distinct_arrays(a: Variable, b: Variable) -> bool:
    """``a is b`` is certainly False: one is an array the graph allocated and
    the other is no view of it (a value from outside the frame, another new
    array, or anything that is not an array)."""
    for x, y in ((a, b), (b, a)):
        if new_array(x) and x is not y and (not isinstance(y, TensorVariable) or new_array(y)
                                            or y.tracker is not None):
            return True
    return False


def index_trick(graph, obj, key: Variable) -> Variable | None:
    """``np.r_[a, b, ...]`` (arrays of one ndim >= 1: concatenated along the
    first axis; 1-d arrays and number scalars: ``_r_with_scalars``) and
    ``np.c_[a, b, ...]`` (1-d: stacked as columns; ndim >= 2: concatenated
    along the last axis); ``np.s_[k]`` / ``np.index_exp[k]`` (the key, as a
    tuple for index_exp); None for every other form (slices, strings), which
    stays native."""
    value = getattr(obj, "value", None)
    if value is np.s_:
        return key
    if value is np.index_exp:
        return key if isinstance(key, TupleVariable) else TupleVariable([key])
    if value is not np.r_ and value is not np.c_:
        return None
    items = key.items if isinstance(key, TupleVariable) else [key]
    if value is np.r_ and items and any(_r_scalar(i) is not None for i in items):
        return _r_with_scalars(graph, items)
    if not items or not all(isinstance(i, TensorVariable) and not i.meta.is_scalar for i in items):
        return None
    ndims = {i.meta.ndim for i in items}
    if len(ndims) != 1 or 0 in ndims:
        return None
    (ndim,) = ndims
    if value is np.r_:
        return graph.call_op(registry.lookup_function(np.concatenate), [items], {"axis": ConstVariable(0)})
    if ndim == 1:
        return graph.call_op(registry.lookup_function(np.stack), [items], {"axis": ConstVariable(1)})
    return graph.call_op(registry.lookup_function(np.concatenate), [items], {"axis": ConstVariable(-1)})


def _r_scalar(item):
    """The value NumPy's ``np.r_`` promotes a scalar item by (a Python number, weak;
    a NumPy scalar's dtype), or None for an item that is not a number scalar."""
    if isinstance(item, ConstVariable) and type(item.value) in (bool, int, float, complex):
        return item.value
    if isinstance(item, ConstVariable) and isinstance(item.value, np.generic) and item.value.dtype.kind in "biufc":
        return item.value.dtype
    if isinstance(item, TensorVariable) and item.meta.is_scalar:
        return item.meta.dtype
    return None


def _r_with_scalars(graph, items):
    """``np.r_[0, np.cumsum(x)]``: 1-d arrays and number scalars, each made a
    1-d array of ``result_type`` of them all (Python numbers weak), then
    concatenated, as NumPy's AxisConcatenator does; None for other items, or
    a Python int the result dtype cannot hold (eager raises, natively)."""
    kinds = []
    for i in items:
        scalar = _r_scalar(i)
        if scalar is None and not (isinstance(i, TensorVariable) and i.meta.ndim == 1):
            return None
        kinds.append(i.meta.dtype if scalar is None else scalar)
    final = np.result_type(*kinds)
    parts = []
    for i, kind in zip(items, kinds):
        if isinstance(i, ConstVariable):
            try:
                np.array(i.value, dtype=final)
            except (OverflowError, ValueError, TypeError):
                return None
            parts.append(graph.call_op(registry.lookup_function(np.full), [ConstVariable((1,)), i],
                                       {"dtype": ConstVariable(final)}))
            continue
        if i.meta.is_scalar:
            i = graph.call_op(registry.lookup_function(np.atleast_1d), [i])
        if i.meta.dtype != final:
            i = graph.call_op(registry.lookup_method("astype"), [i, ConstVariable(final)])
        parts.append(i)
    return graph.call_op(registry.lookup_function(np.concatenate), [parts], {"axis": ConstVariable(0)})


def _int_slice(graph, v: Variable):
    """(start, stop, step) of a slice of ints (stop given; a stop that is a
    Python int computed in the graph, such as a number input, as its
    Variable), or None."""
    from .variables import SymScalarVariable, SymSliceVariable
    if isinstance(v, SymSliceVariable):
        s = v.value
        stop = s.stop
        if not isinstance(getattr(stop, "meta", None), ScalarMeta) or stop.meta.type is not int:
            return None
        var = SymScalarVariable(stop, graph.ir.deps(stop))
        var.graph = weakref.ref(graph)
        stop = var
    else:
        s = getattr(v, "value", None) if isinstance(v, ConstVariable) else None
        if not isinstance(s, slice):
            return None
        stop = s.stop
        if type(stop) is not int:
            return None
    start, step = 0 if s.start is None else s.start, 1 if s.step is None else s.step
    if not all(type(x) is int for x in (start, step)) or step == 0:
        return None
    return start, stop, step


def _grid_size(graph, start: int, stop, step: int):
    """NumPy's ``ceil((stop - start) / step)``: an int, or a graph value for a
    stop computed in the graph; None for a negative constant size (NumPy
    raises, natively)."""
    if type(stop) is int:
        n = -(-(stop - start) // step)
        return None if n < 0 else n
    from .dispatch import binary_op
    shift = step - 1 - start if step > 0 else step + 1 - start   # ceil(a / b) as a floor division
    return binary_op(graph, "floordiv", binary_op(graph, "add", stop, ConstVariable(shift)), ConstVariable(step))


def grid_trick(graph, obj, key: Variable) -> Variable | None:
    """``np.mgrid[...]`` / ``np.ogrid[...]`` of int slices, built as NumPy
    builds them (indices or aranges, times step plus start; ogrid's arrays
    are newaxis views), so values, dtypes and strides agree.  A stop may be
    a Python int that changes between calls (``np.mgrid[0:n, 0:4]``)."""
    value = getattr(obj, "value", None)
    if value is not np.mgrid and value is not np.ogrid:
        return None
    if not isinstance(key, TupleVariable):
        bounds = _int_slice(graph, key)
        if bounds is None:
            return None
        return graph.call_op(registry.lookup_function(np.arange),
                             [b if isinstance(b, Variable) else ConstVariable(b) for b in bounds])
    if not key.items:
        return None
    bounds = [_int_slice(graph, k) for k in key.items]
    if any(b is None for b in bounds):
        return None
    sizes = [_grid_size(graph, *b) for b in bounds]
    if any(n is None for n in sizes):
        return None
    sizes = [n if isinstance(n, Variable) else ConstVariable(n) for n in sizes]
    mul, add, getitem = (registry.lookup_operator(n) for n in ("mul", "add", "getitem"))
    k = len(bounds)
    if value is np.mgrid:
        nn = graph.call_op(registry.lookup_function(np.indices), [TupleVariable(sizes)])
        steps = _column([b[2] for b in bounds], k)
        starts = _column([b[0] for b in bounds], k)
        nn = graph.call_op(mul, [nn, steps])
        return graph.call_op(add, [nn, starts])
    out = []
    for axis, ((start, _, step), n) in enumerate(zip(bounds, sizes)):
        r = graph.call_op(registry.lookup_function(np.arange), [n])
        r = graph.call_op(add, [graph.call_op(mul, [r, ConstVariable(step)]), ConstVariable(start)])
        index = tuple(slice(None) if i == axis else None for i in range(k))
        out.append(graph.call_op(getitem, [r, ConstVariable(index)]))
    return TupleVariable(out)


def _column(values, k):
    """A constant nested list of shape (k, 1, ..., 1) holding ``values``."""
    from .variables import ListVariable
    def nest(v, depth):
        return ConstVariable(v) if depth == 0 else ListVariable([nest(v, depth - 1)])
    return ListVariable([nest(v, k) for v in values])


def named_result(op, result: Variable) -> Variable:
    """The graph op's several outputs as the tuple type NumPy returns."""
    from ..ir.ops_api import TUPLE_RESULTS
    from ..ir.ops_combine import TUPLE_RESULTS as COMBINE_TUPLES
    from ..ir.ops_data_dependent import TUPLE_RESULTS as DATA_DEPENDENT_TUPLES
    from ..ir.ops_edit import TUPLE_RESULTS as EDIT_TUPLES
    from ..ir.ops_linalg_fft import NAMED_RESULTS
    from .variables import ListVariable
    if not isinstance(result, ListVariable):
        return result
    if op.name in TUPLE_RESULTS or op.name in DATA_DEPENDENT_TUPLES or op.name in COMBINE_TUPLES \
            or op.name in EDIT_TUPLES:
        return TupleVariable(result.items)
    from ..ir.ops_data_dependent import NAMED_RESULTS as UNIQUE_RESULTS
    cls = NAMED_RESULTS.get(op.name, UNIQUE_RESULTS.get(op.name)) if op.kind == "function" else None
    if cls is not None:
        from .classes import NamedTupleVariable
        return NamedTupleVariable(result.items, cls=cls)
    return result
