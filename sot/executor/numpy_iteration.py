"""Walks over an array's index space, unrolled at trace time: loops over
``np.ndindex(shape)`` and ``np.ndenumerate(a)``, and reads of ``a.flat``
(``a.flat[k]``, ``a.flat[1:4]``, ``a.flat[[0, 2]]``, ``for v in a.flat``).

The index space depends only on the shape, which the guards fix; the
values are graph ops (``a[idx]``, ``np.ravel(a)[key]``), so a loop body that
uses them in Python breaks there as any data-dependent use does.  A
symbolic or data-dependent dim, or more than ``ITER_LIMIT`` items, is not
unrolled (the loop runs natively).
"""

from __future__ import annotations

import numpy as np

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..ir import registry
from . import iterator_rebuild
from .live_iterators import ReadingIteratorVariable
from .variables import ConstVariable, IteratorVariable, TensorVariable, TupleVariable, Variable

__all__ = ["class_call", "FlatVariable", "reversed_rows"]


def _static_shape(graph, obj: TensorVariable, what: str) -> tuple:
    """The shape to unroll over: symbolic dims are specialised (a
    data-dependent one breaks the graph)."""
    from .dispatch import concrete
    for axis in obj.meta.symbolic_axes:
        concrete(what, graph.dim(obj, axis))
    return obj.meta.shape


def _indices(shape, what: str) -> list:
    from .dispatch import ITER_LIMIT
    count = int(np.prod(shape, dtype=np.int64))
    if count > ITER_LIMIT:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{what} of {count} items exceeds the unroll limit {ITER_LIMIT}")
    return list(np.ndindex(*shape))


def _const_shape(args, kwargs):
    """The shape ``np.ndindex`` is given, or None when it is not constant ints."""
    if kwargs:
        return None
    from .dispatch import concrete
    values = []
    for a in args:
        for item in a.items if isinstance(a, TupleVariable) else (a,):
            concrete("np.ndindex", item)   # a symbolic dim is specialised
        if isinstance(a, TupleVariable):
            values.append(tuple(getattr(i, "value", None) for i in a.items))
        elif isinstance(a, ConstVariable):
            values.append(a.value)
        else:
            return None
    shape = values[0] if len(values) == 1 and isinstance(values[0], tuple) else tuple(values)
    if not all(type(d) is int and d >= 0 for d in shape):
        return None
    return shape


def class_call(graph, cls, args, kwargs) -> Variable | None:
    """``np.ndindex(...)`` / ``np.ndenumerate(a)`` as iterators of known
    items; None for other classes."""
    if cls is np.ndindex:
        shape = _const_shape(args, kwargs)
        if shape is None:
            return None
        return iterator_rebuild.made_by([ConstVariable(i) for i in _indices(shape, "np.ndindex")], np.ndindex,
                                        lambda b: f"{b._bind(np.ndindex)}(*{b._bind(tuple(shape))})")
    if cls is np.ndenumerate and len(args) == 1 and not kwargs and isinstance(args[0], TensorVariable):
        a = args[0]
        getitem = registry.lookup_operator("getitem")
        indices = _indices(_static_shape(graph, a, "np.ndenumerate"), "np.ndenumerate")
        return ReadingIteratorVariable(   # element k read at step k, after what the loop wrote
            len(indices), lambda k: TupleVariable([ConstVariable(indices[k]),
                                                   graph.call_op(getitem, (a, ConstVariable(indices[k])))]),
            np.ndenumerate, lambda b: f"{b._bind(np.ndenumerate)}({b.expr(a)})")
    return None


def reversed_rows(graph, obj: TensorVariable) -> Variable | None:
    """``reversed(a)``: Python's sequence protocol (an ndarray has no
    ``__reversed__``): ``len(a)`` when it is made, then ``a[n - 1]`` ...
    ``a[0]``, each row read when its step is taken.  None for a 0-d array
    or NumPy scalar (eager raises TypeError: it runs natively)."""
    if obj.meta.is_python or obj.meta.is_scalar or not obj.meta.shape:
        return None
    from .dispatch import ITER_LIMIT, concrete, getitem
    if 0 in obj.meta.symbolic_axes:
        concrete("reversed()", graph.dim(obj, 0))
    n = obj.meta.shape[0]
    if n > ITER_LIMIT:
        raise FallbackError(UNSUPPORTED_OBJECT, f"reversed() over {n} rows exceeds the unroll limit {ITER_LIMIT}")
    return ReadingIteratorVariable(n, lambda k: getitem(graph, obj, ConstVariable(n - 1 - k)), reversed,
                                   lambda b: f"{b._bind(reversed)}({b.expr(obj)})")


class FlatVariable(Variable):
    """``a.flat`` of a traced array: read by index or iterated; the flatiter
    itself never leaves the trace."""

    def __init__(self, array: TensorVariable):
        super().__init__(None)
        self.array = array

    def _flat(self, graph) -> TensorVariable:
        return graph.call_op(registry.lookup_function(np.ravel), (self.array,))

    def item(self, graph, key: Variable) -> Variable:
        """``a.flat[key]``: an int gives a NumPy scalar, anything else a new
        array (a copy, never a view of ``a``)."""
        _static_shape(graph, self.array, "a.flat")
        from .dispatch import getitem
        value = getitem(graph, self._flat(graph), key)
        if isinstance(key, ConstVariable) and type(key.value) is int:
            return value
        return graph.call_op(registry.lookup_method("copy"), (value,))

    def iterate(self, graph) -> IteratorVariable:
        shape = _static_shape(graph, self.array, "iteration over a.flat")
        getitem = registry.lookup_operator("getitem")
        count = len(_indices(shape, "iteration over a.flat"))
        array = self.array
        # The flat view taken when the loop starts (each item is still read when
        # reached): even a loop of no steps is then an array op, so a frame with
        # only `[v for v in a.flat]` stays one graph (on 3.10 the comprehension
        # frame could not take a real flatiter).
        self._flat(graph)
        return ReadingIteratorVariable(   # element k read at step k, after what the loop wrote
            count, lambda k: graph.call_op(getitem, (self._flat(graph), ConstVariable(k))), np.flatiter,
            lambda b: f"{b.expr(array)}.flat")

    def python_type(self):
        return np.flatiter

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return "the flat iterator of an array"


