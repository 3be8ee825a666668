"""compile_graph's contract for the onnxruntime and auto backends: sessions,
partitioning onto NumPy, memory semantics (identity, views, in-place), the
Python types of results, devices, lazy imports, explain()."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from sot.backends import compile_graph
from sot.ir import StatementIR, TensorMeta
from test_ir_oracle import A, F, M, O
from test_onnx_lowering import assert_close

ort = pytest.importorskip("onnxruntime")


def graph_of(*metas, name="g"):
    g = StatementIR(name)
    return g, [g.add_input(TensorMeta(*m) if isinstance(m, tuple) else m) for m in metas]


def f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def both(g, *inputs):
    ref = compile_graph(g, "numpy")(*inputs)
    ort_graph = compile_graph(g, "onnxruntime")
    out = ort_graph(*inputs)
    for a, e in zip(out, ref):
        assert_close(a, e)
    return ort_graph, out


def test_a_graph_that_lowers_runs_on_one_session_created_once(sessions):
    g, (x,) = graph_of(((4, 8), np.float32))
    g.set_outputs([g.add_op(F(np.tanh), (g.add_op(O("mul"), (x, 2.0)),))])
    compiled = compile_graph(g, "onnxruntime")
    assert compiled.backend == "onnxruntime" and len(sessions) == 1
    for seed in range(3):
        x_value = f32(4, 8, seed=seed)
        (out,) = compiled(x_value)
        assert_close(out, np.tanh(x_value * 2.0))
    assert len(sessions) == 1
    assert "Tanh" in compiled.source and compiled.explain()["not_lowered"] == []


def test_a_statement_without_exact_lowering_splits_the_graph_and_says_why():
    g, (x, i) = graph_of(((4, 8), np.float32), ((3,), np.intp))
    a = g.add_op(F(np.exp), (x,))
    b = g.add_op(O("getitem"), (a, (i, i)))     # two index arrays: NumPy
    c = g.add_op(F(np.expm1), (b,))             # no exact ONNX expm1: NumPy
    d = g.add_op(O("mul"), (c, 3.0))
    g.set_outputs([d, a])
    compiled, _ = both(g, f32(4, 8), np.array([0, 3, 1]))
    assert compiled.backend == "numpy+onnxruntime"
    report = compiled.explain()
    reasons = {e["op"]: e["reason"] for e in report["not_lowered"]}
    assert set(reasons) == {"getitem", "expm1"}
    assert "expm1" in reasons["expm1"]
    assert [kind for kind, _ in report["segments"]] == ["onnxruntime", "numpy", "onnxruntime"]
    assert "on NumPy" in compiled.source


def _handover_graph():
    """e crosses the NumPy segment without NumPy reading it; a is read by
    NumPy and c is returned.  Returns (graph, e, a)."""
    g, (x,) = graph_of(((4, 8), np.float32))
    e = g.add_op(F(np.tanh), (x,))
    a = g.add_op(F(np.exp), (x,))
    b = g.add_op(F(np.expm1), (a,))             # NumPy
    c = g.add_op(O("mul"), (a, 2.0))
    d = g.add_op(O("mul"), (b, e))
    g.set_outputs([d, c])
    return g, e, a


def _handed_over(compiled, names) -> dict:
    """What the first segment of ``compiled`` leaves in env under ``names``, on a call."""
    seen = {}
    first = compiled._steps[0]
    real = first.run

    def spy(env):
        real(env)
        seen.update({k: v for k, v in env.items() if k in names})
    first.run = spy
    compiled(f32(4, 8))
    first.run = real
    return seen


def test_a_value_between_two_onnxruntime_segments_stays_an_ortvalue():
    # onnxruntime keeps e (on the GPU it would stay on the device); a and c
    # come back as arrays
    g, e, a = _handover_graph()
    compiled, _ = both(g, f32(4, 8))
    reference = compile_graph(g, "numpy")
    for seed in range(3):                       # kept values, call after call
        d_out, c_out = compiled(f32(4, 8, seed=seed))
        for got, want in zip((d_out, c_out), reference(f32(4, 8, seed=seed))):
            assert_close(got, want)
        assert type(d_out) is np.ndarray and type(c_out) is np.ndarray
    report = compiled.explain()
    assert [kind for kind, _ in report["segments"]] == ["onnxruntime", "numpy", "onnxruntime"]
    assert report["kept_in_onnxruntime"] == [e.name]
    seen = _handed_over(compiled, (e.name, a.name))
    assert {k: type(v).__name__ for k, v in seen.items()} == {e.name: "OrtValue", a.name: "ndarray"}


def test_nothing_lowered_is_the_numpy_backend_with_the_reasons():
    g, (x,) = graph_of(((4,), np.float32))
    g.set_outputs([g.add_op(F(np.log1p), (x,))])
    compiled = compile_graph(g, "onnxruntime")
    assert compiled.backend == "numpy"
    assert compiled.source.startswith("def ")
    assert "log1p" in compiled.explain()["not_lowered"][0]["reason"]


def test_an_input_returned_is_the_callers_object_and_repeats_are_one_object():
    g, (x,) = graph_of(((3,), np.float32))
    y = g.add_op(O("add"), (x, 1.0))
    g.set_outputs([x, y, y])
    x_value = f32(3)
    compiled, out = both(g, x_value)
    assert out[0] is x_value and out[1] is out[2]


def test_a_returned_view_shares_memory_with_its_base_as_eagerly():
    g, (x,) = graph_of(((3, 4), np.float32))
    y = g.add_op(O("mul"), (x, 2.0))
    t = g.add_op(A("T"), (y,))
    row = g.add_op(O("getitem"), (x, 0))
    g.set_outputs([y, t, row])
    x_value = f32(3, 4)
    compiled, (y_out, t_out, row_out) = both(g, x_value)
    assert compiled.backend == "numpy+onnxruntime"
    assert np.shares_memory(t_out, y_out) and np.shares_memory(row_out, x_value)


def test_in_place_operators_mutate_what_they_mutate_eagerly():
    # on an input: the caller's array changes (NumPy runs it)
    g, (x,) = graph_of(((3,), np.float32))
    t = g.add_op(O("iadd"), (x, 1.0))
    g.set_outputs([g.add_op(O("mul"), (t, 2.0))])
    x_value = np.ones(3, np.float32)
    compiled = compile_graph(g, "onnxruntime")
    (out,) = compiled(x_value)
    assert np.array_equal(x_value, np.full(3, 2.0, np.float32)) and np.array_equal(out, np.full(3, 4.0))
    # on a fresh intermediate: lowered, and the target is the result
    g, (x,) = graph_of(((3,), np.float32))
    y = g.add_op(O("mul"), (x, 3.0))
    z = g.add_op(O("isub"), (y, 1.0))
    w = g.add_op(O("imul"), (z, x))
    g.set_outputs([y, w, z])
    x_value = f32(3)
    compiled, (y_out, w_out, z_out) = both(g, x_value)
    assert compiled.backend == "onnxruntime"
    assert y_out is w_out is z_out
    # on an array a view shares: NumPy, and the view sees it
    g, (x,) = graph_of(((2, 3), np.float32))
    y = g.add_op(O("mul"), (x, 3.0))
    v = g.add_op(O("getitem"), (y, 0))
    g.add_op(O("iadd"), (y, 1.0))
    g.set_outputs([g.add_op(O("mul"), (v, 1.0))])
    both(g, f32(2, 3))


def test_results_keep_numpy_scalar_or_zero_d_array_types():
    g, (x, s) = graph_of(((5,), np.int64), ((), np.float32, True))
    total = g.add_op(M("sum"), (x,))                     # NumPy scalar
    zero_d = g.add_op(M("sum"), (x,), {"keepdims": False})
    scaled = g.add_op(O("mul"), (s, np.float32(2)))      # scalar * scalar: scalar
    g.set_outputs([total, zero_d, scaled])
    compiled, out = both(g, np.arange(5), np.float32(1.5))
    assert type(out[0]) is np.int64 and type(out[2]) is np.float32


@pytest.mark.skipif("CUDAExecutionProvider" in ort.get_available_providers(), reason="a GPU build")
def test_gpu_without_cuda_says_what_is_missing_and_how_to_install_it():
    g, (x,) = graph_of(((3,), np.float32))
    g.set_outputs([g.add_op(O("add"), (x, 1.0))])
    for backend in ("onnxruntime", "auto"):
        with pytest.raises(RuntimeError, match="CUDAExecutionProvider.*onnxruntime-gpu"):
            compile_graph(g, backend, device="gpu")
    with pytest.raises(ValueError, match="CPU only"):
        compile_graph(g, "numpy", device="gpu")


@pytest.mark.skipif("CUDAExecutionProvider" not in ort.get_available_providers(),
                    reason="needs onnxruntime-gpu and a CUDA GPU")
def test_gpu_runs_on_cuda_and_agrees():
    g, (x,) = graph_of(((64, 64), np.float32))
    g.set_outputs([g.add_op(F(np.tanh), (g.add_op(O("matmul"), (x, x)),))])
    compiled = compile_graph(g, "onnxruntime", device="gpu")
    x_value = f32(64, 64)
    (out,) = compiled(x_value)
    assert_close(out, np.tanh(x_value @ x_value), rtol=1e-3)   # the GPU may round coarser
    assert "CUDAExecutionProvider" in compiled.explain()["providers"]


@pytest.mark.skipif("CUDAExecutionProvider" not in ort.get_available_providers(),
                    reason="needs onnxruntime-gpu and a CUDA GPU")
def test_gpu_keeps_a_handed_over_value_on_the_device():
    g, e, a = _handover_graph()
    compiled = compile_graph(g, "onnxruntime", device="gpu")
    reference = compile_graph(g, "numpy")
    for seed in range(3):
        for got, want in zip(compiled(f32(4, 8, seed=seed)), reference(f32(4, 8, seed=seed))):
            assert_close(got, want)
    seen = _handed_over(compiled, (e.name,))
    assert seen[e.name].device_name().lower() == "cuda"


def test_unknown_backend_or_device_is_a_value_error():
    g, (x,) = graph_of(((3,), np.float32))
    g.set_outputs([x])
    with pytest.raises(ValueError, match="backend"):
        compile_graph(g, "tvm")
    with pytest.raises(ValueError, match="device"):
        compile_graph(g, "onnxruntime", device="tpu")


def test_importing_sot_does_not_import_onnx_or_onnxruntime(tmp_path):
    from difftest import python_env
    code = ("import sys, sot, sot.backends; "
            "print('onnx' in sys.modules or 'onnxruntime' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=tmp_path, env=python_env())
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------
# auto

@pytest.fixture(autouse=True)
def fixed_threads(request, monkeypatch):
    """auto's own protocol: threads fixed as a user can fix them, so no small
    segment times its threads first (onnx/threads.py, tested there)."""
    if request.node.name.startswith("test_auto"):
        monkeypatch.setenv("SOT_ORT_THREADS", "1")


def test_auto_keeps_numpy_for_a_tiny_graph_and_records_the_times():
    g, (x, y) = graph_of(((8,), np.float32), ((8,), np.float32))
    g.set_outputs([g.add_op(M("sum"), (g.add_op(O("add"), (g.add_op(O("mul"), (x, y)), 1)),))])
    compiled = compile_graph(g, "auto")
    assert compiled.backend == "auto"
    x_value, y_value = f32(8), f32(8, seed=1)
    expected = (x_value * y_value + 1).sum()
    for _ in range(10):
        (out,) = compiled(x_value, y_value)
        assert type(out) is np.float32 and np.isclose(out, expected)
    report = compiled.explain()
    assert report["chosen"] == "numpy" and compiled.backend == "numpy"
    assert len(report["times"]["numpy"]) == 3 and len(report["times"]["onnxruntime"]) == 3
    assert report["best"]["numpy"] <= report["best"]["onnxruntime"]


def test_auto_moves_a_large_reduction_graph_to_onnxruntime():
    g, (x,) = graph_of(((512, 1024), np.float32))
    e = g.add_op(F(np.exp), (g.add_op(O("sub"), (x, g.add_op(M("max"), (x, -1), {"keepdims": True}))),))
    g.set_outputs([g.add_op(O("truediv"), (e, g.add_op(M("sum"), (e, -1), {"keepdims": True})))])
    compiled = compile_graph(g, "auto")
    x_value = f32(512, 1024)
    for _ in range(10):
        compiled(x_value)
    report = compiled.explain()
    best = report["best"]
    assert report["chosen"] == ("onnxruntime" if best["onnxruntime"] < best["numpy"] else "numpy")
    assert compiled.backend == ("onnxruntime" if report["chosen"] == "onnxruntime" else "numpy")
    assert "us" in report["why"]


class _Clock:
    """auto's time.perf_counter, advanced by the backends' made-up costs."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def _count_backend_calls(compiled) -> dict:
    """Calls of each backend of auto graph `compiled` from now on, counted in the dict returned."""
    calls = {"numpy": 0, "onnxruntime": 0}
    for name, graph in (("numpy", compiled.numpy), ("onnxruntime", compiled.onnx)):
        def counted(*inputs, name=name, real=graph.fn):
            calls[name] += 1
            return real(*inputs)
        graph.fn = counted
    return calls


