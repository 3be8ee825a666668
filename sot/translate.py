"""The hook's callback: translate an intercepted frame into a cache entry.

For each frame the hook could not serve from cache, `Translator.__call__`
decides whether the code is ours to translate, simulates it, compiles the
graph, builds the guard and the replacement code, and stores the entry:

- the whole frame captured: replacement = guards → graph → return value;
- something not capturable at top-level instruction *i*: a graph break
  (see sot/breaks/resume.py) — the frame is simulated again up to *i*, the
  graph before it is compiled, *i* runs natively, a resume function takes over;
- neither possible: the frame runs natively under the guards gathered so
  far, so the same failure is not retried on every call.
"""
from __future__ import annotations

import contextlib
import logging
import sys
import time
from dataclasses import dataclass, field

from . import _hook, _skip
from .backends import GraphWriteError, compile_graph, fp_state
from .backends.numpy.writes import first_commit
from .executor import writes
from .breaks.reasons import (
    INTERNAL, UNSUPPORTED_BREAK, UNSUPPORTED_OBJECT, BreakReason, DataDependent, FallbackError, InternalError,
    reason_for,
)
from .breaks import describe, loop_body, regions, resume as breaks, tries
from .executor import cell_writes, freeze
from .executor.codegen import make_calling_code, uniform_arg_names
from .executor.executor import OpcodeExecutor
from .executor.signals import BreakHere
from .ir.floor import check_floor
from .executor.function_graph import FunctionGraph
from .executor.opcode_table import FACTS, instructions, loop_ranges
from .executor.output import OutputBuilder
from .executor.scalar_policy import ScalarPolicy
from .executor.shape_policy import ShapePolicy
from .executor.variables import NULL, CellVariable, DynamicScalarVariable, TupleVariable, UserFunctionVariable
from .guards import cache
from .guards.compile import compile_guards, load_statements
from .guards.tracker import CellTracker, LocalTracker
from .ir.ops_write import is_write
from .ir.symbolic import SpecializeDims
from .logs import dump_translation, vlog

log = logging.getLogger("sot.breaks")
log_guards = logging.getLogger("sot.guards")
_counter = [0]


@dataclass
class EntryInfo:
    """What one translation produced, for explain and logs."""
    code_name: str
    filename: str
    firstlineno: int
    graphs: list = field(default_factory=list)        # [(op_count, backend, source)]
    fallback: BreakReason | None = None               # the frame runs natively
    graph_break: BreakReason | None = None            # the frame is split here
    native_ops: int = 0                               # ops left native (below min_graph_size)
    guards: list = field(default_factory=list)
    translate_seconds: float = 0.0
    recompile_reason: str | None = None               # why no earlier entry matched
    runner_source: str | None = None
    guard: object = None                              # the GuardFunction of this entry
    phases: dict = field(default_factory=dict)        # seconds per translation phase (see _phase)
    _phase_stack: list = field(default_factory=list, repr=False)
    direct: object = None                             # runner the hook calls in place of the replacement
    frozen: list = field(default_factory=list)        # inputs held fixed (freeze=True), by source
    frozen_values: list = field(default_factory=list, repr=False)  # their arrays, made read-only when stored
    not_frozen: list = field(default_factory=list)    # [(source, why)] under freeze=True
    compiled: list = field(default_factory=list, repr=False)  # the compiled graphs (explain: memory, placement)

    @property
    def state(self) -> str:
        if self.fallback is not None:
            return "dynamic"
        if self.graph_break is not None:
            return "partially static"
        return "fully static"


#: translation phases in the order explain prints them
PHASES = ("simulate", "backend compile", "codegen", "guards")


@contextlib.contextmanager
def _phase(info: EntryInfo, name: str):
    """Add the wall time of the block to info.phases[name]; time spent in a
    phase nested inside counts for the inner phase only."""
    stack = info._phase_stack
    now = time.perf_counter()
    if stack:
        outer = stack[-1]
        info.phases[outer[0]] = info.phases.get(outer[0], 0.0) + now - outer[1]
    stack.append([name, now])
    try:
        yield
    finally:
        now = time.perf_counter()
        name_, start = stack.pop()
        info.phases[name_] = info.phases.get(name_, 0.0) + now - start
        if stack:
            stack[-1][1] = now


