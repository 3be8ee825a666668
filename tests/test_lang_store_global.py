"""``global G; G = v`` inside a decorated function is a side effect replayed
after the graph (sot/executor/global_stores.py), not a graph break: later
reads in the trace see the stored value, the module sees eager's final
value, and the next call's guards see what changed."""
import sys

import numpy as np
import pytest

import sot
from difftest import assert_same

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
THIS = sys.modules[__name__]

COUNT = 0
CACHE = None
SCALE = 2.0
STATE = np.ones(4, dtype=np.float32)


def bump(x):
    global COUNT
    COUNT += 1
    return x * COUNT


def cache_result(x):
    global CACHE
    CACHE = np.tanh(x) * 2
    return CACHE + 1


def _read_state():
    return STATE * 3


def store_then_read_in_a_callee(x):
    global STATE
    STATE = x[0] + 1
    return _read_state() + x


def store_then_read_as_module_attribute(x):
    global SCALE
    SCALE = SCALE * 2
    return x * THIS.SCALE


def store_then_break(x):
    global CACHE
    CACHE = x * 2
    print(CACHE.shape)            # a graph break: the native print sees the stored value
    return CACHE.sum() + x


def define_a_new_global(x):
    global NEW_GLOBAL
    NEW_GLOBAL = x.sum()
    return x - NEW_GLOBAL


def _reset():
    global COUNT, CACHE, SCALE, STATE
    COUNT, CACHE, SCALE, STATE = 0, None, 2.0, np.ones(4, dtype=np.float32)
    THIS.__dict__.pop("NEW_GLOBAL", None)


NAMES = ("COUNT", "CACHE", "SCALE", "STATE", "NEW_GLOBAL")


def _snapshot():
    return {n: THIS.__dict__[n] for n in NAMES if n in THIS.__dict__}


def check_globals(fn, args, calls=4, capsys=None):
    """Eager and decorated from the same globals: same results, stdout and globals after each call."""
    _reset()
    eager = []
    for _ in range(calls):
        eager.append((fn(*args), _snapshot()))
    eager_out = capsys.readouterr().out if capsys else None
    _reset()
    static = sot.to_static(fn, min_graph_size=0)
    for want_result, want_globals in eager:
        got = static(*args)
        assert_same(want_result, got)
        assert_same(want_globals, _snapshot(), "globals after the call")
    if capsys:
        assert capsys.readouterr().out == eager_out
    _reset()
    return static


@pytest.mark.parametrize("fn", [bump, cache_result, store_then_read_in_a_callee,
                                store_then_read_as_module_attribute, define_a_new_global],
                         ids=lambda f: f.__name__)
def test_global_store_matches_eager_without_a_break(fn):
    check_globals(fn, (X,))
    _reset()
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X)
    _reset()
    assert not report.fallbacks and not report.breaks, [str(b) for b in report.breaks + report.fallbacks]


def test_store_before_a_break_is_seen_by_the_native_code(capsys):
    check_globals(store_then_break, (X,), capsys=capsys)


def test_second_call_hits_the_cache():
    _reset()
    static = sot.to_static(cache_result, min_graph_size=0)
    static(X)
    static(X)
    n = sot.translation_count(static)
    for _ in range(3):
        static(X)
    assert sot.translation_count(static) == n
    _reset()


def test_a_global_changed_from_outside_is_seen():
    global SCALE
    static = check_globals(store_then_read_as_module_attribute, (X,), calls=2)
    SCALE = -3.0
    try:
        want = store_then_read_as_module_attribute(X)
        SCALE = -3.0
        assert_same(want, static(X))
        assert SCALE == -6.0
    finally:
        _reset()


class Noisy:
    def __del__(self):
        print("released")


def replace_a_noisy_value(x):
    global CACHE
    y = x * 2
    CACHE = y
    print("after the store")
    return y


def test_a_store_releasing_a_value_with_a_finalizer_keeps_eagers_order(capsys):
    global CACHE
    outs = []
    for fn in (replace_a_noisy_value, sot.to_static(replace_a_noisy_value, min_graph_size=0)):
        for _ in range(2):
            CACHE = Noisy()
            fn(X)
            outs.append(capsys.readouterr().out)
    _reset()
    assert outs[2:] == outs[:2]
    assert outs[0] == "released\nafter the store\n"


OTHER = type(sys)("sot_test_other_module")
exec("G = 1.0\ndef set_g(v):\n    global G\n    G = v\n\ndef get_g():\n    return G\n", OTHER.__dict__)


def store_in_another_modules_function(x):
    OTHER.set_g(x * 3)
    return OTHER.get_g() + OTHER.G


def test_a_callee_from_another_module_stores_into_its_own_globals():
    for fn in (store_in_another_modules_function, sot.to_static(store_in_another_modules_function,
                                                                min_graph_size=0)):
        OTHER.G = 1.0
        results = [fn(X) for _ in range(3)]
        assert_same(results[0], X * 6)
        assert_same(OTHER.G, X * 3)
    report = sot.explain(sot.to_static(store_in_another_modules_function, min_graph_size=0), X)
    assert not report.fallbacks and not report.breaks
