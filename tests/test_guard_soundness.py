"""Guards that must see a change between calls (issue 14), and guards that
must not be stricter than the trace needs.

Each test traces a function once, changes one thing the trace depended on
(an object's identity, a shadowed builtin, an inlined function's code, a
class, a NumPy function, a float's bits, a dtype's metadata), and checks
the decorated function still returns what the undecorated one does.
"""
from __future__ import annotations

import collections
import enum
import math
import types

import numpy as np
import pytest

import sot
from difftest import assert_same

X = np.array([-1.5, 0.0, 2.0])


def _same(fn, static, *args):
    assert_same(fn(*args), static(*args))


def _module(src: str, **names) -> types.ModuleType:
    """A fresh module running `src` (its functions' globals are its dict)."""
    m = types.ModuleType("guard_soundness_mod")
    m.__dict__.update(names)
    exec(compile(src, "<guard soundness %s>" % id(m), "exec"), m.__dict__)
    return m


# -- identity of user objects -------------------------------------------------

class Act(enum.Enum):
    RELU = 1
    TANH = 2


def activate(x, act):
    if act is Act.RELU:
        return np.maximum(x, 0)
    return np.tanh(x)


def test_enum_member_decides_the_branch_on_every_call():
    static = sot.to_static(activate)
    for act in (Act.RELU, Act.TANH, Act.RELU, Act.TANH):
        _same(activate, static, X, act)


class Token:
    pass


SENTINEL = Token()


def with_sentinel(x, o):
    if o is SENTINEL:
        return x + 1
    return x - 1


def test_sentinel_identity_is_guarded():
    global SENTINEL
    static = sot.to_static(with_sentinel)
    _same(with_sentinel, static, X, SENTINEL)
    _same(with_sentinel, static, X, Token())  # another object of the same class
    old, SENTINEL = SENTINEL, Token()  # the global rebound: the old object is no longer it
    try:
        _same(with_sentinel, static, X, old)
        _same(with_sentinel, static, X, SENTINEL)
    finally:
        SENTINEL = old


def same_or_not(x, a, b):
    return x * 2 if a is b else x * 3


def test_identity_relation_of_two_arguments_is_guarded():
    static = sot.to_static(same_or_not)
    a, b = Token(), Token()
    for pair in ((a, a), (a, b), (b, b), (Token(), Token())):
        _same(same_or_not, static, X, *pair)
    # fresh objects in the same relation reuse the entry: the guard is the relation
    assert sot.translation_count(static) == 2


# -- names that are absent -------------------------------------------------------

SHADOW_SRC = """
def f(x):
    return x * sum([1, 2])
"""


def test_global_that_shadows_a_builtin_is_seen():
    m = _module(SHADOW_SRC)
    static = sot.to_static(m.f)
    _same(m.f, static, X)
    m.sum = lambda xs: 10
    _same(m.f, static, X)
    del m.sum
    _same(m.f, static, X)


def test_shadowed_builtin_in_an_inlined_function_of_another_module():
    lib = _module("def scale(x):\n    return x * len([1, 2, 3])\n")
    m = _module("def f(x):\n    return lib.scale(x) + 1\n", lib=lib)
    static = sot.to_static(m.f)
    _same(m.f, static, X)
    lib.len = lambda xs: 7
    _same(m.f, static, X)


# -- inlined functions ----------------------------------------------------------

def test_replaced_code_of_an_inlined_function_is_seen():
    def inner(x):
        return x + 1

    def outer(x):
        return inner(x) * 2

    static = sot.to_static(outer)
    _same(outer, static, X)
    inner.__code__ = (lambda x: x - 1).__code__  # what autoreload does
    _same(outer, static, X)