def _auto_with_costs(monkeypatch, costs, switch_cost=0.0):
    """``switch_cost``: extra cost of an onnxruntime call right after a NumPy one."""
    from sot.backends.onnx import auto as onnx_auto
    clock = _Clock()
    monkeypatch.setattr(onnx_auto, "time", clock)
    g, (x,) = graph_of(((4, 8), np.float32))
    g.set_outputs([g.add_op(F(np.tanh), (g.add_op(O("mul"), (x, 2.0)),))])
    compiled = compile_graph(g, "auto")
    last = [None]
    for name, graph in (("numpy", compiled.numpy), ("onnxruntime", compiled.onnx)):
        def timed(*inputs, name=name, real=graph.fn):
            clock.now += costs[name] + (switch_cost if name == "onnxruntime" and last[0] == "numpy" else 0.0)
            last[0] = name
            return real(*inputs)
        graph.fn = timed
    return compiled


def test_auto_times_each_backend_after_its_own_calls(monkeypatch):
    """An onnxruntime call right after a NumPy call is slow (NumPy's BLAS
    threads still spin); the calls of a block show what each costs alone."""
    from sot.backends.onnx import auto as onnx_auto
    compiled = _auto_with_costs(monkeypatch, {"numpy": 1.0, "onnxruntime": 0.8}, switch_cost=1.0)
    x_value = f32(4, 8)
    for _ in range(2 * (1 + onnx_auto.TRIALS)):
        (out,) = compiled(x_value)
        assert_close(out, np.tanh(x_value * 2.0))
    report = compiled.explain()
    assert report["chosen"] == "onnxruntime", report["why"]
    assert {k: [round(t, 6) for t in v] for k, v in report["times"].items()} == {
        "numpy": [1.0] * onnx_auto.TRIALS, "onnxruntime": [0.8] * onnx_auto.TRIALS}


