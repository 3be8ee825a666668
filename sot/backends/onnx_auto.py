"""backend="auto": compile for NumPy and for onnxruntime, time both on the
first calls, keep the faster.

The first ``2 * (1 + TRIALS)`` calls alternate between the two compiled
graphs (each call is answered by the one that ran it: both give NumPy's
results); each backend's first call is a warm-up, and the best of its next
``TRIALS`` times is its time.  Then every call goes straight to the winner.

A close call (the loser within ``CLOSE`` times the winner) is measured once
more, ``RECHECK_AFTER`` calls later, and that second round decides: a graph
with large intermediates speeds up over its first calls (the NumPy backend's
buffers, onnxruntime's arena, the kernel's huge pages settle: attention on
8x1024x1024 float64 scores takes 90 ms per call on NumPy at first, 56 ms from
about the tenth call), so the first round can pick the backend that is
slower for the rest of the run.

A graph that does not lower at all is NumPy from the start (no timing).
``explain()`` gives the times and the choice.
"""

from __future__ import annotations

import time
import weakref
from collections import deque

from sot.ir.statement_ir import StatementIR

__all__ = ["AutoCompiledGraph", "compile_auto", "recent", "TRIALS", "RECHECK_AFTER", "CLOSE"]

#: timed calls per backend and round, after one warm-up each
TRIALS = 3

#: calls on the first round's winner before a close call is measured again
RECHECK_AFTER = 16

#: a first round whose loser is within this factor of the winner is a close call
CLOSE = 2.0


def _is_onnxruntime_error(e: Exception) -> bool:
    return type(e).__module__.startswith("onnxruntime")


class AutoCompiledGraph:
    """Both compiled graphs and the measurement (see the module docstring).

    ``backend`` is the chosen backend once measured, ``"auto"`` until then.
    """

    def __init__(self, graph: StatementIR, device: str = "cpu", onnx=None):
        from . import numpy_compiled
        from .onnx_session import compile_onnxruntime
        self.graph = graph
        self.device = device
        self.numpy = numpy_compiled(graph)
        # ``onnx``: the graph already compiled for onnxruntime (a symbolic one)
        self.onnx = compile_onnxruntime(graph, device) if onnx is None else onnx
        self.times: dict[str, list[float]] = {"numpy": [], "onnxruntime": []}
        self.rounds: list[dict] = []   # per round: the best time of each backend
        self.chosen: str | None = None
        self.why = ""
        self._calls = 0
        self._since = 0   # calls on the winner since the first round
        self._first_why = ""
        if self.onnx.backend == "numpy":
            self._choose("numpy", "no statement lowers to ONNX")
        elif device == "gpu":
            self._choose("onnxruntime", "device='gpu' runs on onnxruntime")
        self._current = self._measure if self.chosen is None else self._winner_fn()
        state = self

        def run_graph(*inputs):
            return state._current(*inputs)
        self._fn = run_graph

    # -- measuring ------------------------------------------------------------

    def _measure(self, *inputs):
        n = self._calls
        self._calls += 1
        name = "numpy" if n % 2 == 0 else "onnxruntime"
        fn = self.numpy._fn if name == "numpy" else self.onnx._fn
        prepare = getattr(self.onnx, "prepare", None)
        if name == "onnxruntime" and prepare is not None:
            prepare(*inputs)   # a symbolic graph's once-per-shape check is not its speed
        t0 = time.perf_counter()
        try:
            result = fn(*inputs)
        except Exception as e:
            if name == "onnxruntime" and _is_onnxruntime_error(e):
                self._choose("numpy", f"onnxruntime failed: {type(e).__name__}: {e}")
                self._current = self._winner_fn()
                return self.numpy._fn(*inputs)
            raise
        elapsed = time.perf_counter() - t0
        if n >= 2:   # calls 0 and 1 are the warm-ups
            self.times[name].append(elapsed)
        if n + 1 >= 2 * (1 + TRIALS):
            self._end_round()
        return result

    def _end_round(self) -> None:
        best = {k: min(v) for k, v in self.times.items()}
        self.rounds.append(best)
        t_np, t_ort = best["numpy"], best["onnxruntime"]
        if t_ort < t_np:
            self._choose("onnxruntime", f"onnxruntime {t_ort * 1e6:.1f} us < numpy {t_np * 1e6:.1f} us")
        else:
            self._choose("numpy", f"numpy {t_np * 1e6:.1f} us <= onnxruntime {t_ort * 1e6:.1f} us")
        if len(self.rounds) > 1:
            self.why += f" (second round; first: {self._first_why})"
        close = max(t_np, t_ort) <= CLOSE * min(t_np, t_ort)
        if len(self.rounds) == 1 and close:
            self._first_why = self.why
            self._current = self._winner_then_recheck
        else:
            self._current = self._winner_fn()

    def _winner_then_recheck(self, *inputs):
        self._since += 1
        if self._since > RECHECK_AFTER:
            self.times = {"numpy": [], "onnxruntime": []}
            self._calls = 0
            self._current = self._measure
        return self._winner_fn()(*inputs)

    def _choose(self, name: str, why: str) -> None:
        self.chosen = name
        self.why = why

    def _winner_fn(self):
        return self.numpy._fn if self.chosen == "numpy" else self.onnx._fn

    # -- the compiled-graph interface -----------------------------------------

    def __call__(self, *inputs) -> tuple:
        return self._fn(*inputs)

    @property
    def backend(self) -> str:
        if self.chosen is None:
            return "auto"
        return "numpy" if self.chosen == "numpy" else self.onnx.backend

    @property
    def source(self) -> str:
        if self.chosen == "numpy":
            return self.numpy.source
        if self.chosen is not None:
            return self.onnx.source
        return (f"# backend='auto': NumPy and onnxruntime, timed on the first calls\n"
                f"{self.numpy.source}\n{self.onnx.source}")

    def explain(self) -> dict:
        return {
            "backend": "auto",
            "chosen": self.chosen,
            "why": self.why,
            "times": {k: list(v) for k, v in self.times.items()},
            "best": {k: min(v) for k, v in self.times.items() if v},
            "rounds": [dict(r) for r in self.rounds],
            "onnxruntime": self.onnx.explain(),
        }

    def __repr__(self) -> str:
        return f"<AutoCompiledGraph {self.graph.name}: {self.backend}>"


_RECENT: deque = deque(maxlen=64)


def recent() -> list[AutoCompiledGraph]:
    """The auto graphs compiled lately that are still alive, oldest first
    (for benchmarks and debugging: their ``explain()`` gives the choice)."""
    return [g for g in (r() for r in _RECENT) if g is not None]


def compile_auto(graph: StatementIR, device: str = "cpu", onnx=None) -> AutoCompiledGraph:
    compiled = AutoCompiledGraph(graph, device, onnx)
    _RECENT.append(weakref.ref(compiled))
    return compiled
