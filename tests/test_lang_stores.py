"""Stores that run user code or reach outside the frame: property setters are
inlined (sot/executor/setters.py), __slots__ slots are read as values, a
class __setattr__ and slot stores break at the store only (never the whole
frame), ``del lst[i]`` on a list from outside is a replayed side effect."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def static0(fn):
    return sot.to_static(fn, min_graph_size=0)


class Box:
    def __init__(self):
        self._v = np.zeros(4, np.float32)
        self.sets = 0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        if value.ndim != 1:
            raise ValueError("v must be 1-d")
        self._v = value * 2
        self.sets += 1


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = np.ones(4, np.float32)

    def __eq__(self, other):   # compared by difftest
        def state(o):
            return [np.asarray(getattr(o, n)).tolist() if hasattr(o, n) else None for n in self.__slots__]
        return type(other) is Slotted and state(self) == state(other)


class Logged:
    def __init__(self):
        object.__setattr__(self, "log", [])

    def __setattr__(self, name, value):
        self.log.append(name)
        object.__setattr__(self, name, value)


def set_through_a_property(x, box):
    y = x[0] * 3
    box.v = y
    return box.v + x, box.sets


def set_through_a_property_that_raises(x, box):
    y = x * 3
    box.v = y          # 2-d: the setter raises ValueError
    return y


def property_of_an_object_made_here(x):
    box = Box()
    box.v = x[1] + 1
    return box.v, box.sets, box._v


def read_a_slot(x, s):
    return x * s.a


def store_then_read_a_slot(x, s):
    y = x * 2
    s.b = y[0]
    return y + s.b + s.a


def read_an_unset_slot(x, s):
    return x * s.b


def store_through_setattr(x, obj):
    y = x * 2
    obj.value = y
    return y + obj.value, list(obj.log)


def del_item_of_a_list_from_outside(x, lst):
    del lst[1]
    del lst[-1]
    return x * len(lst), lst[0]


def del_slice_of_a_list_from_outside(x, lst):
    y = x + 1
    del lst[1:3]
    return y, len(lst)


def del_out_of_range(x, lst):
    y = x + 1
    del lst[5]
    return y


CASES = [
    (set_through_a_property, lambda: (X, Box())),
    (set_through_a_property_that_raises, lambda: (X, Box())),
    (property_of_an_object_made_here, lambda: (X,)),
    (read_a_slot, lambda: (X, Slotted())),
    (store_then_read_a_slot, lambda: (X, Slotted())),
    (read_an_unset_slot, lambda: (X, Slotted())),
    (store_through_setattr, lambda: (X, Logged())),
    (del_item_of_a_list_from_outside, lambda: (X, [X[0], 2, 3, 4])),
    (del_slice_of_a_list_from_outside, lambda: (X, [1, 2, 3, 4, 5])),
    (del_out_of_range, lambda: (X, [1, 2])),
]


@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_store_matches_eager(fn, make):
    check(fn, make(), static=static0(fn))


@pytest.mark.parametrize("fn,make", [(set_through_a_property, lambda: (X, Box())),
                                     (property_of_an_object_made_here, lambda: (X,)),
                                     (read_a_slot, lambda: (X, Slotted())),
                                     (del_item_of_a_list_from_outside, lambda: (X, [X[0], 2, 3, 4]))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_captured_without_a_break(fn, make):
    report = sot.explain(static0(fn), *make())
    assert not report.breaks and not report.fallbacks, [str(b) for b in report.breaks + report.fallbacks]


@pytest.mark.parametrize("fn,make", [(store_then_read_a_slot, lambda: (X, Slotted())),
                                     (store_through_setattr, lambda: (X, Logged()))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_a_store_that_runs_code_breaks_at_the_store_only(fn, make):
    report = sot.explain(static0(fn), *make())
    assert not report.fallbacks, [str(f) for f in report.fallbacks]
    assert report.graph_count >= 2   # before and after the store
    assert any(("s.b = y[0]" in str(b)) or ("obj.value = y" in str(b)) for b in report.breaks)


def test_property_setter_second_call_hits_the_cache():
    static = static0(set_through_a_property)
    box = Box()
    static(X, box)
    static(X, box)   # box.sets read by the trace changed: once more, then a graph input
    n = sot.translation_count(static)
    for _ in range(3):
        static(X, box)
    assert sot.translation_count(static) == n
    assert box.sets == 5


def test_a_replaced_property_setter_is_seen():
    class Other(Box):
        pass
    static = static0(set_through_a_property)
    check(set_through_a_property, (X, Other()), static=static)
    original = Box.v

    def new_setter(self, value):
        self._v = value - 1
        self.sets += 10
    Other.v = property(Box.v.fget, new_setter)
    try:
        check(set_through_a_property, (X, Other()), static=static)
    finally:
        Other.v = original
    check(set_through_a_property, (X, Other()), static=static)


def test_a_slot_unset_on_a_later_call_raises_as_eager():
    static = static0(read_a_slot)
    s = Slotted()
    check(read_a_slot, (X, s), static=static)
    del s.a
    with pytest.raises(AttributeError) as eager:
        read_a_slot(X, s)
    with pytest.raises(AttributeError) as traced:
        static(X, s)
    assert str(traced.value) == str(eager.value)
    s.a = np.full(4, 7, np.float32)
    check(read_a_slot, (X, s), static=static)
