"""NumPy call forms that are several graph ops: ``np.atleast_2d(a, b)``
(a tuple of one result per operand) and the index tricks ``np.r_[a, b]`` /
``np.c_[a, b]`` of traced arrays (a concatenation)."""
from __future__ import annotations

import numpy as np

from ..ir import registry
from .variables import ConstVariable, TensorVariable, TupleVariable, Variable

_ATLEAST = (np.atleast_1d, np.atleast_2d, np.atleast_3d)


def call_form(graph, fn, args, kwargs) -> Variable | None:
    """A multi-operand form of ``fn``, or None."""
    if any(fn is f for f in _ATLEAST) and len(args) > 1 and not kwargs:
        op = registry.lookup_function(fn)
        return TupleVariable([graph.call_op(op, [a]) for a in args])
    return None


def index_trick(graph, obj, key: Variable) -> Variable | None:
    """``np.r_[a, b, ...]`` (arrays of one ndim >= 1: concatenated along the
    first axis) and ``np.c_[a, b, ...]`` (1-d: stacked as columns; ndim >= 2:
    concatenated along the last axis); None for every other form (slices,
    strings, scalars), which stays native."""
    value = getattr(obj, "value", None)
    if value is not np.r_ and value is not np.c_:
        return None
    items = key.items if isinstance(key, TupleVariable) else [key]
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


def _int_slice(v: Variable):
    """(start, stop, step) of a constant slice of ints (stop given), or None."""
    s = getattr(v, "value", None) if isinstance(v, ConstVariable) else None
    if not isinstance(s, slice):
        return None
    start, stop, step = 0 if s.start is None else s.start, s.stop, 1 if s.step is None else s.step
    if not all(type(x) is int for x in (start, stop, step)) or step == 0:
        return None
    return start, stop, step


def grid_trick(graph, obj, key: Variable) -> Variable | None:
    """``np.mgrid[...]`` / ``np.ogrid[...]`` of int slices, built as NumPy
    builds them (indices or aranges, times step plus start; ogrid's arrays
    are newaxis views), so values, dtypes and strides agree."""
    value = getattr(obj, "value", None)
    if value is not np.mgrid and value is not np.ogrid:
        return None
    if isinstance(key, ConstVariable):
        bounds = _int_slice(key)
        if bounds is None:
            return None
        return graph.call_op(registry.lookup_function(np.arange), [ConstVariable(b) for b in bounds])
    if not isinstance(key, TupleVariable) or not key.items:
        return None
    bounds = [_int_slice(k) for k in key.items]
    if any(b is None for b in bounds):
        return None
    sizes = [-(-(stop - start) // step) for start, stop, step in bounds]  # ceil
    if any(n < 0 for n in sizes):
        return None
    mul, add, getitem = (registry.lookup_operator(n) for n in ("mul", "add", "getitem"))
    k = len(bounds)
    if value is np.mgrid:
        nn = graph.call_op(registry.lookup_function(np.indices), [ConstVariable(tuple(sizes))])
        steps = _column([b[2] for b in bounds], k)
        starts = _column([b[0] for b in bounds], k)
        nn = graph.call_op(mul, [nn, steps])
        return graph.call_op(add, [nn, starts])
    out = []
    for axis, ((start, _, step), n) in enumerate(zip(bounds, sizes)):
        r = graph.call_op(registry.lookup_function(np.arange), [ConstVariable(n)])
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
    from ..ir.ops_linalg_fft import NAMED_RESULTS
    from .variables import ListVariable
    if not isinstance(result, ListVariable):
        return result
    if op.name in TUPLE_RESULTS or op.name in DATA_DEPENDENT_TUPLES or op.name in COMBINE_TUPLES:
        return TupleVariable(result.items)
    cls = NAMED_RESULTS.get(op.name) if op.kind == "function" else None
    if cls is not None:
        from .classes import NamedTupleVariable
        return NamedTupleVariable(result.items, cls=cls)
    return result
