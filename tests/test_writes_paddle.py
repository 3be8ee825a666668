"""Paddle SOT's in-place tests (test/sot/test_inplace_api.py and the
in-place cases of its other tests), rewritten in NumPy: functions that
update arrays in place in branches and loops, through views, items of
lists and elements.  Each is captured as one graph with no break, and
behaves as eagerly (test_writes.differential: results, arguments
afterwards, views made before the call, identity of returned arrays)."""
from __future__ import annotations

import numpy as np
import pytest

from test_writes import BACKENDS, differential, no_breaks


def simple(x, y):
    x[0] = 3.0
    z = [y]
    y[1] = 5.0
    return x[0] + x[1] + z[0][1] + y[0] + y[1]


def inplace_in_if(x, y, z):
    if z:
        x[0] = 3.0
        z = [y]
        y[1] = 5.0
        ret = x[0] + x[1] + z[0][1] + y[0] + y[1]
        return ret
    return None


def inplace_in_loop(x, y):
    ret = np.float32(0)
    for i in range(10):
        x[0] = 1
        x[1] = 2
        y[0] = 2
        y[1] = 3
        ret += x[0] + x[1] + y[0] + y[1]
    return ret


def inplace_case_0(x):
    x[:] = 1.0
    return x


def inplace_case_1(x):
    x[0][0, 0::2] = 1.0
    return x


def inplace_case_2(x):
    t = x[0]
    t[:, 0::2] = t[:, 0::2] * 0
    x[1:2] = t
    return x


def inplace_operators(x, y):
    x += y
    x -= 1.0
    x *= y
    x /= 2.0
    x **= 2
    return x, x.sum()


def inplace_through_a_list(xs, y):
    for x in xs:
        x += y
    xs[0][1:] *= 2.0
    return xs


def inplace_in_nested_branches(x, y, mode):
    if mode == "add":
        x += y
    elif mode == "clip":
        np.clip(x, 0.2, 0.8, out=x)
    else:
        x[x > 0.5] = 0.0
    for i in range(2):
        if i == 0:
            x[i] = -1.0
        else:
            np.add(x, y, out=x)
    return x


def _x(shape=(4, 6), seed=0):
    return np.random.default_rng(seed).random(shape).astype(np.float32)


CASES = [
    (simple, lambda: ((_x((4,)), _x((4,), 1)), ())),
    (inplace_in_if, lambda: ((_x((4,)), _x((4,), 1), True), ())),
    (inplace_in_loop, lambda: ((_x((4,)), _x((4,), 1)), ())),
    (inplace_case_0, lambda: (lambda x: ((x,), (x[1:],)))(_x())),
    (inplace_case_1, lambda: (lambda x: ((x,), (x[0],)))(_x((3, 4, 6)))),
    (inplace_case_2, lambda: (lambda x: ((x,), (x[1],)))(_x((3, 4, 6)))),
    (inplace_operators, lambda: (lambda x: ((x, _x(seed=1)), (x[::2],)))(_x())),
    (inplace_through_a_list, lambda: (lambda a, b: (([a, b], _x(seed=3)), (a[1:], b.T)))(_x(), _x(seed=2))),
    (inplace_in_nested_branches, lambda: ((_x(), _x(seed=1), "add"), ())),
    (inplace_in_nested_branches, lambda: ((_x(), _x(seed=1), "clip"), ())),
    (inplace_in_nested_branches, lambda: ((_x(), _x(seed=1), "mask"), ())),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make", CASES, ids=[f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(CASES)])
def test_paddle_inplace_functions_are_one_graph_and_exact(fn, make, backend):
    differential(fn, make, backend)
    no_breaks(fn, *make()[0])


def test_the_branch_that_writes_nothing_runs_as_eagerly():
    differential(inplace_in_if, lambda: ((_x((4,)), _x((4,), 1), False), ()))
