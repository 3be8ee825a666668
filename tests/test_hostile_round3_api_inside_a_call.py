"""Hostile use, round 3: sot's own API called by user code while a decorated
function runs (a callback that calls sot.reset(), sot.skip, sot.trace_into).
sot.reset() there deadlocked: `_skip.forget` held its lock while calling
Python helpers, whose frames the hook showed the callback, whose skip_rule
waited for the same lock (sot.skip and sot.trace_into too). Run in a
subprocess: a deadlock fails the test instead of hanging the suite."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import sot
from difftest import check, python_env

_SCRIPT = """
import json
import numpy as np, sot
def f(x, cb, n):
    y = x * 2
    for i in range(n):
        cb(i)
        y = y + i
    return y, y.sum()
for cb in (lambda i: sot.reset(), lambda i: sot.skip(json), lambda i: sot.trace_into(json)):
    static = sot.to_static(f)
    for n in (0, 1, 2, 3, 1):
        assert static(np.arange(3.0), cb, n)[1] == f(np.arange(3.0), lambda i: None, n)[1]
print("done")
"""


def test_reset_from_inside_a_decorated_call_does_not_deadlock():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=python_env(), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "done", out.stderr[-2000:]


def _loop_calling_back(x, cb, n):
    y = x * 2
    for i in range(n):
        cb(i)
        y = y + i
    z = y.sum()
    cb(-1)
    return y, z


def _helper(v):
    return v * 3


@pytest.mark.parametrize("cb", [
    lambda i: sot.not_to_static(_helper) and None,
    lambda i: sot.to_static(_helper)(np.ones(2)) and None,
], ids=["not_to_static", "nested_to_static"])
def test_sot_api_called_back_from_a_decorated_call_behaves_as_eager(cb):
    try:
        check(_loop_calling_back, *[(np.arange(3.0), cb, n) for n in (0, 1, 2, 3, 1)])
    finally:
        sot.reset()
