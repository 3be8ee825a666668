"""A graph break inside a try or with body splits the frame there: the
replacement runs the graph and the breaking instruction inside the block,
and the resume function re-enters the block, so an exception raised by the
native instruction or after the break is caught by the same handler, a
`finally` runs once and `__exit__` is called exactly once (breaks/tries.py).
Each case runs with the compiled prefix (min_graph_size=0) and with the
native prefix (a graph too small to compile)."""
import contextlib
import inspect

import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


class Log:
    def __init__(self):
        self.events = []

    def __enter__(self):
        self.events.append("enter")
        return self

    def __exit__(self, kind, value, tb):
        self.events.append(("exit", kind))
        return kind is IndexError  # suppresses IndexError only


def native(v, *, fail=False):
    print("native", v.shape)   # a graph break inside the callers' blocks
    if fail:
        raise ValueError("the native step failed")
    return v


def try_body(x, fail_at):
    y = x * 2
    log = ()
    try:
        y = native(y, fail=fail_at == 1) + 1   # a keyword call: entered at its KW_NAMES (3.11, 3.12)
        z = y * 3
        if fail_at == 2:
            raise KeyError("after the break")
    except (ValueError, KeyError) as e:
        log += (type(e).__name__,)
        z = x - 1
    else:
        log += ("else",)
    finally:
        log += ("finally",)
        y = y + 100
    return y, z, log


def with_body(x, fail_at):
    m = Log()
    y = x * 2
    try:
        with m as k:
            y = native(y, fail=fail_at == 1) + 1
            z = y * 3
            if fail_at == 2:
                raise KeyError("after the break")
            if fail_at == 3:
                raise IndexError("suppressed by __exit__")
    except (ValueError, KeyError):
        z = x
    return y, z, m.events, k is m


def with_inside_try_inside_with(x, fail_at):
    outer, inner = Log(), Log()
    with outer:
        try:
            with inner:
                y = native(x * 2, fail=fail_at == 1)
                if fail_at == 2:
                    raise KeyError("k")
                y = y + 1
        except (KeyError, ValueError):
            y = x
    return y, outer.events, inner.events


CASES = [try_body, with_body, with_inside_try_inside_with]


@pytest.mark.parametrize("min_graph_size", [0, 100])
@pytest.mark.parametrize("fn", CASES)
def test_break_inside_a_block_keeps_the_block_working(fn, min_graph_size):
    static = sot.to_static(fn, min_graph_size=min_graph_size)
    for fail_at in (0, 1, 2, 3):
        check(fn, (X, fail_at), static=static)


@pytest.mark.parametrize("fn", CASES)
def test_break_inside_a_block_keeps_graphs_on_both_sides(fn):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X, 0)
    top = report.entries[0]
    assert top.fallback is None and top.graph_break is not None, str(report)
    assert "print" in top.graph_break.message
    resumed = [e for e in report.entries if e.code_name.startswith(fn.__name__ + " (")]
    assert resumed and all(e.fallback is None for e in resumed), str(report)
    lines, first = inspect.getsourcelines(fn)
    line = first + next(k for k, text in enumerate(lines) if "native(" in text)
    assert f"line {line})" in resumed[0].code_name, resumed[0].code_name  # inside the block, not after it
    assert report.graph_count >= 2


def test_break_inside_an_except_handler_keeps_eager_behaviour():
    def f(x, fail):
        y = x + 1
        try:
            if fail:
                raise ValueError("v")
        except ValueError:
            y = native(y) * 2
        return y
    for fail in (False, True):
        check(f, (X, fail), static=sot.to_static(f, min_graph_size=0))


def test_break_inside_a_try_in_a_loop_keeps_eager_behaviour():
    def f(x):
        out = []
        for i in range(3):
            try:
                v = native(x * i, fail=i == 1)
            except ValueError:
                v = x
            out.append(v)
        return out
    check(f, (X,), static=sot.to_static(f, min_graph_size=0))


def test_break_inside_a_contextmanager_block_keeps_eager_behaviour():
    events = []

    @contextlib.contextmanager
    def scope():
        events.append("in")
        try:
            yield 2.0
        finally:
            events.append("out")

    def f(x, fail):
        with scope() as k:
            y = native(x * k, fail=fail)
        return y
    static = sot.to_static(f, min_graph_size=0)
    for fail in (False, True):
        e_before = len(events)
        check(f, (X, fail), static=static)
        assert events[e_before:] == ["in", "out"] * 6  # 3 eager + 3 traced calls, once each
