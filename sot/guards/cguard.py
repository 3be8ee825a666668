"""A guard program in C: the warm path of the hook checks guards without
calling Python.

``to_c(program)`` hands an assembled program (``sot.guards.program``; the
op set is documented in ``csrc/guard_program.c``) to ``sot._C.GuardProgram``,
with the Python reference evaluator of the same ops
(``program_ref.Reference``) as its twin: ``SOT_GUARD_STRICT=1`` (or
``sot._C.set_guard_strict(True)``) makes the hook evaluate both on every
call and count disagreements (``sot._C.guard_counters()``); the tests
compare the two on randomized guard sets.
"""
from __future__ import annotations


import numpy as np

from .. import _C, _env
from .program import Program
from .program_ref import Reference

__all__ = ["to_c", "C_GUARDS"]


def _layout_ok() -> bool:
    """The C side reads ndarray's struct directly; confirm it reads right."""
    a = np.empty((2, 3, 5), np.float32)[:, 1:, ::2]
    return bool(_C.array_layout_ok(a, a.shape, a.dtype))


#: whether guards run in C at all (env SOT_C_GUARDS=0 turns it off)
C_GUARDS = _env.at_import(_env.flag, "SOT_C_GUARDS", True) and _layout_ok()

if _env.at_import(_env.flag, "SOT_GUARD_STRICT", False):
    _C.set_guard_strict(True)


def to_c(program: Program, twin: Reference):
    """The program as a ``sot._C.GuardProgram`` (``twin`` its Python
    reference, for strict mode), or None when guards do not run in C."""
    if not C_GUARDS:
        return None
    return _C.GuardProgram(program.nargs, program.ncells, program.nregs, program.ops, twin)
