"""What one translation records (EntryInfo, its phase times) and the options
it runs under: shared by the translator (translate.py), the runner builder
(runner.py) and the graph-break planner (breaks/split.py)."""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

from .breaks.reasons import BreakReason
from .guards import cache


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
    phases: dict = field(default_factory=dict)        # seconds per translation phase (see phase)
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
def phase(info: EntryInfo, name: str):
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

