"""Compile guards into one guard program, and input loaders into one
generated Python function.

``compile_guards(guards, nargs, ncells)`` assembles the guards into a
guard program (``sot.guards.program``: one list of ops, the single form
of the guards) and returns a ``GuardFunction`` holding its two evaluators:
the C ``sot._C.GuardProgram`` the hook runs on the warm path, and the
Python reference (``program_ref``) it falls back to, compares with in
strict mode, and explains failures with. Both take the C hook's calling
convention ``guard(f_globals, *args, *free_cells)``.

* Guards are checked in the order given (equal guards are kept once).
* Each tracker's value is loaded once, into a register, at the first guard
  that needs it -- so a base's own guards (given earlier) are checked
  before any attribute or item of it is read.
* Any exception means "does not hold": a guard never raises.

Ordering contract for callers (the simulator): reading an attribute or item
in a guard may run user code (properties, ``__getattr__``,
``__getitem__``). To run no more user code than eager did, give the guards
of a base object (its exact type, or identity) *before* any guard on a
tracker below it. The compiler does not reorder.

``make_loader(trackers, nargs, ncells)`` generates the runner's input
fetch, ``load(g, a0, ..., c0, ...) -> tuple`` (exceptions propagate: it runs
after the guards held). Constants are bound in its namespace, never
spliced into its source; the builtins the source uses (``type``, ``len``,
...) are the real ones, captured when this module is imported.
"""

from __future__ import annotations

import builtins as _builtins
import itertools
import linecache
import weakref
from typing import Any, Callable, Iterable, Sequence

from .cguard import to_c
from .guard import DictKeysGuard, Guard, IdGuard, LenGuard, TensorGuard, TypeGuard, ValueGuard
from .program import assemble
from .program_ref import LOADS, Reference, execute
from .tracker import (
    AttrTracker,
    BuiltinsDictTracker,
    ConstTracker,
    ItemTracker,
    LoadContext,
    LocalTracker,
    Tracker,
)

__all__ = ["GuardFunction", "compile_guards", "make_loader", "load_statements", "unguarded_reads"]

# The only globals-level builtins generated source may name.
_SAFE_BUILTINS = {
    n: getattr(_builtins, n)
    for n in ("type", "len", "tuple", "int", "float", "complex", "str", "bytes",
              "Exception", "True", "False", "None")
    if hasattr(_builtins, n)
}

_counter = itertools.count()


class _CachingContext(LoadContext):
    """Loads each non-trivial tracker once into a local, emitting the
    assignment (after its base's) into ``lines`` on first use."""

    def __init__(self, nargs: int, ncells: int):
        super().__init__(nargs, ncells)
        self.lines: list[str] = []
        self._locals: dict[Tracker, str] = {}

    def ref(self, tracker: Tracker) -> str:
        if isinstance(tracker, (LocalTracker, ConstTracker)):
            return tracker.expr(self)
        name = self._locals.get(tracker)
        if name is None:
            expr = tracker.expr(self)  # emits the base's load first
            name = "v%d" % len(self._locals)
            self.lines.append("%s = %s" % (name, expr))
            self._locals[tracker] = name
        return name


def _build(kind: str, ctx: LoadContext, body: list[str]) -> tuple[Callable, str]:
    src = "def %s(%s):\n%s\n" % (kind, ", ".join(ctx.params), "\n".join(body))
    filename = "<sot-%s-%d>" % (kind, next(_counter))
    ns: dict[str, Any] = {"__builtins__": dict(_SAFE_BUILTINS)}
    ns.update(ctx.namespace)
    exec(compile(src, filename, "exec"), ns)
    # make the source visible to tracebacks and inspect
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    fn = ns[kind]
    weakref.finalize(fn, linecache.cache.pop, filename, None)
    return fn, src


