"""The do-no-harm governor (sot/governor.py), tested with a fake clock.

The decorated functions call a native helper (not_to_static: a graph break)
that advances the fake clock by a cost that depends on whether the call runs
translated (the hook's callback is set) or natively, so each test decides
which form is "faster" without any real timing.
"""
from __future__ import annotations

import numpy as np
import pytest

import sot
from sot import _hook, governor

from difftest import assert_same


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.translated_cost = 2.0
        self.native_cost = 1.0
        self.switch_cost = 0.0   # extra cost of a translated call right after a native one
        self.last = None

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    monkeypatch.setenv("SOT_DO_NO_HARM", "1")
    c = FakeClock()
    monkeypatch.setattr(governor, "clock", c)
    _CLOCK[0] = c
    yield c
    _CLOCK[0] = None
    _MEASURING["left"] = 0


_CLOCK = [None]


#: translated calls still to pay an auto graph's timing of its backends
_MEASURING = {"left": 0}


@sot.not_to_static
def _tick():
    c = _CLOCK[0]
    translated = _hook.get_callback() is not None
    if translated and _MEASURING["left"]:
        # stands for an auto graph timing its backends: such a call is slow
        # (half of it ran on the slower backend) and says so
        from sot.backends import measuring_calls
        _MEASURING["left"] -= 1
        measuring_calls[0] += 1
        c.now += 100.0
    c.now += c.translated_cost if translated else c.native_cost
    if translated and c.last is False:
        c.now += c.switch_cost
    c.last = translated
    return 1


#: calls of a first window: one warm-up (it translates), SAMPLES calls translated, one warm-up
#: call native (the first after a switch of form), SAMPLES calls native
WINDOW = 2 + 2 * governor.SAMPLES


def work(x):
    y = x * 2 + 1
    y = np.tanh(y) * 3 - y
    n = _tick()
    return y * n + x


def test_slower_translated_runs_natively_and_says_so(clock):
    f = sot.to_static(work, min_graph_size=1)
    x = np.arange(4.0)
    for _ in range(WINDOW):
        assert_same(work(x), f(x), bitwise=True)  # alternating forms: identical results
    assert f.__sot_mode__ == governor.NATIVE
    gov = f.__sot_governor__
    assert gov.choice == "native" and "translated 2000000.0 us, native 1000000.0 us" in gov.reason
    # native from now on: a new shape is not translated
    before = sot.translation_count(f)
    f(np.arange(5.0))
    assert sot.translation_count(f) == before
    report = sot.explain(f, x)
    assert report.graph_count >= 1  # explain still translates, once
    assert "do-no-harm: native" in str(report) and report.to_dict()["governor"].startswith("do-no-harm: native")
    assert f.__sot_mode__ == governor.NATIVE


def test_faster_translated_stays_translated(clock):
    clock.translated_cost, clock.native_cost = 1.0, 2.0
    f = sot.to_static(work, min_graph_size=1)
    x = np.arange(4.0)
    for _ in range(WINDOW):
        assert_same(work(x), f(x), bitwise=True)
    assert f.__sot_mode__ == governor.TRANSLATED and f.__sot_governor__.choice == "translated"


def test_translated_within_noise_of_native_runs_natively(clock):
    clock.translated_cost, clock.native_cost = 0.98, 1.0  # 2 % faster: not worth the risk
    f = sot.to_static(work, min_graph_size=1)
    x = np.arange(4.0)
    for _ in range(WINDOW):
        f(x)
    assert f.__sot_mode__ == governor.NATIVE


def test_the_choice_is_rechecked_later(clock, monkeypatch):
    monkeypatch.setattr(governor, "RECHECK", 5)
    f = sot.to_static(work, min_graph_size=1)
    x = np.arange(4.0)
    for _ in range(WINDOW):
        f(x)
    # translated took twice as long: its re-check calls cost twice as much, so they come twice as late
    assert f.__sot_mode__ == governor.NATIVE and f.__sot_countdown__ == 10
    clock.translated_cost, clock.native_cost = 1.0, 2.0  # the program's situation changed
    for _ in range(9):
        f(x)
    assert f.__sot_mode__ == governor.NATIVE and f.__sot_countdown__ == 1
    f(x)  # the tenth call opens a new window
    assert f.__sot_mode__ == governor.MEASURE
    # native (the choice so far) ran just before: its calls are samples at once; then one
    # warm-up call of the translated form and its samples
    for _ in range(2 * governor.SAMPLES):
        f(x)
    gov = f.__sot_governor__
    assert [c for c, _ in gov.history] == ["native", "translated"]
    assert f.__sot_mode__ == governor.TRANSLATED and f.__sot_countdown__ == 20  # twice as long, times 2


def test_a_recheck_costs_a_bounded_share_however_slow_the_other_form(clock, monkeypatch):
    monkeypatch.setattr(governor, "RECHECK", 5)
    clock.translated_cost, clock.native_cost = 1.0, 30.0
    f = sot.to_static(work, min_graph_size=1)
    x = np.arange(4.0)
    for _ in range(WINDOW):
        f(x)
    assert f.__sot_mode__ == governor.TRANSLATED and f.__sot_countdown__ == 5 * 30


