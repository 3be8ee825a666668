"""Python constructs user code is made of, each captured whole and equal to
eager (values, types, side effects on arguments), with the guard paths that
matter to it: a class attribute, a global or a closure cell changed between
calls translates again or stays correct."""
import collections
import functools
import sys

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, assert_same, case_params, check, check_case

X = np.arange(12, dtype=np.float32).reshape(3, 4) / 7 - 0.5
X2 = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
THIS = sys.modules[__name__]


class Positive:
    """A data descriptor with __set_name__."""

    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return getattr(obj, self.name) * obj.unit

    def __set__(self, obj, value):
        setattr(obj, self.name, abs(value))


class Holder:
    k = Positive()
    unit = 1.0

    def __init__(self, k):
        self.k = k


def descriptor_get_set(x):
    h = Holder(-3.0)
    h.k = -2.0
    return x * h.k, h._k


class Fallback:
    def __init__(self):
        self.real = 1.0

    def __getattr__(self, name):
        return len(name)


def getattr_fallback(x):
    f = Fallback()
    return x * f.real + f.abc, getattr(f, "zz", None)


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a = a


def slots_object(x):
    s = Slotted(x)
    s.b = s.a + 1
    return s.a * s.b, hasattr(s, "__dict__"), hasattr(s, "zz")


class Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k


def callable_instances(x):
    return [f(x) for f in (Scale(2.0), Scale(-1.0), abs, np.tanh)]


class Pt:
    __match_args__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b


def match_patterns(x):
    out = []
    for item in (Pt(1, 2), Pt(3, 4), {"k": 3, "z": 0}, [4, 5, 6], (7,), "other", 2.5):
        match item:
            case Pt(a, b=2):
                out.append(x * a)
            case Pt(a=a2):
                out.append(x - a2)
            case {"k": k, **rest}:
                out.append(x + k + len(rest))
            case [first, *others] if len(others) == 2:
                out.append(x - first + others[1])
            case (only,):
                out.append(x * only)
            case float(v):
                out.append(x / v)
            case _:
                out.append(x * 0)
    return out


def star_unpacking(x):
    first, *mid, last = [x, x + 1, x + 2, x + 3]
    head, *tail = (x,)
    parts = (x, 2.0)
    kw = {"out": None}
    return np.multiply(*parts, **kw), first + last, len(mid), tail, [*mid, *tail, head]


def nested_comprehension_closures(x):
    fs = [[(lambda v, i=i, j=j: v * i + j) for j in range(2)] for i in range(3)]
    late = [[lambda v: v * i for _ in range(2)] for i in range(3)]   # late binding: i is 2 at the call
    return [[f(x).sum() for f in row] for row in fs], [g(x).sum() for row in late for g in row]


def nonlocal_from_inlined(x):
    total = x * 0
    calls = 0

    def add(v):
        nonlocal total, calls
        total = total + v
        calls += 1
    for k in range(3):
        add(x * k)
    return total, calls


def chained_comparisons(x):
    lo, hi = -0.2, 0.4
    n = x.shape[0]
    return (lo < x) & (x < hi), 0 <= x.ndim < 3 < n + 5, 1 < n <= 3


def lambda_defaults_in_loop(x):
    fs, late = [], []
    for k in range(3):
        fs.append(lambda v, k=k: v + k)
        late.append(lambda v: v * k)
    return [f(x) for f in fs], [g(x) for g in late]


def _affine(v, w, b=0.0):
    return v * w + b


def partial_of_user_function(x):
    f = functools.partial(_affine, w=2.0)
    g = functools.partial(_affine, x, 3.0)
    h = functools.partial(f, b=-1.0)
    return f(x, b=1.0), g(), h(x), g.args[1], sorted(f.keywords)


def return_in_finally(x):
    log = []

    def f(v):
        try:
            log.append("try")
            return v * 2
        finally:
            log.append("finally")
            return v * 3  # noqa: B012

    def g(v):
        try:
            raise ValueError("dropped")
        finally:
            return v - 1  # noqa: B012
    return f(x), g(x), log


class Swallow:
    def __init__(self):
        self.log = []

    def __enter__(self):
        self.log.append("in")
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(kind.__name__ if kind else None)
        return kind is not None and issubclass(kind, (RuntimeError, KeyError))


def suppressing_with(x):
    s = Swallow()
    with s:
        y = x + 1
        raise RuntimeError("swallowed")
    with s as t:
        y = y * 2
        t.log.append("body")
    return y, s.log


def generator_send_yield_from(x):
    def running():
        total = x * 0
        while True:
            v = yield total
            if v is None:
                return total
            total = total + v

    def outer():
        r = yield from running()
        yield r * 10
    g = outer()
    first = next(g)
    g.send(x)
    last = g.send(x * 2)
    return first, last, g.send(None)


