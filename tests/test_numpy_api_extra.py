"""More NumPy API through the decorator: np.ndindex / np.ndenumerate loops
and a.flat reads (unrolled over the guarded shape), np.put_along_axis (a
write), np.linalg.lstsq (residuals of a data-dependent length) — each
compared with the undecorated function and captured as one graph."""

from __future__ import annotations

import numpy as np
import pytest

import sot
from difftest import assert_same, check

A = np.arange(6.0).reshape(2, 3) - 2
OPERANDS = [(A,), (A.T,), (A.astype(np.float32),), (np.arange(6).reshape(3, 2),), (np.zeros((0, 3)),),
            (np.array(4.5),)]


def one_graph(fn, *args):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), *args)
    assert not report.breaks, [str(b) for b in report.breaks]
    assert report.graph_count <= 1
    assert_same(fn(*args), report.result, bitwise=True)
    return report


@pytest.mark.parametrize("args", OPERANDS, ids=lambda a: f"{a[0].dtype}{list(a[0].shape)}")
def test_ndindex_and_ndenumerate_loops(args):
    def f(a):
        total = a.sum() * 0
        for idx in np.ndindex(a.shape):
            total = total + a[idx] * (sum(idx) + 1)
        items = []
        for idx, v in np.ndenumerate(a):
            items.append((idx, v - 1))
        return total, items, list(np.ndindex(2, 1)), list(np.ndindex(()))
    check(f, args)
    one_graph(f, *args)


@pytest.mark.parametrize("args", OPERANDS, ids=lambda a: f"{a[0].dtype}{list(a[0].shape)}")
def test_flat_reads(args):
    def f(a):
        out = [v * 2 for v in a.flat]
        if a.size:
            out += [a.flat[0], a.flat[-1], a.flat[1:3], a.flat[[0, a.size - 1]], a.flat[::-2]]
        return out
    check(f, args)
    one_graph(f, *args)


def test_flat_slices_are_copies_and_errors_are_eager():
    def f(a):
        b = a.flat[0:2]
        b += 1            # a copy: a is unchanged
        return a, b
    check(f, (A.copy(),), (A.T.copy(),))
    one_graph(f, A.copy())
    check(lambda a: a.flat[10], (A,))               # IndexError, as eagerly
    check(lambda a: type(a.flat).__name__, (A,))    # the iterator itself runs natively
    assert type(sot.to_static(lambda a: a.flat)(A)) is np.flatiter


def test_loops_over_symbolic_dims_specialise():
    def f(a):
        return [v for _, v in np.ndenumerate(a)], [i for i in np.ndindex(a.shape)], [v for v in a.flat]
    static = sot.to_static(f)
    for n in (2, 3, 4, 3):
        x = np.arange(n * 2.0).reshape(n, 2)
        assert_same(f(x), static(x), bitwise=True)


def test_loops_over_a_data_dependent_size_break():
    def f(a):
        return [v for v in a[a > 0].flat]
    check(f, (A,), (-np.abs(A),))
    report = sot.explain(sot.to_static(f, min_graph_size=0), A)
    assert any("known only at run time" in str(b) for b in report.breaks)


@pytest.mark.parametrize("case", ["axis 1", "axis 0 broadcast", "values array", "transposed", "int target"])
def test_put_along_axis(case):
    def f(a, i, v, axis):
        b = a * 1
        np.put_along_axis(b, i, v, axis)
        return b + 1, np.argmax(b, axis=axis)
    a = np.arange(12.0).reshape(3, 4)
    args = {"axis 1": (a, np.array([[0], [3], [1]]), 9.0, 1),
            "axis 0 broadcast": (a, np.array([[2, 0, 1, 1]]), -1.0, 0),
            "values array": (a, np.array([[0, 1], [3, 3], [1, 2]]), np.array([[1.0], [2.0], [3.0]]), 1),
            "transposed": (a.T, np.array([[0, 2, 1, 0]]).T, 2.0, 1),
            "int target": (np.arange(12).reshape(3, 4), np.array([[1], [0], [3]]), 7.5, 1)}[case]
    check(f, args)
    one_graph(f, *args)


def test_put_along_axis_errors_and_input_targets():
    def g(a, i):
        np.put_along_axis(a, i, 0.0, axis=1)
        return a
    a = np.arange(12.0).reshape(3, 4)
    check(g, (a.copy(), np.array([[0], [1], [2]])), (a.copy(), np.array([[0], [9], [2]])),   # IndexError at run time
          (a.copy(), np.array([0, 1])), (a.copy(), np.array([[0.5]])))                     # ValueError / IndexError
    one_graph(g, a.copy(), np.array([[0], [1], [2]]))


@pytest.mark.parametrize("case", ["full rank", "rank deficient", "wide", "matrix rhs", "float32"])
def test_lstsq_residuals_have_a_data_dependent_length(case):
    rng = np.random.default_rng(3)
    a = rng.random((6, 3))
    deficient = a.copy()
    deficient[:, 2] = deficient[:, 0]
    args = {"full rank": (a, rng.random(6)), "rank deficient": (deficient, rng.random(6)),
            "wide": (a.T, rng.random(3)), "matrix rhs": (a, rng.random((6, 2))),
            "float32": (a.astype(np.float32), rng.random(6).astype(np.float32))}[case]

    def f(a, b):
        x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
        return x, res, rank, s, res.sum() + s[0], np.linalg.lstsq(a, b, rcond=None)
    check(f, args)
    one_graph(f, *args)
    check(f, (a, rng.random(5)))   # LinAlgError, as eagerly
