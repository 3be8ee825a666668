"""A number read from array data (``float(x.mean())``, ``int(n.sum())``) meeting
a NumPy scalar constant, ``int()`` of float data, and ``int()`` / ``float()``
of such a number stay in the graph (sot/executor/array_numbers.py); where the
value makes eager raise (``int(nan)``, ``int(inf)``) the graph raises the
same error from the same line, and where the conversion follows a write into
an argument the graph breaks there."""
import math
import warnings

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, case_params, check, check_case

F = np.array([0.25, -1.5, 3.0, 2.0])
SPECIAL = [np.array([-0.0, 0.0]), np.array([np.nan, 1.0]), np.array([np.inf, 1.0]), np.array([1e300, 1e300]),
           np.array([-2.75, 0.5]), np.array([3e18, 3e18])]


def numpy_scalar_constants(x):
    """NEP 50: the Python float is weak, the NumPy scalar decides the dtype."""
    m = float(x.mean())
    return (m * np.float32(2), np.float32(2) * m, m + np.int64(3), np.float64(1.5) / m, m < np.float16(0.5),
            np.float32(0.5) >= m, m // np.float32(0.3), m % np.float64(0.75), m * np.complex64(1j),
            m - np.bool_(True), np.float16(1) + m, m ** np.float64(2))


def int_numbers_and_numpy_scalars(x):
    n = int(x.astype(np.int64).sum())
    return n * np.int64(3), np.float32(1.5) * n, n - np.float64(0.5), n == np.int64(7), n / np.int32(4)


def int_of_float_data(x):
    n = int(x.sum())
    k = int(x[0])
    return x * n, n, k, n + k, n * 0.5


def conversions_of_data_numbers(x):
    m = float(x.mean())
    k = int(m * 10)
    n = int(x.astype(np.int64).sum())
    return k, k * x, float(n), float(n) / 3, int(-m), x * float(n)


CASES = {
    "numpy_scalar_constants": (numpy_scalar_constants, [(F,)] + [(a,) for a in SPECIAL]),
    "int_numbers_and_numpy_scalars": (int_numbers_and_numpy_scalars, [(F * 4,), (-F * 100,), (np.zeros(2),)]),
    "int_of_float_data": (int_of_float_data, [(F,)] + [(a,) for a in SPECIAL]),
    "conversions_of_data_numbers": (conversions_of_data_numbers, [(F,)] + [(a,) for a in SPECIAL]),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets[:1] + [a for a in arg_sets[1:] if _eager_returns(fn, a)])


def _eager_returns(fn, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*args)
    except (ValueError, OverflowError):
        return False
    return True


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn", [int_of_float_data, conversions_of_data_numbers])
@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_int_of_nan_and_inf_raises_eagers_error(fn, backend):
    """int(nan) is ValueError, int(inf) OverflowError: raised by the graph, message and all."""
    static = sot.to_static(fn, backend=backend)
    for x in (np.array([np.nan, 1.0]), np.array([np.inf, 1.0]), np.array([-np.inf, 0.0]), F):
        check(fn, (x,), static=static)


def test_the_error_comes_from_the_users_line():
    def f(x):
        y = x * 2
        return int(y.max())
    for fn in (f, sot.to_static(f)):
        with pytest.raises(ValueError, match="NaN") as info:
            fn(np.array([np.nan]))
        assert info.traceback[-1].statement.lines[-1].strip() == "return int(y.max())"


def test_int_of_float_data_after_a_write_into_an_argument_keeps_the_write():
    """int(nan) would come after the graph wrote into the caller's array: a break at the int()."""
    def f(x, hist):
        hist.append(float(x[1]))
        x += 1
        return x, int(x[0])
    check(f, (np.array([np.nan, 1.0]), []), (np.array([np.inf, 1.0]), []), (np.array([2.5, 1.0]), []))
    report = sot.explain(sot.to_static(f, min_graph_size=0), np.array([2.5, 1.0]), [])
    assert [b.source for b in report.breaks] == ["return x, int(x[0])"], [str(b) for b in report.breaks]


NAN, BIG = np.array([np.nan]), np.array([2 ** 63 + 2], dtype=np.uint64)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("conversion, bad, error", [
    ("int(x.sum())", (NAN, BIG), ValueError), ("int(float(x.sum()))", (NAN, BIG), ValueError),
    ("round(float(x.sum()))", (NAN, BIG), ValueError), ("int(y.sum()) * np.int64(2)", (F, BIG), OverflowError)])
def test_a_conversion_that_may_raise_after_a_write_into_an_argument_breaks_there(conversion, bad, error):
    """Its error would come from the graph (it cannot rerun natively once it wrote): the
    conversion runs natively instead, so the traceback ends at the user's own line."""
    ns = {"np": np}
    exec(f"def f(x, y):\n    y -= 1\n    return {conversion}\n", ns)
    f = ns["f"]
    good = (np.array([2.5]), np.ones(1, np.uint64))
    check(f, bad, good)
    with pytest.raises(error) as info:
        sot.to_static(f)(*[a.copy() for a in bad])
    assert info.traceback[-1].name == "f" and info.traceback[-1].lineno == 2   # 0-based: the return line
    report = sot.explain(sot.to_static(f, min_graph_size=0), *good)
    assert report.breaks, "the conversion after the write must break"


