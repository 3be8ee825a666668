"""Backends: lowering a StatementIR to runnable code.

``compile_graph(graph, backend, device)`` is the one entry point:

* ``"numpy"`` — generated NumPy source (``numpy.backend``), the reference;
* ``"onnxruntime"`` — the graph lowered to ONNX and run by onnxruntime
  (``onnx_*`` modules); statements without an exact lowering run on NumPy
  (``.backend == "numpy+onnxruntime"``) or, when none lowers, the whole
  graph stays on NumPy;
* ``"auto"`` — both, timed on the first calls, the faster kept.

A graph with symbolic dims runs as it is on NumPy; on onnxruntime and auto
it is lowered once to ONNX models with symbolic dims (``onnx.symbolic``),
or, where a statement lowers only at static sizes (the log at verbosity 1
says which and why), compiled once per tuple of input shapes
(``symbolic_shapes``).

Every compiled graph is a ``CompiledGraph`` (``compiled.py``): callable with
the input values, it returns the tuple of outputs, and has ``.fn`` (the
same, one call less), ``.source``, ``.backend`` and ``.explain()``.  onnx and
onnxruntime are imported only when an ONNX graph is compiled.
"""

import logging

from sot.ir.statement_ir import StatementIR
from sot.logs import vlog

from .compiled import CompiledGraph
from .numpy.backend import NumpyCompiledGraph, compile_numpy
from .numpy.writes import GraphWriteError
from .onnx.unbacked import whole_graph_reason as unbacked_reason
from .onnx.writes import whole_graph_reason

log = logging.getLogger("sot.backends")

__all__ = ["compile_graph", "compile_numpy", "CompiledGraph", "GraphWriteError", "BACKENDS", "DEVICES"]

#: calls during which an ``auto`` graph was still timing its backends: the
#: do-no-harm governor (sot/governor.py) does not time such a call (it is
#: the graph's warm-up, half of it on the slower backend), as it does not
#: time a call that translated
measuring_calls = [0]

BACKENDS = ("numpy", "onnxruntime", "auto")
DEVICES = ("cpu", "gpu")


def compile_graph(graph: StatementIR, backend: str = "numpy", device: str = "cpu"):
    """Compile ``graph`` for ``backend`` on ``device`` (see the module docstring)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {BACKENDS}")
    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; expected one of {DEVICES}")
    why = (whole_graph_reason(graph) or unbacked_reason(graph)) if backend != "numpy" else None
    if why is not None:  # see onnx.writes and onnx.unbacked
        return numpy_compiled(graph, {"not_lowered": [
            {"statement": str(st), "op": st.op.name, "reason": why} for st in graph.statements]})
    if backend != "numpy" and graph.has_number_inputs:
        # Python-number inputs (executor/scalar_policy.py): 0-d inputs of a
        # model of static shapes; the Python arithmetic on them runs first,
        # in Python (onnx_lowering._plan). With symbolic dims as well: NumPy.
        if any(s.meta.symbolic_axes for s in graph.inputs):
            return numpy_compiled(graph, {"not_lowered": [
                {"statement": str(st), "op": st.op.name,
                 "reason": "Python-number inputs and symbolic dims in one graph run on NumPy"}
                for st in graph.statements]})
        return _compile_static(graph, backend, device)
    if backend != "numpy" and graph.is_symbolic:
        compiled = _compile_symbolic(graph, backend, device)
        if compiled is not None:
            return compiled
        # one compilation per input shapes
        from .symbolic_shapes import PerShapeCompiledGraph
        return PerShapeCompiledGraph(graph, lambda ir: _compile_static(ir, backend, device), backend)
    return _compile_static(graph, backend, device)


def _compile_symbolic(graph: StatementIR, backend: str, device: str):
    """The graph as one ONNX model for all sizes, or None (logged) when it
    does not lower with symbolic dims."""
    from .onnx.session import _rejected, providers_for
    from .onnx.symbolic import NotSymbolicGraph, SymbolicOnnxGraph
    providers_for(device)   # a missing CUDA provider is the caller's error, not a fallback
    compiled = None
    for fuse in (True, False):
        try:
            compiled = SymbolicOnnxGraph(graph, device, fuse)
            break
        except NotSymbolicGraph as e:
            vlog(1, log, "graph %s: compiled per input shape, not with symbolic dims: %s", graph.name,
                 "; ".join(f"{st.expression()}: {why}" for st, why in e.reasons))
            return None
        except Exception as e:  # noqa: BLE001
            if not _rejected(e):
                raise
            vlog(1, log, "graph %s: onnxruntime rejected the symbolic model%s: %s: %s", graph.name,
                 "" if fuse else " without fused patterns", type(e).__name__, e)
    if compiled is None:
        return None
    if compiled.backend == "numpy":   # nothing lowered: the reference backend, with the reasons
        return numpy_compiled(graph, compiled.explain())
    if backend == "auto":
        from .onnx.auto import compile_auto
        return compile_auto(graph, device, onnx=compiled)
    return compiled


def _compile_static(graph: StatementIR, backend: str, device: str):
    if backend == "numpy":
        if device != "cpu":
            raise ValueError("the numpy backend runs on the CPU only; use backend='onnxruntime' "
                             "for device='gpu'")
        return numpy_compiled(graph)
    if backend == "onnxruntime":
        from .onnx.session import compile_onnxruntime
        compiled = compile_onnxruntime(graph, device)
        if compiled.backend == "numpy":   # nothing lowered: the reference backend, with the reasons
            return numpy_compiled(graph, compiled.explain())
        return compiled
    from .onnx.auto import compile_auto
    return compile_auto(graph, device)


def numpy_compiled(graph: StatementIR, onnx_report: dict | None = None) -> NumpyCompiledGraph:
    compiled = compile_numpy(graph)
    if onnx_report is not None:   # why nothing lowered to ONNX
        compiled.not_lowered = onnx_report["not_lowered"]
    return compiled
