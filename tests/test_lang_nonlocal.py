"""`nonlocal` writes to a translated function's own free variables are
simulated and stored into the real cell after the graph (executor/cell_writes.py),
with or without a graph break; other cells still break at the write."""
import contextlib
import io

import numpy as np
import pytest

import sot
from difftest import assert_same

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def counter_step():
    n = 0

    def step(x):
        nonlocal n
        n += 1
        return x * n
    return step, lambda: n


def counter_step_with_break():
    n = 0

    def step(x):
        nonlocal n
        n += 1
        y = x * n
        print("n is", n)
        n = n * 2
        return y + n
    return step, lambda: n


def array_state():
    acc = np.zeros(4, dtype=np.float32)

    def step(x):
        nonlocal acc
        acc = acc + x.sum(axis=0)
        return acc * 2
    return step, lambda: acc


def written_through_a_sibling_function():
    n = 1

    def bump():
        nonlocal n
        n = n + 1

    def step(x):
        nonlocal n
        n = n * 3
        bump()   # inlined: its cell is step's own, reached through bump's closure
        return x + n
    return step, lambda: n


def read_through_a_sibling_after_the_write():
    n = 1

    def get():
        return n

    def step(x):
        nonlocal n
        n = n + 5
        return x * get()
    return step, lambda: n


def written_after_the_break():
    n = 2

    def step(x):
        nonlocal n
        y = x * 2
        print("before")
        n = n + int(y.shape[0])
        return y - n
    return step, lambda: n


def written_then_the_graph_raises():
    n = 0

    def step(x, k):
        nonlocal n
        n += 1
        return x.reshape(k) * n
    return step, lambda: n


def other_closure_cell():
    def outer():
        m = 0

        def bump():
            nonlocal m
            m += 1
            return m
        return bump
    bump = outer()

    def step(x):
        return x * bump()
    return step, lambda: bump.__closure__[0].cell_contents


FACTORIES = [counter_step, counter_step_with_break, array_state, written_through_a_sibling_function,
             read_through_a_sibling_after_the_write, written_after_the_break, other_closure_cell]


def _run(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            return ("ok", fn(*args)), out.getvalue()
        except Exception as e:
            return ("raised", type(e), str(e)), out.getvalue()


def compare(factory, arg_sets, calls=4):
    """Two fresh closures from `factory`, one decorated: the same result,
    stdout and cell state after every call."""
    eager, eager_state = factory()
    traced, traced_state = factory()
    static = sot.to_static(traced, min_graph_size=0)
    for args in arg_sets:
        for _ in range(calls):
            e, e_out = _run(eager, *args)
            t, t_out = _run(static, *args)
            assert e[0] == t[0], (e, t)
            if e[0] == "ok":
                assert_same(e[1], t[1])
            else:
                assert e[1:] == t[1:]
            assert e_out == t_out
            assert_same(eager_state(), traced_state(), "cell after the call")
    return static


@pytest.mark.parametrize("factory", FACTORIES, ids=lambda f: f.__name__)
def test_nonlocal_writes_match_eager(factory):
    compare(factory, [(X,)])


def test_graph_error_after_a_write_does_not_write_twice():
    compare(written_then_the_graph_raises, [(X, 12), (X, 5), (X, (4, 3))])


@pytest.mark.parametrize("factory", [counter_step, array_state, written_through_a_sibling_function,
                                     read_through_a_sibling_after_the_write], ids=lambda f: f.__name__)
def test_nonlocal_write_is_captured_without_a_break(factory):
    step, _ = factory()
    report = sot.explain(sot.to_static(step, min_graph_size=0), X)
    assert not report.breaks and not report.fallbacks, [str(b) for b in report.breaks + report.fallbacks]
    assert report.graph_count == 1


def test_break_after_a_write_keeps_both_graphs():
    step, get = counter_step_with_break()
    report = sot.explain(sot.to_static(step, min_graph_size=0), X)
    assert not report.fallbacks
    assert "print" in report.entries[0].graph_break.message
    assert report.graph_count == 2


def test_counter_stops_retranslating_once_its_value_varies():
    step, get = counter_step()
    static = sot.to_static(step, min_graph_size=0)
    for _ in range(6):
        static(X)
    assert get() == 6
    assert sot.translation_count(static) <= 2  # the number becomes a graph input after it varies