def test_auto_checks_its_choice_and_switches_when_the_loser_became_faster(monkeypatch):
    from sot.backends.onnx import auto as onnx_auto
    costs = {"numpy": 1.0, "onnxruntime": 1.5}
    compiled = _auto_with_costs(monkeypatch, costs)
    x_value = f32(4, 8)
    first = 2 * (1 + onnx_auto.TRIALS)
    for _ in range(first):
        compiled(x_value)
    assert compiled.backend == "numpy" and compiled.awaiting_first_check
    costs["numpy"] = 3.0                           # NumPy slows down (or onnxruntime warmed up)
    # the check comes after CHECK_FACTOR * 1.5 / 1.0 calls on the winner
    for _ in range(int(onnx_auto.CHECK_FACTOR * 1.5) + 2 * onnx_auto.CHECK_CALLS + 1):
        (out,) = compiled(x_value)
        assert_close(out, np.tanh(x_value * 2.0))
    report = compiled.explain()
    assert compiled.backend == "onnxruntime" and report["chosen"] == "onnxruntime"
    assert report["checks"] == [{"numpy": 3.0, "onnxruntime": 1.5, "switched": True}]
    assert "check 1" in report["why"] and "first calls: numpy" in report["why"]


def test_auto_checks_cost_a_bounded_share_and_end(monkeypatch):
    from sot.backends.onnx import auto as onnx_auto
    costs = {"numpy": 1.0, "onnxruntime": 3.0}   # slower, but within ABANDON: each check times it
    compiled = _auto_with_costs(monkeypatch, costs)
    calls = _count_backend_calls(compiled)
    x_value = f32(4, 8)
    for _ in range(2 * (1 + onnx_auto.TRIALS)):
        compiled(x_value)
    calls.update(numpy=0, onnxruntime=0)
    total = 0
    while len(compiled.explain()["checks"]) < onnx_auto.CHECKS:
        compiled(x_value)
        total += 1
        assert total < 10 ** 6
    report = compiled.explain()
    assert report["chosen"] == "numpy" and not any(c["switched"] for c in report["checks"])
    # a warm-up and CHECK_CALLS onnxruntime calls per check: at most a twentieth of the time
    assert calls["onnxruntime"] == onnx_auto.CHECKS * (1 + onnx_auto.CHECK_CALLS)
    assert calls["onnxruntime"] * costs["onnxruntime"] <= 0.05 * calls["numpy"] * costs["numpy"]
    for _ in range(1000):                          # then no more checks
        compiled(x_value)
    assert calls["onnxruntime"] == onnx_auto.CHECKS * (1 + onnx_auto.CHECK_CALLS)
    assert not compiled.awaiting_first_check


