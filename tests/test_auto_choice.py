"""backend="auto"'s chooser settles (sot/backends/onnx/auto.py, segments.py)
and what it no longer uses is freed at once.  Timings are scripted (an
injected clock); no test depends on real timing.

* A segment of a mixed graph is timed in blocks (NumPy, then onnxruntime),
  never alternating call by call, and once placed it is not timed again.
* Whole-graph auto runs one backend between its bounded checks.
* An auto entry that a more general (symbolic) entry replaces is freed by
  reference counting, with its sessions: no cycle waits for the collector
  (collection is off while these tests run).
"""
import gc
import weakref

import numpy as np
import pytest

import sot
from sot.backends.onnx import auto as onnx_auto, segments as onnx_segments
from sot.guards import cache

from ort_tolerance import assert_ort_close

pytest.importorskip("onnxruntime")

N = 128   # 128^3 multiply-adds: a float64 product that is cut into its own segment


def mixed(a, b, c):
    h = a @ b
    h = np.tanh(h) * 0.5 + h * h
    return np.exp(-h) @ c


def arrays(n=N):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((n, n)) / np.sqrt(n) for _ in range(3)]


def grow(x):
    return np.tanh(x * 2.0) + x.shape[0]


@pytest.fixture
def no_collector():
    """Cyclic garbage stays: what is freed here is freed by reference counting."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        sot.reset()


class ScriptedClock:
    """Each timed run costs ``cost(kind, backend)``; ``runs`` logs them."""

    def __init__(self, cost):
        self.cost, self.now, self.runs, self._started = cost, 0.0, [], False

    def __call__(self):
        if self._started:   # the end of the last run logged
            self.now += self.cost(*self.runs[-1])
        self._started = not self._started
        return self.now


def test_segments_are_timed_in_blocks_then_never_again(monkeypatch):
    """Each segment runs 1 + TRIALS calls on NumPy, then as many on
    onnxruntime (never alternating: the first call after a switch pays for
    the other side), chooses, and is not timed after that."""
    clock = ScriptedClock(lambda kind, name: 1.0 if (kind == "blas") == (name == "numpy") else 5.0)
    real_measure = onnx_segments.SegmentChoice._measure

    def spy(self, env):
        clock.runs.append((self.kind, self.backend_of_call(self._n)))
        return real_measure(self, env)
    monkeypatch.setattr(onnx_segments.SegmentChoice, "_measure", spy)
    monkeypatch.setattr(onnx_segments, "clock", clock)
    g = sot.to_static(mixed, backend="auto")
    args = arrays()
    want = mixed(*args)
    block = 1 + onnx_auto.TRIALS
    for _ in range(2 * block + 50):
        assert_ort_close(g(*args), want)
    compiled = onnx_auto.recent()[-1]
    assert isinstance(compiled.onnx, onnx_segments.SegmentedOnnxGraph)
    choices = compiled.onnx.choices
    assert [c.chosen for c in choices] == ["numpy", "onnxruntime", "numpy"]
    for c in choices:
        runs = [name for kind, name in clock.runs[choices.index(c)::len(choices)]]
        assert runs == ["numpy"] * block + ["onnxruntime"] * block   # one switch, no alternation
        assert c.times == {"numpy": [1.0 if c.kind == "blas" else 5.0] * onnx_auto.TRIALS,
                           "onnxruntime": [5.0 if c.kind == "blas" else 1.0] * onnx_auto.TRIALS}
    assert len(clock.runs) == 2 * block * len(choices)   # nothing timed after the choice


def test_whole_graph_auto_runs_one_backend_between_checks(monkeypatch):
    """After the first choice the calls run the winner only, up to a check
    (a bounded number of the loser's calls), and the checks end."""
    costs = {"numpy": 1.0, "onnxruntime": 2.0}
    now = [0.0]

    class Time:
        @staticmethod
        def perf_counter():
            return now[0]
    monkeypatch.setattr(onnx_auto, "time", Time)
    g = sot.to_static(grow, backend="auto")
    x = np.ones((3, 4), np.float32)
    g(x)
    compiled = onnx_auto.recent()[-1]
    ran = []
    for name, graph in (("numpy", compiled.numpy), ("onnxruntime", compiled.onnx)):
        def timed(*inputs, name=name, real=graph.fn):
            now[0] += costs[name]
            ran.append(name)
            return real(*inputs)
        graph.fn = timed
    for _ in range(20000):
        g(x)
    assert compiled.chosen == "numpy" and len(compiled.checks) == onnx_auto.CHECKS
    switches = sum(a != b for a, b in zip(ran, ran[1:]))
    # to onnxruntime's block and back (NumPy won), then per check: to the loser and back
    assert switches == 2 + 2 * onnx_auto.CHECKS, switches
    assert ran[-1000:] == ["numpy"] * 1000
    # a small segment first times its threads (onnx/threads.py): a block per candidate, untimed by auto
    settle = sum(1 + len(t) for c in compiled.onnx.explain()["thread_choices"] for t in c["times"].values())
    assert ran.count("onnxruntime") <= settle + (1 + onnx_auto.TRIALS) + onnx_auto.CHECKS * (1 + onnx_auto.CHECK_CALLS)


def test_auto_checks_are_measuring_calls_that_the_governor_does_not_sample(monkeypatch):
    """Every call of auto's trials and checks counts in measuring_calls; the
    calls between checks do not (the governor samples only those)."""
    from sot.backends import measuring_calls
    g = sot.to_static(grow, backend="auto")
    x = np.ones((3, 4), np.float32)
    g(x)
    compiled = onnx_auto.recent()[-1]
    measured = 0
    for _ in range(3000):
        before, phase = measuring_calls[0], compiled._current
        g(x)
        between_checks = phase is onnx_auto._run_winner or (
            phase is onnx_auto.AutoCompiledGraph._count_down and compiled._current is phase)
        if measuring_calls[0] != before:
            measured += 1
            assert not between_checks
    assert compiled.checks                      # a check ran, and each of its calls counted
    assert measured >= 2 * (1 + onnx_auto.TRIALS) - 1 + len(compiled.checks) * onnx_auto.CHECK_CALLS


@pytest.mark.parametrize("backend", ["auto", "onnxruntime"])
def test_a_replaced_entry_is_freed_without_the_collector(no_collector, backend):
    g = sot.to_static(grow, backend=backend, freeze=True)
    g(np.ones((3, 4), np.float32))
    (first,) = cache.entries(grow.__code__)
    graphs = [weakref.ref(c) for c in first.compiled]
    parts = [weakref.ref(p) for c in first.compiled for p in (getattr(c, "onnx", None), getattr(c, "numpy", None))
             if p is not None]
    del first
    for n in (4, 5, 6, 7) * 3:   # a symbolic entry replaces the static one
        x = np.full((n, 4), 0.5, np.float32)
        assert_ort_close(g(x), grow(x))
    assert cache.replaced_count(grow.__code__) == 1
    assert [r() for r in graphs + parts] == [None] * len(graphs + parts)


def test_a_dropped_onnxruntime_graph_releases_its_sessions_without_the_collector(no_collector):
    """Each way a segment calls its session (plain, IO-bound results of a
    megabyte or more, pre-bound inputs, kept OrtValues between two
    segments): the segment holds no bound method of itself."""
    ort = pytest.importorskip("onnxruntime")
    from sot.backends import compile_graph
    from sot.backends.onnx.session import _RunnableSegment

    def f(x, y):
        h = np.tanh(x) * 2.0
        h = np.log1p(np.abs(h)) + 1.0   # NumPy between two onnxruntime segments
        k = np.exp(-h) * y              # handed on to the next segment only: kept
        return np.sqrt(k + 1.0) - 1.0, np.tanh(y)
    for n in (8, 512):                  # 512x512 float32: 1 MB results, bound
        x = np.full((n, n), 0.5, np.float32)
        g = sot.to_static(f, backend="onnxruntime")
        for _ in range(3):
            got = g(x, x)
        assert_ort_close(got, f(x, x))
        (entry,) = cache.entries(f.__code__)
        steps = [s for c in entry.compiled for s in c.steps if isinstance(s, _RunnableSegment)]
        assert steps
        sessions = [weakref.ref(s.session) for s in steps]
        refs = [weakref.ref(s) for s in steps]
        del entry, steps, g
        sot.reset()
        assert [r() for r in refs + sessions] == [None] * (len(refs) + len(sessions)), n
    assert ort


@pytest.mark.parametrize("backend", ["auto", "onnxruntime"])
def test_symbolic_and_segmented_graphs_are_freed_without_the_collector(no_collector, backend):
    g = sot.to_static(grow, backend=backend)
    for n in (3, 4, 5):
        g(np.ones((n, 4), np.float32))
    m = sot.to_static(mixed, backend=backend)
    args = arrays()
    for _ in range(3):   # auto: its segments still timing
        m(*args)
    refs = [weakref.ref(c) for code in (grow.__code__, mixed.__code__) for e in cache.entries(code)
            for c in e.compiled]
    refs += [weakref.ref(c.onnx) for c in (r() for r in list(refs)) if hasattr(c, "onnx")]
    assert len(refs) >= 2
    sot.reset()
    assert [r() for r in refs] == [None] * len(refs)


def _bench():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
    import run as bench
    return bench


def test_benchmark_warm_up_runs_past_auto_checks_due_in_the_timed_calls(monkeypatch):
    """benchmarks/run.warm_call: a call that reaches an auto graph whose next
    check comes within the next ``ahead`` calls is not settled (the check's
    NumPy calls would land in a row's few timed calls); a graph it does not
    reach does not count."""
    bench = _bench()
    now = [0.0]

    class Time:
        @staticmethod
        def perf_counter():
            now[0] += 1.0   # every call takes 1 s on either backend: checks never switch
            return now[0]
    monkeypatch.setattr(onnx_auto, "time", Time)
    monkeypatch.setattr(onnx_auto, "CHECK_FACTOR", 4)
    monkeypatch.setenv("SOT_ORT_THREADS", "1")   # no small segment times its threads first (onnx/threads.py)
    other = sot.to_static(grow, backend="auto")
    x = np.ones((3, 4), np.float32)
    for _ in range(2 * (1 + onnx_auto.TRIALS)):
        other(x)                          # chose; its first check is 4 calls away
    g = sot.to_static(mixed, backend="auto")
    args = [np.ones((4, 4)) for _ in range(3)]
    ahead = 10
    settled, left = [], []
    for _ in range(60):
        settled.append(bench.warm_call(lambda: g(*args), [], ahead))
        left.append([c for c in onnx_auto.recent() if c.graph.name.startswith("mixed")][-1].calls_to_check)
    first = settled.index(True)   # (later calls come near the next check again)
    # past two checks (4 and 8 calls away after the choice): the next is 16 calls away
    assert left[first] is not None and left[first] > ahead
    assert [c for c in onnx_auto.recent() if c.graph.name.startswith("mixed")][-1].checks
    assert [c for c in onnx_auto.recent() if c.graph.name.startswith("grow")][-1].calls_to_check == 4


class _Governed:
    """A to_static callable's governor attributes, as static_function.c
    keeps them: the countdown drops at every call; at 0 a re-check (MEASURE)
    runs ``window`` calls, then the countdown starts again, doubled."""

    def __init__(self, countdown, window=3):
        from sot import governor
        self.g = governor
        self.__sot_mode__, self.__sot_countdown__ = governor.TRANSLATED, countdown
        self.window, self.next = window, 2 * countdown
        self.measured = 0

    def __call__(self):
        if self.__sot_countdown__ > 0:
            self.__sot_countdown__ -= 1
            if self.__sot_countdown__ == 0:
                self.__sot_mode__ = self.g.MEASURE
        if self.__sot_mode__ == self.g.MEASURE:
            self.measured += 1
            if self.measured == self.window:
                self.__sot_mode__, self.__sot_countdown__ = self.g.TRANSLATED, self.next


def test_benchmark_warm_up_runs_past_a_governor_recheck_due_in_the_timed_calls():
    bench = _bench()
    f = _Governed(countdown=4)      # its re-check would fall into the 5 timed calls
    for calls in range(1, 30):
        if bench.warm_call(f, [f], ahead=5):
            break
    assert f.measured == f.window and calls == 4 + f.window - 1   # the re-check ran in the warm-up
    assert f.__sot_countdown__ > 5
    quiet = _Governed(countdown=100)
    assert bench.warm_call(quiet, [quiet], ahead=5)
