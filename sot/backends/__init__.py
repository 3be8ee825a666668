"""Backends: lowering a StatementIR to runnable code."""

from .numpy_backend import CompiledGraph, compile_numpy

__all__ = ["compile_numpy", "CompiledGraph"]
