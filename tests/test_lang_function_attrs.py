"""Attributes of functions and bound methods read in the trace: `__name__`,
`__qualname__`, `__module__`, `__code__.co_*` of functions made in the
frame or from outside, a bound method's `__self__` (the instance itself)
and `__func__`; a renamed outside function re-translates."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def outside(v, w=1):
    """Doc."""
    return v + w


class Box:
    def __init__(self, k):
        self.k = k

    def f(self, v):
        return v * self.k


def function_made_in_the_frame(x):
    def inner(v, w):
        return v * w
    c = inner.__code__
    return inner.__name__, inner.__qualname__, inner.__module__, x * c.co_argcount, c.co_varnames, c.co_name


def function_from_outside(x):
    return outside.__name__, outside.__qualname__, outside.__doc__, x * outside.__code__.co_argcount


def bound_method_parts(x):
    b = Box(3)
    m = b.f
    return m(x), m.__self__.k, m.__self__ is b, m.__func__(b, x), m.__name__, m.__func__ is Box.f


@pytest.mark.parametrize("fn", [function_made_in_the_frame, function_from_outside, bound_method_parts],
                         ids=lambda f: f.__name__)
def test_function_attributes_are_captured_and_match_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
    assert_captured_whole(fn, X)


def test_a_renamed_outside_function_re_translates():
    static = sot.to_static(function_from_outside, min_graph_size=0)
    check(function_from_outside, (X,), static=static)
    try:
        outside.__name__ = "renamed"
        check(function_from_outside, (X,), static=static)
    finally:
        outside.__name__ = "outside"
    check(function_from_outside, (X,), static=static)