class GraphBreakError(RuntimeError):
    """Raised with full_graph=True when the function cannot be one graph."""

    def __init__(self, reason: BreakReason):
        super().__init__(str(reason))
        self.reason = reason


@dataclass
class Options:
    backend: str = "numpy"
    device: str = "cpu"
    full_graph: bool = False
    cache_size: int = cache.DEFAULT_CACHE_SIZE
    min_graph_size: int = 10
    dynamic: bool | None = None   # symbolic dims: None automatic, True all, False none (see shape_policy)
    freeze: bool = False          # arrays from outside the arguments held fixed (executor/freeze.py)
    strict: bool = False
    top_code: object = None
    cache_dir: str | None = None  # onnxruntime's optimised models on disk (backends/disk_cache.py)


_recorders: list = []  # explain() collects EntryInfo here while it runs


class Translator:
    """The callback object set on the thread while a to_static call runs."""

    def __init__(self, options: Options):
        self.options = options
        self.translations = 0           # frames translated (sot/governor.py counts the cost)
        self.translate_seconds = 0.0

    def __call__(self, frame):
        code = frame.f_code
        origin, offset = breaks.RESUME_ORIGIN.get(code, (code, None))
        if origin is not self.options.top_code:  # what the user decorated is always translated
            try:
                rule = _skip.skip_rule(code) or _skip.called_by_import()
            except Exception as e:  # a bug in sot must never become the user's exception
                log.warning("internal error deciding whether to trace %s; it runs natively: %s: %s",
                            code.co_name, type(e).__name__, e)
                return None
            if rule is not None:
                return _skipped(code, rule, sys._getframe(1))
        self.translations += 1
        started = time.perf_counter()
        try:
            return self._translate(frame, code, origin, offset, started)
        finally:
            self.translate_seconds += time.perf_counter() - started

    def _translate(self, frame, code, origin, offset, started):
        name = code.co_name if offset is None else f"{code.co_name} ({describe.resume_label(code)})"
        info = EntryInfo(name, code.co_filename, code.co_firstlineno)
        info.recompile_reason = describe.user_text(_recompile_reason(code, frame), code)
        if info.recompile_reason:
            vlog(2, log_guards, "recompiling %s (%s:%d): %s", name, code.co_filename,
                 code.co_firstlineno, info.recompile_reason)
        full_graph = self.options.full_graph and origin is self.options.top_code
        try:
            replacement, graph, info = _translate_specialising(frame, info, self.options, not full_graph)
        except Exception as e:  # a bug in sot must never become the user's exception
            log.warning("internal error translating %s; it runs natively: %s: %s",
                        name, type(e).__name__, e, exc_info=log.isEnabledFor(logging.DEBUG))
            info.fallback = InternalError(f"{type(e).__name__}: {e}")
            for rec in _recorders:
                rec.append(info)
            return None
        for reason in (info.fallback, info.graph_break):
            if reason is not None:      # stack values of a resume function, in words
                reason.message = describe.user_text(reason.message, code)
        if info.fallback is not None:
            vlog(1, log, "%s runs natively:\n%s", name, info.fallback)
        elif info.graph_break is not None:
            vlog(1, log, "graph break in %s:\n%s", name, info.graph_break)
        if full_graph and (info.fallback or info.graph_break):
            raise GraphBreakError(info.fallback or info.graph_break)
        if self.options.strict and info.fallback is not None:
            raise GraphBreakError(info.fallback)
        if (not info.graphs or not _has_array_ops(graph)) and info.graph_break is None and not info.native_ops:
            # Nothing captured (or only Python-number arithmetic): running the
            # original is the same and cheaper.
            replacement = None
            if cache.note_graphless(code):
                for rec in _recorders:
                    rec.append(info)
                return None
        with _phase(info, "guards"):
            guard = compile_guards(graph.guards, len(frame.args), len(frame.closure or ()))
        info.guard = guard
        info.guards = [describe.user_text(g, code) for g in guard.describe()]
        info.translate_seconds = time.perf_counter() - started
        vlog(3, log_guards, "new entry for %s (%.2f ms), %d guard(s):\n  %s", name,
             info.translate_seconds * 1e3, len(info.guards), "\n  ".join(info.guards))
        dump_translation(name, info, replacement)
        if cache.add_entry(code, guard.hot, replacement, info, self.options.cache_size,
                           direct=info.direct if replacement is not None else None):
            freeze.hold(info.frozen_values)
        for rec in _recorders:
            rec.append(info)
        return replacement


