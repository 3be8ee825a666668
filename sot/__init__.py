"""sot: a bytecode-level JIT tracer for NumPy code.

    @sot.to_static
    def f(x): ...

See README.md for the API, the backends and the environment variables.
"""
from .logs import set_code_level, set_verbosity
from .api import not_to_static, reset, to_static, translation_count
from .explain import ExplainReport, explain
from . import psdb
from .translate import GraphBreakError
from .export import ExportError, InputSpec, load, save

__version__ = "0.1.0"

__all__ = [
    "to_static", "not_to_static", "reset", "explain", "ExplainReport", "GraphBreakError",
    "translation_count", "set_verbosity", "set_code_level", "psdb",
    "InputSpec", "save", "load", "ExportError",
]
