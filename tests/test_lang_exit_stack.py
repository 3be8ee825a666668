"""contextlib.ExitStack made in the trace (sot/executor/exit_stacks.py), and
nested `with` blocks of user context managers that suppress exceptions:
captured with eager's order of exits, suppression and results; an exit
function that raises, or a stack that outlives the graph, runs natively."""
import contextlib

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float64).reshape(3, 4) / 7 - 0.5


class Recorder:
    def __init__(self, log, name, suppress=False):
        self.log, self.name, self.suppress = log, name, suppress

    def __enter__(self):
        self.log.append("enter " + self.name)
        return self.name

    def __exit__(self, kind, exc, tb):
        self.log.append(("exit", self.name, kind))
        return self.suppress


class Raising:
    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        raise KeyError("from exit")


def callbacks_run_last_in_first_out(x):
    log = []

    def note(*args, **kwargs):
        log.append((args, sorted(kwargs.items())))
    with contextlib.ExitStack() as st:
        returned = st.callback(note, 1, k=2)
        st.callback(log.append, "second")
        st.callback(note)
        y = x - 1
    return y, log, returned is note


def enter_context_and_a_suppressing_exit(x):
    log = []
    with contextlib.ExitStack() as st:
        a = st.enter_context(Recorder(log, "a"))
        b = st.enter_context(Recorder(log, "b", suppress=True))
        st.callback(log.append, "cb")
        raise ValueError("boom")      # "b" suppresses it: "a" sees no exception
    return x * 2, log, a, b


def an_unsuppressed_exception_propagates(x):
    log = []
    try:
        with contextlib.ExitStack() as st:
            st.enter_context(Recorder(log, "a"))
            st.callback(log.append, "cb")
            raise ValueError("out")
    except ValueError as e:
        return x + 1, log, str(e)


def pop_all_then_close(x):
    log = []
    with contextlib.ExitStack() as st:
        st.enter_context(Recorder(log, "a"))
        moved = st.pop_all()
    log.append("between")
    moved.close()
    return x + 1, log


def push_an_exit_function(x):
    log = []

    def on_exit(kind, exc, tb):
        log.append(kind)
        return True
    with contextlib.ExitStack() as st:
        st.push(on_exit)
        raise IndexError("swallowed")
    return x * 3, log


def nested_user_managers_that_suppress(x):
    log = []
    y = x
    with Recorder(log, "outer"):
        with Recorder(log, "inner", suppress=True):
            y = y + 1
            raise ValueError("inner")
        y = y * 2
        with Recorder(log, "third", suppress=True), Recorder(log, "fourth"):
            raise KeyError("k")
    return y, log


@pytest.mark.parametrize("fn", [callbacks_run_last_in_first_out, enter_context_and_a_suppressing_exit,
                                an_unsuppressed_exception_propagates, pop_all_then_close, push_an_exit_function,
                                nested_user_managers_that_suppress])
def test_exit_stacks_and_suppressing_managers_are_captured_whole(fn):
    assert_captured_whole(fn, X)
    check(fn, (X,), (X[:2],))


def exit_function_raises(x):
    log = []
    try:
        with contextlib.ExitStack() as st:
            st.callback(log.append, "cb")
            st.enter_context(Raising())
            y = x + 1
    except KeyError as e:
        return x, log, str(e), repr(e.__context__)
    return y, log


def stack_outlives_the_graph(x):
    st = contextlib.ExitStack()
    st.callback(print, "closing")
    return x * 2, st


def test_an_exit_function_that_raises_runs_natively():
    report = sot.explain(sot.to_static(exit_function_raises, min_graph_size=0), X)
    assert report.breaks
    check(exit_function_raises, (X,))


def test_a_stack_that_outlives_the_graph_is_the_callers():
    static = sot.to_static(stack_outlives_the_graph)
    for _ in range(2):
        y, st = static(X)
        assert type(st) is contextlib.ExitStack
        st.close()   # its callback is there, as eagerly
    check(lambda x: stack_outlives_the_graph(x)[0], (X,))
