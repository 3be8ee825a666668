"""A plain dict from outside read key by key (sot/executor/dict_data.py): a
dict whose keys grow or change on every call is guarded by what the trace
observed of it, not by its key set, so a step function that records into
it translates a bounded number of times; every call still behaves as eager
(results, the dict's final keys in order and values, stdout, exceptions).
"""
from __future__ import annotations

import collections
import contextlib
import copy
import io
import logging

import numpy as np

import sot

from difftest import assert_same

X = np.linspace(-1.0, 1.0, 12).reshape(3, 4)


def run_calls(fn, calls, static=None):
    """Call `fn(*args)` eagerly and decorated for each args in `calls`;
    each side has its own deep copy of the whole list, so an object that
    appears in several calls (a dict that grows) or twice in one (aliases)
    stays one object. Results, exceptions, stdout and the arguments after
    each call agree. The decorated fn."""
    static = static or sot.to_static(fn)
    eager_calls, traced_calls = copy.deepcopy(calls), copy.deepcopy(calls)
    for e_args, t_args in zip(eager_calls, traced_calls):
        results = []
        for f, args in ((fn, e_args), (static, t_args)):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                try:
                    results.append(("ok", f(*args), out))
                except Exception as e:  # compared, not swallowed
                    results.append(("raised", e, out))
        (ek, ev, eo), (tk, tv, to) = results
        assert ek == tk, (ev, tv)
        if ek == "raised":
            assert type(ev) is type(tv) and str(ev) == str(tv)
        else:
            assert_same(ev, tv, bitwise=True)
        assert eo.getvalue() == to.getvalue(), "stdout differs"
        assert_same(e_args, t_args, "arguments after the call", bitwise=True)
    return static



def no_break(static, *args):
    report = sot.explain(static, *args)
    assert not report.breaks and not report.fallbacks, str(report)
    return report


# -- keys that grow or change on every call ------------------------------------------------

def record_step(stats, step, x):
    y = np.tanh(x) * 2.0
    stats[step] = 0.5
    stats["last"] = step
    return y + 1.0


def test_growing_int_keys_translate_a_bounded_number_of_times():
    stats = {}
    static = run_calls(record_step, [(stats, i, X) for i in range(14)])
    # the first value of step, then step as a number input (its store replayed with the run-time key)
    assert sot.translation_count(static) == 2
    no_break(static, {"last": 3}, 7, X)


def test_store_with_run_time_key_replaces_an_existing_key_in_place():
    stats = {0: 1.0, 1: 2.0, "last": 0, 5: 9.0}
    static = run_calls(record_step, [(stats, i, X) for i in (0, 1, 2, 5, 3, 1)])
    assert sot.translation_count(static) == 2


class Box:
    t = 0


class Probe:
    """Its release prints what it sees: when the store that replaces it runs."""

    def __init__(self, box):
        self.box = box

    def __del__(self):
        print("released when box.t was", self.box.t)


def test_store_with_run_time_key_over_a_value_whose_release_runs_code():
    def step(stats, box, i, x):
        stats[i] = 1.0
        box.t = i   # (replayed before the dict's stores: a release in the replay would see it)
        return x * 2.0
    stats, box = {}, Box()
    probed = {4: Probe(box)}
    calls = [(stats, box, i, X) for i in range(3)] + [(probed, box, 4, X), (stats, box, 3, X)]
    run_calls(step, calls)
    probed = {0: 1.0}
    probed[5] = Probe(box)   # the trace at i=5 meets it
    run_calls(step, [(probed, box, 5, X), (probed, box, 5, X)])


def test_reads_after_a_run_time_key_store():
    def step(stats, i, x):
        stats[i] = 1.0
        stats["n"] = stats.get("n", 0) + 1       # a str key: not the run-time int key
        return x * len(stats), stats.get(0), list(stats)   # need the int keys: a break, then eager's answer
    stats = {}
    run_calls(step, [(stats, i, X) for i in (0, 1, 2, 0, 3)])


def test_counter_and_optional_key():
    def step(cache, w, x):
        h = x @ w
        if "scale" in cache:
            h = h * cache["scale"]
        cache["n"] = cache.get("n", 0) + 1
        return np.maximum(h, 0.0)
    cache = {"other": np.ones(2)}
    w = np.full((4, 2), 0.25)
    calls = [(cache, w, X) for _ in range(4)] + [({"scale": 2.0, "n": 7}, w, X), ({"scale": 3.0}, w, X)]
    static = run_calls(step, calls + [(cache, w, X)])
    assert sot.translation_count(static) <= 5


def test_names_stored_per_call():
    def step(history, name, x):
        history.setdefault(name, []).append(float(1.5))
        history["count"] = history.get("count", 0) + 1
        return x.sum()
    history = {}
    run_calls(step, [(history, "run%d" % (i % 3), X) for i in range(9)])


def test_a_dict_of_arrays_updated_in_place_keeps_one_entry():
    def step(state, x):
        state["h"] = np.tanh(state["h"] + x)
        state["t"] = state["t"] + 1
        return state["h"].sum()
    state = {"h": np.zeros((3, 4)), "t": 0, "log": []}
    static = run_calls(step, [(state, X) for _ in range(6)])
    assert sot.translation_count(static) == 2   # t: a number input from its second value