def test_auto_checks_wait_for_the_winners_time_now_and_drop_a_far_slower_loser(monkeypatch):
    """The first calls saw onnxruntime slow (a new session); at the check it
    is ten times faster, so the check waits for the calls the loser's time is
    worth; and a loser far slower than then costs one call, not three."""
    from sot.backends.onnx import auto as onnx_auto
    costs = {"numpy": 2.0, "onnxruntime": 1.0}
    compiled = _auto_with_costs(monkeypatch, costs)
    calls = _count_backend_calls(compiled)
    x_value = f32(4, 8)
    for _ in range(2 * (1 + onnx_auto.TRIALS)):
        compiled(x_value)
    assert compiled.backend == "onnxruntime"
    costs["onnxruntime"] = 0.1
    calls.update(numpy=0, onnxruntime=0)
    n = int(onnx_auto.CHECK_FACTOR * 2.0 / 0.1)   # the calls 2.0 s of NumPy are worth at 0.1 s a call
    for _ in range(n - 1):
        compiled(x_value)
    assert calls["numpy"] == 0 and not compiled.checks
    costs["numpy"] = 50.0    # NumPy's side far slower now
    for _ in range(2 * onnx_auto.CHECK_CALLS + 1):
        (out,) = compiled(x_value)
        assert_close(out, np.tanh(x_value * 2.0))
    assert calls["numpy"] == 1 and len(compiled.checks) == 1 and not compiled.checks[0]["switched"]
    assert compiled.backend == "onnxruntime"


