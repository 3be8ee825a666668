"""Opcode handlers, one per meaning, registered by opname.

`HANDLERS` maps an opname of the running CPython to `handler(executor, instr)`.
Opnames that are deliberately not simulated are listed in `UNSUPPORTED` with
the reason; a test checks every opname in `dis.opmap` is in one or the other.
"""
from ._registry import HANDLERS, UNSUPPORTED
from . import stack, names, operators, control, calls, generators, blocks, exceptions, matching, imports  # noqa: F401  (register handlers)

__all__ = ["HANDLERS", "UNSUPPORTED"]
