"""A list read from a dict from outside at a run-time str key
(``history[name].append(v)``, sot/executor/dict_runtime_reads.py `_list_at`):
guarded by its exact type, grown when the call runs, so a new key does not
retranslate. Where the trace needs more (its items, its identity against
another list it reached), the key is value-guarded as before. Every call is
eager's: results, the dict and its lists after the call, exceptions.
"""
from __future__ import annotations

import numpy as np

import sot

from difftest import check

X = np.linspace(-1.0, 1.0, 5)
NAMES = ["loss", "acc", "lr", "grad_norm", "step_time", "tokens", "ppl", "wd", "mom", "beta"]


def fresh_history():
    return {n: [] for n in NAMES} | {"count": 0}


def calls(fn, arg_sets, static):
    for args in arg_sets:
        check(fn, args, calls=1, static=static)


def log_metric(history, name, x):
    y = np.tanh(x) * 2.0
    history[name].append(float(y.shape[0]))
    return y


def test_append_to_the_list_at_a_new_key_does_not_retranslate():
    static = sot.to_static(log_metric)
    calls(log_metric, [(fresh_history(), n, X) for n in NAMES[:2]], static)
    settled = sot.translation_count(static)
    calls(log_metric, [(fresh_history(), n, X) for n in NAMES[2:]], static)
    assert sot.translation_count(static) == settled       # was one translation per name
    h_eager, h_traced = fresh_history(), fresh_history()
    for n in NAMES * 2:                                     # one dict over many calls: lists grow
        assert np.array_equal(log_metric(h_eager, n, X), static(h_traced, n, X))
    assert h_eager == h_traced


def extend_and_insert(history, name, x):
    lst = history[name]
    lst.extend([1.0, 2.0])
    history[name].insert(0, -1.0)                           # the same list, read again
    return x * 3.0, lst


def test_growth_by_two_reads_lands_on_one_list_and_it_is_returned():
    static = sot.to_static(extend_and_insert)
    calls(extend_and_insert, [(fresh_history(), n, X) for n in NAMES], static)
    assert sot.translation_count(static) <= 2


def append_then_read(history, name, x):
    history[name].append(2.0)
    return x * history[name][-1], len(history[name])        # what the trace appended, the length


def test_reading_what_was_appended_and_the_length_needs_no_key_value():
    static = sot.to_static(append_then_read)
    calls(append_then_read, [(fresh_history(), n, X) for n in NAMES[:2]], static)
    settled = sot.translation_count(static)
    calls(append_then_read, [(fresh_history(), n, X) for n in NAMES[2:]], static)
    assert sot.translation_count(static) == settled
    h = fresh_history()
    h["lr"] += [5.0, 6.0]
    calls(append_then_read, [(h, "lr", X)], static)


def append_then_read_first(history, name, x):
    history[name].append(2.0)
    return x * history[name][0]                              # the items: the key's value is needed


def test_reading_the_items_value_guards_the_key():
    static = sot.to_static(append_then_read_first)
    calls(append_then_read_first, [(fresh_history(), n, X) for n in NAMES[:4]], static)
    report = sot.explain(static, fresh_history(), NAMES[5], X)
    assert report.translation_count == 1                     # a new key: a new translation
    assert any(f"== {NAMES[5]!r}" in g for g in report.guards)


def rebind_then_append(history, name, x):
    old = history[name]
    history[name] = []
    old.append(1.0)                                          # the list read before the store
    return x + 1.0


def test_the_list_is_the_one_read_before_a_store_at_the_key():
    static = sot.to_static(rebind_then_append)
    calls(rebind_then_append, [(fresh_history(), n, X) for n in NAMES[:5]], static)


def two_keys(history, a, b, x):
    history[a].append(1.0)
    history[b].append(2.0)
    history[a].append(3.0)
    return x * 2.0


def test_two_keys_holding_one_list_append_in_eager_order():
    static = sot.to_static(two_keys)
    calls(two_keys, [(fresh_history(), NAMES[i], NAMES[i + 1], X) for i in range(3)], static)
    shared = []
    aliased = {"p": shared, "q": shared}
    calls(two_keys, [(aliased, "p", "q", X), (fresh_history(), NAMES[0], NAMES[0], X)], static)


def missing_key(history, name, x):
    history[name].append(1.0)
    return x


def test_missing_key_raises_key_error_as_eager():
    static = sot.to_static(missing_key)
    calls(missing_key, [(fresh_history(), n, X) for n in NAMES[:3]] + [(fresh_history(), "absent", X)], static)


def test_a_value_of_another_type_at_the_key_is_eager():
    static = sot.to_static(log_metric)
    calls(log_metric, [(fresh_history(), n, X) for n in NAMES[:3]], static)
    odd = fresh_history() | {"odd": ()}                     # a tuple has no append: AttributeError
    calls(log_metric, [(odd, "odd", X), (fresh_history(), NAMES[4], X)], static)
