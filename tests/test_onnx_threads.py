"""A small onnxruntime segment chooses its intra-op threads by measuring
(sot/backends/onnx/threads.py): a block of calls on one thread, a block on
the pool, then the faster, the other session dropped.  Timings are scripted
(an injected clock); no test depends on real timing, and results are
compared with eager NumPy at onnxruntime's tolerance on every call,
through the switches."""
import gc
import weakref

import numpy as np
import pytest

import sot
from sot.backends import compile_graph, measuring_calls
from sot.backends.onnx import auto as onnx_auto, threads as onnx_threads
from sot.backends.onnx.session import _RunnableSegment
from sot.explain_graphs import placement
from sot.ir import StatementIR, TensorMeta
from test_ir_oracle import F, O

from ort_tolerance import assert_ort_close

pytest.importorskip("onnxruntime")

BLOCK = 1 + onnx_auto.TRIALS


@pytest.fixture(autouse=True)
def two_cores(monkeypatch):
    """The choice is made where this process may run on more than one core."""
    monkeypatch.delenv("SOT_ORT_THREADS", raising=False)
    monkeypatch.setattr(onnx_threads.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)


def small_graph(name="small"):
    g = StatementIR(name)
    x, w = g.add_input(TensorMeta((1, 64), np.float32)), g.add_input(TensorMeta((64, 64), np.float32))
    h = g.add_op(O("matmul"), (x, w))
    g.set_outputs([g.add_op(F(np.tanh), (g.add_op(O("add"), (h, 1.0)),))])
    return g


def inputs():
    rng = np.random.default_rng(0)
    return rng.standard_normal((1, 64)).astype(np.float32), (rng.standard_normal((64, 64)) / 8).astype(np.float32)


def eager(x, w):
    return np.tanh(x @ w + 1.0)


def segment_of(compiled) -> _RunnableSegment:
    (step,) = [s for s in compiled.steps if isinstance(s, _RunnableSegment)]
    return step


def script_clock(monkeypatch, step, cost):
    """Each timed call costs ``cost[candidate]`` seconds."""
    state = {"now": 0.0, "started": False}

    def clock():
        if state["started"]:
            state["now"] += cost[step.thread_choice._current]
        state["started"] = not state["started"]
        return state["now"]
    monkeypatch.setattr(onnx_threads, "clock", clock)


def threads_of(session) -> int:
    return session.get_session_options().intra_op_num_threads


@pytest.mark.parametrize("faster", [onnx_threads.ONE, onnx_threads.POOL])
def test_a_small_segment_times_both_in_blocks_and_keeps_the_faster(monkeypatch, faster):
    compiled = compile_graph(small_graph(), "onnxruntime")
    step = segment_of(compiled)
    choice = step.thread_choice
    assert choice is not None and step.threads == onnx_threads.ONE and threads_of(step.session) == 1
    first_session = weakref.ref(step.session)
    script_clock(monkeypatch, step, {faster: 1.0, ({onnx_threads.ONE, onnx_threads.POOL} - {faster}).pop(): 3.0})
    x, w = inputs()
    before = measuring_calls[0]
    for n in range(2 * BLOCK + 5):
        assert_ort_close(compiled(x, w)[0], eager(x, w))
        if n < 2 * BLOCK - 1:
            assert choice.settling and compiled.settling
    assert measuring_calls[0] - before == 2 * BLOCK   # only the trial's calls count as measuring
    assert choice.chosen == faster and not compiled.settling
    assert choice.times == {c: [1.0 if c == faster else 3.0] * onnx_auto.TRIALS for c in choice.candidates}
    assert step.call != choice._measure and step.threads == faster
    assert threads_of(step.session) == (1 if faster == onnx_threads.ONE else 0)
    assert (first_session() is step.session) == (faster == onnx_threads.ONE)
    if faster == onnx_threads.POOL:   # the one-thread session is dropped with its packed weights
        gc.collect()
        assert first_session() is None
    assert choice._sessions == {} and choice._call is step.call
    report = compiled.explain()["thread_choices"]
    assert report[0]["chosen"] == ("1 thread" if faster == onnx_threads.ONE else "pool")
    assert any("threads: " + report[0]["chosen"] in line for line in placement(compiled))


