"""Counting calls (sot/executor/numpy_counts.py): ``np.count_nonzero`` without
an axis, ``np.array_equal``, ``np.array_equiv`` and ``np.allclose`` stay in
the graph as data-dependent Python numbers (NumPy >= 2.3 counts into a NumPy
integer: a registered op there); Python types, values and exceptions are
eager's, and a branch on the answer breaks where Python reads it."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, assert_same, case_params, check, check_case

rng = np.random.default_rng(3)
F = rng.standard_normal((4, 5))
F32 = F.astype(np.float32)
I = rng.integers(-2, 3, (4, 5))
B = F > 0
C = F + 1j * F[::-1]
NAN = np.where(B, np.nan, F)
EMPTY = np.zeros((0, 5))

CASES = {
    "count_nonzero": (lambda a, b: (np.count_nonzero(a), np.count_nonzero(a > 0.5), np.count_nonzero(b[0]),
                                    np.count_nonzero(a, axis=None), np.count_nonzero(a, keepdims=True),
                                    np.count_nonzero(a.sum())),
                      [(F, I), (I, B), (B, F), (C, C), (NAN, NAN), (EMPTY, F)]),
    "count_in_arithmetic": (lambda a, m: (a[m].sum(axis=0) / np.count_nonzero(m), np.count_nonzero(m) / m.size,
                                          a * np.count_nonzero(m), np.count_nonzero(m) - 1),
                            [(F, B[:, 0]), (I, B[:, 1]), (F, np.zeros(4, bool))]),
    "array_equal": (lambda a, b: (np.array_equal(a, b), np.array_equal(a, a), np.array_equal(a, a, equal_nan=True),
                                  np.array_equal(a, b, True), np.array_equal(a, b[:2]), np.array_equal(a[:0], b[:0]),
                                  np.array_equal(a, b.astype(np.float32))),
                    [(F, F.copy()), (F, F32), (I, I + 0.0), (NAN, NAN.copy()), (C, C * 1), (F, NAN), (B, I > 0),
                     (EMPTY, EMPTY)]),
    "array_equiv": (lambda a, b: (np.array_equiv(a, b), np.array_equiv(a, b[0]), np.array_equiv(a, b[:2]),
                                  np.array_equiv(a[:1], b), np.array_equiv(a, b[:, :1])),
                    [(F, F.copy()), (np.ones((4, 5)), np.ones((4, 5))), (I, I), (NAN, NAN)]),
    "allclose": (lambda a, b: (np.allclose(a, b), np.allclose(a, b + 1e-9), np.allclose(a, b, atol=0.5),
                               np.allclose(a, b, rtol=0, atol=0), np.allclose(a, b, equal_nan=True),
                               np.allclose(a, b[-1:]), np.allclose(a, 0.0 * b), np.allclose(a, 0.1),
                               np.allclose(1, b, atol=3.0), np.allclose(a.astype(np.float32), 0.1, rtol=0)),
                 [(F, F.copy()), (F, F32), (NAN, NAN.copy()), (I, I), (C, C), (EMPTY, EMPTY)]),
    "fft_round_trip": (lambda x: (np.allclose(np.fft.irfft(np.fft.rfft(x), n=x.size), x),
                                  np.array_equal(np.sort(x), np.sort(np.sort(x)))), [(F[0],), (F32[1],)]),
}


@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_matches_eager_bitwise_and_is_captured_whole(fn, arg_sets):
    check_case(fn, arg_sets)


def test_a_branch_on_the_answer_breaks_there_and_is_right():
    def f(a, b):
        c = a * 2
        if np.allclose(c, b):
            return c, "close"
        n = np.count_nonzero(c > 0)
        if n:
            return c / n, n
        return c, -1

    check(f, (F, F * 2), (F, F), (-np.abs(F), F))
    report = sot.explain(sot.to_static(f, min_graph_size=0), F, F)
    # the answers are graph values: each break is at a branch on one, none at the calls
    assert [b.source for b in report.breaks] == ["if np.allclose(c, b):", "if n:"], [str(b) for b in report.breaks]


def test_shapes_decide_without_reading_data():
    def f(a, b):
        return np.array_equal(a, b), np.array_equiv(a, b), a + 1
    report = assert_captured_whole(f, F, V := rng.standard_normal(3))
    check(f, (F, V), (F, F[:, :1]), (F[:1], F))
    assert report.graph_count == 1


@pytest.mark.parametrize("form", [
    lambda a, b: np.allclose(a, b[:, :2]),          # shapes do not broadcast: ValueError
    lambda a, b: np.allclose(a, b, rtol=[1, 2]),    # rtol does not broadcast
    lambda a, b: np.count_nonzero(a, axis=2),       # AxisError
    lambda a, b: np.array_equal(a),                 # a missing argument: TypeError
    lambda a, b: np.array_equiv(a, b, b),           # too many arguments: TypeError
])
def test_invalid_calls_raise_eagers_error(form):
    check(form, (F, F))


def test_other_forms_still_match_eager():
    def f(a, b):
        return (np.array_equal([1, 2], [1, 2]), np.array_equal(a, a.tolist()), np.allclose(a, a.tolist()),
                np.count_nonzero([0, 1, 2]), np.array_equiv(a, 1.0))
    check(f, (F, F), (np.ones((2, 2)), F))


def test_symbolic_shapes():
    def f(a, b):
        return np.array_equal(a, b), np.array_equal(a, a), np.allclose(a, a * 1.0), np.count_nonzero(a)
    static = sot.to_static(f)
    for n in (3, 4, 5, 6, 7):
        x = rng.standard_normal((n, 2))
        for args in ((x, x.copy()), (x, x[:-1]), (x, x + 1)):
            assert_same(f(*args), static(*args))


@pytest.mark.parametrize("backend", ["onnxruntime", "auto"])
def test_other_backends(backend):
    def f(a, b):
        return np.count_nonzero(a > 0), np.array_equal(a, b), np.allclose(a, b, atol=1e-3), np.array_equiv(a, b[0])
    static = sot.to_static(f, backend=backend)
    for args in ((F32, F32.copy()), (F32, F32 + 1), (F32, np.ones((4, 5), np.float32))):
        assert f(*args) == static(*args)


def test_save_refuses_what_onnx_cannot_count(tmp_path):
    def f(x):
        return x * np.allclose(x, 1.0)
    with pytest.raises(Exception, match="no exact ONNX lowering"):
        sot.save(f, tmp_path / "m.onnx", input_spec=[sot.InputSpec((6,), "float32", "x")])