def test_auto_of_a_graph_that_does_not_lower_is_numpy_without_timing():
    g, (x,) = graph_of(((4,), np.float32))
    g.set_outputs([g.add_op(F(np.log1p), (x,))])
    compiled = compile_graph(g, "auto")
    assert compiled.backend == "numpy" and compiled.explain()["times"] == {"numpy": [], "onnxruntime": []}


def test_dead_statements_and_empty_graphs_compile():
    g, (x,) = graph_of(((3,), np.float32))
    g.add_op(F(np.exp), (x,))                   # result unused
    g.set_outputs([g.add_op(O("add"), (x, 1.0))])
    both(g, f32(3))
    g, (x,) = graph_of(((3,), np.float32))
    g.add_op(F(np.exp), (x,))
    g.set_outputs([x])
    x_value = f32(3)
    assert compile_graph(g, "onnxruntime")(x_value)[0] is x_value


def test_non_contiguous_and_scalar_inputs_are_accepted():
    g, (x, s) = graph_of(((4, 3), np.float32), ((), np.float64, True))
    g.set_outputs([g.add_op(O("mul"), (x, s))])
    both(g, f32(3, 4).T, np.float64(2.5))


def test_large_results_are_written_in_place_through_an_io_binding():
    g, (x, i) = graph_of(((512, 600), np.float32), ((512, 600), np.int64))
    e = g.add_op(F(np.exp), (x,))
    big = g.add_op(O("gt"), (e, 1.0))
    total = g.add_op(M("sum"), (i,))
    g.set_outputs([e, big, total, g.add_op(O("add"), (i, 1)), x])
    x_value = f32(512, 600)
    compiled, out = both(g, x_value, np.arange(512 * 600).reshape(512, 600))
    assert compiled._steps[0].bind
    assert type(out[2]) is np.int64 and out[4] is x_value
    assert out[3].dtype.type is np.int64 and out[1].dtype == bool
