"""``np.r_`` with number scalars among 1-d arrays (``np.r_[0, np.cumsum(x)]``),
``np.s_`` and ``np.index_exp`` stay in the graph (sot/executor/numpy_forms.py):
the result dtype is NumPy's ``result_type`` of the items with Python numbers
weak, as AxisConcatenator computes it; a Python int the result dtype cannot
hold raises eager's OverflowError (natively)."""
import numpy as np
import pytest

from difftest import case_params, check, check_case

A = np.linspace(-1, 1, 5)
B = np.arange(4)


def r_with_scalars(a, b):
    return (np.r_[0, np.cumsum(a)], np.r_[a, 0.5, b], np.r_[b, 0.5], np.r_[b, 300], np.r_[a, np.float32(1.5)],
            np.r_[b, a.sum()], np.r_[True, a > 0], np.r_[1j, a], np.r_[b.astype(np.int8), 5],
            np.r_[a.astype(np.float32), 2.0, b[0]], np.r_[b.astype(np.uint8), np.int16(-1)], np.r_[3], np.r_[b, a[0]])


def index_expressions(a):
    return a[np.s_[1:3]], np.s_[::2], np.index_exp[1:2], a[np.index_exp[2:]], np.s_[a] is a, np.index_exp[0, 1]


@pytest.mark.parametrize("fn, arg_sets", case_params({
    "r_with_scalars": (r_with_scalars, [(A, B), (-A, B * 7)]),
    "index_expressions": (index_expressions, [(A,), (B,)]),
}))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


def test_an_int_the_result_dtype_cannot_hold_raises_eagers_error():
    check(lambda b: np.r_[b.astype(np.int8), 300], (B,))


def test_scalars_with_2d_arrays_and_slices_run_natively():
    check(lambda a: np.r_[a[None], 1.0], (A,))
    check(lambda a: np.r_[a, 1, 2:4], (A,))
    check(lambda a: np.r_["0,2", a, a], (A,))
