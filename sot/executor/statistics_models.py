"""statistics.* of Python numbers in a traced frame: folded at trace time.

The functions are pure (no state, no I/O) and, on exact ints, floats and
bools, run no user code (they compare and add the numbers, in exact
Fractions), so the real function on the guarded constants gives eager's
result or raises eager's StatisticsError. Data read from arrays, NumPy
scalars, Fractions or Decimals are left to run natively (a graph break):
the first need the data, the others run their own operators.
"""
from __future__ import annotations

import statistics

from ..breaks.reasons import DATA_DEPENDENT, UNSUPPORTED_CALL, FallbackError
from .variables import ConstVariable, DynamicScalarVariable, SymScalarVariable, TensorVariable, Variable

_NUMBERS = (int, float, bool)

#: the functions folded, by name (those a Python lacks are left out)
_NAMES = ("mean", "fmean", "median", "median_low", "median_high", "median_grouped", "mode", "multimode",
          "stdev", "pstdev", "variance", "pvariance", "geometric_mean", "harmonic_mean", "quantiles")


def _number(v: Variable, fn) -> object:
    if isinstance(v, ConstVariable) and (type(v.value) in _NUMBERS or v.value is None):
        return v.value
    if isinstance(v, ConstVariable):
        raise FallbackError(UNSUPPORTED_CALL, f"statistics.{fn.__name__} of {type(v.value).__name__} values "
                            "runs their own operators: it runs natively")
    if isinstance(v, (TensorVariable, SymScalarVariable, DynamicScalarVariable)):   # numbers of the graph
        raise FallbackError(DATA_DEPENDENT, f"statistics.{fn.__name__} needs the value of {v.describe()}, "
                            "known only at run time")
    raise FallbackError(UNSUPPORTED_CALL, f"statistics.{fn.__name__} with {v.describe()} is not folded")


def _fold(fn):
    def handler(executor, data, *args, **kwargs):
        from . import dispatch
        if isinstance(data, ConstVariable) and type(data.value) in (tuple, range):
            items = [ConstVariable(v) for v in data.value]
        else:
            items = list(dispatch.get_iter(executor.graph, data).items)   # taken, as eager takes them
        values = [_number(v, fn) for v in items]
        rest = [_number(a, fn) for a in args]
        named = {k: _number(v, fn) if k != "method" else _text(v, fn) for k, v in kwargs.items()}
        return dispatch.folded(dispatch.python_op(fn, values, *rest, **named))
    return handler


def _text(v: Variable, fn) -> str:
    if isinstance(v, ConstVariable) and type(v.value) is str:
        return v.value
    raise FallbackError(UNSUPPORTED_CALL, f"statistics.{fn.__name__} with a method that is not a constant str")


def register(table: dict) -> None:
    for name in _NAMES:
        fn = getattr(statistics, name, None)
        if fn is not None:
            table[fn] = _fold(fn)
