"""Hostile use, round 3: a list of numbers of changing length (a graph input
converted by the runner, executor/list_data.py) whose symbolic length the
trace took as one dim with an array's (duck sizing: equal sizes at trace
time). The guard that they stay equal could not be compiled (the list's
array has no load in the guard program): an internal TypeError leaked to
the caller ('AsArrayTracker has no load op'). The guard now reads the
list's length (guards/guard.py DimEqualGuard)."""
from __future__ import annotations

import numpy as np

from difftest import check


def _scaled_by_a_dim(x, xs):
    return np.asarray(xs) * x.shape[0], x * 2


def _added(x, xs):
    return x + np.asarray(xs)


def _two_lists(xs, ys):
    return np.asarray(xs) + np.asarray(ys)


_SIZES = [(2, 2), (3, 3), (4, 3), (4, 5), (4, 4), (4, 1), (1, 2), (5, 5), (3, 2)]


def test_a_list_length_tied_to_an_array_dim_is_guarded():
    for fn in (_scaled_by_a_dim, _added):
        check(fn, *[(np.arange(float(n)), list(range(1, m + 1))) for n, m in _SIZES], calls=1)


def test_two_lists_of_tied_lengths_are_guarded():
    check(_two_lists, *[(list(range(n)), list(range(10, 10 + m))) for n, m in _SIZES], calls=1)

