"""to_static(freeze=True): arrays from outside the arguments held fixed.

Differential tests on every backend (results as eager), the promise enforced
(frozen arrays read-only, in-place updates raise), the guard paths (a new
object recompiles, the cache hits otherwise), what is not frozen (arguments,
views, shape-only reads), onnxruntime's initializers, and sot.reset().
"""
from __future__ import annotations

import numpy as np
import pytest

import sot
from sot.executor import freeze

BACKENDS = ["numpy", "onnxruntime", "auto"]
W_GLOBAL = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3).copy()   # owns its memory


class Linear:
    def __init__(self, n_in, n_out, seed):
        rng = np.random.default_rng(seed)
        self.w = rng.standard_normal((n_in, n_out)).astype(np.float32)
        self.b = rng.standard_normal(n_out).astype(np.float32)

    def __call__(self, x):
        return np.maximum(x @ self.w + self.b, 0)


class Net:
    def __init__(self, layers=3, width=4):
        self.layers = [Linear(width, width, seed) for seed in range(layers)]
        self.scale = np.float32(0.5)

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x * self.scale


def close(traced, eager):
    assert type(traced) is type(eager) and traced.dtype == eager.dtype and traced.shape == eager.shape
    np.testing.assert_allclose(traced, eager, rtol=1e-5, atol=1e-6)