_skip_recorders: list = []  # explain() collects (name, file, line, rule) of skipped codes here


def _skipped(code, rule: str, caller=None):
    """Tell the hook never to ask about `code` again (one flag test per call
    from now on); say so once, with the rule, when the user's code called it.
    A skipped code called by another skipped code (NumPy's helpers calling
    each other, sot's own graphs calling NumPy) is a detail of the library,
    not a choice the user can act on: it is skipped without a word."""
    _skip.note_skipped(code, rule)
    if rule in _skip.QUIET_RULES or (caller is not None and _skip.skip_rule(caller.f_code)
                                     not in (None, _skip.FROZEN_WHY)):  # import machinery: the user's finders show
        return _hook.SKIP
    vlog(1, log, "%s (%s:%d) is not traced: %s", code.co_name, code.co_filename, code.co_firstlineno, rule)
    for rec in _skip_recorders:
        rec.append((code.co_name, code.co_filename, code.co_firstlineno, rule))
    return _hook.SKIP


MAX_SPECIALISATIONS = 8


def _translate_specialising(frame, info: EntryInfo, options: Options, allow_break: bool):
    """translate(), redone with dims static while the trace relies on the
    size of a symbolic dim (SpecializeDims); (replacement, graph, info)."""
    code = frame.f_code
    shapes = ShapePolicy(code, options.dynamic)
    for _ in range(MAX_SPECIALISATIONS):
        attempt = EntryInfo(info.code_name, info.filename, info.firstlineno,
                            recompile_reason=info.recompile_reason)
        try:
            replacement, graph = translate(frame, attempt, options, allow_break, shapes)
            return replacement, graph, attempt
        except SpecializeDims as e:
            vlog(2, log_guards, "%s (%s:%d): specialising dims %s: %s", info.code_name, code.co_filename,
                 code.co_firstlineno, ", ".join(_source_text(d) for d in e.dims), e.why)
            if not e.dims:
                break
            shapes.specialise(e.dims)
            ScalarPolicy(code).specialise(e.dims)
    attempt = EntryInfo(info.code_name, info.filename, info.firstlineno, recompile_reason=info.recompile_reason)
    replacement, graph = translate(frame, attempt, options, allow_break, None)
    return replacement, graph, attempt


def _source_text(source) -> str:
    """A symbolic dim's source (tracker, axis), or a number's ("number", tracker)."""
    first, second = source
    return second.name() if first == "number" else f"{first.name()}.shape[{second}]"


def _recompile_reason(code, frame) -> str | None:
    """In words, why the most recent entry of `code` did not match this frame."""
    previous = [e for e in cache.entries(code) if e.guard is not None]
    if not previous:
        return None
    cells = tuple(frame.closure or ())
    return previous[-1].guard.first_failure(frame.f_globals, *frame.args, *cells) or \
        "no cached entry matched"


