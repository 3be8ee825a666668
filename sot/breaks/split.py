"""Planning a graph break: simulate the frame again up to the instruction
that cannot be captured, compile the graph before it, and build the
replacement that runs that instruction (or its statement, its region, its
loop) natively and hands on to a resume function (resume.py)."""
from __future__ import annotations

from .. import _hook
from ..entry import EntryInfo, Options, phase
from ..executor import cell_writes
from ..executor.frame_entry import check_stack_releases, number_inputs, simulate
from ..executor.generators import check_left_open
from ..executor.function_graph import FunctionGraph
from ..executor.opcode_table import instructions, loop_ranges
from ..executor.output import OutputBuilder
from ..executor.signals import BreakHere
from ..executor.variables import NULL, DynamicScalarVariable, TupleVariable, UserFunctionVariable
from ..runner import make_runner, used_cell_indices
from . import loop_body, regions, resume as breaks, tries
from .reasons import (INTERNAL, UNSUPPORTED_BREAK, BreakReason, DataDependent, FallbackError, NewClassStatement,
                      reason_for)


def at_call_site(code, error: FallbackError) -> BreakReason:
    """A reason raised inside an inlined callee, restated at the caller's line."""
    inner = error.reason
    line = error.top_line
    if (inner.filename, inner.lineno) == (code.co_filename, line) or line is None:
        return inner
    message = f"{inner.message} (inside the call, at {inner.location}: {inner.source or '?'})"
    if isinstance(inner, NewClassStatement):  # kept: _split asks for it
        outer = NewClassStatement(message, hint=inner.hint)
    else:
        outer = reason_for(inner.category, message, hint=inner.hint)
    return outer.located(code.co_filename, line)


def _simulate_to(frame, offset: int, info: EntryInfo, options: Options, shapes):
    """(graph, executor) of a simulation stopped before the instruction at `offset`."""
    code = frame.f_code
    graph = FunctionGraph(f"{code.co_name}_graph", shapes, options.freeze)
    graph.numbers = number_inputs(code, options, shapes)
    executor = simulate(frame, graph, break_at=offset)
    try:
        with phase(info, "simulate"):
            executor.run()
    except BreakHere:
        check_left_open(graph)
        check_stack_releases(graph)
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
        if instr.opname == "RAISE_VARARGS" and (made := tries.made_at(executor)) is not None:
            return make_break(frame, made, reason, info, options, shapes)
        if loop is None and instr.opname == "RAISE_VARARGS":
            plan = tries.plan_raise(code, instr, stack_nulls, executor)
        elif loop is None and tries.in_try(code, instr, executor):
            plan = tries.plan_try(code, instr, reason, stack_nulls, executor)
        elif loop is None and isinstance(reason, DataDependent) and tries.truth_always_raises(executor, instr):
            plan = "the truth value of an array of several elements raises"
        elif loop is None:
            plan = breaks.plan_break(code, instr, reason, stack_nulls)
        else:
            bound = set(executor.locals) | set(executor.lazy_locals)
            plan = breaks.plan_loop(code, loop, stack_nulls, bound,
                                    lambda body: loop_body.touches_arrays(body, executor, frame.f_globals))
            plan = tries.in_block(plan, code, executor)   # a loop inside a try/with body
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
        early = tries.in_block(breaks.BreakPlan(head, "loop", plan.resume_offset, [], plan.layout_after, 0,
                                                body=body), code, executor)
        if isinstance(early, str):
            return None
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
    plan.entry_bound = tuple(live)   # what the frame holds where the native part starts
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
            plan.body.resume_full = breaks.resume_code(code, plan.resume_offset, plan.layout_after, full,
                                                       maybe_unbound=plan.body.maybe_unbound)
            breaks.RESUME_DYNAMIC[plan.body.resume_full] = breaks.RESUME_DYNAMIC.get(resume)
        if isinstance(reason, NewClassStatement):
            for code_after in (resume, plan.body.resume_full if plan.body is not None else None):
                if code_after is not None:
                    breaks.RESUME_AFTER_CLASS[code_after] = True
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
        with phase(info, "codegen"):
            runner = make_runner(code, graph, builder, "(" + "".join(e + ", " for e in exprs) + ")", info, options)
        used = used_cell_indices(builder.trackers)
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