# -- exactness ----------------------------------------------------------------------------------

def test_missing_keys_raise_as_eager():
    def read(d, x):
        return x * d["w"]

    def read_caught(d, x):
        try:
            return x * d["w"]
        except KeyError as e:
            return x, repr(e)

    def delete(d, x):
        del d["w"]
        return x + 1.0

    def pop(d, x):
        return x * d.pop("w")

    for fn in (read, read_caught, delete, pop):
        run_calls(fn, [({"w": 2.0}, X), ({"w": 2.0}, X), ({"v": 1.0}, X), ({"w": 3.0, "v": 1.0}, X)])


def test_get_setdefault_pop_in_and_len():
    def step(d, x):
        a = d.get("a", 1.0)
        b = d.setdefault("b", 2.0)
        c = d.pop("c", 4.0)
        here = ("a" in d, "z" in d, "z" not in d)
        return x * a * b * c, here, len(d)
    calls = [({}, X), ({"a": 3.0}, X), ({"a": 3.0, "b": 5.0, "c": 7.0}, X), ({"c": 1.0, "z": 0}, X), ({}, X)]
    run_calls(step, calls)


def test_delete_then_store_moves_the_key_to_the_end():
    def step(d, x):
        del d["a"]
        d["new"] = 1
        d["a"] = 2
        d["b"] = 3      # in place
        d.pop("new")
        return x * 2.0
    run_calls(step, [({"a": 0, "b": 0, "c": 0}, X), ({"a": 0, "b": 0}, X), ({"b": 1, "a": 1}, X)])


def test_iteration_after_stores_and_over_changed_keys():
    def step(d, x):
        d["added"] = 1.0
        del d["gone"]
        keys = [k for k in d]
        total = sum(d.values())
        return x * total, keys
    calls = [({"gone": 0, "a": 1.0}, X), ({"gone": 0, "a": 1.0}, X), ({"b": 2.0, "gone": 0, "a": 1.0}, X),
             ({"a": 1.0}, X), ({"added": 5.0, "gone": 1}, X)]
    run_calls(step, calls)


def test_len_of_a_growing_dict_is_a_number_input():
    def step(d, i, x):
        d[i] = 1
        return x * len(d)
    d = {}
    static = run_calls(step, [(d, i, X) for i in range(3)])   # a break after the run-time key store
    def count(d, x):
        return x * len(d)
    static = run_calls(count, [({i: 0 for i in range(n)}, X) for n in range(2, 12)])
    assert sot.translation_count(static) == 2


def test_a_dict_given_to_a_user_function_and_one_reached_twice():
    def record(d, k, v):
        d[k] = v
        return d.get("n", 0)

    def step(a, b, x):
        n = record(a, "y", x * 2.0)
        return b.get("y"), n, "y" in b

    same = {"n": 1}
    run_calls(step, [(same, same, X), ({"n": 1}, {"n": 2}, X), (same, same, X)])


def test_a_changed_observed_value_and_the_cache_limit():
    def step(d, x):
        return x * 2.0 if d["mode"] == "train" else x, d["tag"]
    calls = [({"mode": m, "tag": "t%d" % i}, X) for i, m in enumerate(["train", "eval"] * 7)]
    static = run_calls(step, calls)
    assert sot.translation_count(static) <= 9   # one per tag up to the cache limit, then native


def test_a_present_key_whose_value_changes_type():
    def step(d, box, x):
        d["last"] = 1
        box.t += 1
        return x + 1.0
    box = Box()
    run_calls(step, [({"last": 0}, box, X), ({"last": 0}, box, X), ({"last": Probe(box)}, box, X),
                     ({"last": 0}, box, X)])


def test_key_one_and_true_are_one_key():
    def step(d, x):
        return x * d[1], 1 in d, d.get(0, "none")
    run_calls(step, [({1: 2.0}, X), ({True: 3.0}, X), ({False: 4.0, 1: 1.0}, X)])


def test_dict_kinds_are_as_before():
    def step(d, x):
        d["n"] += 1
        return x * d["n"], list(d)
    calls = [(collections.defaultdict(int), X), (collections.Counter(a=1), X),
             (collections.OrderedDict(n=1, a=2), X)]
    run_calls(step, calls * 2)


def test_a_key_that_appears_is_named_in_the_recompile_log(caplog):
    def step(d, x):
        return x * d.get("scale", 1.0)
    static = sot.to_static(step)
    sot.set_verbosity(2)
    try:
        with caplog.at_level(logging.INFO, logger="sot"):
            static({}, X)
            static({"scale": 2.0}, X)
    finally:
        sot.set_verbosity(0)
    assert "d now has the key 'scale'" in caplog.text


def test_stores_around_a_break_nested_dicts_and_returning_the_dict():
    def step(d, x):
        d["a"] = x * 2.0
        d["h"] += x                 # an array updated in place: the same object stays
        d["sub"]["n"] = d["sub"].get("n", 0) + 1
        print("between", d["sub"]["n"])   # a break: the stores are replayed before it
        d.update(b=1)
        return d, d["a"].sum(), list(d)
    calls = [({"h": np.zeros((3, 4)), "sub": {}}, X), ({"h": np.ones((3, 4)), "sub": {"n": 4}, "z": 0}, X)]
    run_calls(step, calls + calls)
