"""A more general entry replaces the ones whose inputs it serves: a symbolic
entry translated after the static entry of the first size drops it, and the
dropped entry's compiled graph (onnxruntime sessions, frozen weight copies,
buffers) is freed.  ``subsume.implies`` decides, and never says yes wrongly."""
import gc
import weakref

import numpy as np
import pytest

import sot
from sot.guards import cache
from sot.guards.guard import DimEqualGuard, TensorGuard, ValueGuard
from sot.guards.subsume import implies
from sot.guards.tracker import LocalTracker

from difftest import assert_same
from ort_tolerance import assert_ort_close

RNG = np.random.default_rng(0)
X, Y = LocalTracker(0, "x"), LocalTracker(1, "y")


def _tensor(tracker, shape, symbolic=(), dtype=np.float32):
    return TensorGuard(tracker, np.zeros(shape, dtype), symbolic)


@pytest.mark.parametrize("old, new, want", [
    ([_tensor(X, (8, 4))], [_tensor(X, (8, 4), (0,))], True),
    ([_tensor(X, (1, 4))], [_tensor(X, (2, 4), (0,))], False),          # size 1 is never symbolic
    ([_tensor(X, (8, 4))], [_tensor(X, (8, 5), (0,))], False),          # a static dim differs
    ([_tensor(X, (8, 4))], [_tensor(X, (8, 4), (0,), np.float64)], False),
    ([_tensor(X, (8, 4))], [_tensor(X, (8, 4, 1), (0,))], False),
    ([_tensor(X, (8, 4), (0,))], [_tensor(X, (8, 4))], False),          # the other way round
    ([_tensor(X, (8, 4)), ValueGuard(Y, 3)], [_tensor(X, (8, 4), (0,)), ValueGuard(Y, 3)], True),
    ([_tensor(X, (8, 4)), ValueGuard(Y, 3)], [_tensor(X, (8, 4), (0,)), ValueGuard(Y, 4)], False),
    ([_tensor(X, (8, 4))], [_tensor(X, (8, 4), (0,)), ValueGuard(Y, 3)], False),   # new checks more
    ([_tensor(X, (8, 4)), ValueGuard(Y, 3)], [_tensor(X, (8, 4), (0,))], True),    # old checks more
    ([_tensor(X, (8, 4)), _tensor(Y, (8,))],
     [_tensor(X, (8, 4), (0,)), _tensor(Y, (8,), (0,)), DimEqualGuard(X, 0, Y, 0)], True),
    ([_tensor(X, (8, 4)), _tensor(Y, (9,))],
     [_tensor(X, (8, 4), (0,)), _tensor(Y, (9,), (0,)), DimEqualGuard(X, 0, Y, 0)], False),
])
def test_implies(old, new, want):
    assert implies(old, new) is want


def grow(x, w):
    h = np.tanh(x @ w) * 2 + 1
    return (h * h).sum(-1) + x.shape[0]


def _sessions():
    ort = pytest.importorskip("onnxruntime")
    gc.collect()
    return sum(isinstance(o, ort.InferenceSession) for o in gc.get_objects())


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
@pytest.mark.parametrize("freeze", [False, True])
def test_symbolic_entry_replaces_the_static_one(backend, freeze):
    if backend != "numpy":
        pytest.importorskip("onnxruntime")
    w = RNG.standard_normal((16, 16)).astype(np.float32)
    fn = lambda x: grow(x, w)   # noqa: E731 - w from outside: frozen under freeze=True
    static = sot.to_static(fn, backend=backend, freeze=freeze)
    code = fn.__code__
    x = RNG.standard_normal((5, 16)).astype(np.float32)
    assert_same(fn(x), static(x)) if backend == "numpy" else assert_ort_close(static(x), fn(x))
    first = cache.entries(code)
    assert len(first) == 1
    runner = weakref.ref(first[0].direct) if first[0].direct is not None else None
    del first
    sessions = _sessions() if backend != "numpy" else 0
    for n in (6, 9, 5, 30, 2, 6):
        x = RNG.standard_normal((n, 16)).astype(np.float32)
        want, got = fn(x), static(x)
        if backend == "numpy":
            assert_same(want, got)
        else:
            assert_ort_close(got, want)
    assert sot.translation_count(static) == 2
    assert len(cache.entries(code)) == 1 and cache.replaced_count(code) == 1
    gc.collect()
    if runner is not None:
        assert runner() is None, "the replaced entry's runner (and its compiled graph) is still alive"
    if backend != "numpy":
        # the static entry's sessions are gone; the symbolic entry has its own
        assert _sessions() <= sessions
    sot.reset()


def test_entries_not_covered_stay():
    static = sot.to_static(grow)
    w = RNG.standard_normal((16, 16)).astype(np.float32)
    for n in (1, 3, 4, 1):          # size 1 is not covered by the symbolic entry
        x = RNG.standard_normal((n, 16)).astype(np.float32)
        assert_same(grow(x, w), static(x, w))
    w64 = w.astype(np.float64)      # another dtype: its own entry, the others stay
    for n in (3, 5):
        x = RNG.standard_normal((n, 16))
        assert_same(grow(x, w64), static(x, w64))
    code = grow.__code__
    # (1, 16) f32 static, (?, 16) f32 from size 3 on, (?, 16) f64: none covers another
    assert cache.replaced_count(code) == 0
    assert len(cache.entries(code)) == 3
    assert sot.translation_count(static) == 3
    sot.reset()