def test_the_first_call_after_a_switch_of_form_is_not_a_sample(clock, monkeypatch):
    """A translated call right after a native one is slow (the BLAS threads
    of the eager call still spin); calls that follow their own form show the
    steady cost, and that decides (alternating call by call, every
    translated sample of a re-check paid for the switch)."""
    monkeypatch.setattr(governor, "RECHECK", 1)
    f = sot.to_static(work, min_graph_size=1)
    x = np.arange(4.0)
    for _ in range(WINDOW):
        f(x)
    assert f.__sot_governor__.choice == "native"
    clock.translated_cost, clock.native_cost, clock.switch_cost = 1.0, 2.0, 5.0
    for _ in range(f.__sot_countdown__ + 2 * governor.SAMPLES + 1):
        f(x)
    assert f.__sot_governor__.choice == "translated", f.__sot_governor__.describe()
    assert_same(work(x), f(x), bitwise=True)


G = {"n": 0}


def keeps_translating(x):
    G["n"] += 1
    for _ in range(G["n"] % 50):  # range() needs the value: a new translation per call
        x = x + 1
    _tick()
    return x * 2


def test_a_function_that_keeps_translating_stops_being_translated(clock, monkeypatch):
    monkeypatch.setattr(governor, "MAX_WINDOW", 6)
    G["n"] = 0
    f = sot.to_static(keeps_translating, cache_size=64, min_graph_size=1)
    x = np.arange(3.0)
    for _ in range(6):
        f(x)
    gov = f.__sot_governor__
    assert gov.choice == "native" and gov.reason.startswith("keeps translating:")
    n = sot.translation_count(f)
    G["n"] = 0
    for _ in range(5):
        f(x)
    assert sot.translation_count(f) == n


def test_full_graph_and_the_environment_switch_it_off(clock, monkeypatch):
    f = sot.to_static(lambda x: x + 1, full_graph=True)
    assert f.__sot_governor__ is None if hasattr(f, "__sot_governor__") else True
    assert f.__sot_mode__ == governor.TRANSLATED
    monkeypatch.setenv("SOT_DO_NO_HARM", "0")
    g = sot.to_static(work)
    assert g.__sot_mode__ == governor.TRANSLATED and g.__sot_governor__ is None


def test_reset_measures_again(clock):
    f = sot.to_static(work, min_graph_size=1)
    x = np.arange(4.0)
    for _ in range(WINDOW):
        f(x)
    assert f.__sot_mode__ == governor.NATIVE
    sot.reset()
    assert f.__sot_mode__ == governor.MEASURE and f.__sot_governor__.choice is None


def test_a_method_is_measured_with_its_instance(clock):
    class Model:
        def __init__(self):
            self.w = np.ones(4)

        @sot.to_static
        def __call__(self, x):
            return work(x) * self.w

    m = Model()
    x = np.arange(4.0)
    for _ in range(WINDOW):
        assert_same(work(x) * m.w, m(x), bitwise=True)
    assert Model.__call__.__sot_governor__.choice == "native"


def test_the_choice_belongs_to_the_code_and_its_options(clock):
    f = sot.to_static(work, min_graph_size=1)
    x = np.arange(4.0)
    for _ in range(WINDOW):
        f(x)
    assert f.__sot_mode__ == governor.NATIVE
    again = sot.to_static(work, min_graph_size=1)   # the same code, the same options: decided
    assert again.__sot_governor__ is f.__sot_governor__ and again.__sot_mode__ == governor.NATIVE
    assert_same(work(x), again(x), bitwise=True)
    other = sot.to_static(work, min_graph_size=1, backend="onnxruntime")   # other options: measured
    assert other.__sot_governor__ is not f.__sot_governor__ and other.__sot_mode__ == governor.MEASURE
    sot.reset()
    assert f.__sot_mode__ == again.__sot_mode__ == governor.MEASURE


def test_bound_methods_of_two_instances_share_one_measurement(clock):
    class Layer:
        def __init__(self, k):
            self.w = np.full(4, float(k))

        def step(self, x):
            return work(x) * self.w

    a, b = Layer(1), Layer(2)
    fa, fb = sot.to_static(a.step, min_graph_size=1), sot.to_static(b.step, min_graph_size=1)
    assert fa.__sot_governor__ is fb.__sot_governor__
    x = np.arange(4.0)
    for _ in range(1 + governor.SAMPLES):   # the calls of both count
        assert_same(work(x) * a.w, fa(x), bitwise=True)
        assert_same(work(x) * b.w, fb(x), bitwise=True)
    assert fa.__sot_mode__ == fb.__sot_mode__ == governor.NATIVE
    assert fa.__sot_governor__.choice == "native"




def test_calls_while_an_auto_graph_times_its_backends_are_not_samples(clock):
    clock.translated_cost, clock.native_cost = 1.0, 2.0
    _MEASURING["left"] = 8          # more than a window could absorb as samples
    f = sot.to_static(work, min_graph_size=1)
    x = np.arange(4.0)
    for _ in range(WINDOW + 2 * 8):
        assert_same(work(x), f(x), bitwise=True)
    assert _MEASURING["left"] == 0
    assert f.__sot_governor__.choice == "translated", f.__sot_governor__.describe()
