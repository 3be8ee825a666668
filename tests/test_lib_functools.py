"""functools.lru_cache/cache and functools.wraps/update_wrapper inside
decorated functions. lru_cache/cache: on a function made
in the frame the cache is modelled (a hit returns the first result's object
and skips the body, maxsize evicts the least recently used, the key rules
are CPython's: f(1) and f(1.0) differ, f(1.0) and f(True) do not); on a
module-level cached function the call runs natively, so eager's cache sees
every call exactly once. wraps/update_wrapper on a function made in the frame
give it the wrapped function's name, qualname, doc, module and __wrapped__
as CPython does; on a function from outside (a mutation of it) they run
natively."""
import functools

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def cached_square(x):
    @functools.lru_cache(maxsize=None)
    def sq(n):
        return n * n
    return x * sq(4) + sq(4), sq.cache_info()


def cached_recursion(x):
    @functools.cache
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)
    return fib(15) * x, fib.cache_info()


def bounded_eviction_and_keys(x):
    calls = []

    @functools.lru_cache(maxsize=2)
    def f(n):
        calls.append(n)
        return x * n
    f(1), f(1), f(2), f(3), f(1), f(1.0), f(True), f(2)
    return calls, f.cache_info(), f(3)


def bare_decorator_and_keywords(x):
    @functools.lru_cache
    def g(a, b=1):
        return a + b
    return g(1), g(1, b=1), g(b=1, a=1), g(a=1, b=1), g.cache_info(), x - 1


def typed_cache(x):
    @functools.lru_cache(typed=True)
    def g(a):
        return [a]
    return g(1), g(1.0), g.cache_info(), x


def cache_clear_and_maxsize_zero(x):
    @functools.lru_cache(maxsize=0)
    def g(a):
        return a * 2
    @functools.lru_cache
    def h(a):
        return a * 3
    h(1)
    h.cache_clear()
    return g(1), g(1), g.cache_info(), h(1), h.cache_info(), x


def array_argument_raises(x):
    @functools.lru_cache
    def g(a):
        return a + 1
    return g(x)


def exception_is_not_cached(x):
    tries = []

    @functools.lru_cache
    def g(a):
        tries.append(a)
        if len(tries) == 1:
            raise ValueError("first")
        return a
    try:
        g(1)
    except ValueError:
        pass
    return g(1), g(1), tries, x


@pytest.mark.parametrize("fn", [cached_square, cached_recursion, bounded_eviction_and_keys,
                                bare_decorator_and_keywords, typed_cache, cache_clear_and_maxsize_zero,
                                array_argument_raises, exception_is_not_cached])
def test_cache_made_in_the_frame_matches_eager(fn):
    check(fn, (X,), (X * 2,))


@pytest.mark.parametrize("fn", [cached_square, cached_recursion, bounded_eviction_and_keys,
                                bare_decorator_and_keywords, cache_clear_and_maxsize_zero])
def test_cache_made_in_the_frame_is_captured(fn):
    assert_captured_whole(fn, X)


def cache_hit_returns_the_same_object(x):
    @functools.lru_cache
    def g(n):
        return [n]
    a = g(1)
    b = g(1)
    b.append(x)
    return a, b


def test_cache_hit_is_the_first_result_object():
    a, b = sot.to_static(cache_hit_returns_the_same_object)(X)
    assert a is b and len(a) == 2
    check(cache_hit_returns_the_same_object, (X,))


CALLS = []


@functools.lru_cache(maxsize=None)
def module_level_scale(n):
    CALLS.append(n)
    return float(n) * 2


def uses_module_level_cache(x, n):
    return x * module_level_scale(n) + module_level_scale(n)


def test_module_level_cached_function_runs_once_per_miss():
    static = sot.to_static(uses_module_level_cache)
    module_level_scale.cache_clear()
    CALLS.clear()
    for n in (3, 3, 4, 3):
        np.testing.assert_array_equal(static(X, n), uses_module_level_cache(X, n))
    assert CALLS == [3, 4]
    info = module_level_scale.cache_info()
    assert (info.hits, info.misses) == (14, 2)   # 2 calls per run, 8 runs (4 eager, 4 decorated)


# -- wraps / update_wrapper ------------------------------------------------------------------------

def wraps_decorator(x):
    def deco(fn):
        @functools.wraps(fn)
        def inner(*a, **k):
            return fn(*a, **k) * 2
        return inner

    @deco
    def base(v):
        "doc of base"
        return v + 1
    return base(x), base.__name__, base.__qualname__, base.__doc__, base.__module__, base.__wrapped__(x)


def module_function(v):
    return v * 3


def update_wrapper_of_a_module_function(x):
    def inner(v):
        return module_function(v) + 1
    w = functools.update_wrapper(inner, module_function)
    return w(x), w.__name__, w is inner, inner.__qualname__, w.__wrapped__ is module_function, w.__doc__


def nested_wraps(x):
    def base(v):
        return v - 1

    @functools.wraps(base)
    def once(v):
        return base(v)

    @functools.wraps(once)
    def twice(v):
        return once(v) * 2
    return twice(x), twice.__name__, twice.__wrapped__ is once, twice.__wrapped__.__wrapped__ is base


def lambda_wrapped(x):
    f = functools.wraps(lambda v: v)(lambda v: v + 2)
    return f(x), f.__name__, f.__doc__


def wrapping_a_module_function_mutates_it(x):
    functools.update_wrapper(module_function, lambda v: v)
    return x


@pytest.mark.parametrize("fn", [wraps_decorator, update_wrapper_of_a_module_function, nested_wraps, lambda_wrapped])
def test_wraps_matches_eager_and_is_captured(fn):
    check(fn, (X,))
    assert_captured_whole(fn, X)


def test_update_wrapper_of_a_function_from_outside_runs_natively():
    saved = dict(vars(module_function)), module_function.__name__, module_function.__qualname__
    try:
        report = sot.explain(sot.to_static(wrapping_a_module_function_mutates_it, min_graph_size=0), X)
        assert any("made outside the frame" in str(b) for b in report.breaks), [str(b) for b in report.breaks]
        assert module_function.__name__ == "<lambda>"   # eager's mutation happened, once
    finally:
        module_function.__dict__.clear()
        module_function.__dict__.update(saved[0])
        module_function.__name__, module_function.__qualname__ = saved[1], saved[2]
