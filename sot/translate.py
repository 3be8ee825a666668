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

What an entry records and the options are in entry.py, the runner a
replacement calls in runner.py, the planning of a break in breaks/split.py.
"""
from __future__ import annotations

import logging
import sys
import time

from . import _hook, _skip
from .breaks import describe, resume as breaks
from .breaks.reasons import BreakReason, FallbackError, InternalError
from .breaks.split import at_call_site, make_break
from .entry import PHASES, EntryInfo, Options, phase  # noqa: F401 - PHASES, Options: sot.api, sot.explain
from .executor import cell_writes, freeze, list_lengths, local_classes, small_loops
from .executor.codegen import make_calling_code
from .executor.frame_entry import check_stack_releases, number_inputs, simulate
from .executor.generators import check_left_open
from .executor.function_graph import FunctionGraph
from .executor.output import OutputBuilder
from .executor.scalar_policy import ScalarPolicy
from .executor.shape_policy import ShapePolicy
from .guards import cache
from .guards.compile import compile_guards
from .ir.ops_write import is_write
from .ir.symbolic import SpecializeDims
from .logs import dump_translation, vlog
from .runner import make_runner, used_cell_indices

log = logging.getLogger("sot.breaks")
log_guards = logging.getLogger("sot.guards")


def _internal_error(info: EntryInfo, name: str, e: Exception):
    """A bug in sot while translating: the frame runs natively (None), the
    bug logged and recorded as the entry's fallback."""
    log.warning("internal error translating %s; it runs natively: %s: %s",
                name, type(e).__name__, e, exc_info=log.isEnabledFor(logging.DEBUG))
    info.fallback = InternalError(f"{type(e).__name__}: {e}")
    info.graphs, info.compiled, info.graph_break = [], [], None   # none of what was built runs
    for rec in _recorders:
        rec.append(info)
    return None


class GraphBreakError(RuntimeError):
    """Raised with full_graph=True when the function cannot be one graph."""

    def __init__(self, reason: BreakReason):
        super().__init__(str(reason))
        self.reason = reason


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
        if code in breaks.RESUME_AFTER_CLASS and cache.entries(code):
            # missed again: guarded on a class the frame makes anew each call
            return _skipped(code, AFTER_CLASS_WHY)
        self.translations += 1
        started = time.perf_counter()
        try:
            return self._translate(frame, code, origin, offset, started)
        except RecursionError:
            # sot's own frames ran out of recursion budget (a deep recursion
            # of the user's): the frame runs natively, where the user's code
            # meets the recursion limit at eager's depth, or not at all
            return None
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
            return _internal_error(info, name, e)
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
        try:
            with phase(info, "guards"):
                guard = compile_guards(graph.guards, len(frame.args), len(frame.closure or ()))
        except Exception as e:  # (a guard with no load op): nothing has run yet
            return _internal_error(info, name, e)
        info.guard = guard
        info.guards = [describe.user_text(g, code) for g in guard.describe()]
        info.translate_seconds = time.perf_counter() - started
        vlog(3, log_guards, "new entry for %s (%.2f ms), %d guard(s):\n  %s", name,
             info.translate_seconds * 1e3, len(info.guards), "\n  ".join(info.guards))
        dump_translation(name, info, replacement)
        if cache.add_entry(code, guard.hot, replacement, info, self.options.cache_size,
                           direct=info.direct if replacement is not None else None):
            freeze.hold(info.frozen_values)
        if getattr(info.fallback, "native_for_good", False):
            cache.run_natively(code, info.fallback.message)
        for rec in _recorders:
            rec.append(info)
        return replacement


AFTER_CLASS_WHY = ("it follows a class statement, which makes a new class each call: its translation "
                   "cannot match the next call, so it runs natively")
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


def translate(frame, info: EntryInfo, options: Options, allow_break: bool = True, shapes=None):
    """(replacement code or None, the FunctionGraph whose guards select it).
    `shapes`: the ShapePolicy choosing symbolic dims (None: all static)."""
    while True:
        try:
            return _translate_once(frame, info, options, allow_break, shapes)
        except local_classes.ClassEscapes as e:  # that class statement breaks from now on: again
            local_classes.build_natively(e.site)
            info.__dict__.update(EntryInfo(info.code_name, info.filename, info.firstlineno,
                                           recompile_reason=info.recompile_reason).__dict__)


def _translate_once(frame, info: EntryInfo, options: Options, allow_break: bool, shapes):
    code = frame.f_code
    graph = FunctionGraph(f"{code.co_name}_graph", shapes, options.freeze)
    graph.numbers = number_inputs(code, options, shapes)
    if not (options.full_graph or options.strict):   # those ask for the graph whatever it costs
        graph.tiny_limit = small_loops.LIMIT
    graph.list_lengths = list_lengths.for_code(code, options)
    try:
        with phase(info, "simulate"):
            result = simulate(frame, graph).run()
            check_left_open(graph)
            check_stack_releases(graph)
        with phase(info, "codegen"):
            builder = OutputBuilder([t for t, _ in graph.inputs])
            ret = builder.expr(result)
            written = cell_writes.written(graph, code)
            if written:  # the runner returns (new cell contents..., result); see cell_writes
                ret = "(" + "".join(builder.expr(cell_writes.contents(graph, n)) + ", " for n in written) + ret + ")"
            builder.effects = graph.effects.finish(graph, builder)
            runner = make_runner(code, graph, builder, ret, info, options)
            replacement = make_calling_code(code, runner, used_cell_indices(builder.trackers), written)
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
        return make_break(frame, instr, at_call_site(code, error), info, options, shapes)
    except FallbackError as e:
        info.fallback = error.reason
        if e.reason.message != error.reason.message:
            error.reason.hint = (error.reason.hint + "; " if error.reason.hint else "") + \
                f"no graph break possible: {e.reason.message}"
        return None, graph


def _has_array_ops(graph: FunctionGraph) -> bool:
    """Whether the graph computes or writes arrays (a write has no outputs)."""
    return any(is_write(st) or any(not out.meta.is_python for out in st.outputs) for st in graph.ir.statements)


