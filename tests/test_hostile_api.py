"""Hostile use of the public API: decorating descriptors, callables of every
kind, functions whose defaults, code or globals change after decoration,
and option values or SOT_* environment variables that mean something else
than they look. A decorated callable behaves as the undecorated one; a bad
option is a clear error when decorating, never a silently different mode."""
from __future__ import annotations

import functools
import types

import numpy as np
import pytest

import sot
from difftest import check


# ---------------------------------------------------------------- what can be decorated

class Scaled:
    k = 3.0

    @sot.to_static
    @staticmethod
    def static_inner(x):
        return x + 1

    @sot.to_static
    @classmethod
    def class_inner(cls, x):
        return x * cls.k

    @staticmethod
    @sot.to_static
    def static_outer(x):
        return x + 1

    @classmethod
    @sot.to_static
    def class_outer(cls, x):
        return x * cls.k


class ScaledMore(Scaled):
    k = 5.0


@pytest.mark.parametrize("owner", [Scaled, Scaled(), ScaledMore, ScaledMore()], ids=["cls", "inst", "sub", "subinst"])
def test_to_static_above_or_below_staticmethod_and_classmethod(owner):
    x = np.arange(3.0)
    k = owner.k
    for _ in range(3):   # a staticmethod is not bound; a classmethod binds the class it is reached through
        np.testing.assert_array_equal(owner.static_inner(x), x + 1)
        np.testing.assert_array_equal(owner.static_outer(x), x + 1)
        np.testing.assert_array_equal(owner.class_inner(x), x * k)
        np.testing.assert_array_equal(owner.class_outer(x), x * k)
    assert isinstance(Scaled.__dict__["static_inner"], staticmethod)
    assert isinstance(Scaled.__dict__["class_inner"], classmethod)


def _double(x, a, b=2.0):
    return x * a + b


class _Callable:
    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x - self.calls


@pytest.mark.parametrize("fn,args", [
    (lambda x: x * 2 + 1, (np.arange(3.0),)),
    (functools.partial(_double, b=5.0), (np.arange(3.0), 2.0)),
    (functools.partial(_double, np.arange(3.0)), (2.0,)),
    (len, ([1, 2, 3],)),
    (np.add, (np.arange(3.0), 1.0)),
    (np.asarray, ([1, 2],)),
    (int, ("5",)),
    (types.SimpleNamespace, ()),
], ids=["lambda", "partial_kw", "partial_pos", "builtin", "ufunc", "c_function", "class", "class_noargs"])
def test_any_callable_behaves_as_eager(fn, args):
    check(fn, args)


def test_callable_object_state_advances_as_eager():
    eager, traced = _Callable(), _Callable()
    static = sot.to_static(traced)
    for _ in range(3):
        np.testing.assert_array_equal(eager(np.ones(2)), static(np.ones(2)))
    assert eager.calls == traced.calls == 3


def test_double_decoration_and_wraps():
    def f(x):
        return x * 2

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*a, **k):
            return fn(*a, **k) + 1
        return wrapper

    check(f, (np.arange(3.0),), static=sot.to_static(sot.to_static(f)))
    check(deco(f), (np.arange(3.0),))


# ---------------------------------------------------------------- a function changed after decoration

def test_defaults_kwdefaults_and_code_replaced_after_decoration():
    def f(x, a=1.0, *, b=2.0):
        return x * a + b

    def other(x, a=1.0, *, b=2.0):
        return x - a - b

    static = sot.to_static(f)
    x = np.arange(3.0)
    for change in (lambda: None, lambda: setattr(f, "__defaults__", (10.0,)),
                   lambda: setattr(f, "__kwdefaults__", {"b": 100.0}), lambda: setattr(f, "__code__", other.__code__)):
        change()
        for _ in range(2):
            np.testing.assert_array_equal(static(x), f(x))


