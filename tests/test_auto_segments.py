"""backend="auto" per segment (sot/backends/onnx/segments.py): a graph that
mixes large float64 BLAS products with elementwise chains is cut where the
kind changes, and each segment is placed by timing it on both backends.
Placements are made deterministic with onnx_segments.FORCE or a scripted
clock; no test depends on real timing."""
import numpy as np
import pytest

import sot
from sot.backends.onnx import auto as onnx_auto, segments as onnx_segments
from sot.backends.onnx.segments import SegmentedOnnxGraph, segment_cuts
from sot.explain_graphs import placement

from ort_tolerance import assert_ort_close

pytest.importorskip("onnxruntime")

N = 128   # 128^3 multiply-adds: a BLAS-heavy product (>= SMALL_WORK)


def mixed(a, b, c):
    h = a @ b
    h = np.tanh(h) * 0.5 + h * h
    h = np.exp(-h) + 1.0
    return h @ c


def arrays(dtype=np.float64, n=N):
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((n, n)) / np.sqrt(n)).astype(dtype) for _ in range(3)]


def auto_graph() -> onnx_auto.AutoCompiledGraph:
    graphs = onnx_auto.recent()
    assert graphs, "no auto graph was compiled"
    return graphs[-1]


def run_calls(fn, args, calls):
    want = mixed(*args)
    for _ in range(calls):
        assert_ort_close(fn(*args), want)


@pytest.fixture
def forced(monkeypatch):
    """Segments placed by kind: products on NumPy, elementwise on onnxruntime."""
    monkeypatch.setattr(onnx_segments, "FORCE",
                        lambda kind, statements: "numpy" if kind == "blas" else "onnxruntime")


def test_mixed_float64_graph_is_cut_where_the_kind_changes():
    from sot.ir.statement_ir import StatementIR
    g = sot.to_static(mixed, backend="auto")
    g(*arrays())
    graph: StatementIR = auto_graph().graph
    cuts = segment_cuts(graph)
    kinds = [onnx_segments.blas_heavy(st) for st in graph.statements]
    assert kinds[0] and kinds[-1] and not any(kinds[1:-1])
    assert cuts == {1, len(graph.statements) - 1}


@pytest.mark.parametrize("dtype,n", [(np.float32, N), (np.float64, 8)])
def test_float32_or_small_products_are_not_cut(dtype, n):
    g = sot.to_static(mixed, backend="auto")
    args = arrays(dtype, n)
    run_calls(g, args, 2)
    compiled = auto_graph()
    assert segment_cuts(compiled.graph) is None
    assert not isinstance(compiled.onnx, SegmentedOnnxGraph)


def test_forced_placement_runs_each_segment_where_forced(forced):
    g = sot.to_static(mixed, backend="auto")
    args = arrays()
    run_calls(g, args, 12)
    compiled = auto_graph()
    assert isinstance(compiled.onnx, SegmentedOnnxGraph)
    choices = compiled.explain()["onnxruntime"]["segment_choices"]
    assert [(c["kind"], c["chosen"]) for c in choices] == [
        ("blas", "numpy"), ("elementwise", "onnxruntime"), ("blas", "numpy")]
    lines = placement(compiled)
    assert any(line.startswith("segment 0 (blas, 1 statements from matmul(") and "numpy: forced" in line
               for line in lines), lines
    assert any(line.startswith("segment 1 (elementwise,") and "onnxruntime: forced" in line for line in lines)


def test_segments_choose_by_the_clock_then_auto_times_the_whole(monkeypatch):
    """A scripted clock: products take 1 unit on NumPy and 5 on onnxruntime,
    elementwise segments the reverse.  Each segment picks its faster side;
    only then does auto time the whole graph against the NumPy backend."""
    order = []   # which backend each timed run used, as the segments run it
    real_measure = onnx_segments.SegmentChoice._measure

    def spy(self, env):
        order.append((self.kind, self.backend_of_call(self._n)))
        return real_measure(self, env)
    monkeypatch.setattr(onnx_segments.SegmentChoice, "_measure", spy)
    ticks = {"t": 0.0, "started": False}

    def clock():
        if ticks["started"]:   # the end of a run: advance by its scripted cost
            kind, name = order[-1]
            fast = (kind == "blas") == (name == "numpy")
            ticks["t"] += 1.0 if fast else 5.0
        ticks["started"] = not ticks["started"]
        return ticks["t"]
    monkeypatch.setattr(onnx_segments, "clock", clock)
    g = sot.to_static(mixed, backend="auto")
    args = arrays()
    calls_to_choose = 2 * (1 + onnx_auto.TRIALS)
    run_calls(g, args, calls_to_choose)
    compiled = auto_graph()
    assert not compiled.onnx.choosing
    choices = compiled.onnx.explain()["segment_choices"]
    assert [c["chosen"] for c in choices] == ["numpy", "onnxruntime", "numpy"]
    assert all(len(c["times"]["numpy"]) == len(c["times"]["onnxruntime"]) == onnx_auto.TRIALS for c in choices)
    assert choices[0]["why"] == f"numpy {1e6:.1f} us <= onnxruntime {5e6:.1f} us"   # the clock's seconds
    # the segments' sums decide at once (all on NumPy: 1 + 5 + 1; as placed: 1 + 1 + 1) ...
    assert compiled.chosen == "onnxruntime" and compiled.times == {"numpy": [], "onnxruntime": []}
    assert compiled.why == f"per segment: {3e6:.1f} us < all on numpy {7e6:.1f} us"
    assert any(line.startswith("auto chose onnxruntime: per segment") for line in placement(compiled))
    # ... and the checks later time the two whole graphs
    assert compiled.awaiting_first_check


