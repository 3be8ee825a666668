"""backend="auto" per segment: a graph that mixes large float64 BLAS products
(NumPy's BLAS is several times faster than onnxruntime's Eigen MatMul here)
with fusable elementwise chains (onnxruntime's fused kernels win) is cut
into segments where the kind of its statements changes, and each segment
is timed on both backends and runs where it is faster.

* ``segment_cuts(graph)``: the statement indices that start a segment, or
  None when the graph does not mix the two kinds (then auto times the
  whole graph only, ``auto``).
* ``SegmentedOnnxGraph``: an ``OnnxCompiledGraph`` planned with those cuts
  (no value is kept in onnxruntime between segments: each segment's inputs
  and results are NumPy arrays, so either backend can run it).  Each ONNX
  segment runs its first ``1 + TRIALS`` calls on NumPy (its statements
  replayed as the NumPy backend does), its next ``1 + TRIALS`` on
  onnxruntime, the first of each block a warm-up; then the faster by the best of its timed
  calls runs it for good (a tie goes to NumPy, the reference).  A segment
  of float64 products so large that onnxruntime's Eigen MatMul is known to
  lose (``matmul_prefers_numpy``) is placed on NumPy without timing.  Either gives
  NumPy's results up to float rounding, as whole-graph auto does.

``auto`` then chooses between this graph and the whole graph on the NumPy
backend from the segments' times, and checks that choice later by timing
both whole graphs, as it does for any graph.

Only a speed choice: ``sot.save`` lowers every statement with an exact
ONNX form whatever was chosen here.  Deterministic in tests: ``clock`` (the
timer) and ``FORCE`` (a function ``(kind, statements) -> "numpy" |
"onnxruntime" | None`` deciding without timing) may be replaced.
"""
from __future__ import annotations

import functools
import time
import weakref

import numpy as np

from sot.ir.ops_write import is_write
from sot.ir.statement_ir import StatementIR

from .lowering_array import MATMUL_OPS, matmul_prefers_numpy
from .session import SMALL_WORK, OnnxCompiledGraph, _rejected, _run_numpy, _RunnableSegment, statement_work

__all__ = ["segment_cuts", "blas_heavy", "SegmentedOnnxGraph", "compile_segmented", "clock", "FORCE",
           "MAX_SEGMENTS"]

#: the timer (tests may replace it)
clock = time.perf_counter

#: (kind, statements) -> "numpy", "onnxruntime" or None (time it); tests
#: make placements deterministic with it
FORCE = None

#: a graph cut into more segments than this is timed as a whole only (each
#: segment costs an onnxruntime call)
MAX_SEGMENTS = 32

_BLAS_DTYPES = (np.dtype(np.float64), np.dtype(np.complex128))


def blas_heavy(st) -> bool:
    """A product NumPy hands to BLAS in double precision, large enough that
    the kernel, not the call, costs."""
    return (st.op.name in MATMUL_OPS and bool(st.outputs) and not st.outputs[0].meta.is_python
            and st.outputs[0].meta.dtype in _BLAS_DTYPES and statement_work(st) >= SMALL_WORK)


def _kind(st) -> str | None:
    if not st.outputs or all(s.meta.is_python for s in st.outputs):
        return None
    return "blas" if blas_heavy(st) else "elementwise"


def segment_cuts(graph: StatementIR) -> frozenset | None:
    """Indices of the statements where the kind changes (``blas`` / the
    rest), or None when the graph has not both kinds, writes into memory
    from outside it, or would be cut into more than MAX_SEGMENTS."""
    if graph.is_symbolic or any(is_write(st) for st in graph.statements):
        return None
    cuts, kinds, last = [], set(), None
    for i, st in enumerate(graph.statements):
        kind = _kind(st)
        if kind is None:
            continue
        kinds.add(kind)
        if last is not None and kind != last:
            cuts.append(i)
        last = kind
    if len(kinds) < 2 or len(cuts) + 1 > MAX_SEGMENTS:
        return None
    return frozenset(cuts)