def test_one_code_under_two_globals_dicts():
    def f(x):
        return x * SCALE  # noqa: F821 - defined in the globals given below

    a = types.FunctionType(f.__code__, {"SCALE": 7.0, "__builtins__": __builtins__})
    b = types.FunctionType(f.__code__, {"SCALE": 9.0, "__builtins__": __builtins__})
    sa, sb = sot.to_static(a), sot.to_static(b)
    for _ in range(3):
        np.testing.assert_array_equal(sa(np.ones(2)), np.full(2, 7.0))
        np.testing.assert_array_equal(sb(np.ones(2)), np.full(2, 9.0))
    del a.__globals__["SCALE"]
    with pytest.raises(NameError, match="SCALE"):
        sa(np.ones(2))


# ---------------------------------------------------------------- options

@pytest.mark.parametrize("options,error,text", [
    (dict(cache_size="3"), TypeError, "cache_size must be an int, not str '3'"),
    (dict(cache_size=2.5), TypeError, "cache_size must be an int, not float 2.5"),
    (dict(cache_size=True), TypeError, "cache_size must be an int, not bool"),
    (dict(min_graph_size=-5), ValueError, "min_graph_size must be >= 0, not -5"),
    (dict(min_graph_size="x"), TypeError, "min_graph_size must be an int"),
    (dict(full_graph="no"), TypeError, "full_graph must be True or False, not str 'no'"),
    (dict(freeze="x"), TypeError, "freeze must be True or False"),
])
def test_option_of_the_wrong_type_is_a_clear_error(options, error, text):
    with pytest.raises(error, match=text.replace("(", r"\(").replace(".", r"\.")):
        sot.to_static(lambda x: x, **options)


def test_option_ints_and_bools_accepted():
    static = sot.to_static(lambda x: x + 1, cache_size=2, min_graph_size=0, full_graph=0, freeze=False)
    np.testing.assert_array_equal(static(np.ones(2)), np.full(2, 2.0))


# ---------------------------------------------------------------- SOT_* switches

def _falls_back(x):
    sot.psdb.fallback()
    return x + 1


@pytest.mark.parametrize("value", ["0", "false", "No", "OFF", ""])
def test_strict_switched_off_is_off(monkeypatch, value):
    monkeypatch.setenv("SOT_STRICT", value)
    np.testing.assert_array_equal(sot.to_static(_falls_back)(np.ones(2)), np.full(2, 2.0))


@pytest.mark.parametrize("value", ["1", "true", "Yes", "on"])
def test_strict_switched_on_is_on(monkeypatch, value):
    monkeypatch.setenv("SOT_STRICT", value)
    with pytest.raises(sot.GraphBreakError):
        sot.to_static(_falls_back)(np.ones(2))


@pytest.mark.parametrize("value,translated", [("0", True), ("false", True), ("off", True), ("1", False), ("yes", False)])
def test_disable_switch_read_per_call(monkeypatch, value, translated):
    static = sot.to_static(lambda x: x * 2 + 1)
    monkeypatch.setenv("SOT_DISABLE", value)   # read in C on every call
    np.testing.assert_array_equal(static(np.ones(2)), np.full(2, 3.0))
    assert (sot.translation_count(static) > 0) == translated


@pytest.mark.parametrize("name", ["SOT_STRICT", "SOT_DISABLE", "SOT_DO_NO_HARM"])
@pytest.mark.parametrize("value", ["maybe", "2", " 1"])
def test_switch_with_another_value_is_a_clear_error(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=f"environment variable {name}='{value}' is not a switch"):
        sot.to_static(lambda x: x)


def test_bad_integer_env_read_when_building_is_named(monkeypatch):
    from sot import _env
    monkeypatch.setenv("SOT_ORT_THREADS", "many")
    with pytest.raises(ValueError, match="SOT_ORT_THREADS='many' is not an integer"):
        _env.integer("SOT_ORT_THREADS", -1, 0)
    monkeypatch.setenv("SOT_CACHE_MAX_BYTES", "-1")
    with pytest.raises(ValueError, match="SOT_CACHE_MAX_BYTES=-1 must be >= 0"):
        _env.integer("SOT_CACHE_MAX_BYTES", 1, 0)