def _simulate(frame, graph: FunctionGraph, break_at=None) -> OpcodeExecutor:
    """An executor over the frame's entry state (run() not called yet)."""
    code = frame.f_code
    names = uniform_arg_names(code)
    lazy = {name: (value, LocalTracker(i, name)) for i, (name, value) in enumerate(zip(names, frame.args))}
    cells = {}
    for i, (name, real) in enumerate(zip(code.co_freevars, frame.closure or ())):
        cell = CellVariable(tracker=CellTracker(i, name), preexisting=True)
        cell.real_cell = real
        cells[name] = cell
    cell_writes.register(graph, cells)
    if not FACTS.cells_made_by_instruction:
        for name in code.co_cellvars:
            value = None
            if name in lazy:
                v, tracker = lazy.pop(name)
                value = graph.wrap(v, tracker)
            cells[name] = CellVariable(value)
    return OpcodeExecutor(code, graph, frame.f_globals, lazy_locals=lazy, cells=cells, break_at=break_at,
                          dynamic_names=breaks.RESUME_DYNAMIC.get(code, frozenset()))


def translate(frame, info: EntryInfo, options: Options, allow_break: bool = True, shapes=None):
    """(replacement code or None, the FunctionGraph whose guards select it).
    `shapes`: the ShapePolicy choosing symbolic dims (None: all static)."""
    code = frame.f_code
    graph = FunctionGraph(f"{code.co_name}_graph", shapes, options.freeze)
    graph.numbers = _numbers(code, options, shapes)
    try:
        with _phase(info, "simulate"):
            result = _simulate(frame, graph).run()
        with _phase(info, "codegen"):
            builder = OutputBuilder([t for t, _ in graph.inputs])
            ret = builder.expr(result)
            written = cell_writes.written(graph, code)
            if written:  # the runner returns (new cell contents..., result); see cell_writes
                ret = "(" + "".join(builder.expr(cell_writes.contents(graph, n)) + ", " for n in written) + ret + ")"
            builder.effects = graph.effects.finish(graph, builder)
            runner = make_runner(code, graph, builder, ret, info, options)
            replacement = make_calling_code(code, runner, _used_cell_indices(builder.trackers), written)
        _hook.skip_code(replacement)
        if not written:
            info.direct = runner  # takes the hook's vector (globals, *args, *cells) as is
        return replacement, graph
    except FallbackError as e:
        error = e.with_traceback(None)  # its frames would keep the caller's arguments alive
    instr = error.top_instr
    if not allow_break or instr is None or error.no_break:
        info.fallback = error.reason
        return None, graph
    try:
        return make_break(frame, instr, _at_call_site(code, error), info, options, shapes)
    except FallbackError as e:
        info.fallback = error.reason
        if e.reason.message != error.reason.message:
            error.reason.hint = (error.reason.hint + "; " if error.reason.hint else "") + \
                f"no graph break possible: {e.reason.message}"
        return None, graph


def _has_array_ops(graph: FunctionGraph) -> bool:
    """Whether the graph computes or writes arrays (a write has no outputs)."""
    return any(is_write(st) or any(not out.meta.is_python for out in st.outputs) for st in graph.ir.statements)


def _numbers(code, options: Options, shapes):
    """Which Python numbers become graph inputs (executor/scalar_policy.py):
    none in the all-static last attempt, nor with to_static(dynamic=False)."""
    return ScalarPolicy(code) if shapes is not None and options.dynamic is not False else None


def _at_call_site(code, error: FallbackError) -> BreakReason:
    """A reason raised inside an inlined callee, restated at the caller's line."""
    inner = error.reason
    line = error.top_line
    if (inner.filename, inner.lineno) == (code.co_filename, line) or line is None:
        return inner
    outer = reason_for(inner.category, f"{inner.message} (inside the call, at {inner.location}: "
                                       f"{inner.source or '?'})", hint=inner.hint)
    return outer.located(code.co_filename, line)


def _simulate_to(frame, offset: int, info: EntryInfo, options: Options, shapes):
    """(graph, executor) of a simulation stopped before the instruction at `offset`."""
    code = frame.f_code
    graph = FunctionGraph(f"{code.co_name}_graph", shapes, options.freeze)
    graph.numbers = _numbers(code, options, shapes)
    executor = _simulate(frame, graph, break_at=offset)
    try:
        with _phase(info, "simulate"):
            executor.run()
    except BreakHere:
        return graph, executor
    raise FallbackError(INTERNAL, "the second simulation did not reach the break")