def test_changed_defaults_of_an_inlined_function_are_seen():
    def inner(a, b=1.0):
        return a + b

    def outer(x):
        return inner(x)

    static = sot.to_static(outer)
    _same(outer, static, X)
    inner.__defaults__ = (1.0, 7.0)  # one more default: b's is now the second
    _same(outer, static, X)
    inner.__defaults__ = (5.0,)
    _same(outer, static, X)


def test_changed_kwdefaults_of_an_inlined_function_are_seen():
    def inner(a, *, k=1.0):
        return a * k

    def outer(x):
        return inner(x)

    static = sot.to_static(outer)
    _same(outer, static, X)
    inner.__kwdefaults__ = {"k": 3.0}
    _same(outer, static, X)


# -- module attributes in generated code ------------------------------------------

def test_graph_calls_the_numpy_function_its_guard_checked(monkeypatch):
    m = _module("from numpy import exp\ndef f(x):\n    return exp(x) + 1\n")
    static = sot.to_static(m.f)
    _same(m.f, static, X)
    monkeypatch.setattr(np, "exp", np.sin)  # the global `exp` still is the real exp
    _same(m.f, static, X)


def test_patched_numpy_attribute_is_seen(monkeypatch):
    m = _module("import numpy\ndef f(x):\n    return numpy.exp(x) + 1\n")
    static = sot.to_static(m.f)
    _same(m.f, static, X)
    monkeypatch.setattr(np, "exp", np.sin)
    _same(m.f, static, X)


# -- float bits -------------------------------------------------------------------

def copysign(x, s):
    return np.copysign(x, s)


@pytest.mark.parametrize("first,then", [(0.0, -0.0), (math.nan, -math.nan)])
def test_float_guard_compares_bits(first, then):
    static = sot.to_static(copysign)
    _same(copysign, static, X, first)
    assert_same(copysign(X, then), static(X, then), bitwise=True)


# -- classes that change -------------------------------------------------------------

def truthy(x, o):
    return x + 1 if o else x - 1


def times_k(x, o):
    return x * o.k


def calls_m(x, o):
    return o.m(x)


def _obj(**class_attrs):
    return type("C", (), class_attrs)()


def _with_instance_k():
    o = _obj()
    o.k = 2.0
    return o


def _of_subclass():
    base = type("Base", (), {"m": lambda self, x: x + 1})
    return type("D", (base,), {})()


@pytest.mark.parametrize("fn,make,change", [
    (truthy, _obj, lambda C: setattr(C, "__bool__", lambda self: False)),
    (truthy, _obj, lambda C: setattr(C, "__len__", lambda self: 0)),
    (times_k, lambda: _obj(k=2.0), lambda C: setattr(C, "k", property(lambda self: 10.0))),
    (times_k, _with_instance_k, lambda C: setattr(C, "k", property(lambda self: 10.0))),
    (times_k, lambda: _obj(k=2.0), lambda C: setattr(C, "__getattribute__", lambda self, name: 9.0)),
    (calls_m, _of_subclass, lambda C: setattr(C.__mro__[1], "m", lambda self, x: x - 1)),
    (calls_m, _of_subclass, lambda C: setattr(C, "m", lambda self, x: x * 5)),
], ids=["bool-added", "len-added", "attribute-became-property", "instance-attribute-shadowed-by-property",
        "getattribute-added", "method-replaced-on-base", "method-added-on-class"])
def test_class_changed_after_the_first_call_is_seen(fn, make, change):
    o = make()
    static = sot.to_static(fn)
    _same(fn, static, X, o)
    change(type(o))
    _same(fn, static, X, o)


def test_unchanged_class_keeps_its_entry():
    class C:
        k = 2.0

    def f(x, c):
        return x * c.k

    static = sot.to_static(f)
    for _ in range(4):
        _same(f, static, X, C())
    assert sot.translation_count(static) == 1


# -- dtypes ----------------------------------------------------------------------

def dtype_of(x):
    return x + 1, x.dtype


