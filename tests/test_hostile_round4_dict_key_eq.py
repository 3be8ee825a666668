"""Guards never run a user key's ``__eq__``.

A dict from outside read key by key (executor/dict_data.py) is guarded by
the values of the keys the trace read. Looking up ``"a"`` in a dict that
also holds a user key whose hash collides with ``hash("a")`` calls that
key's ``__eq__``: the guard and the runner's load each did, so user code ran
more often than eagerly. The ``plainkeys`` guard op (the dict's keys are
all exact str/int) comes first: a dict with any other key misses the entry
and the function runs as eager does.
"""
import sys
import numpy as np
import pytest

import sot
from sot.guards import cache

calls = []


class CollidingKey:
    def __init__(self, like):
        self.h = hash(like)

    def __hash__(self):
        return self.h

    def __eq__(self, other):
        calls.append(other)
        return False


def reads_keys(d, x):
    return x * d["a"] + ("b" in d) + d.get(7, 0)


def _eq_calls(fn, d, x):
    calls.clear()
    out = fn(d, x)
    return out, list(calls)


@pytest.mark.parametrize("change", ["nothing", "a value", "the array's shape"])
def test_a_colliding_user_key_is_compared_as_often_as_eagerly(change):
    """Each run builds its dict the same way (a lookup's comparisons depend
    on the table's layout): eager's and the decorated function's. A guard
    that fails after its lookups (a value, or a later argument's shape)
    must not have compared anything: the call then runs as eager does."""
    static = sot.to_static(reads_keys)
    seen = []
    for fn in (reads_keys, static):
        d = {"a": 2, 7: 1}
        for _ in range(3):
            fn(d, np.ones(2))   # traced and cached: the dict had str/int keys
        for key in ("a", 7):   # a user's key first on the probe sequence
            value = d.pop(key)
            d[CollidingKey(key)] = 0
            d[key] = value
        d[CollidingKey("b")] = 0
        if change == "a value":
            d["a"] = 3
        seen.append(_eq_calls(fn, d, np.ones(3 if change == "the array's shape" else 2)))
    (out_e, eq_e), (out_t, eq_t) = seen
    np.testing.assert_array_equal(out_t, out_e)
    assert eq_t == eq_e


def test_a_dict_growing_by_int_keys_keeps_its_entry():
    def step(x, stats, i):
        stats[i] = 1
        return x * stats["scale"]

    static = sot.to_static(step)
    stats_e, stats_t = {"scale": 2}, {"scale": 2}
    for i in range(20):
        np.testing.assert_array_equal(static(np.ones(2), stats_t, i), step(np.ones(2), stats_e, i))
    assert stats_t == stats_e
    assert max(cache.translation_count(rec.code) for rec in cache._records.values()) <= 3


def test_a_dict_past_the_scan_bound_keeps_its_entry_and_c_agrees_with_python():
    """Before 3.12 a dict of more than PLAIN_SCAN_MAX keys is not scanned
    every call (the check would grow with the dict); the Python reference
    evaluator says the same as the C program (strict mode compares them)."""
    from sot import _C
    from sot.guards import program_ref
    previous = _C.set_guard_strict(True)
    before = _C.guard_counters()["strict_mismatches"]
    try:
        _run_past_the_bound(program_ref)
    finally:
        _C.set_guard_strict(previous)
    assert _C.guard_counters()["strict_mismatches"] == before


def _run_past_the_bound(program_ref):

    def step(x, stats, i):
        stats[i] = 1
        return x * stats["scale"]

    static = sot.to_static(step)
    stats_e = {"scale": 2, **{-k: 0 for k in range(1, program_ref._PLAIN_SCAN_MAX + 5)}}
    stats_t = dict(stats_e)
    for i in range(12):
        np.testing.assert_array_equal(static(np.ones(2), stats_t, i), step(np.ones(2), stats_e, i))
    assert stats_t == stats_e
    assert max(cache.translation_count(rec.code) for rec in cache._records.values()) <= 3
    assert program_ref._plain_scan_skipped(len(stats_t)) == (sys.version_info < (3, 12))
