"""The hook's callback: translate an intercepted frame into a cache entry.

For each frame the hook could not serve from cache, `Translator.__call__`
decides whether the code is ours to translate, simulates it, compiles the
graph, builds the guard and the replacement code, and stores the entry. A
frame that cannot be captured gets an entry that runs it natively under the
guards gathered so far, so the same failure is not retried on every call.
"""
from __future__ import annotations

import logging
import time
import types
from dataclasses import dataclass, field

from . import _hook, _skip
from .backends.numpy_backend import compile_numpy
from .breaks.reasons import INTERNAL, BreakReason, FallbackError
from .executor.codegen import make_calling_code, uniform_arg_names
from .executor.executor import OpcodeExecutor
from .executor.function_graph import FunctionGraph
from .executor.output import OutputBuilder
from .executor.variables import CellVariable
from .guards import cache
from .guards.compile import compile_guards, make_loader
from .guards.tracker import CellTracker, LocalTracker

log = logging.getLogger("sot.breaks")
_counter = [0]


@dataclass
class EntryInfo:
    """What one translation produced, for explain and logs."""
    code_name: str
    filename: str
    firstlineno: int
    graphs: list = field(default_factory=list)        # [(op_count, backend, source)]
    fallback: BreakReason | None = None
    guards: list = field(default_factory=list)
    translate_seconds: float = 0.0

    @property
    def state(self) -> str:
        if self.fallback is not None:
            return "dynamic"
        return "fully static"


class GraphBreakError(RuntimeError):
    """Raised with full_graph=True when the function cannot be one graph."""

    def __init__(self, reason: BreakReason):
        super().__init__(str(reason))
        self.reason = reason


@dataclass
class Options:
    backend: str = "numpy"
    full_graph: bool = False
    cache_size: int = cache.DEFAULT_CACHE_SIZE
    top_code: object = None


_recorders: list = []  # explain() collects EntryInfo here while it runs


class Translator:
    """The callback object set on the thread while a to_static call runs."""

    def __init__(self, options: Options):
        self.options = options

    def __call__(self, frame):
        code = frame.f_code
        if not _skip.is_user_code(code):
            return _hook.SKIP
        started = time.perf_counter()
        info = EntryInfo(code.co_name, code.co_filename, code.co_firstlineno)
        graph = FunctionGraph(f"{code.co_name}_graph")
        replacement = None
        try:
            replacement, runner_info = translate(frame, graph)
            info.graphs = runner_info
        except FallbackError as e:
            info.fallback = e.reason
            log.info("%s: %s runs natively\n%s", code.co_name, _where(code), e.reason)
            if self.options.full_graph and code is self.options.top_code:
                raise GraphBreakError(e.reason) from None
        guard = compile_guards(graph.guards, len(frame.args), len(frame.closure or ()))
        info.guards = guard.describe()
        info.translate_seconds = time.perf_counter() - started
        _hook.skip_code(guard.fn.__code__)
        cache.add_entry(code, guard.fn, replacement, info, self.options.cache_size)
        for rec in _recorders:
            rec.append(info)
        return replacement


def _where(code) -> str:
    return f"{code.co_filename}:{code.co_firstlineno}"


def translate(frame, graph: FunctionGraph):
    code = frame.f_code
    names = uniform_arg_names(code)
    lazy = {name: (value, LocalTracker(i, name)) for i, (name, value) in enumerate(zip(names, frame.args))}
    cells = {}
    for i, (name, real) in enumerate(zip(code.co_freevars, frame.closure or ())):
        cell = CellVariable(tracker=CellTracker(i, name), preexisting=True)
        cell.real_cell = real
        cells[name] = cell
    from .executor.opcode_table import FACTS
    if not FACTS.cells_made_by_instruction:
        for name in code.co_cellvars:
            value = None
            if name in lazy:
                v, tracker = lazy.pop(name)
                value = graph.wrap(v, tracker)
            cells[name] = CellVariable(value)
    executor = OpcodeExecutor(code, graph, frame.f_globals, lazy_locals=lazy, cells=cells)
    result = executor.run()
    return build_replacement(code, graph, result, len(names))


def build_replacement(code, graph: FunctionGraph, result, nargs: int):
    builder = OutputBuilder([t for t, _ in graph.inputs])
    out_expr = builder.expr(result)
    graph.ir.set_outputs(builder.symbols)
    ncells = len(code.co_freevars)
    loader = make_loader(builder.trackers, nargs, ncells) if builder.trackers else None
    n_inputs = len(graph.inputs)
    _counter[0] += 1
    filename = f"{_skip.GENERATED_PREFIX}-runner-{_counter[0]} {code.co_name}>"
    params = ", ".join(["g"] + [f"a{i}" for i in range(nargs)] + [f"c{i}" for i in range(ncells)])
    lines = [f"def runner({params}):"]
    lines.append(f"    I = __load({params})" if loader else "    I = ()")
    graphs = []
    namespace = dict(builder.namespace, __load=loader)
    if len(graph.ir) or builder.symbols:
        compiled = compile_numpy(graph.ir)
        _hook.skip_code(compiled._fn.__code__)
        namespace["__graph"] = compiled._fn
        args = ", ".join(f"I[{i}]" for i in range(n_inputs))
        lines.append(f"    O = __graph({args})")
        graphs.append((len(graph.ir), "numpy", compiled.source))
    lines.append(f"    return {out_expr}")
    source = "\n".join(lines) + "\n"
    exec(compile(source, filename, "exec"), namespace)
    runner = namespace["runner"]
    runner.source = source
    used_cells = set(range(ncells))
    _hook.skip_code(runner.__code__)
    if loader is not None:
        _hook.skip_code(loader.__code__)
    replacement = make_calling_code(code, runner, used_cells & _used_cell_indices(builder.trackers))
    _hook.skip_code(replacement)
    return replacement, graphs


def _used_cell_indices(trackers) -> set:
    used = set()
    for t in trackers:
        root = t.root()
        if isinstance(root, CellTracker):
            used.add(root.index)
    return used


_ = (types, INTERNAL)