class SegmentChoice:
    """Where one ONNX segment of a SegmentedOnnxGraph runs, and why.

    Timed in blocks, as whole-graph auto is: ``1 + TRIALS`` calls on NumPy,
    then as many on onnxruntime, the first of each block a warm-up (the
    first call after a switch pays for the other side: NumPy's BLAS
    threads still spin).  Call-by-call alternation timed mostly that.

    The step holds this choice (its ``run``) while timing and nothing
    after; the choice holds the step weakly: no cycle keeps a replaced
    graph's sessions alive."""

    def __init__(self, step: _RunnableSegment, kind: str):
        from .auto import TRIALS
        self.kind = kind
        self.statements = list(step.segment.statements)
        self.times: dict[str, list[float]] = {"numpy": [], "onnxruntime": []}
        self.chosen: str | None = None
        self.why = ""
        self._step = weakref.ref(step)
        self._n = 0
        self._block = 1 + TRIALS
        forced = FORCE(kind, self.statements) if FORCE is not None else None
        known = [matmul_prefers_numpy(st) for st in self.statements if _kind(st) is not None]
        if forced is not None:
            self._choose(forced, "forced (segments.FORCE)")
        elif known and all(known):   # timing onnxruntime's float64 MatMul here costs seconds to learn this
            self._choose("numpy", known[0])
        else:
            step.run = self._measure

    def backend_of_call(self, n: int) -> str:
        """The side the ``n``-th timed call runs on: a block of each."""
        return "numpy" if n < self._block else "onnxruntime"

    def _measure(self, env: dict) -> None:
        n = self._n
        self._n += 1
        name = self.backend_of_call(n)
        step = self._step()   # alive: it is calling us
        t0 = clock()
        if name == "numpy":
            _run_numpy(self.statements, env)
        else:
            type(step).run(step, env)
        elapsed = clock() - t0
        if n % self._block:   # each block's first call is its warm-up
            self.times[name].append(elapsed)
        if self._n >= 2 * self._block:
            t_np, t_ort = min(self.times["numpy"]), min(self.times["onnxruntime"])
            if t_ort < t_np:
                self._choose("onnxruntime", f"onnxruntime {t_ort * 1e6:.1f} us < numpy {t_np * 1e6:.1f} us")
            else:
                self._choose("numpy", f"numpy {t_np * 1e6:.1f} us <= onnxruntime {t_ort * 1e6:.1f} us")

    def _choose(self, name: str, why: str) -> None:
        self.chosen, self.why = name, why
        step = self._step()
        if name == "numpy":
            step.run = functools.partial(_run_numpy, self.statements)
        else:
            step.__dict__.pop("run", None)   # the step's own run again

    def report(self) -> dict:
        first = self.statements[0]
        return {"kind": self.kind, "statements": len(self.statements), "first": first.expression(),
                "chosen": self.chosen, "why": self.why, "times": {k: list(v) for k, v in self.times.items()}}


class SegmentedOnnxGraph(OnnxCompiledGraph):
    """The graph cut at ``cuts``, each ONNX segment placed by measuring
    (see the module docstring)."""

    def __init__(self, graph: StatementIR, device: str, fuse: bool, cuts: frozenset):
        super().__init__(graph, device, fuse, cuts=cuts)
        kinds = []
        for step in self._steps:
            if isinstance(step, _RunnableSegment):
                heavy = any(blas_heavy(st) for st in step.segment.statements)
                kinds.append((step, "blas" if heavy else "elementwise"))
        self.choices = [SegmentChoice(step, kind) for step, kind in kinds]

    def _keep(self) -> list[str]:
        return []   # every segment's values are NumPy's: either backend may read them

    @property
    def choosing(self) -> bool:
        """Some segment is still being timed (auto waits before timing the graph)."""
        return any(c.chosen is None for c in self.choices)

    def totals(self) -> dict:
        """Seconds a call spends in the ONNX segments (best times): all on
        NumPy ("numpy") and each where it was placed ("onnxruntime")."""
        best = [{k: min(v) for k, v in c.times.items() if v} for c in self.choices]
        return {"numpy": sum(b.get("numpy", 0.0) for b in best),
                "onnxruntime": sum(b.get(c.chosen, 0.0) for b, c in zip(best, self.choices))}

    def explain(self) -> dict:
        return {**super().explain(), "segment_choices": [c.report() for c in self.choices]}


def compile_segmented(graph: StatementIR, device: str = "cpu"):
    """A SegmentedOnnxGraph of ``graph``, or None where auto times the whole
    graph only (the graph does not mix kinds, runs on the GPU, or fewer than
    two segments lower; onnxruntime refused a model)."""
    if device != "cpu":
        return None
    cuts = segment_cuts(graph)
    if cuts is None:
        return None
    for fuse in (True, False):
        try:
            compiled = SegmentedOnnxGraph(graph, device, fuse, cuts)
            break
        except Exception as e:
            if not _rejected(e):
                raise
    else:
        return None
    if len(compiled.choices) < 2 or len(compiled.steps) < 2:
        return None
    return compiled
