"""NumPy API breadth through the decorator: introspection computed at trace
time, Python types as dtypes, ufunc methods, conversions, tuple results,
linalg/fft inside one graph — each compared with the undecorated function,
on the NumPy backend bitwise and on onnxruntime within float tolerance."""

from __future__ import annotations

import numpy as np
import pytest

import sot
from difftest import assert_same, check
from ort_tolerance import assert_ort_close

F64 = np.arange(20, dtype=np.float64).reshape(4, 5) / 7 - 1
F32 = F64.astype(np.float32)
I64 = np.arange(12).reshape(3, 4) - 5
OPERANDS = [(F64,), (F32,), (I64,), (F64.T,), (np.array(2.5),), (np.zeros((0, 3)),), (np.float32(1.5),),
            (F64 > 0,), (F64 + 1j,)]


def one_graph(fn, *args):
    """The call is captured as one graph (no break, no fallback) with eager's result."""
    report = sot.explain(sot.to_static(fn), *args)
    assert not report.breaks, [str(b) for b in report.breaks]
    assert_same(fn(*args), report.result, bitwise=True)
    return report


@pytest.mark.parametrize("args", OPERANDS, ids=lambda a: f"{a[0].dtype}{list(np.shape(a[0]))}")
def test_introspection_is_computed_at_trace_time(args):
    def f(a):
        return (np.isscalar(a), np.shape(a), np.size(a), np.ndim(a), np.iscomplexobj(a), np.isrealobj(a),
                np.issubdtype(a.dtype, np.floating), np.issubdtype(a.dtype, np.integer),
                np.result_type(a, 1.0), np.dtype(a.dtype), a + 1)
    check(f, args)
    report = one_graph(f, *args)
    assert report.op_count == 1  # only a + 1 is a graph op


@pytest.mark.parametrize("args", OPERANDS, ids=lambda a: f"{a[0].dtype}{list(np.shape(a[0]))}")
def test_python_types_and_strings_as_dtypes(args):
    def f(a):
        return a.astype(int), a.astype(float), a.astype(bool), a.astype(complex), a.astype("float32")
    check(f, args)
    one_graph(f, *args)


def test_creation_with_python_type_dtypes():
    def f(n):
        return np.zeros(n, dtype=bool), np.ones((n, 2), dtype=int), np.full(n, 3, dtype=float)
    check(f, (3,), (0,))
    one_graph(f, 4)


def test_finfo_and_iinfo_of_constants_and_of_array_dtypes():
    def f(a):
        return np.finfo(float).eps * a, np.finfo(a.dtype).eps + a, np.finfo(np.float32).max, np.iinfo(np.int8).min
    check(f, (F64,), (F32,))
    one_graph(f, F32)

    def g(a):
        return np.iinfo(a.dtype).max - a, np.iinfo(a.dtype).bits
    check(g, (I64,), (I64.astype(np.uint8),))
    check(lambda a: np.finfo(a.dtype), (I64,))  # eager raises ValueError: the frame runs natively


def test_strides_and_flags_of_inputs_are_guarded():
    def f(a):
        return a.strides, a.flags.c_contiguous, a.flags["F_CONTIGUOUS"], a.flags.forc, a * 2
    static = check(f, (F64,), (F64.T,), (F64[:, ::2],), (np.array(1.0),), (np.ones((1, 3)),))
    assert sot.translation_count(static) >= 4  # each layout is its own entry
    one_graph(f, F64.T)


def test_strides_of_computed_arrays_are_not_guessed():
    def f(a):
        return (a + 1).T.strides
    check(f, (F64,))


def test_ufunc_methods():
    def f(a, b):
        return (np.add.reduce(a), np.multiply.reduce(a, axis=1), np.maximum.reduce(a, axis=None),
                np.add.accumulate(a, axis=1), np.subtract.outer(a[0], b), np.add.reduceat(b, [0, 2, 3]),
                np.add.nin, np.add.identity)
    for args in [(F64, F64[1]), (I64, I64[0]), (F32, F32[2])]:
        check(f, args)
        one_graph(f, *args)
    check(lambda a: np.add.reduceat(a, [0, 9]), (F64[0],))  # IndexError, as eagerly
    check(lambda a: np.add.reduce(a, axis=3), (F64,))


def test_tuple_results_stay_tuples():
    def f(a, b):
        return np.meshgrid(a, b), np.tril_indices(3), np.triu_indices(4, 1, 3), np.histogram(a, 3, (-1.0, 1.0))
    check(f, (F64[0], F64[1, :3]))
    report = one_graph(f, F64[0], F64[1, :3])
    assert type(report.result[0]) is tuple


def test_dot_and_matmul_with_a_list_operand_of_a_3d_array():
    def f(a):
        return np.dot(a, [1.0, 2.0, 3.0]), a @ [1.0, 2.0, 3.0], np.dot([1, 2, 3], a[0])
    t3 = np.arange(18.0).reshape(2, 3, 3)
    check(f, (t3,), (t3.astype(np.float32),))
    one_graph(f, t3)
    check(lambda a: np.dot(a, [1.0, 2.0]), (t3,))  # not aligned: the same ValueError


def test_conversions_and_views():
    def f(a, p, q):
        return (np.asarray(a), np.asarray(a, dtype=np.float32), np.array(a), np.array([p, q]),
                np.array([[p, q], [q, p]]), np.ascontiguousarray(a), np.asfortranarray(a), a.view())
    for args in [(F64, 1.5, 2.0), (F64.T, 3, 4), (I64, 1, 2.5)]:
        check(f, args)
        one_graph(f, *args)


