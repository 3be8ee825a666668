"""The memory a recorded write reaches (sot/ir/ops_write.py `last_write_roots`),
found by continuing the fold of the previous write instead of folding the
whole graph at each write: the same roots as the full fold at every write,
so aliasing, read-only inputs and in-place updates of arguments are eager's.
"""
from __future__ import annotations

import numpy as np
import pytest

import sot
from sot.executor import writes
from sot.ir import ops_write

from difftest import check


@pytest.fixture
def compared_with_full_fold(monkeypatch):
    """Every write's roots checked against ``write_roots`` of the whole graph."""
    seen = []
    incremental = ops_write.last_write_roots

    def both(graph):
        got = incremental(graph)
        assert got == ops_write.write_roots(graph)[-1][1]
        seen.append(got)
        return got

    monkeypatch.setattr(ops_write, "last_write_roots", both)
    assert writes.ops_write is ops_write
    return seen


def thomas(a, b, c, d):
    n = len(d)
    cp, dp = np.empty(n), np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def test_a_sweep_of_writes_into_fresh_arrays(compared_with_full_fold):
    rng = np.random.default_rng(0)
    args = (rng.random(12), 4.0 + rng.random(12), rng.random(12), rng.random(12))
    check(thomas, args, calls=2)
    assert len(compared_with_full_fold) > 20 and not any(compared_with_full_fold)   # all fresh memory


def through_views(a, x):
    t = np.zeros(3)
    t[0] = 1.0                        # fresh memory first
    v = a[1:]
    v[0] = 5.0                        # a, through a view
    w = v[::2]
    w[1] += x[0]                      # a, through a view of a view
    t[1] = a[2]
    x[1:] *= 2.0                      # the other argument
    return t, a.sum()


def test_writes_through_views_reach_the_arguments(compared_with_full_fold):
    check(through_views, (np.arange(8.0), np.ones(4)), calls=2)
    assert {name for roots in compared_with_full_fold for name in roots}   # inputs were reached


def into_read_only(a, b):
    t = np.zeros(2)
    t[0] = b[0]
    t[1] = b[1]
    a[1:][0] = 1.0                    # a read-only argument: NumPy raises
    return t


def test_a_write_into_a_read_only_argument_raises_as_eager(compared_with_full_fold):
    a = np.arange(4.0)
    a.setflags(write=False)
    static = sot.to_static(into_read_only)
    with pytest.raises(ValueError) as eager:
        into_read_only(a, np.ones(2))
    with pytest.raises(ValueError) as traced:
        static(a, np.ones(2))
    assert str(eager.value) == str(traced.value)
