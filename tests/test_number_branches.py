"""A branch on a Python number that changes every call (a step counter) or
on a symbolic dim (a batch size) is decided by a guard on the branch's
outcome, not by specialising the value (executor/number_branches.py,
guards/predicate.py): the frame translates once per outcome, not once per
value up to the cache limit."""
from __future__ import annotations

import numpy as np
import pytest

import sot
from difftest import assert_same, check


class _Optimizer:
    def __init__(self):
        self.t = 0
        self.w = np.linspace(-1.0, 1.0, 8)

    def step(self, g):
        self.t += 1
        self.w -= 0.01 * g / np.sqrt(self.t)
        if self.t % 5 == 0:            # decay every fifth step
            self.w *= 0.5
        return self.w.sum()


def _steps(n):
    eager, traced = _Optimizer(), _Optimizer()
    static = sot.to_static(_Optimizer.step)
    g = np.arange(8.0)
    for _ in range(n):
        assert_same(_Optimizer.step(eager, g), static(traced, g), bitwise=True)
        assert_same(eager.w, traced.w, bitwise=True)
        assert eager.t == traced.t
    return static


def test_step_counter_branch_translates_once_per_outcome():
    static = _steps(30)
    assert sot.translation_count(static) <= 3      # the first value, then one per outcome
    report = sot.explain(static, _Optimizer(), np.arange(8.0))
    assert not any(g.startswith("self.t == ") for e in report.entries for g in e.guards)


def _float_threshold(x, lr):
    if lr * 10 > 1.5:
        return x * lr
    return x - lr


def _against_infinity(x, t):
    if t * 2.0 < float("inf"):        # a constant with no literal form in the guard
        return x + t
    return x - t


def _raises_for_one_value(x, n):
    if 12 // (n - 3) > 2:
        return x + n
    return x - n


def _two_numbers(x, a, b):
    if a - b > 0:                      # from two inputs: specialised, as before
        return x * a
    return x * b


def _chain(x, k):
    if k < 3:
        y = x + 1
    elif k % 2:
        y = x * 2
    else:
        y = x - 1
    return y, k * 2


X = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("fn, arg_sets", [
    (_float_threshold, [(X, 0.1), (X, 0.2), (X, 0.3), (X, 0.05), (X, float("nan")), (X, 0.25)]),
    (_raises_for_one_value, [(X, 1), (X, 2), (X, 4), (X, 3), (X, 5), (X, 9), (X, 3)]),
    (_against_infinity, [(X, 1.0), (X, 2.0), (X, 3.0), (X, float("inf")), (X, 4.0), (X, float("nan"))]),
    (_two_numbers, [(X, 1, 2), (X, 3, 2), (X, 4, 1), (X, 0, 5)]),
    (_chain, [(X, 0), (X, 1), (X, 5), (X, 6), (X, 2), (X, 7), (X, 10 ** 30), (X, -4)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_branches_on_varying_numbers_match_eager(fn, arg_sets):
    check(fn, *arg_sets, calls=2)


def test_chain_of_branches_does_not_translate_per_value():
    static = sot.to_static(_chain)
    for k in list(range(3, 40)) + [0, 1, 2]:
        assert_same(_chain(X, k), static(X, k), bitwise=True)
    assert sot.translation_count(static) <= 6


def _by_batch_size(x):
    if x.shape[0] > 6:
        y = x[:6] * 2
    else:
        y = x + 1
    if x.shape[0] % 2 == 0:
        y = y - 1
    return y.sum(0), x.shape[0] // 3


def _two_dims(x):
    if x.shape[0] > x.shape[1]:          # two dims: specialised, as before
        return x.T
    return x


def test_branches_on_a_symbolic_dim_translate_once_per_outcome():
    static = sot.to_static(_by_batch_size)
    for n in [3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 2, 6, 1, 0]:
        x = np.arange(n * 3.0).reshape(n, 3)
        assert_same(_by_batch_size(x), static(x), bitwise=True)
    assert sot.translation_count(static) <= 8      # before: one per size, then native at the cache limit
    report = sot.explain(static, np.ones((9, 3)))
    assert any(g.startswith("the branch on (x.shape[0] > 6)") for e in report.entries for g in e.guards)


def test_branches_on_dims_match_eager():
    sizes = [(n, m) for n in (2, 3, 5, 8) for m in (2, 4, 7)]
    check(_two_dims, *[(np.ones((n, m)),) for n, m in sizes], calls=1)
    check(_by_batch_size, *[(np.ones((n, 2)),) for n in (2, 3, 7, 8, 6, 12, 13)], calls=2)


# -- indices and values from data that change between calls --------------------------

def _index(x, i):
    return x[i] * 2, x[i, 1] if x.ndim > 1 else x[-i]


def _pair_index(a, i, j):
    return a[i, j] + a[j, i]


def _scalar_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        v = x[i] * 2.0
        if v > 0.5:               # a break in the body: the body is a function of i
            total += float(v)
    return total


def _after_float(x):
    t = float(x.sum())            # a break; the resume function gets t from data
    if t > 3.0:
        return x * t + t
    return x - t


def test_an_index_that_changes_every_call_is_guarded_in_bounds():
    x = np.arange(12.0).reshape(6, 2)
    static = sot.to_static(_index)
    for i in [0, 1, 2, 3, 4, 5, -1, -6, 2, 3]:
        assert_same(_index(x, i), static(x, i), bitwise=True)
    assert sot.translation_count(static) <= 3     # not one per index
    check(_index, (x, 1), (x, 2), (x, 6), (x, -7), (x, 3), (x, np.int64(2)), (x, True), calls=2)
    a = np.arange(16.0).reshape(4, 4)
    check(_pair_index, *[(a, i, j) for i, j in [(0, 1), (1, 2), (3, 0), (2, 4), (-4, 1), (1, -5), (2, 2)]],
          calls=1)


def test_loop_with_a_break_over_array_items_does_not_translate_per_item():
    static = sot.to_static(_scalar_loop)
    x = np.random.default_rng(0).random(40)
    for _ in range(3):
        assert _scalar_loop(x) == static(x)
    assert sot.translation_count(static) <= 12      # before: one body translation per index


def test_value_from_data_after_a_break_stays_an_input():
    static = sot.to_static(_after_float)
    for k in range(12):
        x = np.linspace(0.0, k / 4, 6)
        assert_same(_after_float(x), static(x), bitwise=True)
    assert sot.translation_count(static) <= 4        # before: one per value of t
