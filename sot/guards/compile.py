"""Compile guards (and input loaders) into one generated Python function.

``compile_guards(guards, nargs, ncells)`` generates, for the C hook's
calling convention ``guard(f_globals, *args, *free_cells)``::

    def guard(g, a0, a1, c0):
        try:
            if not (type(a0) is k0):
                return False
            v0 = a0.w
            if not (type(v0) is k1 and v0.dtype == k2 and v0.shape == (8, 16)):
                return False
            return True
        except Exception:
            return False

* Guards are checked in the order given (equal guards are kept once).
* Each tracker's value is loaded once, into a local ``v<n>``, at the first
  guard that needs it -- so a base's own guards (given earlier) are checked
  before any attribute or item of it is read.
* Any exception means "does not hold": a guard function never raises.
* Constants live in the function's namespace (``k<n>``, see
  ``LoadContext.bind``); the source contains no user data. The builtins the
  source uses (``type``, ``len``, ...) are the real ones, captured when this
  module is imported, so a monkeypatched ``builtins`` cannot change them.

Ordering contract for callers (the simulator): reading an attribute or item
in a guard may run user code (properties, ``__getattr__``,
``__getitem__``). To run no more user code than eager did, give the guards
of a base object (its exact type, or identity) *before* any guard on a
tracker below it. The compiler does not reorder.

``make_loader(trackers, nargs, ncells)`` generates the runner's input
fetch, ``load(g, a0, ..., c0, ...) -> tuple`` (exceptions propagate: it runs
after the guards held).
"""

from __future__ import annotations

import builtins as _builtins
import itertools
import linecache
import weakref
from typing import Any, Callable, Iterable, Sequence

from .cguard import compile_program
from .guard import DictKeysGuard, Guard, IdGuard, LenGuard, TensorGuard, TypeGuard, ValueGuard
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

    Calling it evaluates every guard (True/False, never raises). ``program``
    is the guards as a ``sot._C.GuardProgram`` (None when one has no C
    form), which the hook evaluates without calling Python; ``fn`` the
    generated Python function with ``source`` its text -- the reference
    the program is checked against, generated on first use when there is
    a program (the warm path never needs it); ``hot`` is what the cache
    entry holds (the program if there is one); ``guards`` the guards in
    order."""

    __slots__ = ("_fn", "_source", "_namespace", "program", "guards", "nargs", "ncells",
                 "__weakref__")

    def __init__(self, guards: tuple, nargs: int, ncells: int):
        self.guards = guards
        self.nargs = nargs
        self.ncells = ncells
        self._fn = self._source = self._namespace = None
        self.program = None

    def _generate(self) -> None:
        ctx = _CachingContext(self.nargs, self.ncells)
        for gd in self.guards:
            check = gd.emit(ctx)  # may append loads to ctx.lines first
            ctx.lines.append("if not (%s):" % check)
            ctx.lines.append("    return False")
        ctx.lines.append("return True")
        body = ["    try:"] + ["        " + ln for ln in ctx.lines] + [
            "    except Exception:",
            "        return False",
        ]
        self._fn, self._source = _build("guard", ctx, body)
        self._namespace = ctx.namespace
        _skip_code(self._fn.__code__)

    def _generated(self) -> "GuardFunction":
        if self._fn is None:
            self._generate()
        return self

    fn = property(lambda self: self._generated()._fn, doc="the generated Python guard")
    source = property(lambda self: self._generated()._source, doc="its source text")
    namespace = property(lambda self: self._generated()._namespace, doc="what its source names")

    @property
    def hot(self) -> Callable:
        return self.program if self.program is not None else self.fn

    def __call__(self, g: dict, *values: Any) -> bool:
        try:
            return self.fn(g, *values)
        except Exception:  # wrong arity: does not hold
            return False

    def describe(self) -> list[str]:
        return [gd.describe() for gd in self.guards]

    def first_failure(self, g: dict, *values: Any) -> str | None:
        """The first guard that does not hold on this frame, in words;
        None if all hold."""
        want = self.nargs + self.ncells
        if len(values) != want:
            return "guard expects %d arguments and cells, got %d" % (want, len(values))
        args, cells = values[: self.nargs], values[self.nargs:]
        for gd in self.guards:
            msg = gd.failure(g, args, cells)
            if msg is not None:
                return msg
        return None

    def __repr__(self) -> str:
        return "<GuardFunction: %d guards>" % len(self.guards)


def _skip_code(code) -> None:
    # the hook never translates our generated guards (imported late: the
    # guards package works without the C extension's hook being used)
    from .._hook import skip_code
    skip_code(code)


def compile_guards(guards: Iterable[Guard], nargs: int, ncells: int) -> GuardFunction:
    """The guards, checked in order, as a C program and (generated when
    first needed) a Python function."""
    unique: list[Guard] = []
    seen: set = set()
    for gd in guards:
        if not isinstance(gd, Guard):
            raise TypeError("not a Guard: %r" % (gd,))
        if gd not in seen:
            seen.add(gd)
            unique.append(gd)
    gf = GuardFunction(tuple(unique), nargs, ncells)
    # the program's reference twin, for strict mode: builds the function lazily
    gf.program = compile_program(unique, nargs, ncells, _Twin(gf))
    if gf.program is None:
        gf._generate()
    return gf


class _Twin:
    """Calls a GuardFunction's Python function (weakly: the program must
    not keep the GuardFunction alive)."""

    __slots__ = ("_ref",)

    def __init__(self, gf: GuardFunction):
        self._ref = weakref.ref(gf)

    def __call__(self, g, *values):
        gf = self._ref()
        return gf(g, *values) if gf is not None else False


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
