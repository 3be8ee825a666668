"""Inputs bound to an onnxruntime session once (sot/backends/onnx/prebound.py):
re-bound only when a value no longer has the data pointer, dtype and shape
it was bound with, so weights as inputs cost nothing per call and an
in-place update of a weight is still seen."""
import threading

import numpy as np
import pytest

import sot
from sot import _C
from sot.backends.onnx import prebound as onnx_prebound
from sot.backends.onnx.prebound import PreboundInputs

from ort_tolerance import assert_ort_close

pytest.importorskip("onnxruntime")


def f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


class Net:
    def __init__(self, layers=3, width=16):
        self.ws = [f32(width, width, seed=i) / 4 for i in range(layers)]
        self.bs = [f32(width, seed=10 + i) for i in range(layers)]

    def __call__(self, x):
        for w, b in zip(self.ws, self.bs):
            x = np.tanh(x @ w + b)
        return x


@pytest.fixture
def binds(monkeypatch):
    """Names of the inputs bound, call by call (a list per session run)."""
    log = []
    real_call, real_bind = PreboundInputs.__call__, PreboundInputs._bind

    def call(self, values):
        log.append([])
        return real_call(self, values)

    def bind(self, i, v):
        log[-1].append(self._names[i])
        return real_bind(self, i, v)
    monkeypatch.setattr(PreboundInputs, "__call__", call)
    monkeypatch.setattr(PreboundInputs, "_bind", bind)
    return log


def test_stale_bindings_compares_pointer_dtype_shape_and_contiguity():
    a = np.zeros((3, 4), np.float32)
    bound = [(a.ctypes.data, a.shape, a.dtype)]
    assert _C.stale_bindings([a], bound, np.ndarray) == []
    assert _C.stale_bindings([a.copy()], bound, np.ndarray) == [0]           # another buffer
    assert _C.stale_bindings([a.view(np.int32)], bound, np.ndarray) == [0]   # another dtype
    assert _C.stale_bindings([a.reshape(4, 3)], bound, np.ndarray) == [0]    # another shape
    assert _C.stale_bindings([a[:, :2]], [(a.ctypes.data, (3, 2), a.dtype)], np.ndarray) == [0]  # not contiguous
    assert _C.stale_bindings([np.float32(1)], bound, np.ndarray) == [0]      # not an array
    assert _C.stale_bindings([np.ma.masked_array(a)], bound, np.ndarray) == [0]   # a subclass
    assert _C.stale_bindings([a], [None], np.ndarray) == [0]
    with pytest.raises(TypeError):
        _C.stale_bindings([a], [], np.ndarray)


def test_weights_are_bound_once_and_the_input_every_call(binds):
    net = Net()
    g = sot.to_static(net, backend="onnxruntime")
    for seed in range(4):
        x = f32(2, 16, seed=100 + seed)
        assert_ort_close(g(x), net(x))
    assert len(binds) == 4
    assert len(binds[0]) == 1 + 2 * len(net.ws)   # x and every weight, on the first call
    assert all(len(names) == 1 for names in binds[1:])   # then only the new x


def test_a_weight_updated_in_place_is_seen(binds):
    net = Net()
    g = sot.to_static(net, backend="onnxruntime")
    x = f32(2, 16, seed=7)
    before = g(x)
    assert_ort_close(before, net(x))
    net.ws[1] *= -1.0     # same array, same pointer: nothing to re-bind, the new values are read
    net.bs[2][:] = 3.0
    after = g(x)
    assert_ort_close(after, net(x))
    assert not np.allclose(after, before)
    assert binds[-1] == []   # x is the same array too


def test_a_weight_replaced_by_another_array_is_bound_again(binds):
    net = Net()
    g = sot.to_static(net, backend="onnxruntime")
    x = f32(2, 16, seed=8)
    g(x)
    net.ws[0] = f32(16, 16, seed=99)
    assert_ort_close(g(x), net(x))
    assert len(binds[-1]) == 1


def test_views_and_scalars_are_copied_for_their_call_only(binds):
    def f(x, s):
        return np.tanh(x) * s
    g = sot.to_static(f, backend="onnxruntime")
    base = f32(6, 8, seed=3)
    for k in range(3):
        x = base[:, k:k + 4]          # not contiguous: a copy is bound for the call
        assert_ort_close(g(x, np.float32(2.0)), f(x, np.float32(2.0)))
    base[:, 1] = 5.0                  # the view of the next call sees it
    x = base[:, 1:5]
    assert_ort_close(g(x, np.float32(2.0)), f(x, np.float32(2.0)))
    assert all(len(names) >= 1 for names in binds)


def test_calls_from_several_threads_agree_with_eager():
    net = Net(layers=4, width=64)
    g = sot.to_static(net, backend="onnxruntime")
    xs = [f32(8, 64, seed=200 + i) for i in range(8)]
    g(xs[0])
    errors = []

    def work(x):
        try:
            for _ in range(20):
                assert_ort_close(g(x), net(x))
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=work, args=(x,)) for x in xs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_the_layout_check_runs_on_this_numpy():
    assert onnx_prebound._layout_ok()