def make_break(frame, instr, reason: BreakReason, info: EntryInfo, options: Options, shapes=None):
    """Simulate again up to `instr` and split the frame there; where no split
    at `instr` itself is possible, around the statement that holds it."""
    code = frame.f_code
    stop = breaks.stop_offset(code, instr)
    why = stop
    if not isinstance(stop, str):
        stop_at, loop = stop
        graph, executor = _simulate_to(frame, stop_at, info, options, shapes)
        stack_nulls = [v is NULL for v in executor.stack]
        if loop is None and tries.in_try(code, instr, executor):
            plan = tries.plan_try(code, instr, reason, stack_nulls, executor)
        elif loop is None:
            plan = breaks.plan_break(code, instr, reason, stack_nulls)
        else:
            bound = set(executor.locals) | set(executor.lazy_locals)
            plan = breaks.plan_loop(code, loop, stack_nulls, bound,
                                    lambda body: loop_body.touches_arrays(body, executor, frame.f_globals))
        why = plan
        if not isinstance(plan, str):
            n_graphs = len(info.graphs)
            try:
                return _split(frame, graph, executor, plan, None, reason, info, options)
            except FallbackError as e:  # e.g. a value on the stack the runner cannot return
                del info.graphs[n_graphs:]
                why = e.reason.message
                if plan.body is not None and plan.body.is_for:
                    split = _loop_from_its_statement(frame, plan, reason, info, options, shapes)
                    if split is not None:
                        return split
    graph, executor, plan, region_live = _region_break(frame, instr, why, reason, info, options, shapes)
    return _split(frame, graph, executor, plan, region_live, reason, info, options)


def _loop_from_its_statement(frame, plan, reason, info: EntryInfo, options: Options, shapes):
    """A loop whose iterator the runner cannot hand over (a lazy iterator over
    arrays): the graph stops where its `for` statement starts and the iterable
    is computed natively, the body still a function. The replacement, or None."""
    code = frame.f_code
    start = loop_body.statement_start(code, plan.body.head)
    if start is None:
        return None
    n_graphs = len(info.graphs)
    try:
        graph, executor = _simulate_to(frame, start, info, options, shapes)
        if executor.stack:
            return None
        bound = set(executor.locals) | set(executor.lazy_locals)
        body = loop_body.plan(code, (plan.body.head, plan.body.back_edge), [False], bound)
        if isinstance(body, str):
            return None
        head = next(i for i in instructions(code) if i.offset == start)
        early = breaks.BreakPlan(head, "loop", plan.resume_offset, [], plan.layout_after, 0, body=body)
        return _split(frame, graph, executor, early, None, reason, info, options)
    except FallbackError:
        del info.graphs[n_graphs:]
        return None