def test_asarray_of_an_input_is_the_input():
    def f(a):
        return np.asarray(a)
    static = check(f, (F64,))
    x = F64.copy()
    assert static(x) is x


def test_in_place_update_after_asarray_is_not_lost():
    def f(a):
        b = np.asarray(a)
        b += 1
        return a
    check(f, (F64.copy(),))


def test_linalg_and_fft_in_one_graph():
    spd = F64[:, :4].T @ F64[:, :4] + np.eye(4)

    def f(m, v):
        return (np.linalg.inv(m), np.linalg.det(m), np.linalg.solve(m, v), np.linalg.norm(m),
                np.linalg.norm(m, axis=0), np.linalg.cholesky(m), np.linalg.eigvalsh(m), np.linalg.pinv(m),
                np.linalg.matrix_power(m, 3), np.fft.fft(v), np.fft.rfft(v), np.fft.irfft(v),
                np.fft.fft2(m), np.fft.fftshift(m))
    check(f, (spd, F64[0, :4]))
    one_graph(f, spd, F64[0, :4])
    check(lambda m: np.linalg.inv(m), (np.zeros((2, 2)),))  # LinAlgError from the graph, as eagerly


def test_math_and_sorting_helpers():
    def f(a):
        return (np.angle(a), np.sinc(a), np.ptp(a, axis=0), np.nancumsum(a), np.nancumprod(a, axis=1),
                np.partition(a, 1), np.argpartition(a, 2, axis=1), np.searchsorted(np.sort(a[0]), a[1]),
                np.take_along_axis(a, np.argsort(a, axis=1), axis=1), np.percentile(a, 30),
                np.quantile(a, [0.1, 0.9], axis=0), np.cov(a), np.corrcoef(a), np.diag(a), np.diag(a[0], 1),
                np.convolve(a[0], a[1, :3]), np.correlate(a[0], a[1, :2]), np.tri(3, 4, 1, dtype=int),
                np.indices((2, 3)), np.interp(a[0], [0.0, 1.0], [2.0, 3.0]))
    for args in [(F64,), (F32,), (I64,)]:
        check(f, args)
        one_graph(f, *args)


def test_onnxruntime_runs_the_new_ops_in_numpy_segments_within_tolerance():
    def f(a, m):
        h = np.tanh(a) * 2
        return np.add.reduce(h, axis=1), np.linalg.inv(m) @ m, np.fft.rfft(h[0]).real, np.sort(h, axis=0)
    m = (F32[:, :4].T @ F32[:, :4] + np.eye(4, dtype=np.float32))
    static = sot.to_static(f, backend="onnxruntime")
    for _ in range(2):
        got = static(F32, m)
        for e, t in zip(f(F32, m), got):
            assert type(e) is type(t) and e.dtype == t.dtype and e.shape == t.shape
            assert_ort_close(t, e)


def test_index_tricks_and_multi_operand_forms():
    def f(a, b):
        return (np.c_[a, b], np.r_[a, b], np.atleast_2d(a, b), np.atleast_3d(a, b, a),
                np.c_[a[:, None], b[:, None]], np.r_[a[None], b[None]])
    for args in [(F64[0], F64[1]), (F32[0], F32[1]), (I64[0], F64[0, :4])]:
        check(f, args)
        one_graph(f, *args)
    check(lambda a: np.r_[a, 1, 2:4], (F64[0],))  # scalars and slices: natively


def test_mgrid_and_ogrid_of_int_slices():
    def f(n):
        return np.mgrid[0:n, 0:2], np.ogrid[0:n, 1:7:2], np.mgrid[1:n:2], np.mgrid[5:0:-2, 0:3, 2:4], np.ogrid[0:n]
    one_graph(f, 4)
    check(f, (3,), (5,), (0,))  # n changes: a dynamic int, whose grids run natively
    check(lambda n: np.mgrid[0:n:4j], (3,))  # complex steps: natively


def test_pad_and_sliding_window_view():
    def f(a):
        return (np.pad(a, 1), np.pad(a, ((1, 2),) * a.ndim, mode="edge"), np.pad(a, 2, mode="reflect"),
                np.pad(a, (0, 3), constant_values=7), np.lib.stride_tricks.sliding_window_view(a, 2, axis=-1),
                np.lib.stride_tricks.sliding_window_view(a, 2, axis=-1).sum(-1))
    for args in [(F64,), (I64,), (F32[0],), (F64.T,)]:
        check(f, args)
        one_graph(f, *args)
    check(lambda a: np.pad(a, 1, mode="edge"), (np.zeros((0, 3)),))  # ValueError, as eagerly


def test_decompositions_return_their_named_tuples():
    spd = F64[:, :4].T @ F64[:, :4] + np.eye(4)

    def f(m):
        r = np.linalg.eigh(m)
        u, s, vt = np.linalg.svd(m)
        q = np.linalg.qr(m)
        return (r, r.eigenvalues, r[1], u, s, vt, q, q.R, np.linalg.svd(m, compute_uv=False),
                np.linalg.qr(m, mode="r"), np.linalg.slogdet(m), np.linalg.svd(m, full_matrices=False),
                r[:1], isinstance(q, tuple))
    for args in [(spd,), (spd.astype(np.float32),), (np.stack([spd, spd]),)]:
        check(f, args)
        report = one_graph(f, *args)
        assert type(report.result[0]) is type(np.linalg.eigh(spd)) and type(report.result[-2]) is tuple

    def g(m):
        r = np.linalg.svd(m)
        print("a break")
        return r
    check(g, (F64,))
    check(lambda m: np.linalg.eigh(m), (F64,))  # not square: LinAlgError, as eagerly
