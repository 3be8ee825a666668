"""Descriptors written in Python: reads through `__get__` (on an instance
and on the class) and stores through `__set__` on objects made in the
trace are inlined, and a changed descriptor re-translates."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check
from peer_cases.objects import Positive as PeerPositive

X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2


class Positive(PeerPositive):
    """A data descriptor that clips what is stored (the peer case's), and refuses strings."""

    def __set__(self, obj, value):
        if isinstance(value, str):
            raise TypeError("no strings")
        super().__set__(obj, value)


class Doubled:
    """A non-data descriptor: an instance attribute of the same name wins."""

    def __get__(self, obj, owner=None):
        return 2 if obj is None else obj.base * 2


class Holder:
    v = Positive()
    d = Doubled()

    def __init__(self, v):
        self.v = v
        self.base = 3


def store_and_read_through_a_descriptor(x):
    h = Holder(x)
    h.v = x - 1
    return h.v, h._v, Holder.v.name, h.d, Holder.d


def instance_attribute_shadows_a_non_data_descriptor(x):
    h = Holder(x)
    h.d = 10
    return x * h.d


def set_raises(x):
    h = Holder(x)
    h.v = "s"
    return h.v


@pytest.mark.parametrize("fn", [store_and_read_through_a_descriptor, instance_attribute_shadows_a_non_data_descriptor],
                         ids=lambda f: f.__name__)
def test_descriptor_is_inlined_and_matches_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
    assert_captured_whole(fn, X)


def test_an_exception_in_set_is_eagers():
    check(set_raises, (X,), static=sot.to_static(set_raises, min_graph_size=0))


def test_a_changed_descriptor_method_re_translates():
    fn = store_and_read_through_a_descriptor
    static = sot.to_static(fn, min_graph_size=0)
    check(fn, (X,), static=static)
    old = Positive.__set__
    try:
        Positive.__set__ = lambda self, obj, value: setattr(obj, self.name, value * 10)
        check(fn, (X,), static=static)
    finally:
        Positive.__set__ = old
    check(fn, (X,), static=static)


def test_a_replaced_descriptor_object_re_translates():
    fn = store_and_read_through_a_descriptor
    static = sot.to_static(fn, min_graph_size=0)
    check(fn, (X,), static=static)
    old = Holder.__dict__["v"]
    try:
        new = Positive()
        new.name = "_w"
        Holder.v = new
        check(fn, (X,), static=static)
    finally:
        Holder.v = old
    check(fn, (X,), static=static)
