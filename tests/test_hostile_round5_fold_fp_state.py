"""Hostile use, round 5: NumPy scalar arithmetic on constants
(``np.float64(1.0) / 0.0``, ``np.int8(100) * np.int8(3)``, ``np.float16(7e4)``)
is folded at trace time. Folding ran under the error state of the call that
traced: under ``np.errstate(all="ignore")`` nothing was reported, so the value
was baked into the graph, and every later call under the default state lost
eager's RuntimeWarning, and under ``errstate(all="raise")`` returned inf where
eager raises FloatingPointError. A fold now runs with every NumPy error
raising (sot/_quiet.py strictly): one that reports anything is left to run
natively, whatever the state at trace time."""
import warnings

import numpy as np
import pytest

import sot

CASES = {
    "scalar_divide": lambda x: np.float64(1.0) / 0.0 + x,
    "scalar_multiply_int8": lambda x: np.int8(100) * np.int8(3) + x,
    "float16_of_a_large_int": lambda x: np.float16(70000) + x,
    "float32_of_a_large_float": lambda x: np.float32(1e39) + x,
    "float_of_scalar_overflow": lambda x: float(np.float64(1e308) * 10) + x,
}


def _call(fn, x):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            out = ("ok", fn(x))
        except FloatingPointError as e:
            out = ("raised", str(e))
    return out, [(w.category, str(w.message)) for w in seen]


def _same(eager, traced):
    (ek, ev), ew = eager
    (tk, tv), tw = traced
    assert (ek, ew) == (tk, tw)
    if ek == "ok":
        np.testing.assert_array_equal(ev, tv)
        assert ev.dtype == tv.dtype
    else:
        assert ev == tv


@pytest.mark.parametrize("name", sorted(CASES))
def test_fold_traced_under_ignore_warns_and_raises_later_as_eager(name):
    fn = CASES[name]
    x = np.ones(2)
    static = sot.to_static(fn)
    with np.errstate(all="ignore"):
        _same(_call(fn, x), _call(static, x))
    eager = _call(fn, x)
    assert eager[1], "the case must warn eagerly under the default state"
    _same(eager, _call(static, x))
    with np.errstate(all="raise"):
        eager = _call(fn, x)
        assert eager[0][0] == "raised"
        _same(eager, _call(static, x))


def test_fold_does_not_call_the_users_errcall_at_trace_time():
    calls = []

    def fn(x):
        return np.float64(1.0) / 0.0 + x

    static = sot.to_static(fn)
    x = np.ones(2)
    with np.errstate(all="call", call=lambda kind, flag: calls.append(kind)):
        for f in (fn, static, static, fn):
            f(x)
    assert calls == ["divide by zero"] * 4