def test_a_narrow_int_scalar_that_a_value_may_overflow_breaks():
    """``n * np.int8(3)`` raises OverflowError for n past int8: not decided at trace time."""
    def f(x):
        n = int(x.sum())
        return n * np.int8(3)
    check(f, (np.array([2]),), (np.array([300]),))
    assert sot.explain(sot.to_static(f, min_graph_size=0), np.array([2])).breaks


def test_a_shape_number_meeting_a_numpy_scalar_is_unchanged():
    """Only numbers read from data take the new path; a dim still specialises as before."""
    def f(x):
        return x.shape[0] * np.float32(0.5), x.shape[0] < np.int64(3)
    check(f, (np.zeros(2),), (np.zeros(5),))
    assert_captured_whole(f, np.zeros(2))


def item_with_indices(x):
    return x.item(1), x.item(-1), x.item(0) * 2, x.item(x.size - 1)


def item_with_a_multi_index(x):
    return x.item(1, 2), x.item((0, -1)), x.item(7), x.item(-3), x.T.item(3)


@pytest.mark.parametrize("fn, arg_sets", case_params({
    "item_with_indices": (item_with_indices, [(np.arange(6.0) - 2.5,), (np.arange(5, dtype=np.int8),),
                                              (np.array([np.nan, -0.0, 2 ** 64 - 1.0]),)]),
    "item_with_a_multi_index": (item_with_a_multi_index, [(np.arange(20.0).reshape(4, 5),),
                                                          (np.arange(20, dtype=np.uint64).reshape(4, 5) * 2 ** 59,)]),
}))
def test_item_with_constant_indices_is_captured(fn, arg_sets):
    check_case(fn, arg_sets)


@pytest.mark.parametrize("call", ["x.item(100)", "x.item(-7)", "x.item(1, 2, 3)", "x.item(1.0)", "x.item((0, 9))"])
def test_item_with_bad_indices_raises_eagers_error(call):
    ns = {}
    exec(f"def f(x):\n    return {call}\n", ns)
    check(ns["f"], (np.ones((2, 3)),))


def to_lists(a):
    return a.tolist(), a.sum().tolist(), a[0].tolist(), a.astype(np.int32).tolist(), a[:0].tolist(), a.T.tolist()


def rounded(a):
    m, n = float(a.sum()), int(a.astype(np.int64).max())
    return round(m, 2), round(m), round(m, None), round(n, -1), round(m, ndigits=1), round(-m) * a, round(n)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn, arg_sets", case_params({
    "to_lists": (to_lists, [(np.arange(6.0).reshape(2, 3) - 2.5,), (np.array([[np.nan, -0.0, 1e300]]),),
                            (np.arange(6, dtype=np.uint64).reshape(3, 2) * 2 ** 61,)]),
    "rounded": (rounded, [(np.array([1.2345, 2.5]),), (np.array([0.5, 0.0]),), (np.array([-2.5, 1e300]),),
                          (np.array([-0.0]),)]),
}))
def test_tolist_and_round_are_captured(fn, arg_sets):
    check_case(fn, arg_sets)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_round_of_nan_and_inf_raises_eagers_error():
    for x in (np.array([np.nan, 1.0]), np.array([np.inf])):
        check(rounded, (x,))


def test_the_list_is_a_new_list_each_call_and_a_large_array_breaks():
    def f(a):
        out = a.tolist()
        out.append(len(out))
        return out
    static = check(f, (np.arange(3.0),), (np.arange(3.0) * 2,))
    assert static(np.arange(3.0)) is not static(np.arange(3.0))
    assert_captured_whole(f, np.arange(3.0))
    big = np.zeros(65)
    check(f, (big,))
    assert sot.explain(sot.to_static(f, min_graph_size=0), big).breaks


def math_of_numbers(a):
    v, m = float(a.var()), float(a.mean())
    return (math.sqrt(v), math.log(v), math.floor(m * 10), math.ceil(m), math.isnan(m), math.isfinite(m), math.fabs(m),
            min(m, 1.0), max(float(a.max()), float(a.min()), 0.5), min(a.tolist()), max(int(a.argmax()), 3),
            min(-0.0, m * 0), max(float("nan"), m), max(m, float("nan")))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_math_and_min_max_of_numbers_are_captured(backend):
    args = [(np.abs(F) + 1,), (np.abs(F) + 0.5,), (np.array([1.0, 2.0, 3.0, 1e300]),)]
    if backend == "numpy":
        check_case(math_of_numbers, args)
    else:
        check(math_of_numbers, *args, static=sot.to_static(math_of_numbers, backend=backend))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("x", [np.array([-1.0, -2.0]), np.array([np.nan, 1.0]), np.array([np.inf, 0.0])])
def test_a_math_domain_error_is_eagers(x):
    check(lambda a: (math.sqrt(float(a.mean())), math.floor(float(a.sum()))), (x,))


def test_min_of_an_int_and_a_float_breaks():
    """min(m, 1) is the int 1 or the float m as the values decide."""
    def f(a):
        return min(float(a.mean()), 1)
    check(f, (F,), (F + 5,))
    assert sot.explain(sot.to_static(f, min_graph_size=0), F).breaks
