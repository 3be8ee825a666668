"""Writes (``sot.ir.ops_write``) in a graph run by onnxruntime: on NumPy, in place.

An ONNX value is a new buffer, never the memory of an array, so in a
partitioned graph:

* a write into memory the graph sees as one value — an array and box views
  of it (``u[1:-1, 1:-1]``), no other input overlapping it
  (``functional_classes``, ``write_views``) — is lowered as computing
  the array's new value (``onnx_lowering_writes``); into a graph input,
  that value is copied into the caller's array when the segment ends
  (``writeback``); should one such write, or a view of that memory, not
  lower, the plan is redone with that memory on NumPy;
* every other write statement runs on NumPy, on the real memory;
* so does every statement whose result is (or may be) memory that a write
  changes — the *written memory classes*: symbols joined by aliasing ops
  (views, in-place operators), and inputs that shared memory when the graph
  was recorded (``StatementIR.shared``, guarded by ``OverlapGuard``).  A
  view computed by onnxruntime would be a stale copy; the statement that
  allocated written memory stays on NumPy so that the memory is NumPy's;
* a statement that only *reads* written memory into a new array may run on
  onnxruntime: segments run in program order and take their inputs when
  they run, so it sees the writes before it and none after it (a fused
  pattern never spans a write: ``onnx_fusion`` ``Graph.movable``).

The whole graph stays on NumPy (``whole_graph_reason``) when its dims are
symbolic, or when it writes into an input frozen as an ONNX constant.

Errors: the graph's statements run up to the first write into memory from
outside the graph as usual (an error there is rerun natively by the
caller); from that write on, an error becomes ``GraphWriteError``
(``split_at_commit``), as in the NumPy backend.
"""
from __future__ import annotations

from sot.ir.ops_write import is_write, write_roots, write_target
from sot.ir.statement_ir import StatementIR

from .write_views import view_classes

__all__ = ["forced_by_writes", "functional_classes", "functional_targets", "writeback", "fallen_back", "whole_graph_reason", "split_at_commit",
           "has_writes"]

WHY = "memory a write changes stays NumPy's: writes run in place, on NumPy"


def has_writes(graph: StatementIR) -> bool:
    return any(is_write(st) for st in graph.statements)


def _classes(graph: StatementIR):
    parent: dict[str, str] = {}

    def find(name):
        while parent.get(name, name) != name:
            parent[name] = parent.get(parent[name], parent[name])
            name = parent[name]
        return name

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    for a, b in graph.shared:
        union(a, b)
    for st in graph.statements:
        if st.op.aliases:
            for o in st.outputs:
                for s in st.symbols_used():
                    union(o.name, s.name)
    return find


def _written(graph: StatementIR):
    find = _classes(graph)
    return find, {find(write_target(st).name) for st in graph.statements if is_write(st)}


def functional_classes(graph: StatementIR):
    """(find, {class root: ViewClass}): the written classes lowered as one
    value (``write_views``): a root alone (no view of it in the graph,
    no other input overlapping it, not frozen), or a root and box views of it."""
    find, written = _written(graph)
    return find, view_classes(graph, find, written)


def functional_targets(graph: StatementIR) -> dict[str, str]:
    """Written symbols of ``functional_classes``, each with its class root.
    A graph input among their roots is written back after each segment
    (``writeback``)."""
    find, classes = functional_classes(graph)
    return {write_target(st).name: find(write_target(st).name) for st in graph.statements
            if is_write(st) and find(write_target(st).name) in classes}


def writeback(graph: StatementIR, segment) -> list[str]:
    """The graph inputs an ONNX segment writes (functionally, through views
    of them too): their last value is copied into the caller's array after
    the segment runs."""
    find, classes = functional_classes(graph)
    inputs = {s.name for s in graph.inputs}
    roots = [classes[find(write_target(st).name)].root.name for st in segment.statements
             if is_write(st) and find(write_target(st).name) in classes]
    return [name for name in dict.fromkeys(roots) if name in inputs]


def forced_by_writes(graph: StatementIR, on_numpy: frozenset = frozenset()) -> dict[int, str]:
    """Statement index -> why it runs on NumPy (see the module docstring).
    Writes into ``functional_targets`` are lowered (onnx_lowering_writes)
    unless their class is in ``on_numpy``."""
    find, written = _written(graph)
    if not written:
        return {}
    functional = set(functional_targets(graph).values()) - set(on_numpy)
    forced = {}
    for i, st in enumerate(graph.statements):
        if is_write(st) and find(write_target(st).name) not in functional:
            forced[i] = WHY
        elif any(find(s.name) in written - functional for s in st.outputs):
            forced[i] = WHY
    return forced


def fallen_back(graph: StatementIR, not_lowered) -> frozenset:
    """Functional classes a write into which, or a view of which, did not
    lower: a plan must then keep all of that memory on NumPy (an array
    onnxruntime made may be one object with another name's, see
    onnx_session._as_numpy; a view NumPy made must see later writes)."""
    find, classes = functional_classes(graph)
    found = set()
    for st, _ in not_lowered:
        names = [s.name for s in st.outputs] + ([write_target(st).name] if is_write(st) else [])
        found |= {find(n) for n in names if find(n) in classes}
    return frozenset(found)


def whole_graph_reason(graph: StatementIR) -> str | None:
    """Why a graph with writes runs wholly on NumPy, or None."""
    if not has_writes(graph):
        return None
    if graph.is_symbolic:
        return "the graph writes into arrays in place and has symbolic dims: it runs on NumPy"
    find, written = _written(graph)
    if any(find(name) in written for name in graph.frozen):
        return "the graph writes into an array frozen as a constant: it runs on NumPy"
    return None


def split_at_commit(graph: StatementIR, steps: list, numpy_segment: type) -> tuple[list, list]:
    """``steps`` cut before the first write into memory from outside the graph:
    (the steps before it, the steps from it on); ``numpy_segment`` is the
    class of a NumPy step (``NumpySegment(statements)``).  An onnxruntime
    step that writes back an input commits when it ends."""
    committing = {id(st) for st, roots in write_roots(graph) if roots}
    for k, step in enumerate(steps):
        if not isinstance(step, numpy_segment):
            if getattr(step, "writeback", None):
                return steps[:k + 1], steps[k + 1:]
            continue
        statements = step.statements
        for j, st in enumerate(statements):
            if id(st) in committing:
                before = steps[:k] + ([numpy_segment(statements[:j])] if j else [])
                return before, [numpy_segment(statements[j:])] + steps[k + 1:]
    return steps, []
