"""A Python number that changes between calls (a graph input once it has
varied, executor/scalar_policy.py) and steers a result's size that the two
worlds of ir/symbolic.py see as the same: a clamp (`x[:n]` past the end for
the traced `n` and its far-away shadow) or a number whose two values
coincide (`(n - 1) // 2 % 2`). The size must not be baked into the trace
as a constant: the op is probed with the number moved (ir/number_probe.py)
and the trace redone with the number specialised. Before, `.shape[0]` of
such a result was the traced size on every later call (wrong answer).
A dim made from such a number has no `size >= 2` guard: `x[:n].squeeze()`
with `n` 1 drops it; an op that decides differently with those dims at 1
breaks the graph (NumPy runs it on the real sizes) instead of
specialising the number, which would translate once per value."""
import numpy as np
import pytest

import sot
from difftest import assert_same

X = np.arange(24, dtype=np.float32).reshape(4, 6)
STATE = {"n": 0}


def clamp_rows(x):
    return x[:STATE["n"]].shape[0], x[:STATE["n"]].sum()


def coincident_ones(x):
    k = (STATE["n"] - 1) // 2 % 2     # 0 for n = 2, and for its shadow
    a = np.ones(k + 3, dtype=np.float32)
    return a.shape[0] * x[0, 1], a.sum()


def coincident_reshape(x):
    k = (STATE["n"] - 1) // 2 % 2
    return x.reshape(k + 2, -1).shape


def coincident_expand(x):
    k = (STATE["n"] - 1) // 2 % 2
    return np.expand_dims(x, k).shape


def squeeze_rows(x):
    return x[:STATE["n"]].squeeze().shape, np.ones((STATE["n"], 2)).squeeze() * 2


def scaled(x):
    return x * STATE["n"] - STATE["n"] // 3


@pytest.mark.parametrize("fn, values", [
    (clamp_rows, (6, 7, 2, 8, 1, 5)),
    (coincident_ones, (1, 2, 3, 4, 5, 6, 7, 8)),
    (coincident_reshape, (1, 2, 3, 4, 5, 6, 7, 8)),
    (coincident_expand, (1, 2, 3, 4, 5, 6, 7, 8)),
    (squeeze_rows, (2, 3, 1, 5, 1, 4)),
])
def test_size_steered_by_a_changing_number_matches_eager(fn, values):
    static = sot.to_static(fn, min_graph_size=0)
    for n in values:
        STATE["n"] = n
        assert_same(fn(X.copy()), static(X.copy()))


def test_a_number_used_as_data_stays_one_input():
    static = sot.to_static(scaled, min_graph_size=0)
    for n in range(1, 9):
        STATE["n"] = n
        assert_same(scaled(X.copy()), static(X.copy()))
    assert sot.translation_count(static) == 2   # the first value specialised, then one entry


def squeeze_scores(x):
    s = x[:1] @ x[:STATE["n"]].T     # (1, n): a decode step's scores
    return s.squeeze().shape, s.sum()


def test_squeeze_of_a_dim_made_from_a_number_breaks_instead_of_translating_per_value():
    static = sot.to_static(squeeze_scores, min_graph_size=0)
    values = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 1, 5, 1, 3)
    for n in values:
        STATE["n"] = n
        assert_same(squeeze_scores(X.copy()), static(X.copy()))
    assert sot.translation_count(static) <= 5   # not one per value (11 of them)
