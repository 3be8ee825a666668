"""Client programs, fourth set (benchmarks/client_programs4.py: a Kalman
filter with an RTS smoother, k-means++ with a tolerance, a 2-D wave solver
with reflecting edges, Adam on mini-batches, conv / pool / batch-norm,
a Monte-Carlo Asian option, PageRank over an edge list, a dict-of-columns
pipeline, a model class with ``__call__``, recursive merge sort and
quadtree, a generator data loader, Crank-Nicolson with a Thomas sweep)
decorated as users decorate them give eager's results bitwise, eager's
stdout, the same random numbers consumed, and do to their arguments what
eager does; over two sizes and two seeds."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import client_programs4 as CP4  # noqa: E402
from test_client_programs import assert_program_matches  # noqa: E402


@pytest.mark.parametrize("name", list(CP4.PROGRAMS))
def test_client_program_decorated_is_eager_bitwise(name):
    assert_program_matches(CP4.PROGRAMS, name)


# -- a decorated __call__ called as self(x) in another decorated method is inlined ----------

import numpy as np  # noqa: E402

import sot  # noqa: E402
from difftest import assert_captured_whole, assert_same, check  # noqa: E402
from sot.executor import small_loops  # noqa: E402


class _Scaled:
    def __init__(self, w):
        self.w = w

    @sot.to_static
    def __call__(self, x):
        return x * self.w

    def twice(self, x):
        return self(x) + self(x + 1.0)


def test_a_decorated_call_dunder_is_inlined_where_the_object_is_called():
    # model(x) inside a decorated training step: the to_static wrapper on
    # the class was 'not a plain function' and broke the graph there
    m, x = _Scaled(np.arange(3.0)), np.ones(3)
    assert_captured_whole(_Scaled.twice, m, x)
    check(_Scaled.twice, (m, x), (_Scaled(np.full(3, 2.0)), x))


# -- a trace that unrolls a long loop over array elements gives up early ---------------------

def _thomas(b, c, d):
    n = len(d)
    cp, dp = np.empty(n), np.empty(n)
    cp[0], dp[0] = c[0] / b[0], d[0] / b[0]
    for i in range(1, n):
        m = b[i] - cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - dp[i - 1]) / m
    x = np.empty(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def _tridiag(n):
    return np.full(n, 4.0), np.full(n, -1.0), np.linspace(0.0, 1.0, n)


def test_a_long_element_loop_runs_natively_with_its_reason():
    long = _tridiag(small_loops.LIMIT)   # well over LIMIT element operations
    report = sot.explain(sot.to_static(_thomas), *long)
    assert [b.category for b in report.breaks] == ["limit"], [str(b) for b in report.breaks]
    assert "tiny values" in str(report.breaks[0])
    check(_thomas, long, _tridiag(small_loops.LIMIT + 7))


def _kalman(zs, F, H, q, r):
    x, P = np.zeros(len(F)), np.eye(len(F))
    xs = np.empty((len(zs), len(F)))
    for k, z in enumerate(zs):   # a whole filter: a few 3x3 operations per step
        x, P = F @ x, F @ P @ F.T + q
        S = H @ P @ H.T + r
        K = P @ H.T / S
        x = x + K @ (z - H @ x)
        P = P - K @ H @ P
        xs[k] = x
    return xs, P


def test_a_long_loop_over_small_matrices_runs_natively():
    F = np.array([[1.0, 0.1, 0.0], [0.0, 1.0, 0.1], [0.0, 0.0, 1.0]])
    H = np.array([[1.0, 0.0, 0.0]])
    zs = np.sin(np.arange(small_loops.LIMIT) * 0.1).reshape(-1, 1)
    report = sot.explain(sot.to_static(_kalman), zs, F, H, 1e-3, 0.25)
    assert [b.category for b in report.breaks] == ["limit"], [str(b) for b in report.breaks]
    check(_kalman, (zs, F, H, 1e-3, 0.25), (zs[:40], F, H, 1e-2, 0.5), calls=2)
    big = np.eye(5) + 0.01   # values of 25 elements are not tiny: the loop is captured
    assert_captured_whole(_kalman, zs[:40], big, np.ones((1, 5)), 1e-3, 0.25)


def test_a_short_element_loop_and_element_work_among_array_work_stay_captured():
    assert_captured_whole(_thomas, *_tridiag(8))

    def mostly_arrays(X, v):
        for i in range(len(v)):   # more element ops than LIMIT, each beside array work
            X = X * v[i] + X.mean(axis=0)
            v[i] = v[i] * 0.5
        return X, v
    args = (np.ones((8, 5)), np.linspace(1.0, 2.0, small_loops.LIMIT // 2 + 8))
    assert_captured_whole(mostly_arrays, *args)
    check(mostly_arrays, args, calls=2)


# -- a list comprehension in a loop whose body breaks (3.12+ inline it) ---------------------

def _lloyd(X, C, tol=1e-6, max_iter=20):
    # k-means with a data-dependent test in its comprehension and a tolerance
    # break: on 3.12+ the comprehension's cleanup handler made the loop body
    # "a try block", so the whole function ran natively
    for it in range(max_iter):
        d = ((X[:, None, :] - C[None]) ** 2).sum(axis=2)
        labels = np.argmin(d, axis=1)
        new = np.array([X[labels == j].mean(axis=0) if np.any(labels == j) else C[j] for j in range(len(C))])
        shift = np.abs(new - C).max()
        C = new
        if shift < tol:
            break
    return C, labels, it


def _shadowing(xs, j):
    out = []
    for x in xs:
        row = [x * j for j in range(3)]   # `j` of the comprehension: the argument is restored after it
        out.append(sum(row) + j)
        if row[-1].sum() > 4:
            break
    return out, j


def _raising(xs, n):
    total = 0.0
    for x in xs:
        total = total + sum([x[j] for j in range(n)])   # IndexError inside the comprehension
        if total.sum() > 100:
            break
    return total


def test_a_loop_whose_body_holds_a_comprehension_keeps_graphs_around_its_break():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 2)) + np.repeat(np.eye(2) * 5, 30, axis=0)
    report = sot.explain(sot.to_static(_lloyd), X, X[:3].copy())
    assert report.graph_count >= 1 and not [b for b in report.breaks if "try/with" in str(b)]
    check(_lloyd, (X, X[:3].copy()), (X[:40], X[5:7].copy()), (X, X[:3].copy(), 0.5))
    xs = [np.full(2, v) for v in (0.1, 0.2, 1.0, 3.0)]
    check(_shadowing, (xs, 7), (xs[:2], "kept"))
    check(_raising, ([np.arange(3.0)] * 4, 3), ([np.arange(3.0)] * 4, 4), ([np.arange(8.0)] * 9, 8))


def test_full_graph_and_export_trace_a_long_element_loop_whole():
    # they ask for the graph whatever it costs: the limit is a translation's choice
    long = _tridiag(small_loops.LIMIT)
    assert_same(_thomas(*long), sot.to_static(_thomas, full_graph=True)(*long), bitwise=True)
    from sot.executor.function_graph import FunctionGraph
    assert FunctionGraph("g").tiny_limit is None   # as export/trace.py makes it
