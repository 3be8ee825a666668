"""Interpreter edge cases: recursion to the limit, exceptions through translated
and resumed frames with the user's line in the traceback, generators and
coroutines calling decorated functions, sys.settrace active, BaseExceptions
(KeyboardInterrupt-like) thrown into frames, calls during interpreter shutdown."""
from __future__ import annotations

import asyncio
import contextlib
import io
import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import sot
from difftest import check


def _user_lines(exc):
    return [(fs.name, fs.lineno) for fs in traceback.extract_tb(exc.__traceback__) if fs.filename == __file__]


# ---------------------------------------------------------------- recursion

def _rec(x, n):
    if n == 0:
        return x
    return _rec(x + 1, n - 1)


def _infinite(x, n):
    return _infinite(x * 1, n + 1)


def test_recursion_within_limit():
    check(_rec, (np.zeros(2), 5), (np.zeros(2), 40))


@pytest.mark.parametrize("limit", [200, 400])
def test_recursion_error_like_eager(limit):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        for fn in (_infinite, sot.to_static(_infinite)):
            with pytest.raises(RecursionError):
                fn(np.zeros(2), 0)
        # still usable after hitting the limit
        np.testing.assert_array_equal(sot.to_static(_rec)(np.zeros(2), 3), np.full(2, 3.0))
    finally:
        sys.setrecursionlimit(old)


def test_recursion_near_limit_result_matches():
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(300)
    try:
        depth = 150
        assert sot.to_static(_rec)(np.zeros(1), depth)[0] == depth
    finally:
        sys.setrecursionlimit(old)


# ---------------------------------------------------------------- tracebacks

def _inner_raises(x):
    y = x * 2
    return y.reshape(5)          # ValueError: the user's line


def _outer(x):
    z = x + 1
    return _inner_raises(z) + 1


def _raises_after_break(x):
    y = x * 2
    if y.sum() > 0:              # data-dependent: a break (or fallback)
        y = y + 1
    return y[10]                 # IndexError


def _raise_explicit(x):
    if x.shape[0] > 2:
        raise KeyError("user error")
    return x


@pytest.mark.parametrize("fn,exc,line_text", [
    (_outer, ValueError, "return y.reshape(5)"),
    (_raises_after_break, IndexError, "return y[10]"),
    (_raise_explicit, KeyError, 'raise KeyError("user error")'),
])
def test_exception_traceback_points_at_user_line(fn, exc, line_text):
    static = sot.to_static(fn)
    for runner in (fn, static, static):
        with pytest.raises(exc) as info:
            runner(np.ones(4))
        last = traceback.extract_tb(info.value.__traceback__)
        user = [fs for fs in last if fs.filename == __file__]
        assert user[-1].line.startswith(line_text), user
    check(fn, (np.ones(4),), (np.ones(2),))


def test_exception_chaining_preserved():
    def f(x):
        try:
            return x[10]
        except IndexError as e:
            raise ValueError("wrapped") from e

    static = sot.to_static(f)
    for runner in (f, static, static):
        with pytest.raises(ValueError) as info:
            runner(np.ones(2))
        assert isinstance(info.value.__cause__, IndexError)


# ---------------------------------------------------------------- generators and coroutines

def _step(x, i):
    return x * 2 + i


def test_generator_calls_decorated_function():
    static = sot.to_static(_step)

    def gen(fn, x):
        for i in range(4):
            x = fn(x, i)
            yield x

    eager = list(gen(_step, np.ones(3)))
    traced = list(gen(static, np.ones(3)))
    for e, t in zip(eager, traced):
        np.testing.assert_array_equal(e, t)


def test_decorated_generator_function_behaves_as_eager():
    def gen(x):
        for i in range(3):
            yield x * i
        return "done"

    static = sot.to_static(gen)
    out = static(np.ones(2))
    got = list(out)
    assert len(got) == 3
    np.testing.assert_array_equal(got[2], np.full(2, 2.0))


def test_interleaved_generators_and_decorated_calls():
    static = sot.to_static(_step)

    def gen(x):
        while True:
            x = static(x, 1)
            yield x

    a, b = gen(np.zeros(2)), gen(np.zeros((2, 2)))
    for _ in range(5):
        ra, rb = next(a), next(b)
    np.testing.assert_array_equal(ra, np.full(2, 31.0))
    np.testing.assert_array_equal(rb, np.full((2, 2), 31.0))


def test_coroutines_call_decorated_function():
    static = sot.to_static(_step)

    async def work(x, n):
        for i in range(n):
            x = static(x, i)
            await asyncio.sleep(0)
        return x

    async def main():
        return await asyncio.gather(work(np.ones(2), 3), work(np.ones((3, 1)), 4))

    r1, r2 = asyncio.run(main())
    e1, e2 = np.ones(2), np.ones((3, 1))
    for i in range(3):
        e1 = _step(e1, i)
    for i in range(4):
        e2 = _step(e2, i)
    np.testing.assert_array_equal(r1, e1)
    np.testing.assert_array_equal(r2, e2)


