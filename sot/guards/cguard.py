"""Guards as a C program: the warm path of the hook checks them without
calling Python.

``compile_program(guards, nargs, ncells, fallback)`` assembles the same
Guard objects the Python guard function is generated from into a
``sot._C.GuardProgram`` (the op set is documented in
``csrc/guard_program.c``): each guard gives its ops (``Guard.c_ops``), each
tracker its load (``Tracker.load_op``), loaded once into a register, bases
before what is read through them; the checks run in the order given, as in
the generated Python function. Returns None when some guard or tracker has
no C form; the entry then keeps the Python function.

The Python function stays the reference: ``SOT_GUARD_STRICT=1`` (or
``sot._C.set_guard_strict(True)``) makes the hook evaluate both and count
disagreements (``sot._C.guard_counters()``), and the tests compare the two
on randomized guard sets.
"""
from __future__ import annotations

import os
from typing import Any, Iterable

import numpy as np

from .. import _C
from .guard import Guard
from .tracker import Tracker

__all__ = ["compile_program", "C_GUARDS"]


def _layout_ok() -> bool:
    """The C side reads ndarray's struct directly; confirm it reads right."""
    a = np.empty((2, 3, 5), np.float32)[:, 1:, ::2]
    return bool(_C.array_layout_ok(a, a.shape, a.dtype))


#: whether guards are compiled to C at all (env SOT_C_GUARDS=0 turns it off)
C_GUARDS = os.environ.get("SOT_C_GUARDS", "1") != "0" and _layout_ok()

if os.environ.get("SOT_GUARD_STRICT"):
    _C.set_guard_strict(True)


class _NoCForm(Exception):
    pass


class _Program:
    """Assembles a program: each guard gives its ops (``Guard.c_ops``),
    each tracker its load (``Tracker.load_op``), into a register given
    once, bases before what is read through them."""

    def __init__(self, nargs: int, ncells: int):
        self.nargs, self.ncells = nargs, ncells
        self.ops: list[tuple] = []
        self.regs: dict[Tracker, int] = {}

    def arg_index(self, i: int) -> int:
        if not 0 <= i < self.nargs:
            raise IndexError("argument index %d out of range (nargs=%d)" % (i, self.nargs))
        return i

    def cell_index(self, i: int) -> int:
        if not 0 <= i < self.ncells:
            raise IndexError("cell index %d out of range (ncells=%d)" % (i, self.ncells))
        return i

    def reg(self, t: Tracker) -> int:
        r = self.regs.get(t)
        if r is not None:
            return r
        op = t.load_op(self)  # its base's load first
        if op is None:
            raise _NoCForm(type(t).__name__)
        r = self.regs[t] = len(self.regs)
        self.ops.append((op[0], r) + op[1:])
        return r

    def check(self, gd: Guard) -> None:
        ops = gd.c_ops(self)
        if ops is None:
            raise _NoCForm(type(gd).__name__)
        self.ops += ops


def compile_program(guards: Iterable[Guard], nargs: int, ncells: int, fallback: Any = None):
    """A GuardProgram checking ``guards`` in order, or None if one has no C form."""
    if not C_GUARDS:
        return None
    prog = _Program(nargs, ncells)
    try:
        for gd in guards:
            prog.check(gd)
    except _NoCForm:
        return None
    return _C.GuardProgram(nargs, ncells, len(prog.regs), tuple(prog.ops), fallback)
