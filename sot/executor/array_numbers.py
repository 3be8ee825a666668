"""``float(x)``, ``int(x)`` and ``x.item()`` of array data as a Python number known at run time.

``loss = float(np.mean((y - t) ** 2))`` then ``lr * loss``,
``hist.append(loss)``, ``return loss``: the number stays in the graph (a
``SymScalarVariable`` over ``sot.ir.data_numbers``), arithmetic on it is
recorded with NumPy's and Python's own rules (NEP 50: a weak scalar), and it
leaves the graph as the very Python number eager computes.  Where Python
needs its value (a branch, a print, ``range``, a shape) the graph breaks
there, as it did at the read, and the resume function takes it as a number
input.  Forms with another result or a warning eagerly stay breaks:
``float()`` / ``int()`` of an array with dimensions (deprecated in NumPy 2)
or of a complex value, ``int()`` of a float (it may raise); ``.item()`` of a
bool, long double or complex array.
"""
from __future__ import annotations

import weakref

from ..ir import data_numbers
from .variables import SymScalarVariable, TensorVariable

__all__ = ["read_number"]

#: dtype kinds that float() / int() convert without a warning or an error: int() of a
#: float (NaN, inf) may raise when the graph runs, maybe after it wrote into its
#: arguments, where the error could not come from the user's own line: a break
_KINDS = {float: frozenset("biuf"), int: frozenset("biu")}
_CONVERSIONS = {float: data_numbers.FLOAT_OP, int: data_numbers.INT_OP}


def _item_type(dtype):
    """The Python type of ``.item()`` of one element of ``dtype`` taken here, or None."""
    if dtype.kind in "iu":
        return int
    if dtype.kind == "f" and dtype.itemsize <= 8:   # a long double's item is a NumPy scalar
        return float
    return None


def read_number(graph, x, how):
    """The graph's Python number of ``float(x)`` / ``int(x)`` (``how`` the
    builtin) or ``x.item()`` (``how="item"``), or None where it is not one."""
    if not isinstance(x, TensorVariable) or x.meta.is_python or x.meta.symbolic_axes:
        return None
    meta = x.meta
    if how in _CONVERSIONS:
        if meta.ndim != 0 or meta.dtype.kind not in _KINDS[how]:
            return None
        op, kind = _CONVERSIONS[how], how
    else:
        kind = _item_type(meta.dtype)
        if any(d != 1 for d in meta.shape) or kind is None:
            return None
        op = data_numbers.ITEM_OP
    first = len(graph.ir)
    symbol = graph.ir.add_data_number(op, x.symbol, kind)
    graph.locate(first)   # int(nan) raises when the graph runs: from the user's line
    var = SymScalarVariable(symbol, graph.ir.deps(symbol))
    var.graph = weakref.ref(graph)
    return var