def test_dtype_metadata_is_part_of_the_guard():
    static = sot.to_static(dtype_of)
    _same(dtype_of, static, X)
    with_meta = X.astype(np.dtype(np.float64, metadata={"unit": "m"}))
    eager, traced = dtype_of(with_meta), static(with_meta)
    assert_same(eager, traced)
    assert traced[1].metadata == eager[1].metadata


def test_dtype_byte_order_is_part_of_the_guard():
    static = sot.to_static(dtype_of)
    _same(dtype_of, static, X)
    swapped = X.astype(">f8")
    eager, traced = dtype_of(swapped), static(swapped)
    assert_same(eager, traced)
    assert traced[1].str == eager[1].str == ">f8"


# -- not stricter than the trace needs ----------------------------------------------

class Sub(np.ndarray):
    pass


def passes_on(x, obj):
    return x * 2, obj


def carries_across_a_break(x, obj):
    y = x * 2
    print("break")  # obj is a live local: the resume function gets it as an argument
    return y + 1, obj


@pytest.mark.parametrize("fn", [passes_on, carries_across_a_break])
@pytest.mark.parametrize("make", [
    lambda: X.view(Sub),
    lambda: collections.deque([1, 2]),
    lambda: np.nditer(X),
    lambda: np.ndenumerate(X),
    lambda: np.linalg.svd(np.eye(2)),
], ids=["ndarray-subclass", "deque", "nditer", "ndenumerate", "SVDResult"])
def test_fresh_object_per_call_does_not_retranslate(fn, make, capsys):
    static = sot.to_static(fn)
    for _ in range(5):
        obj = make()
        eager, traced = fn(X, obj), static(X, obj)
        assert_same(eager[0], traced[0])
        assert traced[1] is obj
    fresh = sot.translation_count(static)
    sot.reset()
    static = sot.to_static(fn)
    obj = make()
    for _ in range(5):
        static(X, obj)
    assert fresh == sot.translation_count(static)  # as for one object passed every time


# -- no user code eager would not run --------------------------------------------------

class Counter:
    n = 0


def _counting_eager_vs_static(fn, *args, calls=4):
    Counter.n = 0
    for _ in range(calls):
        fn(*args)
    eager = Counter.n
    static = sot.to_static(fn)
    static(*args)  # translation
    Counter.n = 0
    for _ in range(calls):
        _same(fn, static, *args)
    return eager, Counter.n - eager  # static's own count (eager's runs counted too)


class WithProperty:
    @property
    def w(self):
        Counter.n += 1
        return np.ones(3)


class WithGetattribute:
    def __getattribute__(self, name):
        Counter.n += 1
        return np.ones(3)


class Descriptor:
    def __get__(self, obj, owner):
        Counter.n += 1
        return np.ones(3)


class WithDescriptor:
    w = Descriptor()


def add_w(x, o):
    return x + o.w


@pytest.mark.parametrize("cls", [WithProperty, WithGetattribute, WithDescriptor])
def test_attribute_code_runs_as_often_as_eager(cls):
    eager, static = _counting_eager_vs_static(add_w, X, cls())
    assert static == eager


@pytest.mark.parametrize("body", ["x + lazy.w", "x + lazy.w * 2 + lazy.w"])
def test_lazy_module_getattr_runs_as_often_as_eager(body):
    lazy = types.ModuleType("lazy_guard_mod")

    def module_getattr(name):
        if name != "w":
            raise AttributeError(name)
        Counter.n += 1
        return np.ones(3)

    lazy.__getattr__ = module_getattr
    m = _module("def f(x):\n    return %s\n" % body, lazy=lazy)
    eager, static = _counting_eager_vs_static(m.f, X)
    assert static == eager


def test_translation_runs_no_user_getattribute():
    def f(x, o):
        return x * 2, type(o).__name__

    o = WithGetattribute()
    Counter.n = 0
    static = sot.to_static(f)
    _same(f, static, X, o)
    assert Counter.n == 0
