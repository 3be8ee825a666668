"""sot: a bytecode-level JIT tracer for NumPy code.

    @sot.to_static
    def f(x): ...

See README.md for the API, the backends and the environment variables.
"""
from .logs import set_code_level, set_verbosity
from .api import not_to_static, reset, skip, to_static, trace_into, translation_count
from .explain import ExplainReport, explain
from . import psdb

__version__ = "0.1.0"

# Imported on first use, so `import sot` stays light.
_LAZY = {"ExportError": "export", "InputSpec": "export", "load": "export", "save": "export",
         "GraphBreakError": "translate", "mark_dynamic": "executor.shape_policy"}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sot' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

__all__ = [
    "to_static", "not_to_static", "skip", "trace_into", "reset", "explain", "ExplainReport", "GraphBreakError",
    "translation_count", "set_verbosity", "set_code_level", "psdb",
    "InputSpec", "save", "load", "ExportError", "mark_dynamic",
]
