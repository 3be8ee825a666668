"""Hostile use, round 2: a graph that writes into an array from outside and
then raises. It cannot be rerun natively (the write would happen twice), so
its error is raised as it is; but the side effects that eager made before the
error (a list append, an attribute or global store, a closure cell) are
replayed only after the graph, and were lost: the caller that caught the
error saw eager's array and the list unchanged. And the error, raised from
the runner, passed the function's own `except`: the decorated function raised
where eager returned. Such a graph is captured only where no op after its
write can raise (sot/ir/run_errors.py), and a call under an error state that
makes float errors raise runs natively."""
from __future__ import annotations

import numpy as np
import pytest

import sot
from difftest import assert_same, check


class Box:
    pass


def _append_write_index(x, idx, log):
    log.append(1)
    x += 1
    return x[idx]


def _write_append_index(x, idx, log):
    x += 1
    log.append(len(log))
    return x[idx]


def _item_write_index(x, idx, log):
    log[0] += 1
    x[0] = 7
    return x[idx]


def _pop_write_take(x, idx, log):
    log.pop()
    x *= 2
    return np.take(x, idx)


def _write_then_add_at(x, idx, log):
    log.append(x.sum())
    x += 1
    np.add.at(x, idx, 1.0)
    return x


def _attr_write_index(x, idx, box):
    box.n = 5
    x -= 1
    return x[idx]


def _cell_write_index(x, idx, log):
    n = 0

    def bump():
        nonlocal n
        n += 1
    bump()
    x += 1
    try:
        return x[idx]
    finally:
        log.append(n)


def _write_then_inv(x, idx, log):
    log.append(1)
    x += 0.0
    return np.linalg.inv(x)


@pytest.mark.parametrize("fn", [_append_write_index, _write_append_index, _item_write_index, _pop_write_take,
                                _write_then_add_at, _cell_write_index], ids=lambda f: f.__name__.strip("_"))
def test_effects_before_an_error_after_a_write_are_eagers(fn):
    check(fn, (np.zeros(3), np.array([5]), [1, 2]), (np.zeros(3), np.array([1]), [1, 2]))


def test_attribute_store_before_an_error_after_a_write():
    check(_attr_write_index, (np.zeros(3), np.array([5]), Box()), (np.zeros(3), np.array([2]), Box()))


def test_effects_before_a_linalg_error_after_a_write():
    check(_write_then_inv, (np.zeros((2, 2)), None, []), (np.eye(2), None, []))


def _append_write_divide(x, z, log):
    log.append(1)
    x += 1
    return x / z


def test_caller_errstate_raise_after_a_write_keeps_the_effects():
    static = sot.to_static(_append_write_divide)
    for z in (np.ones(3), np.zeros(3), np.zeros(3)):
        outcomes = []
        for fn in (_append_write_divide, static):
            x, log = np.zeros(3), []
            with np.errstate(divide="raise"):
                try:
                    outcomes.append((fn(x, z, log), x, log))
                except FloatingPointError as e:
                    outcomes.append((str(e), x, log))
        assert_same(*outcomes)


def test_a_write_with_a_replayed_store_and_no_raising_op_stays_one_graph():
    class Model:
        def __init__(self):
            self.w = np.ones(4)
            self.steps = 0

        def step(self, x):
            self.w -= 0.1 * x
            self.steps += 1
            return (self.w * self.w).mean()

    report = sot.explain(sot.to_static(Model().step, min_graph_size=0), np.ones(4))
    assert not report.breaks and report.graph_count == 1
    check(lambda m, x: (m.step(x), m.steps), (Model(), np.arange(4.0)))


def _write_then_error_caught_inside(x, idx):
    try:
        x += 1
        y = x[idx]
    except IndexError as e:
        return x, str(e)
    return y, None


def _write_then_error_in_with(x, idx, log):
    class Swallow:
        def __enter__(self):
            log.append("in")

        def __exit__(self, *exc):
            log.append(exc[0] is not None)
            return True
    with Swallow():
        x *= 3
        x[idx] = -1
    return x, log


def _write_in_try_error_caught_by_inlined_caller(x, idx):
    def inner(v):
        v += 1
        return v[idx]
    try:
        return inner(x)
    except IndexError:
        return x * 10


def test_error_after_a_write_reaches_the_functions_own_except():
    check(_write_then_error_caught_inside, (np.zeros(3), np.array([5])), (np.zeros(3), np.array([1])))
    check(_write_in_try_error_caught_by_inlined_caller, (np.zeros(3), np.array([5])), (np.zeros(3), np.array([1])))


def test_error_after_a_write_reaches_a_with_exit():
    check(_write_then_error_in_with, (np.zeros(3), np.array([5]), []), (np.zeros(3), np.array([1]), []))


def test_write_in_try_whose_ops_cannot_raise_stays_one_graph():
    def f(x, y):
        try:
            x += y
            z = x * 2 + y.sum()
        except ValueError:
            return None
        return z

    report = sot.explain(sot.to_static(f, min_graph_size=0), np.zeros(3), np.ones(3))
    assert not report.breaks and report.graph_count == 1
    check(f, (np.zeros(3), np.ones(3)))


class _Counter:
    def __init__(self, count=0):
        self.w = np.ones(3)
        self.count = count
        self.total = 0.0

    def step(self, x):
        self.w += x
        self.total = self.total + 1.0
        self.count = self.count - 1          # a number input once it changed between calls
        return self.w.sum() * (self.total / self.count)   # ZeroDivisionError when count reaches 0


def test_number_inputs_after_a_write_divide_by_zero_as_eagerly():
    static = sot.to_static(_Counter.step)
    eager_obj, traced_obj = _Counter(4), _Counter(4)
    for _ in range(6):
        outcomes = []
        for fn, obj in ((_Counter.step, eager_obj), (static, traced_obj)):
            try:
                outcomes.append(fn(obj, np.ones(3)))
            except ZeroDivisionError as e:
                outcomes.append(str(e))
        assert_same(*outcomes)
        assert_same(vars(eager_obj), vars(traced_obj))


def test_counter_after_a_write_stays_captured():
    class Model:
        def __init__(self):
            self.w = np.ones(4)
            self.steps = 0

        def step(self, x):
            self.w -= 0.1 * x
            self.steps += 1
            return self.w.sum()

    static = sot.to_static(Model.step)
    m = Model()
    for _ in range(5):
        static(m, np.ones(4))
    report = sot.explain(static, m, np.ones(4))
    assert not report.breaks and not [e for e in report.entries if e.fallback]
    check(lambda m, x: [m.step(x) for _ in range(4)] + [m.steps], (Model(), np.arange(4.0)))
