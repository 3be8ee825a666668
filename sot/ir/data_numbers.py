"""Python numbers read from array data: ``float(x.mean())``, ``x.std().item()``.

Such a number is known only when the graph runs, as a data-dependent size
is (``sot.ir.unbacked``): its source is an ``UnbackedSource``, so the trace
goes on over it with nothing to guard, and whatever needs its value in
Python (a branch, a print, ``range``, a shape, an index) breaks the graph
there; the resume function takes it as a number input.  The generated code
calls ``float(x)`` / ``x.item()`` itself, so the value is eager's to the bit
(-0.0, NaN payloads) and is a real Python ``float``: NumPy treats it as a
weak scalar (NEP 50) in every op the graph records, as eagerly.

``int(n.sum())`` / ``x.item()`` of an integer (or bool) array is a Python
int the same way (exact: a Python int holds every int64 and uint64).

Inference sees ``HINTS[type]`` (and ``+ SHADOW_OFFSET * k`` in the shadow
world): an op whose result kind depends on the value breaks, and so does
an array op whose result's size it decides (``check_array_op``).  A Python
operator on it must also give a result type that no value can change:
``x ** 0.5`` of a negative float is complex, so only ``TYPE_STABLE``
operators enter the graph (the rest break, as before).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import UnsupportedOp
from .registry import Op
from .symbolic import SHADOW_OFFSET, ScalarMeta
from .unbacked import UnbackedSource

__all__ = ["DataNumberSource", "FLOAT_OP", "INT_OP", "ITEM_OP", "ROUND_OP", "PYTHON_FUNCTION_OPS", "number_meta",
           "check_python_op", "check_array_op", "HINTS"]

#: the trace-time stand-ins of a number read from data: a float neither 0,
#: integral nor a round number (``1 / (m - 0.5)`` is decided as for most
#: values); an int as an unbacked size's (neither 0, 1 nor negative)
HINTS = {float: 0.6180339887498949, int: 7}

#: Python operators whose result type is the same for every int or float operand
#: (+, -, *, /, //, %, comparisons, ``round(m)`` an int and ``round(m, n)`` a float of
#: a float; a division by zero or ``round(nan)`` raises at run time, as eagerly)
TYPE_STABLE = frozenset(("add", "sub", "mul", "truediv", "floordiv", "mod", "neg", "pos", "abs",
                         "lt", "le", "gt", "ge", "eq", "ne", "round"))


@dataclass(frozen=True)
class DataNumberSource(UnbackedSource):
    """The source of a Python number read from array data by ``op``."""

    def name(self) -> str:
        return f"the Python number {self.op} read from array data"


def _no_infer(op, args, kwargs):
    raise UnsupportedOp(f"{op.name} is recorded by StatementIR.add_data_number")


#: ``float(x)`` / ``int(x)`` of a 0-d array or NumPy scalar; ``x.item()`` of a one-element array
FLOAT_OP = Op("float", "operator", float, _no_infer)
INT_OP = Op("int", "operator", int, _no_infer)
ITEM_OP = Op("item", "method", "item", _no_infer)
#: ``round(m)`` / ``round(m, n)`` of a number read from data (recorded as a Python operator)
ROUND_OP = Op("round", "operator", round, _no_infer)

#: math functions whose result type is one for every int or float argument (a float,
#: or an int for floor/ceil/trunc, a bool for isnan/isinf/isfinite; a domain error
#: raises at run time, as eagerly), and min/max of numbers of one type
_MATH = ("sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "atan", "tanh", "fabs",
         "erf", "erfc", "floor", "ceil", "trunc", "isnan", "isinf", "isfinite")
PYTHON_FUNCTION_OPS = {**{id(getattr(math, n)): Op(f"math.{n}", "operator", getattr(math, n), _no_infer)
                          for n in _MATH},
                       id(min): Op("min", "operator", min, _no_infer), id(max): Op("max", "operator", max, _no_infer)}
TYPE_STABLE = TYPE_STABLE | {op.name for op in PYTHON_FUNCTION_OPS.values()}


def number_meta(kind: type, k: int) -> ScalarMeta:
    """The meta of data number ``k``, a Python ``kind`` (float or int)."""
    hint = HINTS[kind]
    return ScalarMeta(kind, hint, hint + SHADOW_OFFSET * k)


def is_data_number(source) -> bool:
    return isinstance(source, DataNumberSource)


def _int_power(op, args) -> bool:
    """``m ** 2``: a float to a constant int power is a float (or raises) for every float; an
    int to one is an int (a float for a negative power) for every int."""
    return op.name == "pow" and len(args) == 2 and type(args[1]) in (int, bool)


def _python_type(value):
    meta = getattr(value, "meta", None)
    return meta.type if meta is not None else type(value)


def _float_power(op, args) -> bool:
    """``0.5 ** (n // 3)``: a float to an int power is a float (or raises) for every
    value of either; so is a positive constant to a float power (``2 ** m``).  An int to
    an int power is a float for a negative one, a negative float to a float power complex."""
    if op.name != "pow" or len(args) != 2:
        return False
    base, exponent = (_python_type(a) for a in args)
    if base is float and exponent in (int, bool):
        return True
    const_base = not hasattr(args[0], "meta") and type(args[0]) in (int, float) and args[0] > 0
    return const_base and exponent is float


def check_python_op(op, args, deps) -> None:
    """UnsupportedOp unless Python operator ``op`` on a data number gives one result type for every value."""
    if op.name not in TYPE_STABLE and not _int_power(op, args) and not _float_power(op, args) and \
            any(is_data_number(s) for s in deps):
        raise UnsupportedOp(f"{op.name} of a Python number read from array data: its result type "
                            "may depend on the value")


def _shapes(found):
    """The hint-world ranks and sizes of an inference result, for comparison."""
    from .meta import TensorMeta
    from .unbacked import UnbackedResult
    if isinstance(found, UnbackedResult):
        found = found.metas
    if isinstance(found, (tuple, list)):
        return tuple(_shapes(m) for m in found)
    if isinstance(found, TensorMeta):
        return found.is_scalar, found.shape
    return type(found)


def check_array_op(op, args, kwargs, deps, metas, deps_of) -> None:
    """UnsupportedOp where a data number may decide a size of an array op's
    result (``np.arange(m)``, ``x[:n]``, ``np.ones(n % 3)``): such a size
    would be taken as the traced one, or be symbolic with nothing to check
    it at 0 or 1, so the op breaks.  Decided by inferring the op again with
    every Python number computed from a data number as a NumPy scalar of
    its type, whose value inference cannot read: where that is rejected
    (a size, a slice bound) or gives other sizes, the value takes part.
    ``deps_of(symbol)``: its sources."""
    if not any(is_data_number(s) for s in deps):
        return
    import numpy as np
    from .meta import TensorMeta
    from .statement_ir import Symbol, map_symbols

    def stand_in(sym):
        if not sym.meta.is_python:
            return sym
        if any(is_data_number(s) for s in deps_of(sym)):
            return Symbol(f"{sym.name}#data", TensorMeta((), np.dtype(sym.meta.type), True))
        return sym.meta.hint
    try:
        found = op.infer(map_symbols(args, stand_in), map_symbols(kwargs, stand_in))
    except Exception as e:  # noqa: BLE001 - an inference that needs the value
        raise UnsupportedOp(f"{op.name} may depend on the value of a Python number read from array data "
                            f"({type(e).__name__}: {e})") from None
    if _shapes(found) != _shapes(metas):
        raise UnsupportedOp(f"{op.name}: a Python number read from array data decides its result's size")
