"""A ``range`` handed to a NumPy op (``U[rows, range(k)]``, ``np.take(x,
range(3))``) is the sequence of its ints to NumPy: it is captured as that
list (it broke the graph as "not a supported constant")."""
from __future__ import annotations

import numpy as np

from difftest import assert_captured_whole, check


def _svd_flip(U, Vt):
    cols = np.argmax(np.abs(U), axis=0)
    signs = np.sign(U[cols, range(U.shape[1])])
    return U * signs, Vt * signs[:, None]


def _ranges(x):
    return (x[range(2)], x[:, range(1, 3)], np.take(x, range(3)), x[range(0)], x[0] + range(x.shape[1]),
            np.zeros(range(2, 4)), np.sum(range(4)) + x)


def test_a_range_as_an_index_is_captured_and_matches_eager():
    U = np.random.default_rng(0).normal(size=(6, 3))
    assert_captured_whole(_svd_flip, U, np.ones((3, 4)))
    check(_svd_flip, (U, np.ones((3, 4))), (-U[:4], np.arange(12.0).reshape(3, 4)))


def test_ranges_in_other_argument_positions_match_eager():
    x = np.arange(12.0).reshape(3, 4)
    assert_captured_whole(_ranges, x)
    check(_ranges, (x,), (x[:2] * 2,))


def test_a_range_numpy_rejects_raises_as_eagerly():
    def f(x):
        return np.sum(x, axis=range(2))   # TypeError: 'range' object cannot be interpreted as an integer
    check(f, (np.ones((2, 3)),))
