"""Large results onnxruntime writes into arrays of ours (onnx.buffers): the
previous call's array is handed out again only when nothing in the program
can reach it; every array the program still holds keeps its values, and
every result is what eager NumPy gives."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

import sot
from sot.backends import compile_graph
from sot.backends.onnx.buffers import REUSE_BYTES
from sot.ir import StatementIR, TensorMeta
from test_ir_oracle import F, O
from test_onnx_lowering import assert_close

pytest.importorskip("onnxruntime")

SHAPE = (512, 600)       # 1.2 MB of float32: bound and kept
assert np.prod(SHAPE) * 4 >= REUSE_BYTES


def exp_half_graph():
    g = StatementIR("g")
    x = g.add_input(TensorMeta(SHAPE, np.float32))
    g.set_outputs([g.add_op(O("mul"), (g.add_op(F(np.exp), (x,)), 0.5))])
    return g


def eager(x):
    return np.exp(x) * np.float32(0.5)


def inputs(n):
    rng = np.random.default_rng(n)
    return [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(n)]


@pytest.fixture
def compiled():
    c = compile_graph(exp_half_graph(), "onnxruntime")
    assert c.backend == "onnxruntime" and c._steps[0].bind
    return c


def reused(c) -> int:
    return c._steps[0].outputs.reused


def test_a_dropped_result_is_written_again_and_holds_the_new_values(compiled):
    xs = inputs(4)
    first = id(compiled(xs[0])[0])   # dropped at once
    for x in xs[1:]:
        (out,) = compiled(x)
        assert id(out) == first
        assert_close(out, eager(x))
        del out
    assert reused(compiled) == 3


def test_results_the_caller_holds_are_never_overwritten(compiled):
    xs = inputs(5)
    held = [compiled(x)[0] for x in xs]
    assert len({id(h) for h in held}) == len(held)
    for h, x in zip(held, xs):
        assert_close(h, eager(x))
    assert reused(compiled) == 0


def test_a_view_a_memoryview_or_a_weak_reference_keeps_the_result_from_reuse(compiled):
    xs = inputs(8)
    (out,) = compiled(xs[0])
    view = out[3:]
    del out
    (out,) = compiled(xs[1])
    assert_close(view, eager(xs[0])[3:])
    mem = memoryview(out)
    del out
    (out,) = compiled(xs[2])
    assert_close(np.asarray(mem), eager(xs[1]))
    del mem
    ref = weakref.ref(out)
    del out
    (out,) = compiled(xs[3])
    assert ref() is not out
    assert_close(out, eager(xs[3]))
    gc.collect()
    assert ref() is None      # let go at this call, not handed out again
    assert reused(compiled) == 0


def test_a_result_changed_in_place_before_it_was_dropped_is_not_handed_out(compiled):
    xs = inputs(4)
    (out,) = compiled(xs[0])
    out.flags.writeable = False
    del out
    (out,) = compiled(xs[1])
    assert out.flags.writeable
    with warnings.catch_warnings():   # deprecated in NumPy 2.5, still allowed
        warnings.simplefilter("ignore", DeprecationWarning)
        out.shape = (600, 512)
    del out
    (out,) = compiled(xs[2])
    assert out.shape == SHAPE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out.dtype = np.int32
    del out
    (out,) = compiled(xs[3])
    assert out.dtype == np.float32 and out.strides == (600 * 4, 4)
    assert_close(out, eager(xs[3]))
    assert reused(compiled) == 0


def test_a_result_fed_back_as_the_next_input_is_read_not_overwritten(compiled):
    x = inputs(1)[0] * np.float32(0.1)
    y = x.copy()
    for _ in range(4):
        (x,) = compiled(x)
        y = eager(y)
        assert_close(x, y)


def test_to_static_results_agree_with_eager_call_after_call():
    def f(x):
        return np.exp(x) * 0.5 + x

    static = sot.to_static(f, backend="onnxruntime")
    xs = inputs(6)
    kept = []
    for i, x in enumerate(xs):
        out = static(x)
        assert_close(out, f(x))
        if i % 2:
            kept.append((out, f(x)))    # every other result is held on to
    for out, expected in kept:
        assert_close(out, expected)
