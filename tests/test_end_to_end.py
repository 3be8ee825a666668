"""The core workloads translate into exactly one graph, bitwise equal to eager."""
import os
import sys

import numpy as np
import pytest

import sot
from difftest import check

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import workloads as W  # noqa: E402

rng = np.random.default_rng(0)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def assert_one_graph(fn, *args, ops=None):
    report = sot.explain(fn, *args)
    assert report.breaks == [], [str(b) for b in report.breaks]
    assert report.graph_count == 1
    if ops is not None:
        assert report.op_count == ops
    return report


def test_gelu_tanh_is_one_graph_and_bitwise_equal():
    check(W.gelu_tanh, (f32(16, 32),), (f32(3),))
    assert_one_graph(W.gelu_tanh, f32(16, 32))


def test_softmax_is_one_graph_and_bitwise_equal():
    check(W.softmax, (f32(8, 16),), (f32(2, 3, 5),))
    assert_one_graph(W.softmax, f32(8, 16))


def test_layernorm_with_weight_and_bias_is_one_graph():
    x, w, b = f32(8, 16), f32(16), f32(16)
    check(W.layernorm, (x, w, b))
    assert_one_graph(W.layernorm, x, w, b)


def test_attention_is_one_graph():
    q, k, v = f32(2, 8, 4), f32(2, 8, 4), f32(2, 8, 4)
    check(W.attention, (q, k, v))
    assert_one_graph(W.attention, q, k, v)


def test_mlp_with_weights_in_a_list_attribute_is_one_graph():
    model = W.MLP(layers=42, width=16)
    x = f32(3, 16)
    static = sot.to_static(model)
    np.testing.assert_array_equal(static(x), model(x))
    np.testing.assert_array_equal(static(x), model(x))
    assert sot.translation_count(static) == 1
    assert_one_graph(model, x, ops=42 * 3 - 1)  # matmul + add per layer, 41 ReLUs


def test_mlp_weight_mutated_in_place_is_seen_without_retranslation():
    model = W.MLP(layers=3, width=8)
    x = f32(2, 8)
    static = sot.to_static(model)
    static(x)
    model.layers[1].w *= 2.0
    np.testing.assert_array_equal(static(x), model(x))
    assert sot.translation_count(static) == 1


def test_translation_does_not_touch_array_data():
    # A huge broadcast view costs nothing to trace: inference never reads data.
    huge = np.broadcast_to(np.float32(1), (4096, 4096))
    report = sot.explain(W.gelu_tanh, np.ones((8, 8), np.float32))
    assert report.graph_count == 1
    static = sot.to_static(W.gelu_tanh)
    static(np.ones((8, 8), np.float32))
    assert huge.shape == (4096, 4096)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_softmax_in_each_float_dtype(dtype):
    check(W.softmax, (rng.standard_normal((4, 6)).astype(dtype),))
