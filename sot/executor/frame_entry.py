"""The simulator over an intercepted frame's entry state: its arguments as
lazily wrapped locals, its cells, and which Python numbers become inputs."""
from __future__ import annotations

from ..breaks import resume as breaks
from ..breaks.loop_body import LOOP_BODIES
from ..breaks.reasons import SIDE_EFFECT, FallbackError
from ..guards.tracker import CellTracker, LocalTracker
from . import cell_writes
from .codegen import uniform_arg_names
from .executor import OpcodeExecutor
from .function_graph import FunctionGraph
from .opcode_table import FACTS
from .scalar_policy import ScalarPolicy
from .side_effects import release_runs_code
from .variables import CellVariable


def simulate(frame, graph: FunctionGraph, break_at=None) -> OpcodeExecutor:
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
    # a resume function's frame holds the only references to its arguments (the
    # frame it resumes is gone); a loop body's caller, the native loop, keeps its own
    graph.effects.args_owned = code in breaks.RESUME_ORIGIN and code not in LOOP_BODIES
    if graph.effects.args_owned:
        graph.effects.releasing = _releasing_stack_values(lazy)
    if not FACTS.cells_made_by_instruction:
        for name in code.co_cellvars:
            value = None
            if name in lazy:
                v, tracker = lazy.pop(name)
                value = graph.wrap(v, tracker)
            cells[name] = CellVariable(value)
    return OpcodeExecutor(code, graph, frame.f_globals, lazy_locals=lazy, cells=cells, break_at=break_at,
                          dynamic_names=breaks.RESUME_DYNAMIC.get(code, frozenset()))


def _releasing_stack_values(lazy) -> list[str]:
    """A resume function's stack values are its only references to them, and
    the instruction that consumes one (``make().value``) releases it, which
    the trace does not model: the types of those whose release runs code
    (a finalizer a later read would see); see `check_stack_releases`."""
    return [type(value).__name__ for name, (value, _) in lazy.items()
            if name.startswith(breaks.STACK_PREFIX) and release_runs_code(value)]


def check_stack_releases(graph) -> None:
    """Fall back where a trace that got this far had such a stack value."""
    if graph.effects.releasing:
        raise FallbackError(SIDE_EFFECT, f"a value on the stack at the graph break ({graph.effects.releasing[0]}) "
                            "runs code when it is released")


def number_inputs(code, options, shapes):
    """Which Python numbers become graph inputs (executor/scalar_policy.py):
    none in the all-static last attempt, nor with to_static(dynamic=False)."""
    return ScalarPolicy(code) if shapes is not None and options.dynamic is not False else None

