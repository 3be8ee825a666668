"""``np.apply_along_axis`` with a Python function (a lambda, a local
function, a NumPy function) runs NumPy's own steps in the trace
(sot/executor/numpy_callables.py): the function's operations enter the
graph, once per 1-d slice, and the result has eager's values, dtype, shape
and strides (a transposed view of the buffer, as NumPy returns).  Where
NumPy raises, the loop is long, or the function breaks, the call runs
natively with eager's answer."""
import numpy as np
import pytest

import sot
from difftest import case_params, check, check_case

F = np.arange(12.0).reshape(3, 4) ** 1.5 - 3
T3 = np.arange(24.0).reshape(2, 3, 4) % 5 - 2


def rows_and_columns(x):
    return (np.apply_along_axis(lambda r: r - r.mean(), 1, x), np.apply_along_axis(lambda c: c.max() - c.min(), 0, x),
            np.apply_along_axis(np.sum, -1, x), np.apply_along_axis(lambda r, k, b=0.0: r * k + b, 0, x, 3, b=0.5))


def growing_results(x):
    """func1d returning a 2-d array (its axes go where the iterated axis was) and a 0-d one."""
    return np.apply_along_axis(lambda r: np.outer(r, r), 0, x), np.apply_along_axis(lambda r: r[:2], 1, x), \
        np.apply_along_axis(lambda r: np.asarray(r.sum()), 1, x)


def dtypes(x):
    return (np.apply_along_axis(lambda r: r > 0, 1, x), np.apply_along_axis(lambda r: r.astype(np.float32), 1, x),
            np.apply_along_axis(lambda r: np.argmax(r), 1, x), np.apply_along_axis(lambda r: r.sum() > 0, 0, x))


def three_d(x):
    def normalise(v):
        s = np.abs(v).sum()
        return v / (s + 1.0)
    return np.apply_along_axis(normalise, 1, x), np.apply_along_axis(np.cumsum, 2, x)


CASES = {
    "rows_and_columns": (rows_and_columns, [(F,), (F.astype(np.float32),), (F[:2, :3],)]),
    "growing_results": (growing_results, [(F,), (F.T.copy(),)]),
    "dtypes": (dtypes, [(F,), (F.astype(np.int16),), (F > 0,)]),
    "three_d": (three_d, [(T3,), (T3.astype(np.float32),)]),
}


@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


def test_onnxruntime_backend_agrees():
    static = sot.to_static(rows_and_columns, backend="onnxruntime")
    for e, t in zip(rows_and_columns(F), static(F)):
        assert e.dtype == t.dtype and e.shape == t.shape
        np.testing.assert_allclose(e, t, rtol=1e-12)


def _breaks(fn, *args):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), *args)
    return report.breaks or report.fallbacks


def test_a_side_effect_of_the_function_happens_once_per_slice_in_order():
    def f(x, seen):
        def g(r):
            seen.append(r.shape)
            return r * 2
        return np.apply_along_axis(g, 1, x), len(seen)
    check(f, (F, []), (F[:1], [1]))


def test_a_function_that_writes_into_its_slice_writes_into_the_argument():
    def f(x):
        def g(r):
            r += 1
            return r.sum()
        return np.apply_along_axis(g, 1, x), x
    check(f, (F.copy(),))


@pytest.mark.parametrize("source, arg", [
    ("np.apply_along_axis(lambda r: r * 2, 2, x)", F),             # axis out of range: AxisError
    ("np.apply_along_axis(lambda r: r * 2, 0, x)", np.ones((0, 3))),  # fine: iterates over 3 columns
    ("np.apply_along_axis(lambda r: r * 2, 1, x)", np.ones((0, 3))),  # no slice: ValueError
    ("np.apply_along_axis(lambda r: r.sum(), 0, x)", np.ones((3, 100))),  # 100 slices: natively
    ("np.apply_along_axis(lambda r: print(r) or r.sum(), 1, x)", F),  # a break inside the function
    ("np.apply_along_axis(lambda r: r[r > 0], 1, x)", F),          # sizes decided by data
])
def test_other_calls_run_natively_with_eagers_answer(source, arg, capsys):
    ns = {"np": np}
    exec(f"def f(x):\n    return {source}\n", ns)
    check(ns["f"], (arg,))


def test_many_slices_break_and_few_do_not():
    def f(x):
        return np.apply_along_axis(lambda r: r.sum(), 0, x)
    assert _breaks(f, np.ones((3, 100)))
    assert not _breaks(f, np.ones((3, 10)))
