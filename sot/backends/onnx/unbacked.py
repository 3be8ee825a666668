"""Statements over data-dependent sizes (``sot.ir.unbacked``) run on NumPy.

An unbacked size may be 0 or 1 when the graph runs, where NumPy raises or
treats an axis specially (``x[mask].max()`` of nothing raises; onnxruntime's
ReduceMax does not), and the ONNX models' size checks see the input shapes
only.  So the statements that make such a value, or read one, stay on NumPy
(a partition of the graph); what they compute that has a static shape (a sum
over the selection) flows on to onnxruntime.  A graph with a Python number
computed from such a size runs wholly on NumPy (``whole_graph_reason``).
"""

from __future__ import annotations

from sot.ir.statement_ir import StatementIR
from sot.ir.unbacked import any_unbacked

__all__ = ["forced_by_unbacked", "WHY", "whole_graph_reason"]

WHY = "its size is known only at run time (data-dependent): it runs on NumPy"


def forced_by_unbacked(graph: StatementIR) -> dict[int, str]:
    """Statement index -> why it runs on NumPy."""
    forced = {}
    for i, st in enumerate(graph.statements):
        if any(any_unbacked(graph.deps(s)) for s in st.symbols_used() + list(st.outputs)):
            forced[i] = WHY
    return forced


def whole_graph_reason(graph: StatementIR) -> str | None:
    """Why the graph runs wholly on NumPy, or None: a Python number computed
    from a data-dependent size (``len(x[mask])``) is known only to NumPy's
    run, while an ONNX model's runner takes the graph's numbers from the
    input shapes."""
    for st in graph.statements:
        if any(s.meta.is_python and any_unbacked(graph.deps(s)) for s in st.outputs):
            return f"{st.outputs[0].name} is a Python number computed from a size known only at run time"
    return None
