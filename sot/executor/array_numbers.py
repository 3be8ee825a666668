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
or of a complex value; ``.item()`` of a bool, long double or complex array.

Also here: ``x.item(i, j)`` and ``x.tolist()`` of a small array (numbers
read one by one), ``int(m)`` / ``float(n)`` / ``round(m)`` of such a number,
``math.sqrt(m)`` and the like, ``min``/``max`` of numbers of one type, and
``m * np.float32(2)`` (a NumPy scalar constant: a NumPy scalar result).

A conversion that may raise (``int(nan)``, ``math.sqrt(-1.0)``, a Python
int past a NumPy int's range) is recorded only while the graph has not yet
written into memory from outside: an error then reruns the frame natively,
from the user's own line; after such a write it would be raised from the
graph (sot/runner.py), so the conversion is a break there, as before.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..ir import data_numbers
from .variables import ConstVariable, SymScalarVariable, TensorVariable, TupleVariable

__all__ = ["read_number", "item_at", "to_list", "round_number", "python_function", "convert_number",
           "meets_numpy_scalar"]

#: dtype kinds that float() / int() convert without a warning (int() of a NaN or inf
#: float raises when the graph runs: ir/run_errors.py counts it as "may raise")
_KINDS = {float: frozenset("biuf"), int: frozenset("biuf")}


def _may_raise_here(graph) -> bool:
    """Whether a statement that may raise can be recorded now: not once the graph
    wrote into memory from outside it, where its error would come from the graph
    rather than from the user's line (runner.py raises it as it is); a break then."""
    from ..ir.ops_write import write_roots
    return not any(roots for _, roots in write_roots(graph.ir))


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
        if how is int and meta.dtype.kind == "f" and not _may_raise_here(graph):
            return None
        op, kind = _CONVERSIONS[how], how
    else:
        kind = _item_type(meta.dtype)
        if any(d != 1 for d in meta.shape) or kind is None:
            return None
        op = data_numbers.ITEM_OP
    return _record(graph, op, x.symbol, kind)


def item_at(graph, x, args):
    """``x.item(k)`` / ``x.item(i, j)`` / ``x.item((i, j))`` with constant indices:
    ``.item()`` of the element they name (``k`` a flat C-order index), or None
    (also where the indices are out of bounds: eager's IndexError then comes
    from the native call)."""
    if not isinstance(x, TensorVariable) or x.meta.is_python or x.meta.symbolic_axes or not args or \
            _item_type(x.meta.dtype) is None:
        return None
    if len(args) == 1 and type(args[0]) is TupleVariable:
        args = args[0].items
    if not all(isinstance(a, ConstVariable) for a in args):
        return None
    values = [a.value for a in args]
    if len(values) == 1 and type(values[0]) is tuple:
        values = list(values[0])
    if not all(type(v) is int for v in values):
        return None
    shape = x.meta.shape
    try:
        np.empty(shape, dtype=bool).item(*values)   # its errors depend on the shape alone
    except Exception:  # noqa: BLE001 - eager raises it: left to the native call
        return None
    index = np.unravel_index(values[0] % max(x.meta.size, 1), shape) if len(values) == 1 and len(shape) != 1 \
        else tuple(values)
    from .dispatch import getitem   # (dispatch imports this module)
    element = getitem(graph, x, ConstVariable(tuple(int(i) for i in index)))
    return read_number(graph, element, "item")


#: the most elements ``.tolist()`` reads one by one in the graph (past it: a break)
TOLIST_LIMIT = 64


def to_list(graph, x):
    """``x.tolist()`` of a small int or float array: nested lists of numbers read
    from data, one ``.item(i, j)`` each (a 0-d array's or NumPy scalar's: the
    number itself); None for other arrays."""
    if not isinstance(x, TensorVariable) or x.meta.is_python or x.meta.symbolic_axes or \
            _item_type(x.meta.dtype) is None or x.meta.size > TOLIST_LIMIT:
        return None
    if x.meta.ndim == 0:
        return read_number(graph, x, "item")
    from .variables import ListVariable

    def nested(prefix):
        if len(prefix) == x.meta.ndim:
            return item_at(graph, x, [ConstVariable(i) for i in prefix])
        return ListVariable([nested(prefix + (i,)) for i in range(x.meta.shape[len(prefix)])])
    return nested(())


def round_number(graph, x, ndigits):
    """``round(m)`` (an int) or ``round(m, n)`` (a number of m's type) of a number
    read from data, with a constant ``n``: another such number (``round(nan)``
    raises when the graph runs, as eagerly); None otherwise."""
    if not _is_data_number(x) or len(ndigits) > 1 or not all(
            isinstance(n, ConstVariable) and (n.value is None or type(n.value) is int) for n in ndigits):
        return None
    if x.meta.type is float and not (ndigits and ndigits[0].value is not None) and not _may_raise_here(graph):
        return None   # round(nan) raises
    return graph.call_op(data_numbers.ROUND_OP, [x] + list(ndigits))


def python_function(graph, fn, args):
    """``math.sqrt(m)``, ``math.floor(m)``, ``math.isnan(m)``, ``min(m, best)``,
    ``max(xs)`` of numbers read from data (and number constants), all floats or
    all ints for min/max: another such number, computed by the function itself
    when the graph runs; None otherwise."""
    op = data_numbers.PYTHON_FUNCTION_OPS.get(id(fn))
    if op is None or op.target is not fn or not args or not any(_is_data_number(a) for a in args) or not all(
            _is_data_number(a) or (isinstance(a, ConstVariable) and type(a.value) in (int, float)) for a in args):
        return None
    types = {a.meta.type if isinstance(a, SymScalarVariable) else type(a.value) for a in args}
    if fn in (min, max):
        if len(args) < 2 or len(types) != 1:   # min(m, 1) is an int or a float as the values decide
            return None
    elif len(args) != 1 or not _may_raise_here(graph):   # math.sqrt(-1), math.floor(nan) raise
        return None
    return graph.call_op(op, list(args))


def _is_data_number(x) -> bool:
    return isinstance(x, SymScalarVariable) and x.meta.type in (int, float) and \
        any(data_numbers.is_data_number(s) for s in x.deps)


def convert_number(graph, x, how):
    """``int(m)`` of a float read from data (``int(float(x.mean()) * 10)``) or
    ``float(n)`` of an int one: another number read from data (int() of a NaN
    or inf raises when the graph runs, as eagerly), or None."""
    if not _is_data_number(x) or how not in _CONVERSIONS or x.meta.type is how or not _may_raise_here(graph):
        return None   # int(nan) raises, and so does float() of an int past 2**1024
    return _record(graph, _CONVERSIONS[how], x.symbol, how)


def _record(graph, op, symbol, kind):
    first = len(graph.ir)
    symbol = graph.ir.add_data_number(op, symbol, kind)
    graph.locate(first)   # int(nan) raises when the graph runs: from the user's line
    var = SymScalarVariable(symbol, graph.ir.deps(symbol))
    var.graph = weakref.ref(graph)
    return var


def meets_numpy_scalar(graph, a, b) -> bool:
    """Whether ``a op b`` is a number read from data and a NumPy scalar constant
    (``m * np.float32(2)``): recorded as an op on a NumPy scalar, whose result
    is a NumPy scalar of the dtype NEP 50 gives for every value of ``m``."""
    for num, other in ((a, b), (b, a)):
        if _is_data_number(num) and isinstance(other, ConstVariable) and isinstance(other.value, np.generic) and \
                other.value.dtype.kind in "biufc":
            # a Python int past the NumPy int's range raises OverflowError
            return num.meta.type is float or other.value.dtype.kind not in "biu" or _may_raise_here(graph)
    return False