def _split(frame, graph, executor, plan, region_live, reason, info: EntryInfo, options: Options):
    """The replacement for a break planned by `plan` after a simulation stopped at its start."""
    code = frame.f_code
    restored = [n for n in code.co_varnames if n in executor.locals] + \
        [n for n in executor.locals if n not in code.co_varnames]
    live = restored + [n for n in executor.lazy_locals if n not in executor.locals]
    if region_live is not None:
        live = region_live
    live = [n for n in live if not n.startswith(breaks.SOT_PREFIX) and n not in code.co_cellvars]
    restored = [n for n in restored if not n.startswith(breaks.SOT_PREFIX)]
    # Cell variables are restored into the replacement's cells; the resume
    # function then takes those cells themselves (breaks/resume.py).
    cells = {n: executor.cells[n].contents for n in code.co_cellvars
             if n in executor.cells and executor.cells[n].contents is not None}
    # Free variables the trace wrote (nonlocal): stored into the frame's cells.
    cells.update((n, cell_writes.contents(graph, n)) for n in cell_writes.written(graph, code))
    restored += list(cells)
    resume = None
    if plan.resume_offset is not None:
        resume = breaks.resume_code(code, plan.resume_offset, plan.layout_after, live, plan.blocks)
        # What ran natively (the instruction's results, the region's stores),
        # and locals already known to come from array data, are typed-guarded
        # only in the resume function.
        n = len(plan.layout_after)
        dynamic = {f"{breaks.STACK_PREFIX}{j}" for j in range(n - plan.pushed, n)} | plan.native_stores
        dynamic |= {n for n, v in executor.locals.items() if isinstance(v, DynamicScalarVariable)}
        breaks.RESUME_DYNAMIC[resume] = frozenset(breaks.RESUME_DYNAMIC.get(resume, frozenset()) | dynamic)
        if plan.body is not None and plan.body.new:  # after a loop body that binds names read later
            full = live + [n for n in plan.body.new if n not in live]
            plan.body.live_full = full
            plan.body.resume_full = breaks.resume_code(code, plan.resume_offset, plan.layout_after, full)
            breaks.RESUME_DYNAMIC[plan.body.resume_full] = breaks.RESUME_DYNAMIC.get(resume)
    info.graph_break = reason
    if len(graph.ir) < options.min_graph_size:
        info.native_ops = len(graph.ir)
        replacement = breaks.native_prefix_code(code, plan, live, resume)
    else:
        builder = OutputBuilder([t for t, _ in graph.inputs])
        functions, restored = _functions_to_rebuild(code, executor, cells, restored)
        values = {f.defaults: TupleVariable(list(f.var.defaults)) for f in functions if f.defaults}
        exprs = [builder.expr(values[n] if n in values else cells[n] if n in cells else executor.locals[n])
                 for n in restored]
        stack_vals = [v for v in executor.stack if v is not NULL]
        exprs += [builder.expr(v) for v in stack_vals]
        if plan.kind == "bool":
            exprs[-1] = f"{builder._bind(bool)}({exprs[-1]})"
        builder.effects = graph.effects.finish(graph, builder)
        with _phase(info, "codegen"):
            runner = make_runner(code, graph, builder, "(" + "".join(e + ", " for e in exprs) + ")", info, options)
        used = _used_cell_indices(builder.trackers)
        build = breaks.loop_region_code if plan.kind in ("loop", "region", "try") else \
            breaks.compiled_prefix_code
        replacement = build(code, plan, runner, used, live, restored, resume, functions)
    _hook.skip_code(replacement)
    return replacement, graph


def _functions_to_rebuild(code, executor, cells: dict, restored: list):
    """Functions the frame made before the break that locals or cells hold:
    the replacement makes them again over its own cells (RebuiltFunction).
    Returns (those, the restored names left for the runner)."""
    by_var: dict = {}
    for n in restored:
        v = cells[n] if n in cells else executor.locals[n]
        if isinstance(v, UserFunctionVariable) and v.value is None:
            by_var.setdefault(id(v), (v, []))[1].append(n)
    if not by_var:
        return [], restored
    cell_names = {id(c): n for n, c in executor.cells.items()}
    functions = []
    for k, (v, names) in enumerate(by_var.values()):
        closure = [cell_names.get(id(c)) for c in v.closure]
        if None in closure or v.kwdefaults or v.globals is not executor.globals:
            raise FallbackError(UNSUPPORTED_BREAK, f"function {v.name} made before the break cannot be made again")
        defaults = f"{breaks.SOT_PREFIX}d{k}" if v.defaults else None
        f = breaks.RebuiltFunction(names, v.code, v.qualname, closure, defaults)
        f.var = v
        functions.append(f)
    skip = {n for f in functions for n in f.names}
    restored = [n for n in restored if n not in skip] + [f.defaults for f in functions if f.defaults]
    return functions, restored


