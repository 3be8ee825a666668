"""Arrays the graph makes that NumPy makes read-only: ``np.broadcast_to``,
``a.diagonal()`` / ``np.diagonal`` / ``np.diag`` of a 2-d array,
``sliding_window_view`` (unless ``writeable=True``), ``.imag`` of a real
array, and every view of one of those.

A write into one raises NumPy's "assignment destination is read-only" (or
"output array is read-only"): recorded in the graph it would raise when the
graph runs, past the frame's own ``try``. ``read_only_source`` finds the op
that made the written array read-only, walking back through the views the
graph made (``Op.aliases``), so that the write runs natively instead
(writes.record). An aliasing op that copies after all (a reshape that cannot
view) is taken as a view: the write then runs natively, which is exact.
"""
from __future__ import annotations

from ..ir.statement_ir import Symbol

__all__ = ["read_only_source"]


def _first_array(st) -> Symbol | None:
    return next(iter(st.symbols_used()), None)


def _makes_read_only(st) -> bool:
    name, kind = st.op.name, st.op.kind
    if kind not in ("function", "method", "attribute"):
        return False
    if name in ("broadcast_to", "diagonal"):
        return True
    if name == "sliding_window_view":
        return st.kwargs.get("writeable", False) is not True
    operand = _first_array(st)
    if operand is None:
        return False
    if name == "diag":
        return len(operand.meta.shape) == 2
    if name == "imag":
        return operand.meta.dtype.kind != "c"
    return False


def read_only_source(ir, symbol: Symbol) -> str | None:
    """The name of the op that made `symbol` (or the array it views) a
    read-only array, or None."""
    producers = {out.name: st for st in ir.statements for out in st.outputs}
    stack, seen = [symbol.name], set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        st = producers.get(name)
        if st is None:
            continue   # an input: its own flag is checked (writes.record)
        if _makes_read_only(st):
            return st.op.name
        if st.op.aliases:
            stack.extend(s.name for s in st.symbols_used())
    return None
