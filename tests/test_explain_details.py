"""explain's per-graph details: memory held (backends/memory), where
statements run and why (explain_graphs.placement), float64 promotion hints
from NumPy scalars; and memory after many shapes bounded by the live entries."""
import os
import sys

import numpy as np
import pytest

import sot
from difftest import assert_same
from ort_tolerance import assert_ort_close
from sot.backends.memory import held_bytes
from sot.guards import cache

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import workloads as W  # noqa: E402

RNG = np.random.default_rng(0)


def details(report):
    return [d for c in report.to_dict()["codes"] for d in c["graph_details"]]


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime", "auto"])
def test_float64_promotion_from_a_numpy_scalar_is_pointed_out(backend):
    if backend != "numpy":
        pytest.importorskip("onnxruntime")
    q = RNG.standard_normal((2, 16, 8)).astype(np.float32)
    hinted = sot.explain(sot.to_static(W.attention, backend=backend), q, q, q)
    assert hinted.result.dtype == np.float64          # as eager: a hint, not a change
    assert W.attention(q, q, q).dtype == np.float64
    [d] = details(hinted)
    assert len(d["hints"]) == 1 and "float64 NumPy scalar" in d["hints"][0]
    assert "hint: " in str(hinted)
    sot.reset()
    plain = sot.explain(sot.to_static(W.attention_f32, backend=backend), q, q, q)
    assert plain.result.dtype == np.float32 and details(plain)[0]["hints"] == []
    sot.reset()
    q64 = q.astype(np.float64)      # float64 arrays: nothing is promoted
    assert details(sot.explain(sot.to_static(W.attention, backend=backend), q64, q64, q64))[0]["hints"] == []


def _inverse_between_elementwise(x):
    y = np.tanh(x) * 2.0 + 1.0
    z = np.linalg.inv(y @ y.T + np.eye(4))
    return z * 3.0 - 1.0


def test_why_a_statement_stays_on_numpy():
    pytest.importorskip("onnxruntime")
    x = RNG.standard_normal((4, 4))
    report = sot.explain(sot.to_static(_inverse_between_elementwise, backend="onnxruntime"), x)
    [d] = details(report)
    placed = [line for line in d["placement"] if line.startswith("on NumPy:")]
    assert placed and all("no ONNX lowering for function inv" in line for line in placed), placed
    assert "on NumPy: " in str(report)


def _weights_bytes(mlp):
    return sum(layer.w.nbytes + layer.b.nbytes for layer in mlp.layers)


def test_memory_held_counts_frozen_weights_once():
    pytest.importorskip("onnxruntime")
    mlp = W.MLP(layers=3, width=32)
    report = sot.explain(sot.to_static(mlp, backend="onnxruntime", freeze=True), np.ones((2, 32), np.float32))
    [d] = details(report)
    assert d["held_bytes"]["frozen"] == _weights_bytes(mlp)
    assert d["held_bytes"]["total"] >= _weights_bytes(mlp)
    assert "holds about" in str(report)


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_memory_after_many_shapes_is_bounded_by_live_entries(backend):
    if backend != "numpy":
        pytest.importorskip("onnxruntime")
    mlp = W.MLP(layers=3, width=32)
    static = sot.to_static(mlp, backend=backend, freeze=True)
    for n in [3, 4] + list(range(5, 40, 3)):
        x = RNG.standard_normal((n, 32)).astype(np.float32)
        got, want = static(x), mlp(x)
        assert_same(want, got, bitwise=True) if backend == "numpy" else assert_ort_close(got, want)
    code = type(mlp).__call__.__code__
    entries = cache.entries(code)
    assert len(entries) == 1 and cache.replaced_count(code) == 1   # the symbolic entry only
    held = sum(held_bytes(c)["total"] for e in entries for c in e.compiled)
    if backend == "onnxruntime":
        assert held_bytes(entries[0].compiled[0])["frozen"] == _weights_bytes(mlp)
    assert held < 4 * _weights_bytes(mlp) + 40 * 32 * 4 * 8
