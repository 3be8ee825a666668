"""Broadcasting a size known only at run time (np.bincount, a boolean mask)
against a static one: captured where that is valid (the size is the static
one, or 1), and eager's own error where it is not (difftest.check compares
the exception's type and text)."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

rng = np.random.default_rng(0)
X = rng.standard_normal((10, 2))


def kmeans_step(x, labels):
    k = 3
    counts = np.bincount(labels, minlength=k)
    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, labels, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts[:, None], counts * 2


def test_kmeans_centroids_divide_by_bincount_counts_in_one_graph():
    assert_captured_whole(kmeans_step, X, rng.integers(0, 3, 10))


@pytest.mark.parametrize("labels", [rng.integers(0, 3, 10), np.zeros(10, np.int64),    # counts of size 3
                                    np.full(10, 4), np.array([0, 1, 5] + [0] * 7)])   # size 5, 6: eager raises
def test_kmeans_counts_of_another_size_raise_eagers_error(labels):
    check(kmeans_step, (X, labels))


def test_kmeans_with_no_points_raises_as_eager():
    check(kmeans_step, (X[:0], np.zeros(0, np.int64)))


def masked_against_weights(x, w):
    s = x[x > 0]
    return s * w, w - s, np.where(s > 1, s, w)


@pytest.mark.parametrize("x", [np.array([1., -1, 2, 3, -5, 4, 6]),   # 5 selected: matches w
                               np.array([1., -1, -2]),                # 1 selected: broadcasts
                               np.array([-1., -1, -2]),               # 0 selected: eager raises
                               np.array([1., -1, 2])])                # 2 selected: eager raises
def test_masked_selection_broadcast_against_a_static_vector(x):
    check(masked_against_weights, (x, np.arange(5.)))


def test_masked_selection_broadcast_is_captured_whole():
    assert_captured_whole(masked_against_weights, np.array([1., -1, 2, 3, -5, 4, 6]), np.arange(5.))


def test_backends_agree_on_the_runtime_broadcast():
    labels = rng.integers(0, 3, 10)
    eager = kmeans_step(X, labels)
    for backend in ("onnxruntime", "auto"):
        got = sot.to_static(kmeans_step, backend=backend)(X, labels)
        for e, g in zip(eager, got):
            assert e.dtype == g.dtype and e.shape == g.shape
            np.testing.assert_allclose(g, e, rtol=1e-6, equal_nan=True)


def two_masks(x, y):
    r = x[x > 0] * y[y > 0]
    return r, r.sum(), r + 1, np.cumsum(r)


@pytest.mark.parametrize("b", [np.array([3., 4, -1]),       # 2 and 2 selected
                               np.array([1., -1, -1]),      # 2 and 1: broadcasts
                               np.array([1., 2, 3]),        # 2 and 3: eager raises
                               np.array([-1., -1, -1])])    # 2 and 0: eager raises
def test_two_data_dependent_sizes_broadcast_where_eager_does(b):
    check(two_masks, (np.array([1., -1, 2]), b))


def test_two_data_dependent_sizes_of_one_or_none():
    check(two_masks, (np.array([-1., 1]), np.array([-1., -2])), (np.array([-1., 1]), np.array([5., 6, 7])),
          (np.array([-1., -1]), np.array([5., -6])))


def test_two_data_dependent_sizes_are_captured_whole():
    assert_captured_whole(two_masks, np.array([1., -1, 2]), np.array([3., 4, -1]))


def masks_of_one_array(x):
    return x[x > 0] + x[x > 1]


def test_two_selections_of_one_array_broadcast_as_eager():
    check(masks_of_one_array, *[(np.array(v),) for v in ([1.0, -2.0, 3.0, 4.0, 5.0], [-1.0, 2.0], [-1.0, 1.5, 1.2],
                                                        [-1.0, -2.0], [2.0, 0.5], [0.5, 2.0, 3.0])])
    assert_captured_whole(masks_of_one_array, np.array([-1.0, 1.5, 1.2]))


def per_station(station, temp):
    """A weather-data program: per-station means from np.unique's inverse and counts."""
    ids, inv, counts = np.unique(station, return_inverse=True, return_counts=True)
    mean_t = np.bincount(inv, weights=temp) / counts
    order = np.argsort(-mean_t, kind="stable")
    return ids[order], mean_t[order], counts[order]


def test_bincount_of_an_inverse_divided_by_counts_in_one_graph():
    station, temp = np.array([3, 1, 3, 2, 1, 3]), np.arange(6.0)
    check(per_station, (station, temp), (station[:1], temp[:1]), (station[:0], temp[:0]))
    assert_captured_whole(per_station, station, temp)


def two_masks_in_two_dims(x, y):
    a, b = x[x[:, 0] > 0], y[y[:, 0] > 0]
    return a[:, None, :] + b[None, :, :1]


def test_data_dependent_sizes_on_different_axes_are_not_merged():
    x = np.array([[1., 2], [-1, 3], [2, 2]])
    check(two_masks_in_two_dims, (x, x[::-1]), (x, -x))


def derived_size(x, w):
    s = x[x > 0]
    return s[1:] * w


def test_a_size_derived_from_a_data_dependent_one_is_not_assumed():
    x = np.array([1., 2, 3, 4, 5, 6, -1])
    check(derived_size, (x, np.arange(5.)), (np.array([1., 2, -1]), np.arange(5.)))
