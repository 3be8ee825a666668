"""A trace that unrolls a long Python loop over tiny values stops early.

``for i in range(n): cp[i] = c[i] / (b[i] - a[i] * cp[i - 1])`` (a Thomas
sweep) or a whole Kalman filter over 500 time steps of 3x3 matrices
records a handful of statements per iteration on values of a few elements:
a graph of thousands of tiny operations, each costing the simulator
hundreds of times what NumPy spends on it eagerly. Such a graph runs the
same NumPy calls as the loop (saving only the interpreter between them),
so its translation is almost all first-call cost: 0.6 s for the Thomas
sweep over 200 points (1 ms eager), 2.5 s for the Kalman filter (15 ms
eager). Past `LIMIT` such operations that are most of the trace, the
frame runs natively (no graph break: a resume function would unroll the
rest of the loop again). Only a translation sets the limit
(`FunctionGraph.tiny_limit`): `full_graph=True`, strict mode and export
ask for the graph whatever it costs."""
from __future__ import annotations

from ..breaks.reasons import LIMIT as LIMIT_KIND, FallbackError
from ..ir.statement_ir import symbols_in

#: tiny operations a trace may record before it is given up
LIMIT = 256
#: ... when they are at least this share of its statements (array work amortises them)
SHARE = 0.75
#: elements of a tiny value (a small vector or matrix; no symbolic dim)
TINY = 16


def _tiny(meta) -> bool:
    return meta.is_python or (not meta.symbolic_axes and meta.size <= TINY)


def is_tiny_op(op, ir_args, out) -> bool:
    """An operation on tiny values: a tiny result read from an array
    (``x[i]``, ``X[k]``) or computed from tiny values only (``a * b``, ``F @ x``)."""
    outs = out if isinstance(out, tuple) else (out,)
    if not all(_tiny(s.meta) for s in outs):
        return False
    return op.name == "getitem" or all(_tiny(s.meta) for s in symbols_in(ir_args))


def count(graph, op, ir_args, out) -> None:
    """Count ``op`` if it works on tiny values; FallbackError (the frame
    runs natively) once the trace is mostly a long unrolled loop of them."""
    if graph.tiny_limit is None or not is_tiny_op(op, ir_args, out):
        return
    graph.tiny_ops += 1
    if graph.tiny_ops > graph.tiny_limit and graph.tiny_ops >= SHARE * len(graph.ir):
        error = FallbackError(LIMIT_KIND, f"the trace unrolled more than {LIMIT} operations on values of at most "
                              f"{TINY} elements (a long Python loop over tiny values): a graph of them is no "
                              "faster than the loop, and costs hundreds of times more to translate",
                              hint="vectorise the loop, or leave this function undecorated")
        error.no_break = True   # a resume function would unroll the rest of the loop again
        raise error
