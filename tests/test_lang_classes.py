"""User classes in the trace: instances made in the frame (user __init__
inlined, __slots__, dataclasses with __post_init__), super() in both forms,
class attributes and classmethods, namedtuples, Enum/IntEnum members,
isinstance/issubclass; and what must still break or run natively."""
import abc
import collections
import dataclasses
import enum

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


class Scale:
    factor = 10.0

    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k + self.factor

    @classmethod
    def default(cls):
        return cls(2.0)

    @staticmethod
    def shift(x):
        return x - 1

    @property
    def double(self):
        return self.k * 2


class Slots:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a = a


@dataclasses.dataclass
class Cfg:
    w: float = 2.0
    b: float = 0.5

    def __post_init__(self):
        self.total = self.w + self.b


class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...


class Base:
    def __init__(self, k):
        self.k = k

    def f(self, x):
        return x + self.k


class Child(Base):
    def __init__(self, k):
        super().__init__(k * 2)

    def f(self, x):
        return super().f(x) * 3


class Explicit(Base):
    def f(self, x):
        return super(Explicit, self).f(x) - 1


class Mode(enum.Enum):
    SAME = "same"
    VALID = "valid"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


Point = collections.namedtuple("Point", ["x", "y"], defaults=[1.0])


def make_call_and_read(x):
    s = Scale(3.0)
    return s(x), s.k, s.double, s.factor


def classmethod_staticmethod(x):
    return Scale.default()(x) + Scale.shift(x)


def store_attributes_on_a_new_object(x):
    s = Scale(1.0)
    s.k = x.sum(axis=0)
    s.extra = 5
    return s(x) + s.extra


def slots_object(x):
    s = Slots(x)
    s.b = 2.0
    return s.a * s.b


def dataclass_post_init(x):
    c = Cfg(w=3.0)
    return x * c.w + c.total, c.b


def super_both_forms(x):
    return Child(1.0).f(x), Explicit(2.0).f(x)


def isinstance_issubclass(x):
    c = Child(1.0)
    return x * (isinstance(c, Base) + issubclass(Child, Base) + isinstance(c, (int, Child))
                + isinstance(c, Shape))


def namedtuple_create(x):
    p = Point(x)
    q = Point(x, y=x + 1)
    return p.x * p.y + q[1], q.y


def namedtuple_argument(p):
    a, b = p
    return p.x - p.y + a * b


def enum_members(x, mode):
    out = x
    if mode is Mode.SAME and mode == Mode.SAME and mode.name == "SAME" and mode.value == "same":
        out = out + 1
    if Mode["VALID"] is Mode.VALID:
        out = out * 2
    return out * sum(level.value for level in Level) + Level.HIGH.value


def returns_the_new_object(x):
    s = Scale(x * 2)
    s.tag = "made"
    return s


@pytest.mark.parametrize("fn, args", [
    (make_call_and_read, (X,)),
    (classmethod_staticmethod, (X,)),
    (store_attributes_on_a_new_object, (X,)),
    (slots_object, (X,)),
    (dataclass_post_init, (X,)),
    (super_both_forms, (X,)),
    (isinstance_issubclass, (X,)),
    (namedtuple_create, (X,)),
    (namedtuple_argument, (Point(X, X * 2),)),
    (enum_members, (X, Mode.SAME)),
    (enum_members, (X, Mode.VALID)),
])
def test_user_class_constructs_are_one_graph_and_match_eager(fn, args):
    check(fn, args)
    assert_captured_whole(fn, *args)


def test_object_made_in_the_trace_is_returned_as_eager_builds_it():
    static = sot.to_static(returns_the_new_object)
    out, ref = static(X), returns_the_new_object(X)
    assert type(out) is Scale and list(vars(out)) == list(vars(ref)) == ["k", "tag"]
    assert np.array_equal(out.k, ref.k) and out.tag == "made"
    assert static(X) is not out  # a new object every call, as eager


def test_namedtuple_returned_keeps_its_type():
    def f(x):
        p = Point(x, 2.0)
        return p, p[:1], p + (3,)
    check(f, (X,))


def test_changed_enum_argument_retranslates_and_stays_correct():
    static = sot.to_static(enum_members)
    check(enum_members, (X, Mode.SAME), (X, Mode.VALID), (X, Mode.SAME), static=static)
    assert sot.translation_count(static) == 2


def test_init_with_wrong_arguments_raises_as_eager():
    def f(x):
        return Scale(x, 1)
    check(f, (X,))


def test_slots_object_rejects_a_new_attribute_as_eager():
    def f(x):
        s = Slots(x)
        s.c = 1
        return s
    check(f, (X,))


class WithNew:
    def __new__(cls, k):
        obj = super().__new__(cls)
        obj.seen = True
        return obj

    def __init__(self, k):
        self.k = k


class WithSetattr:
    def __init__(self, k):
        self.k = k

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value * 2)


@pytest.mark.parametrize("cls", [WithNew, WithSetattr])
def test_classes_with_custom_new_or_setattr_run_natively_and_match(cls):
    def f(x):
        o = cls(3)
        return x * o.k
    check(f, (X,))
