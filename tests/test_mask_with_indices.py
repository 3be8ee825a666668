"""A boolean mask beside ints and slices in one index (``S[itm, t]``,
``X[:, keep]``, ``V[mask, 1:]``) is captured as NumPy reads it: the mask is
the positions of its Trues, one index array per axis it masks, so the
result has one data-dependent axis where NumPy's rule for index arrays
puts it. Selections by one mask share their size (``S[itm, t] - cash[itm]``,
``np.flatnonzero(itm)[sel > 0]``); selections that may hold 0 or 1 elements
behave as eagerly."""
from __future__ import annotations

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, case_params, check


def _in_the_money(S, cash, K, t):
    itm = K - S[:, t] > 0
    x = S[itm, t]                     # the mask, then an int: one axis
    gain = K - x - cash[itm]          # the same mask: the same size
    pos = gain > 0
    idx = np.flatnonzero(itm)[pos]    # positions of the rows where it pays
    out = cash.copy()
    out[idx] = (K - x)[pos]
    return x, gain, idx, out


def _columns(X, keep):
    return X[:, keep], X[1:, keep], X[-1, keep] * X[0, keep], X[2, keep.nonzero()[0]]


def _three_d(V, mask):
    return V[mask, 1:], V[0, mask], V[mask, :, -1], V[:, mask, 0]


def _two_d_mask(V, m):
    return V[m, 0], V[m], V[m, 1:].sum(axis=0)


def _rng(seed=0):
    return np.random.default_rng(seed)


S = 40.0 * np.exp(np.cumsum(0.1 * _rng().standard_normal((30, 6)), axis=1))
X = _rng(1).standard_normal((5, 7))
V = _rng(2).standard_normal((4, 4, 3))

CASES = {
    "mask_then_int": (_in_the_money, [(S, S[:, -1].copy(), 40.0, 3), (S, S[:, -1].copy(), 40.0, 4),
                                      (S[:9], S[:9, -1].copy(), 10.0, 2),      # nothing in the money
                                      (S[:1], S[:1, -1].copy(), 1e3, -1)]),    # one row, a negative column
    "slice_then_mask": (_columns, [(X, X[0] > 0), (X[:, ::-1].copy(), X[0] > 0), (X, X[0] > 9)]),
    "mask_beside_slices_and_ints": (_three_d, [(V, np.array([True, False, True, True])),
                                               (V[:, :, :2], np.array([False, True, False, False])),
                                               (V[:, :3], np.array([True, True, True, False]))]),   # raises
    "two_d_mask_then_int": (_two_d_mask, [(V, V[..., 0] > 0), (V, V[..., 0] > 5)]),
}


@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_a_mask_among_ints_and_slices_matches_eager(fn, arg_sets):
    check(fn, *arg_sets, calls=2)


def test_the_selection_and_what_uses_it_are_one_graph():
    assert_captured_whole(_in_the_money, S, S[:, -1].copy(), 40.0, 3)
    assert_captured_whole(_columns, X, X[0] > 0)
    assert_captured_whole(_three_d, V, np.array([True, False, True, True]))


def test_a_loop_counter_as_the_int_keeps_one_translation_per_shape():
    static = sot.to_static(_in_the_money)
    for t in range(6):
        report = sot.explain(static, S, S[:, -1].copy(), 40.0, t)
        assert not report.breaks, [str(b) for b in report.breaks]
    check(_in_the_money, *[(S, S[:, -1].copy(), 40.0, t) for t in range(6)], calls=1, static=static)


def test_an_out_of_bounds_int_or_a_wrong_mask_raises_as_eagerly():
    def f(S, m, t):
        return S[m, t]
    check(f, (S, S[:, 0] > 40, 2), (S, S[:, 0] > 40, 6), (S, S[:, 0] > 40, -7), (S, S[:5, 0] > 40, 1),
          (S, S[:, 0] > 1e9, 9))
    def g(S, m, i):
        return S[m, i]   # two index arrays beside a mask: not captured, runs as eagerly
    check(g, (S, S[:, 0] > 40, np.array([0, 1])))
