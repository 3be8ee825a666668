"""Reductions with ``where=``, ``initial=`` and ``out=`` stay in the graph
(sot/ir/ops_reduction.py, sot/executor/writes_out.py): values, dtypes,
NumPy-scalar vs array results and ``r is out`` as eagerly; a mask that does
not broadcast, an ``out`` of another dtype or shape, or a ``max`` with a
mask and no ``initial`` run natively and raise eager's error."""
import warnings

import numpy as np
import pytest

import sot
from difftest import assert_same, case_params, check, check_case

rng = np.random.default_rng(3)
F = rng.standard_normal((4, 5))
NAN = np.where(F > 1, np.nan, F)
I8 = rng.integers(-100, 100, (4, 5)).astype(np.int8)


def masked(a):
    return (np.sum(a, where=a > 0), np.sum(a, initial=1.5), np.max(a, axis=1, initial=-1.0, where=a < 1),
            np.mean(a, axis=1, where=a > -1), a.min(initial=0.0), np.prod(a, axis=0, where=a > -0.5),
            np.nansum(a, where=a < 0, keepdims=True), np.std(a, where=a > 0), np.all(a > 0, where=a > 1),
            a.sum(axis=-1, where=np.array([True, False, True, True, False])), np.nanmax(a, initial=0.5, where=a < 2))


def masked_ints(a):
    return np.sum(a, where=a > 0, dtype=np.int8), a.max(initial=np.int8(-128), where=a < 0), np.prod(a, initial=2)


def into_out(a, o):
    r = np.sum(a, axis=0, out=o)
    return (r is o, o, np.mean(a, 1, None, np.zeros(4)), a.max(axis=1, out=np.empty(4)),
            np.argmax(a, axis=0, out=np.zeros(5, np.intp)), a.sum(0, None, np.ones(5)), np.std(a, axis=1, out=np.zeros(4)),
            np.any(a > 0, axis=0, out=np.zeros(5, bool)), a.argmin(1, np.zeros(4, np.intp)))


def full_reduction_into_0d_out(a):
    o = np.zeros(())
    return np.sum(a, out=o) is o, o, a.var(out=np.zeros(())), np.nanmean(a, out=np.zeros(()))


CASES = {
    "masked": (masked, [(F,), (NAN,), (-np.abs(F),)]),
    "masked_ints": (masked_ints, [(I8,), (-np.abs(I8),)]),
    "into_out": (into_out, [(F, np.zeros(5)), (NAN, np.ones(5))]),
    "full_reduction_into_0d_out": (full_reduction_into_0d_out, [(F,), (NAN,)]),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


def test_out_of_the_callers_array_is_written_and_returned():
    def f(a, o):
        r = a.sum(axis=1, out=o)
        return r is o
    check(f, (F, np.zeros(4)), (NAN, np.zeros(4)))


@pytest.mark.parametrize("out", [np.zeros(5, np.float32), np.zeros(4), np.zeros((1, 5))])
def test_out_of_another_dtype_or_shape_runs_natively(out):
    def f(a, o):
        return np.sum(a, axis=0, out=o)
    check(f, (F, out))
    if out.dtype == np.float32:   # eager casts into it; the others raise
        report = sot.explain(sot.to_static(f, min_graph_size=0), F, out.copy())
        assert report.breaks or report.fallbacks


@pytest.mark.parametrize("mask", [np.ones(4, bool), np.ones((2, 4, 5), bool), np.ones((4, 1), bool), np.ones(5, bool)])
def test_a_mask_that_does_not_broadcast_raises_eagers_error(mask):
    def f(a, m):
        return np.sum(a, where=m), a.mean(axis=0, where=m)
    check(f, (F, mask))


def test_max_with_a_mask_and_no_initial_raises_eagers_error():
    def f(a):
        return np.max(a, where=a > 0)
    check(f, (F,))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_onnxruntime_backend():
    static = sot.to_static(masked, backend="onnxruntime")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = masked(F), static(F)
    for w, g in zip(want, got):   # onnxruntime kernels differ in rounding: compared loosely
        assert type(w) is type(g) and np.asarray(w).dtype == np.asarray(g).dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)
    assert_same(into_out(F, np.zeros(5))[0], sot.to_static(into_out, backend="onnxruntime")(F, np.zeros(5))[0])