def fstring_format_specs(x):
    return x * 2, f"{x.shape[0]:>4d}|{x.size:x}|{x.ndim / 3:.3f}|{x.shape[1]:+05d}|{'ab':^6}"


def ordered_dict_and_counter(x):
    c = collections.Counter("abca")
    return x * c["a"], sorted(c.items())


CASES = {
    "descriptor_get_set": (descriptor_get_set, [(X,), (X2,)]),
    "getattr_fallback": (getattr_fallback, [(X,), (X2,)]),
    "slots_object": (slots_object, [(X,), (X2,)]),
    "callable_instances": (callable_instances, [(X,), (X2,)]),
    "match_patterns": (match_patterns, [(X,), (X2,)]),
    "star_unpacking": (star_unpacking, [(X,), (X2,)]),
    "nested_comprehension_closures": (nested_comprehension_closures, [(X,), (X2,)]),
    "nonlocal_from_inlined": (nonlocal_from_inlined, [(X,), (X2,)]),
    "chained_comparisons": (chained_comparisons, [(X,), (X2,)]),
    "lambda_defaults_in_loop": (lambda_defaults_in_loop, [(X,), (X2,)]),
    "partial_of_user_function": (partial_of_user_function, [(X,), (X2,)]),
    "return_in_finally": (return_in_finally, [(X,), (X2,)]),
    "suppressing_with": (suppressing_with, [(X,), (X2,)]),
    "generator_send_yield_from": (generator_send_yield_from, [(X,), (X2,)]),
    "fstring_format_specs": (fstring_format_specs, [(X,), (X2,)]),
}


@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_construct_is_captured_and_exact(fn, arg_sets):
    check_case(fn, arg_sets)


# -- guard paths ------------------------------------------------------------------------

def test_descriptor_class_attribute_change_is_seen():
    static = check(descriptor_get_set, (X,))
    Holder.unit = -4.0   # read by the descriptor's __get__
    try:
        assert_same(descriptor_get_set(X), static(X))
    finally:
        Holder.unit = 1.0
    assert_same(descriptor_get_set(X), static(X))


def test_getattr_fallback_sees_a_class_attribute_added_later():
    static = check(getattr_fallback, (X,))
    Fallback.abc = 10.0   # found on the class now: __getattr__ is not called
    try:
        assert_same(getattr_fallback(X), static(X))
    finally:
        del Fallback.abc
    assert_same(getattr_fallback(X), static(X))


def test_match_args_change_is_seen():
    static = check(match_patterns, (X,))
    Pt.__match_args__ = ("b", "a")   # `Pt(a, b=2)` now names b twice: eager raises TypeError
    try:
        with pytest.raises(TypeError, match="multiple sub-patterns"):
            static(X)
        check(match_patterns, (X,), static=static)
    finally:
        Pt.__match_args__ = ("a", "b")
    assert_same(match_patterns(X), static(X))


SCALE = 2.0


def global_write_counter(x):
    global SCALE
    SCALE = SCALE + 1
    return x * SCALE, SCALE > 3


def test_global_write_follows_the_global():
    THIS.SCALE = 2.0
    eager = [global_write_counter(X) for _ in range(3)] + [None]
    after_eager = THIS.SCALE
    THIS.SCALE = 2.0
    static = sot.to_static(global_write_counter, min_graph_size=0)
    for want in eager[:3]:
        assert_same(want, static(X))
    assert THIS.SCALE == after_eager
    THIS.SCALE = -10.0
    want = global_write_counter(X)
    THIS.SCALE = -10.0
    assert_same(want, static(X))
    assert THIS.SCALE == -9.0
    assert_captured_whole(global_write_counter, X)
    THIS.SCALE = 2.0


def make_closure(k):
    def f(x):
        def inner(v):
            return v * k
        return inner(x) + k
    return f


def test_closure_cell_change_is_seen():
    def outer():
        k = 2.0

        def f(x):
            return x * k
        static = sot.to_static(f, min_graph_size=0)
        first = static(X)
        k = -5.0   # the cell the decorated function reads
        return first, static(X), f(X)
    first, second, eager = outer()
    assert_same(first, X * 2.0)
    assert_same(second, eager)


def test_lambda_defaults_differ_per_function_object():
    for k in (1.0, -2.0):
        fn = make_closure(k)
        static = check(fn, (X,))
        assert_same(fn(X), static(X))


def test_partial_keywords_change_with_the_partial():
    def use(x, p):
        return p(x)
    static = sot.to_static(use, min_graph_size=0)
    for w in (2.0, 3.0, -1.0):
        p = functools.partial(_affine, w=w, b=0.5)
        assert_same(use(X, p), static(X, p))


def test_nonlocal_writes_leave_the_cells_as_eager():
    assert_captured_whole(nonlocal_from_inlined, X)
    check(nonlocal_from_inlined, (X,))
