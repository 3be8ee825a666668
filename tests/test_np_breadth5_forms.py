"""NumPy forms captured by npbreadth5: ``np.linspace(..., retstep=True)``,
``np.searchsorted(..., sorter=)`` and ``np.bincount(x, minlength=n)`` whose
length is then used to index (its size is never below ``n``).  Each matches
eager bitwise on the NumPy backend, runs in one graph, re-translates for a
new dtype or shape, and raises eager's error where eager does."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, case_params, check, check_case

V = np.array([0.5, -1.25, 3.0, 2.0, -0.75, 1.5])
IV = np.array([3, 1, 2, 1, 0, 4])


def linspace_retstep(x):
    samples, step = np.linspace(0.0, 1.0, 5, retstep=True)
    return samples, step, np.linspace(x.min(), x.max(), 4, retstep=True)


def linspace_retstep_forms(x):
    return (np.linspace(0, 10, 5, retstep=True, dtype=int), np.linspace(0, 1, 4, endpoint=False, retstep=True),
            np.linspace(np.float32(0), x.max().astype(np.float32), 3, retstep=True)[1] * x,
            np.linspace(0, 1, 3, retstep=False))


def searchsorted_sorter(a, v):
    order = np.argsort(a)
    return (np.searchsorted(a, v, sorter=order), np.searchsorted(a, v, side="right", sorter=order),
            a.searchsorted(v, "left", order), np.searchsorted(a, 0.0, sorter=order))


def bincount_minlength_indexed(x):
    c = np.bincount(x, minlength=8)
    w = np.bincount(x, weights=x * 0.5, minlength=6)
    return c[x], c[c > 0], w[w > 0], c[:3], np.flatnonzero(c == 0), c[np.array([7, 0])]


CASES = {
    "linspace_retstep": (linspace_retstep, [(V,), (V.astype(np.float32),), (V[:2],)]),
    "linspace_retstep_forms": (linspace_retstep_forms, [(V,), (V[:1] * 0,)]),
    "searchsorted_sorter": (searchsorted_sorter, [(V, V[::-1] + 0.25), (V.astype(np.float32), V[:3]),
                                                  (V[:4], np.array([[0.0, 1.0], [2.0, -9.0]]))]),
    "bincount_minlength_indexed": (bincount_minlength_indexed, [(IV,), (np.array([7, 7, 0]),),
                                                                (np.array([9, 2, 11, 2]),)]),
}


@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_onnxruntime_backend_agrees(fn, arg_sets):
    """The onnxruntime backend leaves what it cannot lower with NumPy's meaning on NumPy."""
    static = sot.to_static(fn, backend="onnxruntime")
    for args in arg_sets:
        eager, traced = fn(*args), static(*args)
        np.testing.assert_equal(eager, traced)


def test_retstep_step_is_a_numpy_scalar_and_a_0d_array_of_0d_ends():
    def f(x):
        return np.linspace(x[0], x[1], 3, retstep=True)[1], np.linspace(x.min(), 2.0, 3, retstep=True)[1]
    check(f, (V,), (V.astype(np.float16),))
    out = sot.to_static(f)(V)
    assert type(out[0]) is np.float64 and type(out[1]) is np.float64
    assert_captured_whole(f, V)


def test_retstep_of_fewer_than_two_points_breaks_cleanly():
    """Below two points NumPy's step is the Python float nan: not an array op's result, so a break."""
    def f(x):
        return np.linspace(0.0, 1.0, 1, retstep=True), np.linspace(0.0, 1.0, 0, retstep=True), x * 2
    check(f, (V,))
    report = sot.explain(sot.to_static(f, min_graph_size=0), V)
    assert report.breaks and "not an array" in str(report.breaks[0])


def test_a_bad_sorter_raises_eagers_error_from_the_graph():
    """A sorter position out of range is known only from the data: NumPy's ValueError, as eagerly."""
    def f(a, v, s):
        return np.searchsorted(a, v, sorter=s)
    check(f, (V, V, np.argsort(V)), (V, V, np.array([0, 1, 2, 3, 4, 9])), (V, V, np.array([0, 1, 2, 3, 4, -7])))


def test_a_sorter_of_another_size_breaks_cleanly():
    def f(a, v):
        return np.searchsorted(a, v, sorter=np.argsort(a)[:3])
    with pytest.raises(ValueError):
        f(V, V)
    check(f, (V, V))


def test_bincount_below_minlength_and_past_it():
    """Values past minlength make more bins; the index stays valid either way."""
    def f(x):
        c = np.bincount(x, minlength=4)
        return c[x], c[-1], c.size
    check(f, (np.array([0, 1, 1]),), (np.array([12, 3, 3]),), (np.array([], dtype=np.int64),))


