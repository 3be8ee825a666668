"""Guards as a C program: the warm path of the hook checks them without
calling Python.

``compile_program(guards, nargs, ncells, fallback)`` translates the same
Guard objects the Python guard function is generated from into a
``sot._C.GuardProgram`` (the op set is documented in
``csrc/guard_program.c``): each tracker is loaded once into a register,
bases before what is read through them, and the checks run in the order
given, as in the generated Python function. Returns None when some guard
or tracker has no C form; the entry then keeps the Python function.

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
from .guard import (
    DictKeysGuard,
    DimEqualGuard,
    GlobalAbsentGuard,
    Guard,
    IdGuard,
    LenGuard,
    TensorGuard,
    TypeGuard,
    ValueGuard,
)
from .invariants import ClassUnchangedGuard, KeyAbsentGuard, SameGuard
from .tracker import (
    AttrTracker,
    BuiltinsDictTracker,
    BuiltinTracker,
    CellTracker,
    ConstTracker,
    GlobalTracker,
    ItemTracker,
    LocalTracker,
    Tracker,
)

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
    def __init__(self, nargs: int, ncells: int):
        self.nargs, self.ncells = nargs, ncells
        self.ops: list[tuple] = []
        self.regs: dict[Tracker, int] = {}

    def reg(self, t: Tracker) -> int:
        r = self.regs.get(t)
        if r is not None:
            return r
        if isinstance(t, LocalTracker):
            if not 0 <= t.index < self.nargs:
                raise IndexError("argument index %d out of range (nargs=%d)" % (t.index, self.nargs))
            op: tuple = ("arg", t.index)
        elif isinstance(t, CellTracker):
            if not 0 <= t.index < self.ncells:
                raise IndexError("cell index %d out of range (ncells=%d)" % (t.index, self.ncells))
            op = ("cell", t.index)
        elif isinstance(t, GlobalTracker):
            op = ("global", t.global_name)
        elif isinstance(t, BuiltinsDictTracker):
            op = ("builtins",)
        elif isinstance(t, BuiltinTracker):
            op = ("item", self.reg(t.base), t.builtin_name)
        elif isinstance(t, AttrTracker):
            op = ("attr", self.reg(t.base), t.attr)
        elif isinstance(t, ItemTracker):
            op = ("item", self.reg(t.base), t.key)
        elif isinstance(t, ConstTracker):
            op = ("const", t.value)
        else:
            raise _NoCForm(type(t).__name__)
        r = self.regs[t] = len(self.regs)
        self.ops.append((op[0], r) + op[1:])
        return r

    def check(self, gd: Guard) -> None:
        if type(gd) is GlobalAbsentGuard:
            self.ops.append(("absent", gd.global_name))
            return
        if type(gd) is ClassUnchangedGuard:
            self.ops.append(("typever", gd.cls, gd.tag))
            return
        if type(gd) is SameGuard:
            self.ops.append(("same", self.reg(gd.tracker), self.reg(gd.other), gd.same))
            return
        if type(gd) is DimEqualGuard:
            self.ops.append(("dimeq", self.reg(gd.tracker), gd.axis, self.reg(gd.other), gd.other_axis,
                             np.ndarray))
            return
        r = self.reg(gd.tracker)
        t = type(gd)
        if t is TensorGuard:
            self.ops.append(("tensor", r, gd.type, gd.dtype, gd.shape, gd.type is np.ndarray))
        elif t is TypeGuard:
            self.ops.append(("type", r, gd.type))
        elif t is IdGuard:
            self.ops.append(("id", r, gd.obj))
        elif t is ValueGuard:
            self.ops.append(("value", r, gd.value))
        elif t is LenGuard:
            self.ops.append(("len", r, gd.type, gd.n))
        elif t is DictKeysGuard:
            self.ops.append(("dictkeys", r, gd.type, gd.keys))
        elif t is KeyAbsentGuard:
            self.ops.append(("notin", r, gd.key))
        else:
            raise _NoCForm(t.__name__)


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
