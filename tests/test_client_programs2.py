"""Client programs, second set (benchmarks/client_programs2.py: an MLP with
Adam updates in place, RK4, GP regression, Black-Scholes, time-series
features, an n-body class, a ray tracer, NMF, PageRank on a hand-written CSR
matrix, an attention block, a small CNN, and whole decorated loops with
data-dependent breaks) decorated as users decorate them
give eager's results bitwise, eager's stdout, and do to their arguments and
objects what eager does; over several sizes and seeds, so re-translations
and cached entries both run.  Then what the programs found, one test each."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import client_programs2 as CP2  # noqa: E402
from test_client_programs import assert_program_matches  # noqa: E402


@pytest.mark.parametrize("name", list(CP2.PROGRAMS))
def test_client_program_decorated_is_eager_bitwise(name):
    assert_program_matches(CP2.PROGRAMS, name)


# -- one mask, two selections: one count -------------------------------------------------

def _masked_norm(x, y, m):
    return np.sqrt(x[m] ** 2 + y[m] ** 2).sum(), x[m].shape


def _mask_changed_between(x, y, m):
    a = x[m]
    m[0] = ~m[0]     # the count may change: the two selections do not broadcast
    return a * 2 + y[m]


def _two_masks(x, m):
    return x[m] + x[x > 0.5]


_R = np.random.default_rng(5)
_MASKED = [(_R.random(10), _R.random(10), _R.random(10) > 0.5), (_R.random(9), _R.random(9), _R.random(9) > 0.2),
           (np.ones(3), np.ones(3), np.zeros(3, bool)), (np.ones(3), np.ones(3), np.array([False, True, False]))]


def test_selections_by_the_same_mask_broadcast_and_are_captured():
    # each x[m] had a count of its own: x[m] + y[m] broke the graph
    check(_masked_norm, *_MASKED)
    assert_captured_whole(_masked_norm, *_MASKED[0])


def test_a_mask_written_between_two_selections_is_counted_again():
    check(_mask_changed_between, *_MASKED)   # raises eager's ValueError where the counts differ
    check(_two_masks, (np.linspace(0, 1, 10), np.linspace(0, 1, 10) > 0.5), (_R.random(8), _R.random(8) > 0.5))


# -- a[m] = f(b[m]) ----------------------------------------------------------------------

def _shade(color, m, src):
    color[m] = (src * 2.0)[m]
    return color


def _sqrt_positive(x):
    x[x > 0] = np.sqrt(x[x > 0])
    return x


def _other_count(color, m, src):
    color[m] = src[~m]     # eager raises unless the two counts agree (or one is 1)
    return color.sum()


def test_masked_assignment_of_a_selected_value_is_captured():
    masks = [_R.random((4, 5)) > 0.5, np.zeros((4, 5), bool), np.eye(4, 5, dtype=bool)]
    check(_shade, *[(np.zeros((4, 5, 3)), m, _R.random((4, 5, 3))) for m in masks])
    check(_sqrt_positive, (_R.normal(size=10),), (_R.normal(size=(3, 4)),), (-np.ones(3),), (np.ones(1),))
    assert_captured_whole(_shade, np.zeros((4, 5, 3)), masks[0], _R.random((4, 5, 3)))
    assert_captured_whole(_sqrt_positive, _R.normal(size=10))


def test_masked_assignment_of_another_count_raises_as_eagerly():
    half = np.zeros((4, 5), bool)
    half[:2] = True
    one = np.zeros((4, 5), bool)
    one[0, 0] = True
    check(_other_count, *[(np.zeros((4, 5, 3)), m, _R.random((4, 5, 3))) for m in (half, one, ~one)])


def test_masked_assignment_on_onnxruntime_matches():
    f = sot.to_static(_shade, backend="onnxruntime")
    for m in (_R.random((4, 5)) > 0.5, np.zeros((4, 5), bool), np.ones((4, 5), bool)):
        src = _R.random((4, 5, 3))
        np.testing.assert_allclose(f(np.zeros((4, 5, 3)), m, src), _shade(np.zeros((4, 5, 3)), m, src), rtol=1e-12)


# -- onnxruntime results whose size changes between calls ------------------------------------

def test_prebound_session_with_symbolic_result_sizes_runs_every_size(monkeypatch):
    # A bound output kept the array of the first run: at another size (here
    # from a Python-number input, the input arrays keep theirs)
    # onnxruntime refused ("pre-allocated output ... dynamic output shapes"),
    # and every call ran natively after a failed graph
    pytest.importorskip("onnxruntime")
    from sot.backends.onnx.prebound import PreboundInputs
    errors = []
    real = PreboundInputs.__call__

    def call(self, values):
        try:
            return real(self, values)
        except Exception as e:
            errors.append(e)
            raise
    monkeypatch.setattr(PreboundInputs, "__call__", call)

    def rolling_mean(x, w):
        c = np.cumsum(np.concatenate([[0.0], x]))
        return (c[w:] - c[:-w]) / w

    f = sot.to_static(rolling_mean, backend="onnxruntime")
    x = np.linspace(1.0, 2.0, 30) ** 2
    for w in (3, 5, 10, 4, 7, 2):   # the window becomes a graph input: the result's size changes
        np.testing.assert_allclose(f(x, w), rolling_mean(x, w), rtol=1e-9, atol=1e-12)
    assert not errors, errors


# -- the overlap guards of a step that writes a dozen arrays -------------------------------

def _views(base):
    """Views of ``base`` (float64) of every layout the bounds meet."""
    flat = base.reshape(-1)
    return [base, base[1:3], base[::-1], base[:, ::-2], base.T, flat[5:6].reshape(()), flat[:0], base[2:2, :],
            flat[3:], flat[:3], flat[7:12].view(np.int8), np.broadcast_to(flat[4:5], (3, 4)),
            flat[::7], flat[11:2:-3], base.astype(np.float32), np.ones(3)]


def test_overlap_guard_bounds_in_c_are_numpys_may_share_memory():
    from sot.guards.compile import compile_guards
    from sot.guards.overlap import OverlapGuard
    from sot.guards.tracker import LocalTracker
    views = _views(np.arange(24.0).reshape(4, 6))
    a, b = LocalTracker(0, "a"), LocalTracker(1, "b")
    for x in views:
        for y in views:
            for expect in (False, True):
                gf = compile_guards([OverlapGuard(a, b, expect, (x.itemsize, y.itemsize))], 2, 0)
                holds = bool(np.may_share_memory(x, y)) is expect
                assert gf.program({}, x, y) is holds, (x.shape, x.strides, y.shape, y.strides)
                assert gf.reference({}, x, y) is holds


class _Sub(np.ndarray):
    pass


def test_overlap_guard_asks_numpy_only_for_an_ndarray_subclass(monkeypatch):
    import types

    from sot.guards import overlap
    from sot.guards.compile import compile_guards
    from sot.guards.tracker import LocalTracker
    calls = []

    def may_share_memory(a, b):
        calls.append(type(a))
        return np.may_share_memory(a, b)
    monkeypatch.setattr(overlap, "np", types.SimpleNamespace(ndarray=np.ndarray, may_share_memory=may_share_memory))
    base = np.arange(10.0)
    gf = compile_guards([overlap.OverlapGuard(LocalTracker(0, "a"), LocalTracker(1, "b"), False, (8, 8))], 2, 0)
    assert gf.program({}, base[:5], base[5:]) is True and not calls   # bounds in C
    assert gf.program({}, base[:5].view(_Sub), base[5:]) is True
    assert gf.program({}, base[:6].view(_Sub), base[5:]) is False
    assert calls == [_Sub, _Sub]


def _sgd_step(params, grads, velocity, lr=0.1, mu=0.9):
    for k in params:
        velocity[k] *= mu
        velocity[k] -= lr * grads[k]
        params[k] += velocity[k]


def test_a_step_writing_many_arrays_guards_each_pair_once_and_sees_new_aliasing():
    shapes = {"W0": (3, 4), "b0": (4,), "W1": (4, 2), "b1": (2,)}
    params = {k: np.ones(s) for k, s in shapes.items()}
    grads = {k: np.full(s, 0.5) for k, s in shapes.items()}
    velocity = {k: np.zeros(s) for k, s in shapes.items()}
    report = assert_captured_whole(_sgd_step, params, grads, velocity)
    pairs = [g for g in report.guards if "memory" in g]
    written, others = 8, 4   # params and velocity are written; grads only read
    assert len(pairs) == written * (written - 1) // 2 + written * others, pairs
    # a velocity that is now a params array: the guard sees it, eager's result all the same
    aliased = dict(velocity, b1=params["b1"])
    check(_sgd_step, (params, grads, velocity), (params, grads, aliased), (params, grads, velocity))


# -- a loop's counter as an index ---------------------------------------------------------------

def _ema(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, len(x)):   # more iterations than are unrolled: a loop body per iteration
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def test_a_loop_counter_used_as_an_index_is_not_specialised():
    # x[i] needed i's value: each iteration's loop body was translated again
    # (__sot_item == 1, 2, ...) until the cache limit, then ran natively
    from sot import translate
    from sot.explain import ExplainReport
    static = sot.to_static(_ema)
    report = ExplainReport()
    translate._recorders.append(report.entries)
    try:
        static(np.linspace(0.0, 3.0, 1200), 0.25)
    finally:
        translate._recorders.remove(report.entries)
    # the frame, the resumes around the loop, the loop body twice (its
    # counter specialised, then an input): 12 before (9 loop bodies)
    assert report.translation_count <= 5, report.translation_count
    check(_ema, (np.linspace(0.0, 1.0, 1100), 0.3), (np.linspace(1.0, 2.0, 1300), 0.5), calls=2, static=static)


def _rows(x, i):
    r = x[i]          # a view: the write reaches x
    r[0] = -1.0
    return x[i - 1, 1:], x[-i], x[i, ::2].sum()


def _after_a_write(x, i):
    x += 1
    return x[i]


def _put_row(x, i, v):
    x[i, 1:] = v
    x[-i] += 1
    return x


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_an_int_index_known_at_run_time_matches_and_raises_as_eagerly(backend):
    static = sot.to_static(_rows, backend=backend)
    check(_rows, *[(np.arange(12.0).reshape(4, 3), i) for i in (1, 2, 3, -1, 3, 2, 4, -5)], static=static)
    check(_after_a_write, *[(np.arange(4.0), i) for i in (1, 2, 3, 0, 4, -4, -5, 2)],
          static=sot.to_static(_after_a_write, backend=backend))
    check(_put_row, *[(np.arange(12.0).reshape(4, 3), i, 7.0) for i in (0, 1, 2, 3, -1, 2, 4, -5, 1)],
          static=sot.to_static(_put_row, backend=backend))