def test_decorated_async_function():
    async def coro(x):
        await asyncio.sleep(0)
        return x + 1

    static = sot.to_static(coro)
    np.testing.assert_array_equal(asyncio.run(static(np.ones(2))), np.full(2, 2.0))


# ---------------------------------------------------------------- tracing active

def test_settrace_active_hook_stands_aside():
    events = []

    def tracer(frame, event, arg):
        if frame.f_code is _step.__code__:
            events.append(event)
        return tracer

    static = sot.to_static(_step)
    static(np.ones(2), 1)  # translated before tracing starts
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        r = static(np.ones(2), 3)
    finally:
        sys.settrace(old)
    np.testing.assert_array_equal(r, _step(np.ones(2), 3))
    assert "call" in events and "return" in events, events  # the user's frame ran, and was traced


def test_settrace_line_events_match_eager():
    def f(x):
        y = x + 1
        z = y * 2
        return z

    def lines(fn):
        seen = []

        def tracer(frame, event, arg):
            if frame.f_code is f.__code__ and event == "line":
                seen.append(frame.f_lineno)
            return tracer

        old = sys.gettrace()
        sys.settrace(tracer)
        try:
            fn(np.ones(2))
        finally:
            sys.settrace(old)
        return seen

    static = sot.to_static(f)
    static(np.ones(2))
    assert lines(f) == lines(static)


def test_setprofile_active():
    calls = []

    def prof(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_name)

    static = sot.to_static(_step)
    old = sys.getprofile()
    sys.setprofile(prof)
    try:
        r = static(np.ones(2), 1)
    finally:
        sys.setprofile(old)
    np.testing.assert_array_equal(r, _step(np.ones(2), 1))
    assert "_step" in calls, calls  # the hook stood aside: the user's frame ran, profiled


# ---------------------------------------------------------------- BaseExceptions

class Interrupt(BaseException):
    pass


def _calls_back(x, cb):
    y = x + 1
    cb()
    return y * 2


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, GeneratorExit, Interrupt])
def test_base_exception_from_callee_propagates(exc):
    def cb():
        raise exc("stop")

    static = sot.to_static(_calls_back)
    for runner in (_calls_back, static, static):
        with pytest.raises(exc):
            runner(np.ones(2), cb)
    # still works afterwards
    np.testing.assert_array_equal(static(np.ones(2), lambda: None), np.full(2, 4.0))


def test_keyboard_interrupt_thrown_into_generator_using_decorated_fn():
    static = sot.to_static(_step)

    def gen():
        x = np.ones(2)
        while True:
            x = static(x, 1)
            yield x

    g = gen()
    next(g)
    with pytest.raises(KeyboardInterrupt):
        g.throw(KeyboardInterrupt)
    np.testing.assert_array_equal(static(np.ones(2), 1), np.full(2, 3.0))


def test_interrupt_during_translation_leaves_sot_usable():
    """A BaseException raised by user code that the simulator calls natively."""
    count = {"n": 0}

    class Flaky:
        def __index__(self):
            count["n"] += 1
            if count["n"] == 1:
                raise KeyboardInterrupt
            return 2

    def f(x, k):
        return x * 2 + [1, 2, 3][k]

    static = sot.to_static(f)
    with pytest.raises(KeyboardInterrupt):
        static(np.ones(2), Flaky())
    np.testing.assert_array_equal(static(np.ones(2), Flaky()), f(np.ones(2), 2))


# ---------------------------------------------------------------- shutdown

def _run_subprocess(code):
    # Outside the source tree: the installed sot (CI) or the in-place build.
    import tempfile
    from difftest import python_env
    with tempfile.TemporaryDirectory() as cwd:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                              timeout=120, env=python_env(), cwd=cwd)


def test_call_during_interpreter_shutdown():
    proc = _run_subprocess("""
        import atexit
        import numpy as np
        import sot

        @sot.to_static
        def f(x):
            return x * 2 + 1

        def at_exit():
            print("atexit", f(np.ones(2)).tolist())

        class Late:
            def __del__(self):
                try:
                    print("del", f(np.ones(1)).tolist())
                except Exception as e:
                    print("del raised", type(e).__name__)

        atexit.register(at_exit)
        keep = Late()
        print("main", f(np.ones(3)).tolist())
    """)
    assert proc.returncode == 0, proc.stderr
    assert "main [3.0, 3.0, 3.0]" in proc.stdout
    assert "atexit [3.0, 3.0]" in proc.stdout
    assert "Fatal" not in proc.stderr and "Segmentation" not in proc.stderr


def test_decorated_call_in_thread_at_exit():
    proc = _run_subprocess("""
        import threading
        import numpy as np
        import sot

        @sot.to_static
        def f(x):
            return x.sum()

        def loop():
            for _ in range(2000):
                f(np.ones(3))

        t = threading.Thread(target=loop, daemon=True)
        t.start()
        print("bye")
    """)
    assert proc.returncode == 0, proc.stderr
    assert "Fatal" not in proc.stderr
