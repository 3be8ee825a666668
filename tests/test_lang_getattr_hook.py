"""Objects made in the trace whose class defines `__getattr__` in Python:
a name found neither on the instance nor its class goes to `__getattr__`,
inlined; what is found never does. A descriptor on such a class (whose
AttributeError would reach `__getattr__`) and a raising `__getattr__` run
as eager."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check
from peer_cases.corners import Lazy   # a property raising AttributeError, and __getattr__

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class Lengths:
    k = 5

    def __init__(self, v):
        self.v = v

    def method(self):
        return 1

    def __getattr__(self, name):
        return len(name)


class Strict:
    def __getattr__(self, name):
        if name.startswith("ok"):
            return name
        raise AttributeError(name)


def missing_names_go_to_getattr(x):
    w = Lengths(x)
    return x * w.abcd, w.xy, w.v + 1, w.k, w.method(), hasattr(w, "zz"), getattr(w, "qqq", None)


def names_set_later_are_found(x):
    w = Lengths(x)
    before = w.later
    w.later = x * 2
    return before, w.later


@pytest.mark.parametrize("fn", [missing_names_go_to_getattr, names_set_later_are_found], ids=lambda f: f.__name__)
def test_getattr_is_inlined_and_matches_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
    assert_captured_whole(fn, X)


def raising_getattr(x):
    s = Strict()
    return s.ok_a, hasattr(s, "bad"), getattr(s, "bad", "default"), x + 1


def property_raising_attribute_error(x):
    return Lazy().p, x + 1


def missing_name_raises(x):
    return x + 1, Strict().nope


@pytest.mark.parametrize("fn", [raising_getattr, property_raising_attribute_error, missing_name_raises],
                         ids=lambda f: f.__name__)
def test_what_is_not_modelled_matches_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))


def test_a_replaced_getattr_re_translates():
    fn = missing_names_go_to_getattr
    static = sot.to_static(fn, min_graph_size=0)
    check(fn, (X,), static=static)
    old = Lengths.__getattr__
    try:
        Lengths.__getattr__ = lambda self, name: 2 * len(name)
        check(fn, (X,), static=static)
    finally:
        Lengths.__getattr__ = old
    check(fn, (X,), static=static)