def _region_break(frame, instr, why: str, reason: BreakReason, info: EntryInfo, options: Options, shapes):
    """The statement region around `instr` runs natively (breaks/regions.py):
    (graph, executor, plan, locals passed on), or FallbackError with `why`,
    the reason no break at `instr` itself was possible."""
    code = frame.f_code
    if breaks.reads_own_frame(code):  # no split of any kind: see stop_offset
        raise FallbackError(UNSUPPORTED_BREAK, why)
    region = regions.statement_region(code, instr.offset)
    if isinstance(region, str):
        raise FallbackError(UNSUPPORTED_BREAK, f"{why}; {region}")
    hi = region.end if region.end is not None else 1 << 30
    if any(lo <= instr.offset <= last and not (region.start <= lo and last < hi)
           for lo, last in loop_ranges(instructions(code))):
        raise FallbackError(UNSUPPORTED_BREAK, why)  # the loop around it decides (stop_offset)
    graph, executor = _simulate_to(frame, region.start, info, options, shapes)
    if executor.stack:
        raise FallbackError(UNSUPPORTED_BREAK, f"{why}; the stack is not empty where the statement starts")
    bound = set(executor.locals) | set(executor.lazy_locals)
    order = list(code.co_varnames) + sorted(bound - set(code.co_varnames))
    live, unsure = region.live_after(bound, order)
    if region.end is not None and unsure & regions.read_after(code, region.end):
        names = ", ".join(sorted(unsure & regions.read_after(code, region.end)))
        raise FallbackError(UNSUPPORTED_BREAK, f"{why}; the statement around it may leave {names} unbound")
    head = next(i for i in instructions(code) if i.offset == region.start)
    # Names the region binds from array data (`n = float(x.sum())`) are
    # typed-guarded only, so a new value does not retranslate; the rest are
    # guarded as any value is.
    stores = region.stored | region.conditional if isinstance(reason, DataDependent) else frozenset()
    plan = breaks.BreakPlan(head, "region", region.end, [], [], 0, native_stores=frozenset(stores))
    return graph, executor, plan, live


