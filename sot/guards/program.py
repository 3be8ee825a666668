"""The guard program: the single form of an entry's guards.

``assemble(guards, nargs, ncells)`` turns Guard objects into one flat list
of ops over registers -- each tracker's load (``Tracker.load_op``) once,
bases before what is read through them, then each guard's checks
(``Guard.c_ops``) in the order given. The op set is documented at the top
of ``csrc/guard_program.c``. Two evaluators run exactly these ops:

* ``sot._C.GuardProgram`` (``cguard.to_c``), on the hook's warm path;
* ``program_ref.run``, the Python reference: the fallback where the C form
  is unavailable, the twin strict mode compares with C, and what finds the
  failing guard for ``explain`` (``program_ref.first_failure``).

A ``Program`` also remembers which guard each op came from, and which
tracker each register holds, so a failing op can be explained in words by
its guard.
"""
from __future__ import annotations

from typing import Iterable

from .tracker import AttrTracker, ConstTracker, Tracker

__all__ = ["Program", "assemble", "ANY"]


class _Any:
    """Marks a class attribute whose object may change (see the "class" op)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ANY"


#: the "class" op's placeholder: a name whose value its own guards check
ANY = _Any()


class Program:
    """Ops, register count, the guard each op belongs to, the tracker each
    register holds."""

    __slots__ = ("nargs", "ncells", "ops", "owners", "trackers", "_pinned", "_reads", "_owner")

    def __init__(self, nargs: int, ncells: int, guards: tuple = ()):
        self.nargs, self.ncells = nargs, ncells
        self.ops: list[tuple] = []
        self.owners: list = []
        self.trackers: dict[Tracker, int] = {}
        # objects the guards pin by identity, by tracker (read_names)
        from .guard import IdGuard
        self._pinned = [gd for gd in guards if type(gd) is IdGuard]  # their objects: weakly
        self._reads = guards
        self._owner = None

    @property
    def nregs(self) -> int:
        return len(self.trackers)

    def arg_index(self, i: int) -> int:
        if not 0 <= i < self.nargs:
            raise IndexError("argument index %d out of range (nargs=%d)" % (i, self.nargs))
        return i

    def cell_index(self, i: int) -> int:
        if not 0 <= i < self.ncells:
            raise IndexError("cell index %d out of range (ncells=%d)" % (i, self.ncells))
        return i

    def reg(self, t: Tracker) -> int:
        """The register holding ``t``'s value, its load emitted on first use."""
        r = self.trackers.get(t)
        if r is not None:
            return r
        op = t.load_op(self)  # its base's load first
        if op is None:
            raise TypeError("%s has no load op" % type(t).__name__)
        r = self.trackers[t] = len(self.trackers)
        self.ops.append((op[0], r) + op[1:])
        self.owners.append(self._owner)
        return r

    def add(self, gd) -> None:
        self._owner = gd
        ops = gd.c_ops(self)
        if ops is None:
            raise TypeError("%s has no ops" % type(gd).__name__)
        self.ops += ops
        self.owners += [gd] * len(ops)

    def read_names(self, obj) -> frozenset:
        """Attribute names the guards read through a tracker whose value is
        ``obj`` (a constant, or a tracker an IdGuard pins to it): their
        values are checked by those guards."""
        bases = {gd.tracker for gd in self._pinned if gd.obj is obj}
        names = set()
        for gd in self._reads:
            for t in (gd.tracker, getattr(gd, "other", None)):
                while isinstance(t, Tracker):
                    b = t.base
                    if isinstance(t, AttrTracker) and (
                            b in bases or (isinstance(b, ConstTracker) and b.value is obj)):
                        names.add(t.attr)
                    t = b
        return frozenset(names)

    def register_tracker(self, r: int) -> Tracker:
        for t, i in self.trackers.items():
            if i == r:
                return t
        raise KeyError(r)


def assemble(guards: Iterable, nargs: int, ncells: int) -> Program:
    """The guards, checked in the order given, as one program."""
    guards = tuple(guards)
    prog = Program(nargs, ncells, guards)
    for gd in guards:
        prog.add(gd)
    prog.ops = tuple(prog.ops)
    return prog
