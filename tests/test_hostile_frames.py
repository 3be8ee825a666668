"""What a decorated call looks like from inside: tracebacks, inspect.stack()
and the frames a callee reads are eager's, also while the do-no-harm
governor measures the first calls (it ran each call from a Python frame of
its own, shown in every traceback and counted against the recursion limit;
the C callable now runs the call itself, static_function.c)."""
from __future__ import annotations

import inspect
import sys
import traceback

import numpy as np
import pytest

import sot


@pytest.fixture(autouse=True)
def _governor_on(monkeypatch):
    monkeypatch.setenv("SOT_DO_NO_HARM", "1")


def _bad(y):
    raise ValueError("bad")


def _breaks_then_raises(x):
    y = x * 2
    print("b")
    return _bad(y + 1)


def _one_graph_then_raises(x):
    return _bad(x * 2)


def _traceback_of(fn, *args):
    try:
        fn(*args)
    except ValueError as e:
        return [(f.name, f.lineno) for f in traceback.extract_tb(e.__traceback__)][1:]
    raise AssertionError("no error")


@pytest.mark.parametrize("fn", [_breaks_then_raises, _one_graph_then_raises], ids=lambda f: f.__name__)
def test_traceback_frames_are_eagers(fn, capsys):
    static = sot.to_static(fn)
    for _ in range(12):   # through the governor's measuring window
        assert _traceback_of(static, np.ones(2)) == _traceback_of(fn, np.ones(2))


def _caller_view():
    frame = sys._getframe(1)
    names = [f.function for f in inspect.stack()[1:3]]
    return frame.f_code.co_name, sorted(k for k in frame.f_locals if not k.startswith("__sot")), names


def _looks_at_caller(x):
    y = x + 1
    view = _caller_view()
    return y * 2, view


def _call(fn, x):
    return fn(x)


def test_callee_sees_the_callers_frame_and_stack():
    static = sot.to_static(_looks_at_caller)
    for _ in range(12):
        e, t = _call(_looks_at_caller, np.ones(2)), _call(static, np.ones(2))
        np.testing.assert_array_equal(e[0], t[0])
        assert e[1] == t[1]


def test_recursion_limit_reached_at_the_same_depth_while_measuring():
    def plain(n):
        return 0 if n == 0 else plain(n - 1) + 1

    def deepest(f):
        lo, hi = 1, 5000
        while lo < hi:
            mid = (lo + hi + 1) // 2
            try:
                f(mid)
                lo = mid
            except RecursionError:
                hi = mid - 1
        return lo

    assert deepest(sot.to_static(plain)) == deepest(plain)
