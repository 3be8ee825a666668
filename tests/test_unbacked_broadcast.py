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
    return x[x > 0] * y[y > 0]


def test_two_data_dependent_sizes_still_break_and_match():
    a, b = np.array([1., -1, 2]), np.array([3., 4, -1])
    check(two_masks, (a, b), (a, np.array([1., -1, -1])), (a, np.array([1., 2, 3])))
    report = sot.explain(sot.to_static(two_masks, min_graph_size=0), a, b)
    assert report.breaks


def derived_size(x, w):
    s = x[x > 0]
    return s[1:] * w


def test_a_size_derived_from_a_data_dependent_one_is_not_assumed():
    x = np.array([1., 2, 3, 4, 5, 6, -1])
    check(derived_size, (x, np.arange(5.)), (np.array([1., 2, -1]), np.arange(5.)))
