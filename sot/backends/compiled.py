"""What every backend's compiled graph offers: ``compile_graph``'s result.

Callers (the runner that runner.py builds, ``sot.explain``, export) use
only this, never a backend's private attributes.
"""
from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

__all__ = ["CompiledGraph"]


@runtime_checkable
class CompiledGraph(Protocol):
    """A StatementIR compiled by one backend."""

    #: where it runs: "numpy", "onnxruntime", "numpy+onnxruntime", "auto"...
    backend: str
    #: what it runs, for people: generated NumPy code, or the ONNX plan
    source: str

    @property
    def fn(self) -> Callable[..., tuple]:
        """The callable for the warm path: the input values in, the tuple of
        outputs out; the backend's plain function where it has one (one call
        less than calling the graph)."""

    def explain(self) -> dict:
        """Where each statement runs and why (see ``sot.explain_graphs``)."""

    def __call__(self, *inputs) -> tuple:
        """The tuple of outputs for the input values."""
