"""Errors onnxruntime cannot raise as NumPy does: a graph that gathers with
traced indices (``lowering_gather``) fails inside onnxruntime on an
index out of bounds, where eager NumPy raises IndexError.  Such a graph's
fast function reruns the call on the NumPy reference when onnxruntime fails
(the graph has no side effects: its in-place updates touch only arrays it
allocated), which raises eager's error, or gives eager's result.
"""
from __future__ import annotations

from .lowering_gather import has_checked_gather

__all__ = ["rerun_on_numpy_when_onnxruntime_fails"]


def rerun_on_numpy_when_onnxruntime_fails(graph, fn, reference):
    """``fn`` itself when no statement can fail that way; else ``fn`` falling
    back to ``reference()`` (a function making the NumPy reference's run
    function, built on the first failure)."""
    if not has_checked_gather(graph):
        return fn
    state = []

    def run_graph(*inputs):
        try:
            return fn(*inputs)
        except Exception as e:
            if not type(e).__module__.startswith("onnxruntime"):
                raise
        if not state:
            state.append(reference())
        return state[0](*inputs)
    return run_graph
