"""A decorated call at the edge of the recursion limit does what eager does.

Eager's call of ``f`` needs one frame. The decorated call's own Python
(the do-no-harm governor's ``begin``/``end`` while it measures, the
translator on a first call, the runner and graph on a warm one) needs more:
at a depth where eager's call still fits, that Python's RecursionError
reached the user (or lost a call's result). It now runs the call natively.
"""
import inspect
import sys
import types

import numpy as np
import pytest

import sot


def f(x):
    return np.sin(x) * 2 + x.sum()


def _at_depth(fn, d):
    if d == 0:
        return fn(np.ones(3))
    return _at_depth(fn, d - 1)


def _outcome(fn, d):
    try:
        return "ok", _at_depth(fn, d).tolist()
    except RecursionError:
        return "RecursionError", None


@pytest.mark.parametrize("governor", ["1", "0"])
@pytest.mark.parametrize("warm", [True, False])
def test_a_call_near_the_recursion_limit_matches_eager(governor, warm, monkeypatch):
    monkeypatch.setenv("SOT_DO_NO_HARM", governor)
    sot.to_static(f)(np.ones(2))   # sot's modules imported (an import at the edge is not the point)
    here = len(inspect.stack(0))
    old = sys.getrecursionlimit()
    limit = here + 60
    try:
        sys.setrecursionlimit(limit)
        for d in range(40, 60):
            # a code of its own: the governor measures its first calls afresh
            fn = types.FunctionType(f.__code__.replace(co_name="f%d" % d), f.__globals__)
            static = sot.to_static(fn)
            if warm:
                static(np.ones(3))   # translated at a shallow depth
            assert _outcome(static, d) == _outcome(fn, d), d
    finally:
        sys.setrecursionlimit(old)
