"""What ``sot.explain`` says about each compiled graph: where its statements
run and why, the memory it holds, and float64 promotions that come from a
NumPy scalar.

``placement(compiled)``: lines on where the graph runs -- for onnxruntime,
each statement that stays on NumPy with the reason it did not lower (the
same reasons ``sot.save`` gives); for auto, the backend it chose and the
times that decided, and per segment where it placed them; for symbolic graphs, how new shapes are checked.

``promotion_hints(graph)``: statements whose float32 array operand meets a
float64 NumPy scalar (``x / np.sqrt(d)``: ``np.sqrt`` of a Python number is
an ``np.float64``, which NumPy 2 does not treat as weak) and so give
float64.  A hint only: the graph computes what eager computes, in float64.
"""
from __future__ import annotations

import numpy as np

from .ir.statement_ir import Symbol

__all__ = ["placement", "promotion_hints", "held"]


def held(compiled) -> dict:
    from .backends.memory import held_bytes
    return held_bytes(compiled)


def placement(compiled) -> list[str]:
    try:
        report = compiled.explain()
    except Exception:  # noqa: BLE001 - a report only
        return []
    return _placement(report)


def _placement(report: dict) -> list[str]:
    lines = []
    if report.get("backend") == "auto":
        if report.get("chosen"):
            lines.append(f"auto chose {report['chosen']}: {report.get('why', '')}".rstrip(": "))
        else:
            lines.append("auto has not chosen yet (it times both backends on the first calls)")
        return lines + _placement(report.get("onnxruntime") or {})
    for i, c in enumerate(report.get("segment_choices", ())):   # auto per segment (onnx.segments)
        where = f"{c['chosen']}: {c['why']}" if c["chosen"] else "not chosen yet (timed on the first calls)"
        lines.append(f"segment {i} ({c['kind']}, {c['statements']} statements from {c['first']}): {where}")
    for i, c in enumerate(report.get("thread_choices", ())):   # onnx.threads
        where = f"{c['chosen']} ({c['why']})" if c["chosen"] else "not chosen yet (timed on the first calls)"
        lines.append(f"small onnxruntime segment {i}: threads: {where}")
    for item in report.get("not_lowered", ()):
        lines.append(f"on NumPy: {item['statement']}: {item['reason']}")
    per = report.get("per_shape_bytes")
    if per:   # PerShapeCompiledGraph (symbolic_shapes)
        sizes = ", ".join(f"{k}: {v['held_bytes'] / 1e6:.1f} MB" for k, v in report.get("per_shape", {}).items())
        lines.append(f"compiled per input shape: {len(report.get('per_shape', {}))} shape(s) (at most "
                     f"{per['max_shapes']}) holding {per['held'] / 1e6:.1f} MB (the least recently used "
                     f"dropped past {per['limit'] / 1e6:.0f} MB): {sizes}")
    sc = report.get("size_check")
    if sc:
        if sc["compiled"]:
            lines.append(f"new input shapes: {sc['compiled_checks']} checked by the compiled size relations "
                         f"(sizes from {tuple(sc['base'])}), {sc['full_checks']} by re-inferring the graph")
        else:
            lines.append(f"new input shapes: {sc['full_checks']} checked by re-inferring the graph "
                         "(its sizes are not all affine in the symbolic dims)")
    return lines


def _float64_scalar(a) -> bool:
    if isinstance(a, Symbol):
        m = a.meta
        return not m.is_python and m.is_scalar and m.dtype == np.float64
    return type(a) is np.float64


def _float32_array(a) -> bool:
    return isinstance(a, Symbol) and not a.meta.is_python and not a.meta.is_scalar \
        and a.meta.dtype == np.float32


def promotion_hints(graph) -> list[str]:
    hints = []
    for st in graph.statements:
        outs = [s for s in st.outputs if not s.meta.is_python]
        if not outs or outs[0].meta.dtype != np.float64:
            continue
        args = list(st.args) + list(st.kwargs.values())
        if any(_float32_array(a) for a in args) and any(_float64_scalar(a) for a in args):
            hints.append(f"{st}: a float32 array meets a float64 NumPy scalar, so the result (and what "
                         "follows) is float64, as in eager; if float32 is meant, use a Python float "
                         "(d ** 0.5) or np.float32(...) for the scalar")
    return hints
