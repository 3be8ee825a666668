"""len() of a list argument that grows between calls (a history, a token
list) is a graph input once it varied, not a value guard: the frame does
not retranslate every call (list_data.source_length, scalar_policy.py)."""
from __future__ import annotations

import numpy as np

import sot
from difftest import check


def _calls(fn, make_args, n):
    """Call eager and decorated `n` times on their own growing state (the
    results of each call must match); the translations made by the 4th call
    and by the last."""
    static = sot.to_static(fn)
    eager_state, traced_state = make_args(), make_args()
    counts = []
    for i in range(n):
        e, t = fn(*eager_state), static(*traced_state)
        np.testing.assert_array_equal(e, t)
        assert type(e) is type(t)
        if i in (3, n - 1):
            counts.append(sot.translation_count(static))
    assert eager_state[1] == traced_state[1]
    return counts


def _print_history(x, hist):
    y = np.tanh(x) * 2
    hist.append(float(y[0, 0]))          # a break: resume function below
    print("step", len(hist))
    return y + len(hist)


def _append_then_len(x, hist):
    hist.append(x.sum())                # the trace's own append (pending growth)
    return x * len(hist)


def _range_over_len(x, hist):
    hist.append(1)
    acc = x
    for i in range(len(hist)):          # needs the value: specialised
        acc = acc + i
    return acc


def _make():
    return np.ones((3, 3), np.float32), []


def test_printed_length_of_a_growing_list_stops_translating(capsys):
    early, late = _calls(_print_history, _make, 12)
    assert early == late       # before: one more translation every call, up to the cache limit


def test_length_after_the_traces_own_append_is_an_input():
    early, late = _calls(_append_then_len, _make, 12)
    assert early == late <= 2


def test_length_used_by_range_is_specialised_and_stays_right():
    _calls(_range_over_len, _make, 6)   # values checked each call; retranslating is allowed


def test_growing_list_differential():
    check(_append_then_len, (np.arange(4.0), [1.0]), (np.arange(4.0), [1.0, 2.0, 3.0]), (np.arange(4.0), []))
    check(_print_history, (np.ones((2, 2)), []), (np.ones((2, 2)), [0.5, 0.25]))
