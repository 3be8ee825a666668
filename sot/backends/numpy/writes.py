"""Writes (``sot.ir.ops_write``) in the NumPy backend: run in place, as written.

``x[i] = v`` is generated as ``i0[i] = t1``, ``x += y`` as ``i0 += t1``, a
ufunc's ``out=`` and the writing functions and methods as the call itself
(``np.add(i0, i1, out=i2)``, ``i0.fill(0.0)``): the same NumPy call on the
same memory as eagerly, so the result is bitwise eager's, views included.

A graph whose statements raise is rerun natively by the caller (nothing it
did was observable) — unless it has already written into memory it did not
allocate (an input, or a view of one): a rerun would write twice.  From the
first such write on, the generated code turns an error into
``GraphWriteError``, which the caller unwraps and raises as it is.
"""
from __future__ import annotations

import numpy as np

from sot.ir.ops_write import INPLACE_SYMBOLS, SETITEM, write_roots

__all__ = ["GraphWriteError", "write_source", "first_commit", "guard_commit"]


class GraphWriteError(Exception):
    """``error`` was raised after the graph wrote into memory from outside it."""

    def __init__(self, error: BaseException):
        super().__init__(error)
        self.error = error


def write_source(em, st) -> str:
    """The line of generated source for the write ``st`` (``em``: the emitter)."""
    args = st.args
    if st.op is SETITEM:
        return f"{em.receiver(args[0])}[{em.subscript(args[1])}] = {em.value(args[2])}"
    symbol = INPLACE_SYMBOLS.get(getattr(st.op.target, "__name__", ""))
    if st.op.kind == "operator" and symbol:
        return f"{em.receiver(args[0])} {symbol} {em.atom(args[1])}"
    ufunc = getattr(st.op.target, "__self__", None)
    if isinstance(ufunc, np.ufunc):   # np.add.at(...)
        return f"{em.function(ufunc, ufunc.__name__)}.at({em.call_args(args, st.kwargs)})"
    return em.expression(st)


def first_commit(graph) -> int | None:
    """Index of the first statement that writes into memory from outside the graph."""
    committing = {id(st) for st, roots in write_roots(graph) if roots}
    for i, st in enumerate(graph.statements):
        if id(st) in committing:
            return i
    return None


def guard_commit(body: list[str], start: int) -> list[str]:
    """``body`` with its lines from ``start`` on turning errors into GraphWriteError."""
    return (body[:start] + ["try:"] + [f"    {line}" for line in body[start:]]
            + ["except Exception as __e:", "    raise __GraphWriteError(__e) from __e"])
