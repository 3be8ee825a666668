"""Hostile use, round 3 (over-strict before): a graph that writes into an
array from outside, replays a side effect, and then uses an int that varies
between calls (an optimizer's step counter, a number input) with a float
(`w * self.steps`, `self.steps * 0.5`) or `% 7`. Such an op was counted as
"may raise" (ir/run_errors.py), so the whole function fell back to native.
An int meets a float without error below 2**1023, so the runner now checks
the int inputs against a bound before the graph writes and reruns the frame
natively past it, where eager's OverflowError is raised as eager raises it."""
from __future__ import annotations

import warnings

import numpy as np

import sot
from difftest import assert_same


class Model:
    def __init__(self):
        self.w = np.ones(4)
        self.steps = 0
        self.log = []

    def step(self, x):
        self.w -= 0.1 * x
        self.steps += 1
        self.log.append(self.steps % 7)
        return self.w * self.steps, self.w.sum() * (self.steps * 0.5), self.w / self.steps, self.steps * 2.5 - 1


def _call(fn, model):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = ("ok", fn(model, np.arange(4.0)))
        except OverflowError as e:
            out = ("raised", str(e))
    return out, [(w.category, str(w.message)) for w in caught]


def test_a_step_counter_after_a_write_stays_one_graph():
    static = sot.to_static(Model.step)
    m = Model()
    for _ in range(4):
        static(m, np.ones(4))
    report = sot.explain(static, m, np.ones(4))
    assert not report.breaks and not report.fallbacks and report.graph_count == 1


def test_huge_int_inputs_after_a_write_raise_and_warn_as_eagerly():
    static = sot.to_static(Model.step)
    eager, traced = Model(), Model()
    steps = [None, None, None, 2 ** 1100, None, 5, 2 ** 999, 2 ** 1000 - 1, 2 ** 1000, -2 ** 1000, 2 ** 1022,
             2 ** 1023, -2 ** 1025, 3, None]
    for value in steps:
        if value is not None:
            eager.steps = traced.steps = value
        (e_kind, e_out), e_warn = _call(Model.step, eager)
        (t_kind, t_out), t_warn = _call(static, traced)
        assert e_kind == t_kind, (value, e_out, t_out)
        assert_same(e_out, t_out)
        assert e_warn == t_warn, value
        assert_same(vars(eager), vars(traced))
