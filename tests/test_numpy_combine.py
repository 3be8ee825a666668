"""np.select, column_stack, cross, kron, rot90 (a view), unravel_index /
ravel_multi_index, lexsort, setdiff1d / intersect1d / union1d (a
data-dependent length) and np.diff with prepend=/append=: each compared
with the undecorated function (bitwise on the NumPy backend), captured as
one graph, with NumPy's errors where eager NumPy raises."""

from __future__ import annotations

import numpy as np
import pytest

import sot
from difftest import assert_same, check
from ort_tolerance import assert_ort_close
from test_ir_oracle import F as op_of
from test_numpy_api_extra import one_graph

F = np.arange(12.0).reshape(3, 4) - 5
I32 = (np.arange(12, dtype=np.int32).reshape(3, 4) * 7) % 5
B = F > 0
EMPTY = np.zeros((0, 4))
OPERANDS = [F, I32, F.T.copy().T, np.float32(2.5) * F.astype(np.float32), EMPTY]
IDS = ["f64", "i32", "f64-T", "f32", "empty"]


def select_ops(a):
    return (np.select([a > 1, a < -2], [a, -a], 7), np.select([a > 1], [a * 2]),
            np.select((a[:1] > 0, a[:, :1] < 2), (1.5, a), default=a[-1:]))


def stack_ops(a):
    return (np.column_stack([a[:, 0], a[:, -1]]), np.column_stack((a, a[:, :1] * 2)),
            np.kron(a, np.eye(2, dtype=a.dtype)), np.kron(a[:, 0], a), np.kron(a.sum(), a))


def cross_ops(a):
    u = a[:, :3]
    return np.cross(u, u[::-1] + 1), np.cross(u.T, u.T * 2, axis=0), np.cross(u, u[:1] - 1, axisc=0)


def rot_ops(a):
    return np.rot90(a), np.rot90(a, 2), np.rot90(a, k=-1), np.rot90(a, 0), np.rot90(a[None], 1, axes=(2, -3))


def index_ops(a):
    flat = np.argsort(a.ravel())
    rows, cols = np.unravel_index(flat, a.shape)
    r2, c2 = np.unravel_index(flat, a.shape, order="F")
    return (rows, cols, r2, c2, np.ravel_multi_index((cols % 2, rows), (2, 3)),
            np.ravel_multi_index((rows, cols + 5), a.shape, mode="wrap"),
            np.lexsort((a[:, 0], a[:, 1])), np.lexsort(a.T[1:]), np.lexsort([a], axis=0))


def set_ops(a):
    b = (a * 2)[:, ::-1]
    return np.setdiff1d(a, b), np.intersect1d(a, b), np.union1d(a, b[:1]), np.setdiff1d(b, a, assume_unique=True)


def diff_ops(a):
    return (np.diff(a, prepend=0), np.diff(a, append=a[:, :2], axis=1), np.diff(a, 2, axis=0, prepend=a[:1] - 1,
                                                                                  append=9),
            np.diff(a, 0, prepend=5))


@pytest.mark.parametrize("a", OPERANDS, ids=IDS)
@pytest.mark.parametrize("fn", [select_ops, stack_ops, cross_ops, rot_ops, index_ops, set_ops, diff_ops])
def test_ops_match_eager_bitwise_in_one_graph(fn, a):
    check(fn, (a,), calls=2)
    one_graph(fn, a)


def test_scalars_and_0d():
    def f(a, s):
        return (np.unravel_index(s, (3, 4)), np.unravel_index(np.int32(7), (3, 4)),
                np.ravel_multi_index((s % 3, s % 4), (3, 4)), np.kron(s, a), np.lexsort([a[0]]),
                np.select([a > 0], [s], a))
    one_graph(f, F, np.int64(5))
    one_graph(f, F, np.array(5))
    check(f, (F, np.int64(11)), (F, np.array(1)))


