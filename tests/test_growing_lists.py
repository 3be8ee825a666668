"""A list argument that grows between calls (a history, a token list, an
RNN's states) does not retranslate the frame every call: its len() is a
graph input once it varied, not a value guard (list_data.source_length,
scalar_policy.py), and ``xs[-1]`` reads that one item, not the whole list
with its length (list_data.source_item)."""
from __future__ import annotations

import numpy as np
import pytest

import sot
from difftest import assert_same, check


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
    assert_same(eager_state[1], traced_state[1], "the list")
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


_W = np.linspace(-0.5, 0.5, 16, dtype=np.float32).reshape(4, 4)


def _rnn_step(x, states):
    h = np.tanh(x @ _W + states[-1])
    states.append(h)
    return h


def _first_and_last(x, hist):
    return x * hist[0] + hist[-1]


def _last_after_append(x, hist):
    hist.append(x.sum())
    return x + hist[-1] + hist[-2]


def _writes_last_in_place(x, states):
    states[-1] += x
    states.append(states[-1] * 2)
    return states[-2]


def _make_states():
    return np.ones((2, 4), np.float32), [np.zeros((2, 4), np.float32)]


@pytest.mark.parametrize("fn", [_rnn_step, _writes_last_in_place], ids=lambda f: f.__name__)
def test_last_item_of_a_growing_list_of_arrays_translates_once(fn):
    early, late = _calls(fn, _make_states, 10)
    assert early == late == 1


def test_items_read_by_constant_index_differential():
    a, b = np.arange(3.0), np.float32(2)
    check(_first_and_last, (np.ones(3), [a, b]), (np.ones(3), [a, a, 1.5]), (np.ones(3), [2.0]),
          (np.ones(3), []), (np.ones(3), [a, [1.0]]))
    check(_last_after_append, (np.ones(3), [1.0]), (np.ones(3), [a]), (np.ones(3), []))
    check(_writes_last_in_place, (np.ones(3), [np.zeros(3)]), (np.ones(3), [np.zeros(3), np.ones(3)]),
          (np.ones(3), []))


def test_a_shorter_list_misses_and_raises_as_eager():
    static = sot.to_static(_first_and_last)
    x = np.ones(2)
    for hist in ([x, x * 2], [x], []):
        try:
            expected = ("ok", _first_and_last(x, hist))
        except IndexError as e:
            expected = ("raised", str(e))
        try:
            got = ("ok", static(x, hist))
        except IndexError as e:
            got = ("raised", str(e))
        assert expected[0] == got[0] and str(expected[1]) == str(got[1])


_E = np.linspace(-1.0, 1.0, 40 * 8, dtype=np.float32).reshape(40, 8)


def _embed_tokens(tokens):
    h = np.tanh(_E[tokens] @ _E.T)
    return h.sum(0)


def _as_array_of_list(values):
    a = np.asarray(values)
    return a * 2, a.dtype


def test_decode_loop_over_a_growing_token_list_translates_twice():
    static = sot.to_static(_embed_tokens)
    eager_tokens, traced_tokens = [1, 2, 3], [1, 2, 3]
    for _ in range(12):
        e, t = _embed_tokens(eager_tokens), static(traced_tokens)
        assert_same(e, t, bitwise=True)
        eager_tokens.append(int(e.argmax()) % 40)
        traced_tokens.append(int(t.argmax()) % 40)
    assert sot.translation_count(static) == 2    # static, then the length symbolic


def test_list_of_symbolic_length_checks_its_items_when_converted():
    # after the length became symbolic no guard reads the items: the
    # conversion must still see a float, a bool, a big int, a short list
    check(_as_array_of_list, ([1, 2, 3],), ([1, 2, 3, 4],), ([1, 2.5, 3],), ([1, True, 3],),
          ([1, 2 ** 70],), ([7],), ([],), ([4, 5, 6, 7, 8],), calls=2)
    check(_embed_tokens, ([1, 2],), ([1, 2, 3],), ([1, 50, 3],), ([1, -41],), ([3],), calls=2)


def _mean_of_history(x, hist):
    return x * np.mean(hist) + np.maximum(hist, 2.0).sum()


def _recent(x, hist):
    return x * np.mean(hist[-3:]) + sum(hist[:2])


def _grow_outside(fn, n=12):
    """Eager and decorated on their own list, grown between calls outside."""
    static = sot.to_static(fn)
    eager, traced = [1.0, 2.0, 4.0], [1.0, 2.0, 4.0]
    for i in range(n):
        eager.append(i / 3)
        traced.append(i / 3)
        assert_same(fn(np.ones(2), eager), static(np.ones(2), traced), bitwise=True)
    return sot.translation_count(static)


@pytest.mark.parametrize("fn", [_mean_of_history, _recent], ids=lambda f: f.__name__)
def test_numpy_of_a_growing_list_does_not_retranslate(fn):
    assert _grow_outside(fn) <= 2


def test_numpy_of_a_list_differential():
    x = np.ones(2)
    check(_mean_of_history, (x, [1.0, 2.0]), (x, [1.0, 2.0, 3.0]), (x, [1.0, 2, 3.0]), (x, [5]), (x, [1, 2, 3]),
          (x, [True, False]), (x, [1.0, 2.0, 3.0, 4.0]), calls=2)
    check(_recent, (x, [1.0, 2.0, 3.0]), (x, [1.0, 2.0, 3.0, 5.0]), (x, [1.0, 2.0]), (x, [1, 2.5, 3.0, 4.0]),
          (x, [np.float32(1), 2.0, 3.0]), (x, [1.0, 2.0, 3.0, 4.0, 5.0]), calls=2)
