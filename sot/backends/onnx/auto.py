"""backend="auto": compile for NumPy and for onnxruntime, time both on the
first calls, keep the faster.

The first ``2 * (1 + TRIALS)`` calls run on the two compiled graphs in
turn, ``1 + TRIALS`` calls each (each call is answered by the one that ran
it: both give NumPy's results); each backend's first call is a warm-up, and
the best of its next ``TRIALS`` times is its time.  Then every call goes
straight to the winner.  Blocks, not call-by-call alternation: the first
call after a switch pays for the other backend (NumPy's BLAS threads still
spin after its call and slow an onnxruntime call that follows on a 2-core
machine), which is not what either costs when it runs alone.

The choice is then checked, at a bounded cost: once the winner has run for
``CHECK_FACTOR`` times the loser's last time, ``CHECK_CALLS`` calls of the
winner are timed, then a warm-up call and ``CHECK_CALLS`` timed calls of
the loser, and the loser takes over if its best is faster by more than
``SWITCH``.  The factor doubles after each check, so checking costs at most
(1 + CHECK_CALLS) / CHECK_FACTOR of the time (a twentieth: "auto within 10 %
of the better backend" must hold with the checks), less and less, and stops
after ``CHECKS`` checks.  The bound holds when times change: the winner's
time is taken again at the check (a new session's first runs, which the
first choice saw, can be ten times slower than later ones), and the check
waits for the calls that time is worth; and a loser whose warm-up call took
``ABANDON`` times the winner's ends the check there (a symbolic graph's
NumPy side at other shapes or under load: seconds a call, where the first
choice saw 0.4 s).  A graph with large
intermediates speeds up over its first calls (the NumPy backend's buffers,
onnxruntime's arena, the kernel's huge pages settle: attention on
8x1024x1024 float64 scores takes 90-170 ms per call on NumPy at first, 56 ms
from about the tenth call), so the first calls alone can pick the backend
that is slower for the rest of the run.

A graph that mixes large float64 BLAS products with elementwise chains is
first placed segment by segment (``segments``): its onnxruntime
candidate is that segmented graph.  Once its segments chose, the sums of
their times (all on NumPy against as placed) make the first choice, and the
checks then time the two whole graphs as above.

A graph that does not lower at all is NumPy from the start (no timing).
``explain()`` gives the times and the choice.
"""

from __future__ import annotations

import time
import weakref
from collections import deque

from sot.backends import measuring_calls
from sot.ir.statement_ir import StatementIR

__all__ = ["AutoCompiledGraph", "compile_auto", "recent", "TRIALS", "CHECK_FACTOR", "CHECK_CALLS", "CHECKS",
           "SWITCH", "ABANDON"]

#: timed calls per backend, after one warm-up each
TRIALS = 3

#: the choice is checked once the winner has run this many times as long as
#: the loser's last time (doubling after each check): with 1 + CHECK_CALLS
#: calls on the loser per check, checking costs at most (1 + CHECK_CALLS) / CHECK_FACTOR
CHECK_FACTOR = 60

#: timed calls on each backend per check (the best counts)
CHECK_CALLS = 2

#: checks after which the choice is final
CHECKS = 6

#: a check switches backends when the loser took less than this times the winner
SWITCH = 0.9

#: a check ends after the loser's warm-up call when even that took this many
#: times the winner's time (its timed calls could cost seconds and not switch)
ABANDON = 4.0


def _is_onnxruntime_error(e: Exception) -> bool:
    from ..._skip import in_package
    return in_package(type(e).__module__, "onnxruntime")


