"""sot: a bytecode-level JIT tracer for NumPy code.

    @sot.to_static
    def f(x): ...

The API: to_static (options: help(sot.to_static)), not_to_static, reset,
explain / ExplainReport, set_verbosity, set_code_level, mark_dynamic,
GraphBreakError, psdb.breakgraph / psdb.fallback; deployment: save, load,
InputSpec, ExportError. See README.md for the backends and the
environment variables.
"""
from ._version import __version__
from . import _native

_native.load()   # in a source tree without a built extension: an installed sot's, or a clear error

from .logs import set_code_level, set_verbosity
from .api import not_to_static, reset, skip, to_static, trace_into, translation_count
from .explain import ExplainReport, explain
from . import psdb

# Imported on first use, so `import sot` stays light.
_LAZY = {"ExportError": "export", "InputSpec": "export", "load": "export", "save": "export",
         "GraphBreakError": "translate", "mark_dynamic": "executor.shape_policy"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sot' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

def __dir__() -> list[str]:
    """The module's names, including those imported on first use (save, load, ...)."""
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "to_static", "not_to_static", "skip", "trace_into", "reset", "explain", "ExplainReport", "GraphBreakError",
    "translation_count", "set_verbosity", "set_code_level", "psdb",
    "InputSpec", "save", "load", "ExportError", "mark_dynamic",
]