def test_bincount_without_minlength_still_breaks_at_an_index_of_its_size():
    """With no minlength the result may be empty: indexing it by an array still breaks, with eager's answer."""
    def f(x):
        return np.bincount(x)[x]
    check(f, (IV,), (np.array([], dtype=np.int64),))
    report = sot.explain(sot.to_static(f, min_graph_size=0), IV)
    assert report.breaks or report.fallbacks


def histogram2d_edges(x, y, e):
    h, ex, ey = np.histogram2d(x, y, bins=[e, 3])
    h2 = np.histogram2d(x, y, bins=(e, e), density=True)
    return h, ex, ey, h2


def test_histogram2d_with_edge_arrays_matches_eager_and_returns_the_edges_themselves():
    e = np.array([-2.0, 0.0, 0.5, 4.0])
    sets = [(V, V[::-1], e), (V.astype(np.float32), V, e), (V, V, np.array([0, 1, 5])), (V, V, np.array([1.0]))]
    check_case(histogram2d_edges, sets)
    static = sot.to_static(histogram2d_edges)
    for args in sets:
        out = static(*args)
        assert out[1] is args[2] and out[3][1] is args[2] and out[3][2] is args[2]


def test_histogram2d_edges_out_of_order_raise_eagers_error():
    check(histogram2d_edges, (V, V, np.array([0.0, 2.0, 1.0])), (V, V, np.array([0.0, 1.0])))


def test_histogram2d_with_no_edge_breaks_cleanly():
    def f(x):
        return np.histogram2d(x, x, bins=[x[:0], 2])
    check(f, (V,))


def einsum_sublists(a, b):
    return (np.einsum(a, [0, 1], [1, 0]), np.einsum(a, [0, 1], b, [1, 2], [0, 2]), np.einsum(a, [0, 1], b, [1, 2]),
            np.einsum(a, [Ellipsis, 1], [1, Ellipsis]), np.einsum(a, [30, 2]), np.einsum(a, (30, 2), [2]),
            np.einsum(a, [0, 0]) if a.shape[0] == a.shape[1] else None, np.einsum(b, [5, 40], a, [26, 5], [26, 40]))


def test_einsum_sublist_form_matches_eager_bitwise():
    a, b = np.arange(12.0).reshape(3, 4) / 7, np.arange(20.0).reshape(4, 5) - 3
    check_case(einsum_sublists, [(a, b), (a.astype(np.float32), b.astype(np.float32)), (np.eye(4), b)])


def test_einsum_sublist_of_a_bad_label_runs_natively_with_eagers_error():
    def f(a):
        return np.einsum(a, [0, 60])
    check(f, (np.ones((2, 2)),))


def linspace_array_ends(a, b):
    return (np.linspace(a, b, 4), np.linspace(a, b, 3, axis=-1), np.linspace(a[0], b, 5, axis=1, endpoint=False),
            np.linspace(a, 2.0, 4, retstep=True), np.logspace(a, b, 3, axis=1), np.geomspace(np.abs(a) + 1, 5.0, 3),
            np.linspace(a, b, 4, dtype=np.float32))


def average_returned(x, w):
    return (np.average(x, returned=True), np.average(x, axis=1, returned=True),
            np.average(x, axis=0, weights=w[:, 0], returned=True), np.average(x, axis=1, keepdims=True, returned=True),
            np.average(x, weights=w, returned=True))


def interp_period(x, xp):
    return np.interp(x, xp, np.sin(xp), period=4.0), np.interp(x, xp, xp * 1j, period=2), \
        np.interp(x, xp, xp, period=-3.0, left=9.0)


def test_linspace_of_array_ends_matches_eager_bitwise_strides_and_all():
    a, b = np.arange(6.0).reshape(2, 3) / 3, np.array([1.0, -2.0, 4.5])
    check_case(linspace_array_ends, [(a, b), (a.astype(np.float32), b), (a[:1], b[:1])])


def test_linspace_axis_out_of_bounds_runs_natively_with_eagers_error():
    def f(a):
        return np.linspace(a, a + 1, 3, axis=3)
    check(f, (np.ones((2, 2)),))


def test_average_returned_matches_eager():
    x = np.arange(12.0).reshape(3, 4) - 5
    w = np.abs(x) + 1
    check_case(average_returned, [(x, w), (x.astype(np.float32), w.astype(np.float16)), (x.astype(np.int8), w)])


def test_average_returned_with_zero_weights_raises_eagers_error():
    x = np.ones((3, 4))
    check(average_returned, (x, np.zeros((3, 4))), (x, np.ones((3, 4))))


def test_interp_period_matches_eager():
    x = np.linspace(-3, 7, 11)
    check_case(interp_period, [(x, np.array([0.5, 1.0, 2.5, 3.75])), (x.astype(np.float32), np.array([3.0, 0.0, 1.0]))])


def test_interp_period_zero_or_traced_runs_natively_with_eagers_answer():
    def f(x, p):
        return np.interp(x, x, x, period=p), np.interp(x, x, x, period=x.max())
    check(f, (np.arange(3.0), 0), (np.arange(3.0), 2.0))