def x_of(batch=2, width=4, seed=7):
    return np.random.default_rng(seed).standard_normal((batch, width)).astype(np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_results_as_eager_and_cache_hits(backend):
    net = Net()
    f = sot.to_static(net, backend=backend, freeze=True)
    for seed in range(4):
        x = x_of(seed=seed)
        close(f(x), net(x))
    assert sot.translation_count(f) == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_frozen_weights_are_read_only_and_in_place_updates_raise(backend):
    net = Net()
    f = sot.to_static(net, backend=backend, freeze=True)
    x = x_of()
    f(x)
    for layer in net.layers:
        assert not layer.w.flags.writeable and not layer.b.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        net.layers[0].w += 1
    with pytest.raises(ValueError, match="read-only"):
        net.layers[1].b[0] = 3.0
    close(f(x), net(x))   # nothing changed, nothing missed
    assert x.flags.writeable          # an argument is never frozen


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_array_recompiles(backend):
    net = Net()
    f = sot.to_static(net, backend=backend, freeze=True)
    x = x_of()
    f(x)
    net.layers[2].w = net.layers[2].w * 2   # a new object: the identity guard fails
    close(f(x), net(x))
    assert sot.translation_count(f) == 2
    report = sot.explain(f, x)
    assert "self.layers[2].w" in " ".join(report.entries[0].frozen)


def test_without_freeze_nothing_is_read_only_and_updates_are_seen():
    net = Net()
    f = sot.to_static(net, backend="onnxruntime")
    x = x_of()
    f(x)
    net.layers[0].w += 1
    assert net.layers[0].w.flags.writeable
    close(f(x), net(x))
    assert freeze.held_count() == 0


def test_reset_makes_them_writeable_again_but_not_those_read_only_before():
    net = Net()
    net.layers[0].w.flags.writeable = False   # the user's own choice
    f = sot.to_static(net, backend="onnxruntime", freeze=True)
    f(x_of())
    assert not net.layers[1].w.flags.writeable
    sot.reset()
    assert net.layers[1].w.flags.writeable and net.layers[2].b.flags.writeable
    assert not net.layers[0].w.flags.writeable
    net.layers[1].w += 1                       # now seen: the entry is gone
    x = x_of()
    close(f(x), net(x))


def test_a_view_is_not_frozen_and_its_update_is_seen():
    base = np.arange(24, dtype=np.float32).reshape(6, 4) / 10

    class Model:
        def __init__(self):
            self.w = base[:4]          # a view: base could still be written
            self.own = np.ones((4, 4), np.float32)

        def __call__(self, x):
            return np.tanh(x @ self.w) + x @ self.own

    m = Model()
    f = sot.to_static(m, backend="onnxruntime", freeze=True)
    x = x_of()
    close(f(x), m(x))
    assert m.w.flags.writeable and not m.own.flags.writeable
    base[0] += 1
    close(f(x), m(x))
    report = sot.explain(f, x)
    assert report.entries[0].not_frozen == [("self.w", "a view of another array, which could be written through it")]
    assert "not frozen: self.w" in str(report)


def test_shape_only_reads_are_not_made_read_only():
    class Model:
        def __init__(self):
            self.w = np.ones((4, 4), np.float32)
            self.buffer = np.zeros(5, np.float32)

        def __call__(self, x):
            return x @ self.w * self.buffer.shape[0]

    m = Model()
    f = sot.to_static(m, backend="onnxruntime", freeze=True)
    x = x_of()
    close(f(x), m(x))
    assert m.buffer.flags.writeable and not m.w.flags.writeable


def test_globals_are_frozen_and_rebinding_recompiles():
    def fn(x):
        return np.tanh(x @ W_GLOBAL)

    f = sot.to_static(fn, backend="onnxruntime", freeze=True)
    x = x_of()
    close(f(x), fn(x))
    assert not W_GLOBAL.flags.writeable
    saved = globals()["W_GLOBAL"]
    try:
        globals()["W_GLOBAL"] = saved + 1
        close(f(x), fn(x))
        assert sot.translation_count(f) == 2
    finally:
        globals()["W_GLOBAL"] = saved


def test_closure_arrays_are_frozen():
    w = np.full((4, 2), 0.25, np.float32)

    def fn(x):
        return np.exp(x @ w)

    f = sot.to_static(fn, backend="onnxruntime", freeze=True)
    x = x_of()
    close(f(x), fn(x))
    assert not w.flags.writeable


def test_onnx_model_takes_the_weights_as_initializers():
    net = Net()
    f = sot.to_static(net, backend="onnxruntime", freeze=True)
    report = sot.explain(f, x_of())
    source = report.entries[0].graphs[0][2]
    # one graph input (x) and the scale (a NumPy scalar: not frozen); the 6
    # weights are initializers read from our arrays
    assert source.count("sot-frozen-") == 6
    header = source.split("=>")[0]
    assert header.count("float[2,4]") == 1 and header.count("float i") == 1


def test_dynamic_batch_with_frozen_weights():
    net = Net()
    f = sot.to_static(net, backend="onnxruntime", freeze=True, dynamic=True)
    for batch in (2, 3, 5, 9):
        x = x_of(batch=batch)
        close(f(x), net(x))
    assert sot.translation_count(f) == 1


def test_graph_break_with_frozen_weights(capsys):
    net = Net()

    def fn(x):
        h = net.layers[0](x)
        print("between", h.shape)
        return net.layers[1](h) * 2

    f = sot.to_static(fn, backend="onnxruntime", freeze=True, min_graph_size=1)
    x = x_of()
    expected = fn(x)
    assert capsys.readouterr().out == "between (2, 4)\n"
    for _ in range(2):
        close(f(x), expected)
        assert capsys.readouterr().out == "between (2, 4)\n"
    assert not net.layers[0].w.flags.writeable and not net.layers[1].w.flags.writeable


def test_frozen_output_is_the_object_itself():
    class Model:
        def __init__(self):
            self.w = np.ones((2, 2))

        def __call__(self, x):
            return x + self.w, self.w

    m = Model()
    f = sot.to_static(m, backend="onnxruntime", freeze=True)
    y, w = f(np.zeros((2, 2)))
    assert w is m.w
    close(y, np.ones((2, 2)))


def test_numpy_scalars_are_not_frozen_a_fresh_one_per_call_is_one_entry():
    net = Net()
    f = sot.to_static(net, backend="onnxruntime", freeze=True)
    for k in range(4):
        net.scale = np.float32(0.25 * k)
        x = x_of()
        close(f(x), net(x))
    assert sot.translation_count(f) == 1


def test_freeze_off_by_default_and_validated():
    assert sot.to_static(lambda x: x).__sot_static__.options.freeze is False
    assert sot.to_static(lambda x: x, freeze=True).__sot_static__.options.freeze is True


def _cuda() -> bool:
    import onnxruntime as ort
    return "CUDAExecutionProvider" in ort.get_available_providers()


@pytest.mark.skipif(not _cuda(), reason="needs onnxruntime-gpu and a CUDA GPU")
def test_frozen_weights_on_the_gpu():
    net = Net()
    f = sot.to_static(net, backend="onnxruntime", device="gpu", freeze=True)
    for seed in range(3):
        x = x_of(seed=seed)
        out = f(x)
        want = net(x)
        assert out.dtype == want.dtype and out.shape == want.shape
        np.testing.assert_allclose(out, want, rtol=1e-3, atol=1e-4)   # the GPU's matmul may round coarser
    assert not net.layers[0].w.flags.writeable and sot.translation_count(f) == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_array_viewed_before_the_freeze_is_not_frozen(backend):
    net = Net(layers=1)
    w = net.layers[0].w
    view = w[:]  # made before the freeze: making w read-only would not reach it
    f = sot.to_static(net, backend=backend, freeze=True)
    x = x_of()
    close(f(x), net(x))
    assert w.flags.writeable and view.flags.writeable
    view += 1.0  # writing through the old view is seen by the next call
    close(f(x), net(x))
    report = sot.explain(f, x)
    not_frozen = report.entries[0].not_frozen
    assert ("self.layers[0].w", "other arrays view its memory (a view made before the freeze stays "
            "writeable)") in not_frozen, not_frozen
    del view
