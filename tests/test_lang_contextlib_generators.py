"""contextlib.suppress / nullcontext / a @contextmanager applied inside the
frame are modelled context managers (executor/contexts.py); generator
.close(), .throw() and gi_running are simulated (executor/generators.py),
including the finally blocks they run and 3.13's close() return value."""
import contextlib

import numpy as np
import pytest

from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def suppress_and_nullcontext(x, key):
    with contextlib.suppress(KeyError, IndexError):
        x = x + {"a": 1}[key]
    with contextlib.nullcontext(x * 2) as y:
        z = y + 1
    with contextlib.nullcontext() as none:
        pass
    return x, z, none


def test_suppress_and_nullcontext():
    check(suppress_and_nullcontext, (X, "a"), (X, "b"))
    assert_captured_whole(suppress_and_nullcontext, X, "b")


def test_suppress_lets_other_exceptions_through():
    def f(x):
        with contextlib.suppress(KeyError):
            [][0]
        return x

    check(f, (X,))


def test_contextmanager_decorator_inside_the_frame():
    def f(x, key):
        log = []

        @contextlib.contextmanager
        def scope(k):
            log.append("in")
            try:
                yield k * 3
            except KeyError:
                log.append("caught")
            finally:
                log.append("out")

        with scope(2) as w:
            x = x + w
            {"a": 1}[key]
        return x, log

    check(f, (X, "a"), (X, "b"))
    assert_captured_whole(f, X, "b")


def _gen_with_finally(log):
    try:
        yield 1
        yield 2
    finally:
        log.append("finally")


def test_close_runs_finally_and_ends_the_generator():
    def f(x):
        log = []
        it = _gen_with_finally(log)
        a = next(it)
        r = it.close()
        again = it.close()
        return x * a, log, list(it), r, again

    check(f, (X,))
    assert_captured_whole(f, X)


def test_close_of_an_unstarted_generator_and_its_return_value():
    def f(x):
        def g():
            try:
                yield 1
            except GeneratorExit:
                return 7           # 3.13: close() returns 7; before, None
        fresh = g()
        started = g()
        next(started)
        return fresh.close(), started.close(), x

    check(f, (X,))
    assert_captured_whole(f, X)


def test_close_of_a_generator_that_yields_again_raises_as_eager():
    def f(x):
        def g():
            try:
                yield 1
            except GeneratorExit:
                yield 2
        it = g()
        next(it)
        it.close()
        return x

    check(f, (X,))


def test_throw_resumes_returns_or_propagates():
    def f(x, exc):
        def g():
            try:
                yield 1
            except ValueError:
                yield 2
            except KeyError:
                return 5
        it = g()
        next(it)
        try:
            return it.throw(exc), x
        except StopIteration as e:
            return "stopped", e.value, x

    check(f, (X, ValueError), (X, KeyError("k")), (X, TypeError))


def test_gi_running_outside_and_inside():
    def f(x):
        def g():
            yield 1
        it = g()
        before = it.gi_running
        next(it)
        return before, it.gi_running, x

    check(f, (X,))
    assert_captured_whole(f, X)
