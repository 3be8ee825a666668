"""`with` blocks over plain Python context managers are simulated
(__enter__ and __exit__ inlined; the exceptional path in
test_lang_exceptions.py); a runtime error, an uncapturable step inside
(test_lang_block_breaks.py) or np.errstate keep eager's behaviour."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
W = np.arange(40, dtype=np.float32).reshape(10, 4)


class Scope:
    def __init__(self, k):
        self.k = k
        self.entered = 0

    def __enter__(self):
        self.entered += 1
        return self.k

    def __exit__(self, *exc):
        self.entered -= 10
        return False


class Log:
    def __init__(self):
        self.events = []

    def __enter__(self):
        self.events.append("in")
        return self

    def __exit__(self, kind, value, tb):
        self.events.append(("out", kind is None))
        return False


def with_made_in_the_frame(x):
    s = Scope(3.0)
    with s as k:
        y = x * k
    return y, s.entered


def with_returning_from_the_body(x):
    with Scope(2.0) as k:
        return x * k


def nested_with(x):
    a, b = Scope(2.0), Scope(5.0)
    with a as k1, b as k2:
        y = x * k1 + k2
    return y, a.entered, b.entered


@pytest.mark.parametrize("fn", [with_made_in_the_frame, with_returning_from_the_body, nested_with])
def test_with_over_a_python_context_manager_is_one_graph(fn):
    check(fn, (X,))
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X)
    assert not report.breaks, [str(b) for b in report.breaks]
    assert report.graph_count == 1


def test_with_over_an_argument_that_records_events_matches_eager():
    def f(x, log):
        with log:
            y = x + 1
        return y
    check(f, (X, Log()))


def test_error_in_the_block_at_run_time_reaches_exit_as_eager():
    def f(ids, log):
        with log:
            y = W[ids] * 2
        return y
    check(f, ([1, 2], Log()), ([1, 20], Log()))


def test_break_inside_the_block_splits_it_without_a_fallback():
    def f(x):
        s = Scope(2.0)
        y = x * 3
        with s as k:
            print("inside", k)
            y = y * k
        return y + 1, s.entered
    check(f, (X,), static=sot.to_static(f, min_graph_size=0))
    report = sot.explain(sot.to_static(f, min_graph_size=0), X)
    assert not report.fallbacks


def test_errstate_block_keeps_eager_floating_point_behaviour():
    def f(x):
        with np.errstate(divide="raise"):
            y = x / 0
        return y
    check(f, (X,))

    def g(x):
        with np.errstate(divide="ignore"):
            y = np.log(x * 0)
        return y
    check(g, (X,))
