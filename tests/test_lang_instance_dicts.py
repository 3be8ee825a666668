"""`obj.__dict__` / `vars(obj)` of an object made in the trace is the
object's own attribute dict: stores through either are seen by the other,
and a returned one is the returned object's `__dict__` (identity kept)."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class Obj:
    def __init__(self, k):
        self.k = k


class Slotted:
    __slots__ = ("a",)


def dict_and_object_share_stores(x):
    o = Obj(1)
    d = vars(o)
    d["m"] = x * 2
    o.n = 3
    setattr(o, "k", 5)
    return o.m + o.k, "n" in d, list(d), o.__dict__ is d, d, o


def only_the_dict_escapes(x):
    o = Obj(x + 1)
    return vars(o), x


@pytest.mark.parametrize("fn", [dict_and_object_share_stores, only_the_dict_escapes], ids=lambda f: f.__name__)
def test_instance_dict_is_captured_and_matches_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
    assert_captured_whole(fn, X)


def test_a_returned_dict_is_the_returned_objects():
    static = sot.to_static(dict_and_object_share_stores, min_graph_size=0)
    for _ in range(2):
        r = static(X)
        assert r[-2] is r[-1].__dict__


def slotted_vars(x):
    return x + 1, vars(Slotted())


def non_str_key(x):
    o = Obj(1)
    o.__dict__[1] = 2
    return o, x + 1


def vars_of_an_argument(x, o):
    return vars(o), x + 1


@pytest.mark.parametrize("fn", [slotted_vars, non_str_key], ids=lambda f: f.__name__)
def test_what_is_not_modelled_matches_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))


def test_vars_of_an_argument_matches_eager():
    check(vars_of_an_argument, (X, Obj(2)), static=sot.to_static(vars_of_an_argument, min_graph_size=0))
