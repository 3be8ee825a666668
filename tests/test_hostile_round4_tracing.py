"""Under ``sys.settrace``/``sys.setprofile`` a decorated function shows the
tracer exactly eager's events: the hook stands aside, and the do-no-harm
governor's Python code (its measuring of the first calls) does not run
either -- its frames (``begin``, ``end``) were seen by the tracer."""
import sys

import numpy as np
import pytest

import sot


def scaled(x):
    return x * 2 + 1


def _events(fn, install, calls=6):
    seen = []

    def tracer(frame, event, arg):
        seen.append((frame.f_code.co_name, event))
        return tracer

    install(tracer)
    try:
        outs = [fn(np.ones(3)) for _ in range(calls)]
    finally:
        install(None)
    return outs, seen


@pytest.mark.parametrize("install", [sys.settrace, sys.setprofile], ids=["settrace", "setprofile"])
def test_a_tracer_sees_eagers_events_while_the_governor_measures(install, monkeypatch):
    monkeypatch.setenv("SOT_DO_NO_HARM", "1")
    static = sot.to_static(scaled)
    static(np.ones(3))   # translated before the tracer: later calls would hit the cache
    out_e, ev_e = _events(scaled, install)
    out_t, ev_t = _events(static, install)
    for a, b in zip(out_e, out_t):
        np.testing.assert_array_equal(a, b)
    assert ev_t == ev_e