def test_threads_fixed_by_the_user_or_a_large_segment_choose_nothing(monkeypatch):
    monkeypatch.setenv("SOT_ORT_THREADS", "1")
    assert segment_of(compile_graph(small_graph(), "onnxruntime")).thread_choice is None
    monkeypatch.delenv("SOT_ORT_THREADS")
    g = StatementIR("large")
    a, b = g.add_input(TensorMeta((128, 128), np.float32)), g.add_input(TensorMeta((128, 128), np.float32))
    g.set_outputs([g.add_op(O("matmul"), (a, b))])   # 128**3 multiply-adds: the pool, unmeasured
    step = segment_of(compile_graph(g, "onnxruntime"))
    assert step.thread_choice is None and step.threads == 0


def test_one_core_chooses_nothing(monkeypatch):
    monkeypatch.setattr(onnx_threads.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert segment_of(compile_graph(small_graph(), "onnxruntime")).thread_choice is None


def test_auto_times_the_onnxruntime_graph_only_once_its_threads_are_chosen(monkeypatch):
    compiled = compile_graph(small_graph(), "auto")
    step = segment_of(compiled.onnx)
    script_clock(monkeypatch, step, {onnx_threads.ONE: 1.0, onnx_threads.POOL: 2.0})
    timed_while_settling = []
    real_timed = onnx_auto.AutoCompiledGraph._timed

    def spy(self, name, inputs):
        result = real_timed(self, name, inputs)
        if name == "onnxruntime" and result[1] is not None:
            timed_while_settling.append(self.onnx.settling)
        return result
    monkeypatch.setattr(onnx_auto.AutoCompiledGraph, "_timed", spy)
    x, w = inputs()
    for _ in range(BLOCK):   # auto's NumPy block
        assert_ort_close(compiled(x, w)[0], eager(x, w))
    assert step.thread_choice._n == 0
    for _ in range(2 * BLOCK):   # the segment's blocks: auto waits
        assert_ort_close(compiled(x, w)[0], eager(x, w))
    assert step.thread_choice.chosen == onnx_threads.ONE and compiled.chosen is None
    for _ in range(BLOCK):   # auto's onnxruntime block
        assert_ort_close(compiled(x, w)[0], eager(x, w))
    assert compiled.chosen is not None and len(compiled.times["onnxruntime"]) == onnx_auto.TRIALS
    assert timed_while_settling and not any(timed_while_settling[-onnx_auto.TRIALS:])


def test_a_graph_dropped_while_its_threads_are_timed_is_freed_by_reference_counting():
    gc.collect()
    gc.disable()
    try:
        compiled = compile_graph(small_graph(), "onnxruntime")
        x, w = inputs()
        for _ in range(BLOCK + 1):   # into the pool's block: both sessions live
            compiled(x, w)
        step = segment_of(compiled)
        sessions = [weakref.ref(s) for s in step.thread_choice._sessions.values()]
        assert len(sessions) == 2
        del step
        del compiled
        assert all(s() is None for s in sessions)
    finally:
        gc.enable()


def test_a_decorated_function_matches_eager_through_the_choice():
    def layers(x, ws):
        for w in ws:
            x = np.maximum(x @ w + 0.1, 0)
        return x
    rng = np.random.default_rng(1)
    ws = [(rng.standard_normal((32, 32)) / 6).astype(np.float32) for _ in range(6)]
    x = rng.standard_normal((1, 32)).astype(np.float32)
    f = sot.to_static(layers, backend="onnxruntime")
    before = measuring_calls[0]
    for _ in range(2 * BLOCK + 3):
        assert_ort_close(f(x, ws), layers(x, ws))
    assert measuring_calls[0] - before >= 2 * BLOCK   # the calls went through the thread trial
    ws[2] *= 0.5   # an in-place weight update is seen by whichever session won
    assert_ort_close(f(x, ws), layers(x, ws))


def test_threads_calling_through_the_choice_all_get_eagers_results():
    import threading
    compiled = compile_graph(small_graph(), "onnxruntime")
    x, w = inputs()
    want = eager(x, w)
    errors = []

    def worker():
        try:
            for _ in range(3 * BLOCK):
                assert_ort_close(compiled(x, w)[0], want)
        except Exception as e:   # noqa: BLE001 - reported below
            errors.append(e)
    workers = [threading.Thread(target=worker) for _ in range(4)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert not errors, errors
    step = segment_of(compiled)
    assert step.thread_choice.chosen is not None and step.call != step.thread_choice._measure
