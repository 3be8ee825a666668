"""Hostile use, round 3: a generator made in the trace and left paused
inside a `try`/`with` is closed by eager when it is dropped (`del g`, the
frame's end, a `return` or `break` out of the loop over it): its `finally`,
`except GeneratorExit` or `__exit__` runs then. The trace modelled the
generator and never closed it, so that cleanup (a print, a list append, a
lock's release) silently did not happen. Such a translation falls back
(executor/generators.py: check_left_open)."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import sot
from difftest import check


def _cleanup_gen(x, log):
    try:
        yield x
        yield x + 1
    finally:
        log.append("cleanup")


def _print_gen(x):
    try:
        yield x
    finally:
        print("cleanup")


def _catch_exit_gen(x, log):
    try:
        yield x
    except GeneratorExit:
        log.append("exit")
        raise


@contextlib.contextmanager
def _ctx(log):
    try:
        yield
    finally:
        log.append("ctx exit")


def _with_gen(x, log):
    with _ctx(log):
        yield x * 2


def _plain_gen(x, log):
    yield x
    yield x * 3


def _next_then_drop(x, log):
    g = _print_gen(x)
    return next(g) * 2


def _del_then_append(x, log):
    g = _cleanup_gen(x, log)
    v = next(g)
    del g
    log.append("after")
    return v


def _return_from_loop(x, log):
    for v in _cleanup_gen(x, log):
        return v + 1


def _break_from_loop(x, log):
    for v in _catch_exit_gen(x, log):
        break
    log.append("after")
    return v


def _with_inside(x, log):
    g = _with_gen(x, log)
    y = next(g)
    g = None
    log.append("after")
    return y


def _rebind(x, log):
    g = _cleanup_gen(x, log)
    a = next(g)
    g = _plain_gen(x, log)
    return a + next(g)


def _helper_drops(x, log):
    return next(_cleanup_gen(x, log))


def _inlined_helper(x, log):
    y = _helper_drops(x, log)
    log.append("caller")
    return y


@pytest.mark.parametrize("fn", [_next_then_drop, _del_then_append, _return_from_loop, _break_from_loop,
                                _with_inside, _rebind, _inlined_helper])
def test_generator_dropped_in_a_try_runs_its_cleanup_as_eager(fn):
    check(fn, (np.arange(3.0), []))


def _exhausted(x, log):
    return sum(_cleanup_gen(x, log))


def _closed(x, log):
    g = _cleanup_gen(x, log)
    v = next(g)
    g.close()
    log.append("after")
    return v * 2


def _paused_outside_try(x, log):
    g = _plain_gen(x, log)
    return next(g) + 1


@pytest.mark.parametrize("fn", [_exhausted, _closed, _paused_outside_try])
def test_generators_with_nothing_left_to_clean_up_stay_captured(fn):
    check(fn, (np.arange(3.0), []))
    report = sot.explain(sot.to_static(fn, min_graph_size=0), np.arange(3.0), [])
    assert not report.breaks and not report.fallbacks and report.graph_count == 1


def _delegating(x, log):
    yield from _cleanup_gen(x, log)


def _delegate_dropped(x, log):
    g = _delegating(x, log)
    return next(g) * 2


def _delegate_to_plain(x, log):
    g = (lambda: (yield from _plain_gen(x, log)))()
    return next(g) * 2


def test_generator_delegated_to_runs_its_cleanup_as_eager():
    check(_delegate_dropped, (np.arange(3.0), []))


def test_delegating_to_a_generator_with_nothing_to_clean_up_stays_captured():
    check(_delegate_to_plain, (np.arange(3.0), []))
    report = sot.explain(sot.to_static(_delegate_to_plain, min_graph_size=0), np.arange(3.0), [])
    assert not report.breaks and not report.fallbacks and report.graph_count == 1
