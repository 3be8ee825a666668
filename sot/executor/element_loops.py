"""A trace that unrolls a Python loop over array elements stops early.

``for i in range(n): cp[i] = c[i] / (b[i] - a[i] * cp[i - 1])`` records a
handful of statements on single elements per iteration: a graph of
thousands of 0-d operations, each costing the simulator hundreds of times
what NumPy spends on it eagerly. Such a graph runs no faster than the loop
(the do-no-harm governor then picks native anyway), so its translation is
pure first-call cost: a Thomas sweep over 200 points took 0.6 s to
translate for a 1 ms eager call. Past `LIMIT` element operations that are
most of the trace, the frame runs natively (no graph break: the loop would
be unrolled again by a resume function)."""
from __future__ import annotations

from ..breaks.reasons import LIMIT as LIMIT_KIND, FallbackError
from ..ir.statement_ir import symbols_in

#: element operations a trace may record before it is given up
LIMIT = 256
#: ... when they are at least this share of its statements (array work amortises them)
SHARE = 0.75


def is_element_op(op, ir_args, out) -> bool:
    """An operation on single elements: a 0-d result read from an array
    (``x[i]``) or computed from 0-d values only (``a * b`` of two such)."""
    if isinstance(out, tuple) or out.meta.ndim != 0:
        return False
    if op.name == "getitem":
        return True
    return all(s.meta.ndim == 0 for s in symbols_in(ir_args))


def count(graph, op, ir_args, out) -> None:
    """Count ``op`` if it works on single elements; FallbackError (the frame
    runs natively) once the trace is mostly a long unrolled element loop."""
    if not is_element_op(op, ir_args, out):
        return
    graph.element_ops += 1
    if graph.element_ops > LIMIT and graph.element_ops >= SHARE * len(graph.ir):
        error = FallbackError(LIMIT_KIND, f"the trace unrolled more than {LIMIT} operations on single array "
                              "elements (a Python loop over elements): a graph of them is no faster than the loop",
                              hint="vectorise the loop, or leave this function undecorated")
        error.no_break = True   # a resume function would unroll the rest of the loop again
        raise error