def test_rot90_is_a_view_writes_reach_the_operand():
    def f(a):
        r = np.rot90(a)
        r[0, 1] = -100.0
        a += 1            # seen through r too
        return a, r, np.shares_memory(a, r)
    check(f, (F.copy(),), (F.T.copy(),))


def test_set_ops_of_a_data_dependent_length_feed_more_ops():
    def f(a, b):
        d = np.setdiff1d(a, b)
        return d * 2 + d.size, np.intersect1d(a, b).sum(), np.union1d(a, b).cumsum()
    x = np.array([5, 1, 3, 3, 9, 2]); y = np.array([3, 7, 9])
    one_graph(f, x, y)
    check(f, (x, y), (y, x), (x, x), (x[:0], y))  # a changed length reuses the graph


@pytest.mark.parametrize("fn", [
    lambda a: np.select([a > 0, a < 0], [a]),                         # lists of different lengths
    lambda a: np.select([a], [a]),                                    # a non-bool condition
    lambda a: np.select([a > 0], [a[:2]]),                            # shapes do not broadcast
    lambda a: np.column_stack([a, a[:2]]),
    lambda a: np.cross(a, a),                                         # 4-vectors
    lambda a: np.cross(a[:, :3] > 0, a[:, :3] > 0),                   # bool: subtract raises
    lambda a: np.kron(a, "x"),
    lambda a: np.rot90(a, axes=(1, 1)),
    lambda a: np.rot90(a[0]),
    lambda a: np.lexsort((a[0], a[1, :2])),
    lambda a: np.diff(a, prepend=a[:, :1]),                           # off-axis dims differ
    lambda a: np.diff(a, axis=0, append=a[:, :2]),
    lambda a: np.unravel_index(np.argsort(a.ravel()) + 3, a.shape),  # out of bounds: only the data says
    lambda a: np.ravel_multi_index((np.argsort(a[0]), np.argsort(a[:, 0])), (3, 3)),
    lambda a: np.setdiff1d(a, a, assume_unique=1),
])
def test_errors_are_eager_errors(fn):
    check(fn, (F,), (I32,))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "uint64", "bool"])
def test_onnx_lowers_column_stack_kron_and_select(dtype):
    pytest.importorskip("onnxruntime")
    from test_onnx_lowering import assert_backends_agree, sample
    from test_ir_oracle import Const
    x, y, v = sample((3, 4), dtype), sample((2, 3), dtype, seed=1), sample((3,), dtype, seed=2)
    cases = [(np.column_stack, ([x, v, v[:, None]],)), (np.column_stack, ((v, v),)),
             (np.kron, (x, y)), (np.kron, (v, x)), (np.kron, (y, np.ones((2, 1, 2), np.int16))),
             (np.select, ([x > x[0], x < 1], [x, v[:, None]], v[0])),
             (np.select, ((x > x[:1], Const([[True], [False], [True]])), (Const(2), x), 1.5))]
    for fn, args in cases:
        with np.errstate(all="ignore"):
            if dtype == "bool" and fn is np.select:
                args = ([x, ~x], [v[:, None], x])
            ort = assert_backends_agree(op_of(fn), *args)
            assert ort is not None


def test_onnx_backend_runs_them_within_tolerance():
    def f(a):
        return select_ops(a) + stack_ops(a) + cross_ops(a) + rot_ops(a) + index_ops(a) + diff_ops(a) + set_ops(a)
    pytest.importorskip("onnxruntime")
    static = sot.to_static(f, backend="onnxruntime")
    for a in (F.astype(np.float32), I32):
        want = f(a)
        for _ in range(2):
            got = static(a)
            assert type(got) is tuple and len(got) == len(want)
            assert_ort_close(got, want, inputs=(a,))
    assert_same(f(F), sot.to_static(f)(F), bitwise=True)


def test_rot90_of_a_large_temporary_is_never_a_reused_buffer():
    from test_numpy_buffers import check_calls, data

    def f(x):
        r = np.rot90(np.exp(x))        # a view of the exp: never buffered
        return r, np.tanh(x) * 2.0     # tanh may be
    check_calls(f, (data(),), (data(),))