def make_runner(code, graph: FunctionGraph, builder: OutputBuilder, ret: str, info: EntryInfo,
                options: Options):
    """The Python function a replacement calls: loads inputs through their
    trackers, runs the compiled graph, rebuilds the values in `ret`."""
    check_floor(graph.ir)   # a clamp the traced sizes hide (x[:3]): SpecializeDims
    graph.ir.set_outputs(builder.symbols)
    nargs, ncells = len(uniform_arg_names(code)), len(code.co_freevars)
    # A frozen input is the object its identity guard names: bound, not loaded.
    frozen = {k: graph.ir.frozen[sym.name] for k, sym in enumerate(graph.ir.inputs) if sym.name in graph.ir.frozen}
    loaded = [t for k, t in enumerate(builder.trackers) if k not in frozen]
    load_lines, exprs, load_namespace = load_statements(loaded, nargs, ncells)
    exprs = iter(exprs)
    load_exprs = [f"__frozen{k}" if k in frozen else next(exprs) for k in range(len(builder.trackers))]
    load_namespace.update({f"__frozen{k}": v for k, v in frozen.items()})
    _counter[0] += 1
    filename = f"{_skip.GENERATED_PREFIX}-runner-{_counter[0]} {code.co_name}>"
    params = ", ".join(["g"] + [f"a{i}" for i in range(nargs)] + [f"c{i}" for i in range(ncells)])
    lines = [f"def runner({params}):"] + [f"    {line}" for line in load_lines]
    lines += [f"    I{k} = {expr}" for k, expr in enumerate(load_exprs)]
    namespace = dict(load_namespace, **builder.namespace)
    if len(graph.ir) or builder.symbols:
        writes.finish(graph)  # guards the aliasing its writes were recorded with
        with _phase(info, "backend compile"):
            # (Python-number inputs: the NumPy backend hands NumPy the Python
            # objects themselves, NEP 50 weak scalars, bitwise as eager; on
            # onnxruntime they are 0-d inputs, see backends/__init__.py)
            backend = options.backend
            compiled = compile_graph(graph.ir, backend, options.device if backend != "numpy" else "cpu")
        run = compiled.fn  # the backend's function itself: one call less
        if hasattr(run, "__code__"):
            _hook.skip_code(run.__code__)
        namespace["__graph"] = run
        inputs = ", ".join(f"I{i}" for i in range(len(graph.inputs)))
        # NumPy's error state or the warnings filters not plain: the careful
        # path (fp_state), so that nothing is emitted twice and onnxruntime
        # does not skip NumPy's floating-point errors.
        ir = graph.ir
        namespace.update(__fp_plain=fp_state.fp_plain, __fp_token=fp_state.TOKEN, __careful=fp_state.run_careful(
            run, None if compiled.backend == "numpy" else lambda: _numpy_twin(ir)))
        # An error inside the graph: the hook runs the frame natively instead
        # (the runner is the replacement's first step and nothing before the
        # graph is observable), so the user's own code raises it, at the
        # user's line, with no sot frame in the traceback.
        # Once the graph has written into memory from outside it, a rerun
        # would write twice: its error is raised as it is (GraphWriteError).
        namespace["__rerun"] = _hook.RerunNatively
        namespace["__written"] = GraphWriteError
        if graph.fp_strict:
            # an np.errstate block in the frame (executor/contexts.py): every
            # error raises and the frame reruns natively, under its errstate
            if first_commit(ir) is not None:
                raise FallbackError(UNSUPPORTED_OBJECT, "a graph with an np.errstate block writes into "
                                    "memory from outside (it could not be rerun natively)")
            namespace["__fp_plain"] = fp_state.never_plain
            namespace["__careful"] = fp_state.run_strict(run if compiled.backend == "numpy" else _numpy_twin(ir))
        elif first_commit(ir) is not None:
            # never rerun once it wrote: errors are not made to raise; NumPy
            # handles them as eagerly (warn, call, log, raise), in order
            # (the twin is built here: building it during a call would offer
            # sot's own code to the hook)
            namespace["__careful"] = run if compiled.backend == "numpy" else _numpy_twin(ir)
        lines += ["    try:", "        if __fp_plain(__fp_token):", f"            O = __graph({inputs})",
                  "        else:", f"            O = __careful({inputs})",
                  "    except __written as e:", "        raise e.error from None",
                  "    except Exception:", "        raise __rerun from None"]
        info.graphs.append((len(graph.ir), compiled.backend, compiled.source))
        info.compiled.append(compiled)
    # read-only: the arrays whose values the graph reads (not only a shape)
    read = {s.name for st in graph.ir.statements for s in st.symbols_used()} | {s.name for s in builder.symbols}
    held = [k for k, sym in enumerate(graph.ir.inputs) if k in frozen and sym.name in read]
    info.frozen += [builder.trackers[k].name() for k in held]
    info.frozen_values += [frozen[k] for k in held]
    info.not_frozen += graph.not_frozen
    lines += [f"    {stmt}" for stmt in builder.prelude]
    lines += [f"    {stmt}" for stmt in builder.effects]  # side effects on outside objects, in eager's final state
    lines.append(f"    return {ret}")
    source = "\n".join(lines) + "\n"
    info.runner_source = source
    exec(compile(source, filename, "exec"), namespace)
    runner = namespace.pop("runner")  # not kept in its own globals: no reference cycle
    runner.source = source
    _hook.skip_code(runner.__code__)
    return runner


def _numpy_twin(ir):
    """The NumPy backend's function for ``ir`` (an onnxruntime graph run on
    NumPy where onnxruntime cannot reproduce NumPy's error handling)."""
    from .backends import compile_numpy
    fn = compile_numpy(ir).fn
    _hook.skip_code(fn.__code__)
    return fn


def _used_cell_indices(trackers) -> set:
    return {t.root().index for t in trackers if isinstance(t.root(), CellTracker)}
