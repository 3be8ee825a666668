"""A whole StatementIR as one ONNX model (``sot.backends.onnx.to_model``),
for callers that need the model itself rather than a session: ``sot.save``.

Every statement must lower exactly (into one segment) and, with symbolic
dims, lower for every size; otherwise ``NotOneModel`` says which statements
and why.  The model's symbolic dims are the ``dim_param``\\ s ``dim_names``
gives (``lowering.dim_names`` by default).
"""
from __future__ import annotations

from sot.ir.statement_ir import StatementIR

from .builder import GraphBuilder
from .lowering import OnnxSegment, plan

__all__ = ["to_model", "NotOneModel"]


class NotOneModel(Exception):
    """The graph is not one ONNX model.  ``not_lowered``: [(Statement, why)]
    with no exact lowering; ``not_symbolic``: [(Statement, why)] lowered only
    at static sizes; ``seeded``: Python numbers of the graph the model does
    not compute; ``segments``: how many ONNX segments it lowered to."""

    def __init__(self, not_lowered=(), not_symbolic=(), seeded=(), segments: int = 1):
        self.not_lowered = list(not_lowered)
        self.not_symbolic = list(not_symbolic)
        self.seeded = list(seeded)
        self.segments = segments
        why = [f"{st.expression()}: {r}" for st, r in self.not_symbolic + self.not_lowered]
        why += [f"the Python numbers {', '.join(self.seeded)} are not computed in the model"] if self.seeded else []
        why += [f"the graph lowered to {segments} ONNX segments"] if segments > 1 else []
        super().__init__("; ".join(why))


def to_model(ir: StatementIR, dim_names: dict | None = None, *, fuse: bool = True, outputs=None):
    """(ModelProto, output value names): ``ir`` as one checked ONNX model
    whose outputs are ``outputs`` (Symbols of ``ir``, repeats allowed;
    ``ir.outputs`` by default), in that order.  ``fuse``: with the fused
    patterns (``fusion``).  Raises NotOneModel (see the module docstring)."""
    fuser = None
    if fuse:
        from .fusion import fuse_patterns
        fuser = fuse_patterns
    p = plan(ir, fuser, dim_names)
    if p.not_symbolic:
        raise NotOneModel(not_symbolic=p.not_symbolic)
    if p.not_lowered:
        raise NotOneModel(not_lowered=p.not_lowered)
    segments = [s for s in p.segments if isinstance(s, OnnxSegment)]
    if len(segments) > 1:   # pragma: no cover - all lowered gives one segment
        raise NotOneModel(segments=len(segments))
    b = segments[0].builder if segments else GraphBuilder(ir.name, dim_names)
    seeded = [sym.name for _, sym in b.inputs if sym.meta.is_python]
    if seeded:
        raise NotOneModel(seeded=seeded)
    values = []
    for sym in (ir.outputs if outputs is None else outputs):
        v = b.env.get(sym.name) or b.value(sym)
        b.shape[v] = sym.meta.shape
        values.append(v)
    return b.to_model(values)