class GuardFunction:
    """The compiled guard of one cache entry.

    ``program`` is the guards as a ``sot._C.GuardProgram`` (None when
    guards do not run in C), ``reference`` the Python evaluator of the same
    ops; ``hot`` is what the cache entry holds (the C program if there is
    one). Calling the GuardFunction runs the reference (True/False, never
    raises). ``guards`` are the guards in order, ``ops`` the program."""

    __slots__ = ("_prog", "program", "reference", "guards", "nargs", "ncells", "__weakref__")

    def __init__(self, guards: tuple, nargs: int, ncells: int):
        self.guards = guards
        self.nargs = nargs
        self.ncells = ncells
        self._prog = assemble(guards, nargs, ncells)
        self.reference = Reference(self._prog.ops, nargs, ncells)
        self.program = to_c(self._prog, self.reference)

    @property
    def ops(self) -> tuple:
        return self._prog.ops

    @property
    def hot(self) -> Callable:
        return self.program if self.program is not None else self.reference

    def __call__(self, g: dict, *values: Any) -> bool:
        return self.reference(g, *values)

    def describe(self) -> list[str]:
        return [gd.describe() for gd in self.guards]

    def first_failure(self, g: dict, *values: Any) -> str | None:
        """The first guard that does not hold on this frame, in words;
        None if all hold."""
        want = self.nargs + self.ncells
        if len(values) != want:
            return "guard expects %d arguments and cells, got %d" % (want, len(values))
        prog = self._prog
        k, regs, error = execute(prog.ops, self.nargs, g, values)
        if k is None:
            return None
        return _explain(prog, k, regs, error)

    def __repr__(self) -> str:
        return "<GuardFunction: %d guards>" % len(self.guards)


def _explain(prog, k: int, regs: dict, error) -> str:
    """Op ``k`` of ``prog`` failed: why, in the words of its guard."""
    op, gd = prog.ops[k], prog.owners[k]
    if op[0] in LOADS:
        subject = prog.register_tracker(op[1]).subject()
        return "%s could not be read (%s)" % (subject, type(error).__name__)
    if error is not None:
        return "%s could not be checked (%s)" % (gd.describe(), type(error).__name__)
    return gd.explain(lambda t: regs[prog.trackers[t]])


def compile_guards(guards: Iterable[Guard], nargs: int, ncells: int) -> GuardFunction:
    """The guards, checked in order, as one program (C and Python)."""
    unique: list[Guard] = []
    seen: set = set()
    for gd in guards:
        if not isinstance(gd, Guard):
            raise TypeError("not a Guard: %r" % (gd,))
        if gd not in seen:
            seen.add(gd)
            unique.append(gd)
    return GuardFunction(tuple(unique), nargs, ncells)


def load_statements(trackers: Sequence[Tracker], nargs: int, ncells: int):
    """Source lines loading each tracker's value (shared sub-paths once),
    for inlining into a generated function with the hook's parameters.
    Returns (lines, one expression per tracker, namespace to bind)."""
    ctx = _CachingContext(nargs, ncells)
    exprs = [ctx.ref(t) for t in trackers]
    return ctx.lines, exprs, ctx.namespace


def make_loader(trackers: Sequence[Tracker], nargs: int, ncells: int) -> Callable:
    """``load(g, *args, *cells) -> tuple`` of the trackers' values, each
    shared sub-path read once. The function has ``.source``."""
    ctx = _CachingContext(nargs, ncells)
    names = []
    for t in trackers:
        if not isinstance(t, Tracker):
            raise TypeError("not a Tracker: %r" % (t,))
        names.append(ctx.ref(t))
    if len(names) == 1:
        ret = "(%s,)" % names[0]
    else:
        ret = "(%s)" % ", ".join(names)
    body = ["    " + ln for ln in ctx.lines] + ["    return " + ret]
    fn, src = _build("load", ctx, body)
    fn.source = src
    fn.trackers = tuple(trackers)
    return fn


# guards that pin a value's exact type (or identity) before it is read through
_PINNING = (TypeGuard, IdGuard, TensorGuard, ValueGuard, LenGuard, DictKeysGuard)


def unguarded_reads(guards: Iterable[Guard]) -> list[Tracker]:
    """Bases read through (attribute or item) before any guard pinned their
    exact type or identity -- reads that might run user code eager did not.

    The compiler keeps the caller's order and does not check this; callers
    (the simulator, its tests) can assert ``unguarded_reads(gs) == []``.
    Globals dicts, builtins mappings and constants need no pinning.
    """
    pinned: set = set()
    bad: list[Tracker] = []

    def reads(t: Tracker) -> None:
        if isinstance(t, (AttrTracker, ItemTracker)):
            b = t.base
            reads(b)
            if not (b in pinned or isinstance(b, (BuiltinsDictTracker, ConstTracker))
                    or b in bad):
                bad.append(b)

    for gd in guards:
        reads(gd.tracker)
        if isinstance(gd, _PINNING):
            pinned.add(gd.tracker)
    return bad
