"""NumPy functions that call a Python function the user passes:
``np.apply_along_axis(func1d, axis, arr, *args, **kwargs)``.

NumPy's own implementation is Python: it calls ``func1d`` once per 1-d
slice, in ``np.ndindex`` order, writes each result into a buffer of the
first result's shape and dtype, and returns a transposed view of that
buffer.  ``call`` below runs those steps over the trace's Variables (the
slice positions are constants, so the loop unrolls and ``func1d`` is
inlined once per slice, from the user's frame), so ``func1d``'s operations
enter the graph and the result has eager's values, dtype, shape and
strides.  Where NumPy raises (an axis out of range, an iteration dimension
of 0) or the loop would be long, the call runs natively (a break).  A break
inside ``func1d`` breaks at the user's call, which then runs natively, as
NumPy's own code.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..breaks.reasons import LIMIT, UNSUPPORTED_CALL, FallbackError
from ..guards.tracker import ConstTracker
from .variables import ConstVariable, TensorVariable

__all__ = ["is_modelled", "call"]

#: the most 1-d slices an apply_along_axis call is unrolled for (past it: a native call)
APPLY_LIMIT = 64


def is_modelled(value) -> bool:
    return value is np.apply_along_axis


def _numpy(executor, fn, args):
    return executor.call_function(executor.graph.wrap(fn, ConstTracker(fn)), list(args), {})


def call(executor, args, kwargs):
    """``np.apply_along_axis(func1d, axis, arr, *args, **kwargs)`` as NumPy's
    code runs it (numpy/lib/_shape_base_impl.py), step for step, over the
    trace's Variables; or a FallbackError (the call runs natively)."""
    from .dispatch import concrete, getitem, setitem   # (dispatch imports calls, which imports this module)
    if len(args) < 3 or any(k in kwargs for k in ("func1d", "axis", "arr")):
        raise FallbackError(UNSUPPORTED_CALL, "np.apply_along_axis: func1d, axis and arr are expected positionally")
    func1d, axis, arr, *rest = args
    if not isinstance(arr, TensorVariable) or arr.meta.is_scalar or arr.meta.is_python:
        raise FallbackError(UNSUPPORTED_CALL, "np.apply_along_axis: arr must be an array")
    for k in arr.meta.symbolic_axes:   # the loop unrolls for the sizes: specialised (a break where data decide them)
        concrete("np.apply_along_axis's loop", executor.graph.dim(arr, k))
    if not isinstance(axis, ConstVariable) or type(axis.value) is not int:
        raise FallbackError(UNSUPPORTED_CALL, "np.apply_along_axis: axis must be a constant int")
    nd = arr.meta.ndim
    if not -nd <= axis.value < nd:
        raise FallbackError(UNSUPPORTED_CALL, "np.apply_along_axis: axis out of range (NumPy raises)")
    axis = axis.value % nd
    outer = arr.meta.shape[:axis] + arr.meta.shape[axis + 1:]
    count = math.prod(outer)
    if count == 0:
        raise FallbackError(UNSUPPORTED_CALL, "np.apply_along_axis over an empty iteration (NumPy raises)")
    if count > APPLY_LIMIT:
        raise FallbackError(LIMIT, f"np.apply_along_axis over {count} slices (past {APPLY_LIMIT}) runs natively")
    inds = [ConstVariable(ind + (Ellipsis,)) for ind in itertools.product(*(range(d) for d in outer))]
    in_dims = list(range(nd))
    view = _numpy(executor, np.transpose, [arr, ConstVariable(tuple(in_dims[:axis] + in_dims[axis + 1:] + [axis]))])

    def apply(ind):
        res = executor.call_function(func1d, [getitem(executor.graph, view, ind)] + rest, kwargs)
        if isinstance(res, TensorVariable) and not res.meta.is_scalar and not res.meta.is_python:
            return res   # np.asanyarray of an ndarray: itself
        return _numpy(executor, np.asarray, [res])   # of a NumPy scalar or a number: a new array

    res = apply(inds[0])
    if not isinstance(res, TensorVariable) or res.meta.symbolic_axes:
        raise FallbackError(UNSUPPORTED_CALL, "np.apply_along_axis: func1d's result is not an array of static shape")
    buff = _numpy(executor, np.zeros, [ConstVariable(tuple(outer) + res.meta.shape), ConstVariable(res.meta.dtype)])
    dims = list(range(len(outer) + res.meta.ndim))
    permute = dims[0:axis] + dims[len(outer):] + dims[axis:len(outer)]
    setitem(executor.graph, buff, inds[0], res)
    for ind in inds[1:]:
        setitem(executor.graph, buff, ind, apply(ind))
    return _numpy(executor, np.transpose, [buff, ConstVariable(tuple(permute))])