def test_all_segments_on_numpy_is_the_numpy_backend(monkeypatch):
    monkeypatch.setattr(onnx_segments.SegmentChoice, "_choose", _always_numpy(onnx_segments.SegmentChoice._choose))
    g = sot.to_static(mixed, backend="auto")
    run_calls(g, arrays(), 2 * (1 + onnx_auto.TRIALS))
    compiled = auto_graph()
    assert compiled.chosen == "numpy" and compiled.why.startswith("per segment: every segment is faster on numpy")


def _always_numpy(choose):
    def always(self, name, why):
        return choose(self, "numpy", why)
    return always


def test_per_segment_results_match_eager_for_every_placement(monkeypatch):
    args = arrays()
    want = mixed(*args)
    for where in ("numpy", "onnxruntime"):
        sot.reset()
        monkeypatch.setattr(onnx_segments, "FORCE", lambda kind, statements, where=where: where)
        g = sot.to_static(mixed, backend="auto")
        for _ in range(12):
            got = g(*args)
            assert_ort_close(got, want)
        if where == "numpy":   # every statement replayed by NumPy: NumPy's own bits
            compiled = auto_graph()
            assert np.array_equal(compiled.onnx(*args)[0], want)


def test_a_large_float64_product_is_exported_though_the_runtime_leaves_it_to_numpy(tmp_path):
    """The speed preference (large float64 matmuls on NumPy's BLAS) is the
    runtime's: sot.save lowers the product, which has an exact ONNX form."""
    def f(a, b):
        return np.tanh(a @ b)
    n = 256   # 256^3 > BIG_F64_MATMUL
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n)) / n
    path = sot.save(f, tmp_path / "f.onnx", input_spec=[sot.InputSpec([n, n], "float64", "a"),
                                                         sot.InputSpec([n, n], "float64", "b")])
    assert_ort_close(sot.load(path)(a, b), f(a, b))
    g = sot.to_static(f, backend="onnxruntime")
    assert_ort_close(g(a, b), f(a, b))
    report = sot.explain(g, a, b)
    assert "runs faster on NumPy's BLAS" in str(report)


def attention(q, k, v):
    """float32 scores made float64 by np.sqrt(d): the softmax and p @ v are float64."""
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    scores = scores - scores.max(-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(-1, keepdims=True)
    return p @ v


def test_a_fused_pattern_never_joins_two_segments(forced):
    """The attention pattern (q @ k', scale, softmax, @ v) would make one
    fused item of both kinds: the cut splits it, the softmax still fuses."""
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((4, 256, 32)).astype(np.float32) for _ in range(3))
    g = sot.to_static(attention, backend="auto")
    for _ in range(3):
        assert_ort_close(g(q, k, v), attention(q, k, v))
    compiled = auto_graph()
    report = compiled.onnx.explain()
    assert [(c["kind"], c["statements"]) for c in report["segment_choices"]][-1] == ("blas", 1)
    assert [c["chosen"] for c in report["segment_choices"]] == ["onnxruntime", "numpy"]
    assert "softmax" in report["fused"] and "attention" not in report["fused"]


def test_products_known_to_be_faster_on_numpy_are_not_timed():
    """A float64 product past BIG_F64_MATMUL goes to NumPy at once (timing
    onnxruntime's Eigen MatMul on it would cost more than it could tell)."""
    n = 256
    g = sot.to_static(mixed, backend="auto")
    args = arrays(np.float64, n)
    run_calls(g, args, 1)
    choices = auto_graph().onnx.explain()["segment_choices"]
    assert [c["chosen"] for c in choices] == ["numpy", None, "numpy"]
    assert "runs faster on NumPy's BLAS" in choices[0]["why"] and choices[0]["times"]["onnxruntime"] == []