class AutoCompiledGraph:
    """Both compiled graphs and the measurement (see the module docstring).

    ``backend`` is the chosen backend once measured, ``"auto"`` until then.
    """

    def __init__(self, graph: StatementIR, device: str = "cpu", onnx=None):
        from .. import numpy_compiled
        from .session import compile_onnxruntime
        self.graph = graph
        self.device = device
        self.numpy = numpy_compiled(graph)
        # ``onnx``: the graph already compiled for onnxruntime (a symbolic one);
        # a graph mixing BLAS products and elementwise chains: per segment
        if onnx is None:
            from .segments import compile_segmented
            onnx = compile_segmented(graph, device) or compile_onnxruntime(graph, device)
        self.onnx = onnx
        self.times: dict[str, list[float]] = {"numpy": [], "onnxruntime": []}
        self.checks: list[dict] = []   # after the choice: each check's times and outcome
        self.chosen: str | None = None
        self.why = ""
        self._calls = 0
        #: calls that ran the measuring, counting-down or checking code (not
        #: those after the last check): a benchmark sees whether it reached
        #: a graph whose first check is still to come
        self.calls_until_final = 0
        self._best: dict[str, float] = {}
        self._factor = CHECK_FACTOR
        self._countdown = 0
        self._check_times: dict[str, list[float]] = {}
        self._check_warm = False
        self._armed = 0
        self._final = False
        self._first_why = ""
        self._winner = None
        if self.onnx.backend == "numpy":
            self._choose("numpy", "no statement lowers to ONNX")
        elif device == "gpu":
            self._choose("onnxruntime", "device='gpu' runs on onnxruntime")
        # what the next call runs: a function of (self, *inputs), never a
        # bound method (see ``fn``)
        self._current = AutoCompiledGraph._measure if self.chosen is None else _run_winner

    @property
    def fn(self):
        """The function the runner calls.  Nothing this graph holds refers
        back to it or to the graph (no bound method of its own in
        ``_current``): an entry that a more general one replaces is freed
        by reference counting, sessions and all, not at the collector's
        next full pass."""
        state = self

        def run_graph(*inputs):
            return state._current(state, *inputs)
        return run_graph

    # -- measuring ------------------------------------------------------------

    def _timed(self, name: str, inputs):
        """(result, seconds) of one call on backend ``name``; (result, None)
        when onnxruntime failed: NumPy answered, and is chosen for good."""
        graph = self.numpy if name == "numpy" else self.onnx
        prepare = getattr(graph, "prepare", None)
        if prepare is not None:
            prepare(*inputs)   # a symbolic graph's once-per-shape check is not its speed
        t0 = time.perf_counter()
        try:
            result = graph.fn(*inputs)
        except Exception as e:
            if name == "onnxruntime" and _is_onnxruntime_error(e):
                self._choose("numpy", f"onnxruntime failed: {type(e).__name__}: {e}")
                self._final = True
                self._current = _run_winner
                return self.numpy.fn(*inputs), None
            raise
        return result, time.perf_counter() - t0

    def _measure(self, *inputs):
        measuring_calls[0] += 1
        self.calls_until_final += 1
        if getattr(self.onnx, "choosing", False):   # its segments time themselves first (segments)
            result = self._timed("onnxruntime", inputs)[0]
            if not self.onnx.choosing and not self._final:
                self._choose_from_segments()
            return result
        n = self._calls
        name = "numpy" if n < 1 + TRIALS else "onnxruntime"
        if name == "onnxruntime" and getattr(self.onnx, "settling", False):
            return self._timed(name, inputs)[0]   # its segments time their threads first (threads)
        self._calls += 1
        result, elapsed = self._timed(name, inputs)
        if elapsed is None:
            return result
        if n % (1 + TRIALS):   # each block's first call is its warm-up
            self.times[name].append(elapsed)
        if n + 1 >= 2 * (1 + TRIALS):
            best = {k: min(v) for k, v in self.times.items()}
            t_np, t_ort = best["numpy"], best["onnxruntime"]
            self._first_choice(best, f"onnxruntime {t_ort * 1e6:.1f} us < numpy {t_np * 1e6:.1f} us",
                               f"numpy {t_np * 1e6:.1f} us <= onnxruntime {t_ort * 1e6:.1f} us")
        return result

    def _first_choice(self, best: dict, why_onnx: str, why_numpy: str) -> None:
        """The faster by ``best`` (seconds per backend), then the checks."""
        self._best = best
        if best["onnxruntime"] < best["numpy"]:
            self._choose("onnxruntime", why_onnx)
        else:
            self._choose("numpy", why_numpy)
        self._first_why = self.why
        self._arm()

    def _choose_from_segments(self) -> None:
        """The segments' times decide at once: all on NumPy is the NumPy
        backend, else the segmented graph; the checks then time the two
        whole graphs against each other."""
        best = self.onnx.totals()
        t_np, t_seg = best["numpy"], best["onnxruntime"]
        self._first_choice(best, f"per segment: {t_seg * 1e6:.1f} us < all on numpy {t_np * 1e6:.1f} us",
                           f"per segment: every segment is faster on numpy ({t_np * 1e6:.1f} us)")

    # -- checking the choice --------------------------------------------------

    @property
    def awaiting_first_check(self) -> bool:
        """Chosen from the first calls, and not checked yet (benchmarks wait)."""
        return bool(self._best) and not self.checks and not self._final

    @property
    def calls_to_check(self) -> int | None:
        """Calls left before the next check of the choice (0: measuring or
        checking now; None: no check is left)."""
        if self._current is _run_winner:
            return None
        return self._countdown if self._current is AutoCompiledGraph._count_down else 0

    def _loser(self) -> str:
        return "numpy" if self.chosen == "onnxruntime" else "onnxruntime"

    def _arm(self) -> None:
        """Run the winner; count down to the next check, if any is left."""
        if self._final or len(self.checks) >= CHECKS:
            self._current = _run_winner
            return
        ratio = self._best[self._loser()] / max(self._best[self.chosen], 1e-9)
        self._countdown = self._armed = max(1, int(self._factor * ratio))
        self._current = AutoCompiledGraph._count_down

    def _count_down(self, *inputs):
        self.calls_until_final += 1
        self._countdown -= 1
        if self._countdown > 0:
            return self._winner(*inputs)
        self._check_times = {"numpy": [], "onnxruntime": []}
        self._check_warm = False
        self._current = AutoCompiledGraph._check
        return self._check(*inputs)

    def _check(self, *inputs):
        """CHECK_CALLS timed calls of the winner (it ran just before), then
        a warm-up call and CHECK_CALLS timed calls of the loser; then the
        best of each decides. A measuring call, as the trials' are: the
        do-no-harm governor takes none of them as the translated form's
        time (a check's call on the loser timed as the function's speed
        made the governor run a faster function natively)."""
        measuring_calls[0] += 1
        self.calls_until_final += 1
        winner, loser = self.chosen, self._loser()
        times = self._check_times
        name = winner if len(times[winner]) < CHECK_CALLS else loser
        result, elapsed = self._timed(name, inputs)
        if elapsed is None:
            return result
        if name == winner and len(times[winner]) + 1 == CHECK_CALLS:
            # the winner's first calls can be far slower than now (a new
            # session's first runs): the calls the loser's time is worth, by
            # the winner's time now; not yet run: wait for them
            t_now = min(min(times[winner], default=elapsed), elapsed)
            needed = int(self._factor * self._best[loser] / max(t_now, 1e-9))
            if needed > self._armed:
                self._countdown, self._armed = needed - self._armed, needed
                self._current = AutoCompiledGraph._count_down
                return result
        if name == loser and not self._check_warm:
            self._check_warm = True   # the first call after the switch
            if elapsed > ABANDON * min(times[winner]):
                # the loser is far slower now (its cost changed with the
                # shapes or the load): it cannot win; end the check for one call
                times[loser] = [elapsed] * CHECK_CALLS
            else:
                return result
        else:
            times[name].append(elapsed)
        if len(times[loser]) < CHECK_CALLS:
            return result
        t_winner, t_loser = min(times[winner]), min(times[loser])
        switched = t_loser < SWITCH * t_winner
        self.checks.append({winner: t_winner, loser: t_loser, "switched": switched})
        self._best = {winner: t_winner, loser: t_loser}
        if switched:
            self._choose(loser, f"{loser} {t_loser * 1e6:.1f} us < {winner} {t_winner * 1e6:.1f} us "
                                f"(check {len(self.checks)}; first calls: {self._first_why})")
            self._factor = CHECK_FACTOR
        else:
            self._factor *= 2
        self._arm()
        return result

    def _choose(self, name: str, why: str) -> None:
        self.chosen = name
        self.why = why
        self._winner = self.numpy.fn if name == "numpy" else self.onnx.fn

    # -- the compiled-graph interface -----------------------------------------

    def __call__(self, *inputs) -> tuple:
        return self._current(self, *inputs)

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
            "checks": [dict(c) for c in self.checks],
            "onnxruntime": self.onnx.explain(),
        }

    def __repr__(self) -> str:
        return f"<AutoCompiledGraph {self.graph.name}: {self.backend}>"


def _run_winner(state: AutoCompiledGraph, *inputs):
    return state._winner(*inputs)


_RECENT: deque = deque(maxlen=64)


def recent() -> list[AutoCompiledGraph]:
    """The auto graphs compiled lately that are still alive, oldest first
    (for benchmarks and debugging: their ``explain()`` gives the choice)."""
    return [g for g in (r() for r in _RECENT) if g is not None]


def compile_auto(graph: StatementIR, device: str = "cpu", onnx=None) -> AutoCompiledGraph:
    compiled = AutoCompiledGraph(graph, device, onnx)
    _RECENT.append(weakref.ref(compiled))
    return compiled
