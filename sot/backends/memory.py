"""About how many bytes a compiled graph holds, for ``sot.explain``.

An estimate, by kind: ``initializers`` (constants inside ONNX models),
``frozen`` (arrays a session reads in place or copies: freeze=True weights,
counted once although onnxruntime may also keep a pre-packed copy),
``buffers`` (the NumPy backend's planned intermediates, onnxruntime result
slots kept for reuse) and ``constants`` (arrays the NumPy backend's code
holds).  Arrays reached twice count once."""
from __future__ import annotations

import numpy as np

__all__ = ["held_bytes"]


def held_bytes(compiled) -> dict:
    """{kind: bytes, ..., "total": bytes} held by ``compiled`` (any backend's graph)."""
    out = {"initializers": 0, "frozen": 0, "buffers": 0, "constants": 0}
    _walk(compiled, out, set())
    out["total"] = sum(out.values())
    return out


def _array(a, kind, out, seen) -> None:
    if isinstance(a, np.ndarray) and id(a) not in seen:
        seen.add(id(a))
        base = a if a.base is None else a.base
        out[kind] += base.nbytes if isinstance(base, np.ndarray) else a.nbytes


def _walk(obj, out, seen) -> None:
    if obj is None or id(obj) in seen:
        return
    seen.add(id(obj))
    for name in ("numpy", "onnx", "reference"):          # auto; per-shape and symbolic reference graphs
        _walk(getattr(obj, name, None), out, seen)
    for compiled in getattr(obj, "compiled_graphs", ()):  # PerShapeCompiledGraph: one per shapes
        _walk(compiled, out, seen)
    for step in getattr(obj, "steps", ()):
        model = getattr(step, "model", None)
        if model is not None:
            out["initializers"] += sum(len(t.raw_data) for t in model.graph.initializer)
        for a in (getattr(step, "frozen", None) or {}).values():
            _array(a, "frozen", out, seen)
        for a in getattr(getattr(step, "outputs", None), "slots", ()):
            _array(a, "buffers", out, seen)
    pool = getattr(obj, "buffers", None)
    if pool is not None and hasattr(pool, "nbytes"):
        out["buffers"] += pool.nbytes
    constants = getattr(obj, "constants", None)
    if isinstance(constants, dict):
        for a in constants.values():
            _array(a, "constants", out, seen)
