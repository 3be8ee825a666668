"""Operators on user objects are inlined as CPython calls their dunders
(executor/user_operators.py): reflected methods and NotImplemented in
CPython's order, in-place methods first, object's default `__ne__` and
identity `==`; where every method declines eager raises TypeError, and the
frame runs natively to raise it."""
import dataclasses

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class Vec:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        if isinstance(other, Vec):
            return Vec(self.v + other.v)
        if isinstance(other, (int, float)):
            return Vec(self.v + other)
        return NotImplemented

    __radd__ = __add__

    def __mul__(self, k):
        return Vec(self.v * k) if isinstance(k, (int, float)) else NotImplemented

    def __neg__(self):
        return Vec(-self.v)

    def __eq__(self, other):
        return isinstance(other, Vec) and self.v.shape == other.v.shape


class Acc(Vec):
    def __iadd__(self, other):
        self.v = self.v + (other.v if isinstance(other, Vec) else other)
        return self

    def __radd__(self, other):       # a subclass overriding the reflected method goes first
        return Acc(self.v * 100)


class Left:
    def __add__(self, other):
        return NotImplemented


class Right:
    def __radd__(self, other):
        return "right"


class Plain:
    pass


@dataclasses.dataclass(order=True)
class Key:
    major: int
    minor: int


def arithmetic(x):
    u = Vec(x) + 1
    w = 2 + u
    z = -w
    z = z * 3
    return z.v, (Vec(x) + Vec(x)).v


def test_binary_and_unary_dunders_are_inlined():
    check(arithmetic, (X,))
    assert_captured_whole(arithmetic, X)


def test_inplace_then_reflected_subclass_order():
    def f(x):
        a = Acc(x)
        b = a
        a += 1            # __iadd__: the same object
        c = Vec(x) + Acc(x)   # Acc overrides __radd__: it goes first
        return a is b, a.v, type(c).__name__, c.v

    check(f, (X,))
    assert_captured_whole(f, X)


def test_inplace_falls_back_to_the_binary_method():
    def f(x):
        v = Vec(x)
        w = v
        v += 2            # no __iadd__: a new object from __add__
        return v is w, v.v

    check(f, (X,))
    assert_captured_whole(f, X)


def test_not_implemented_moves_to_the_reflected_method():
    def f(x):
        return Left() + Right(), x + 1

    check(f, (X,))
    assert_captured_whole(f, X)


def test_every_method_declining_raises_as_eager():
    def f(x, a, b):
        return a + b, x

    check(f, (X, Plain(), 1), (X, Left(), Left()), (X, 1, Plain()))


def test_unary_without_a_method_raises_as_eager():
    def f(x, a):
        return -a, x

    check(f, (X, Plain()))


def test_rich_comparisons_of_dataclasses_with_order():
    def f(x, a, b):
        return a < b, a <= b, a > b, a == b, a != b, x * (a < b)

    check(f, (X, Key(1, 2), Key(1, 3)), (X, Key(2, 0), Key(1, 3)), (X, Key(1, 1), Key(1, 1)))
    assert_captured_whole(f, X, Key(1, 2), Key(1, 3))


def test_ordering_against_another_type_raises_as_eager():
    def f(x, a):
        return a < 3, x

    check(f, (X, Key(1, 2)))


def test_eq_defaults_to_identity_and_ne_inverts_eq():
    def f(x, p, q):
        v = Vec(x)
        return p == p, p == q, p != q, v != Vec(x), v != 3, v == Vec(x[0]), x

    check(f, (X, Plain(), Plain()))
    assert_captured_whole(f, X, Plain(), Plain())


def test_class_of_an_object_and_a_changed_method_retranslates():
    class Scale:
        def __init__(self, k):
            self.k = k

        def __mul__(self, x):
            return x * self.k

    def f(x, s):
        return s * x, s.__class__ is Scale

    static = check(f, (X, Scale(2.0)))
    Scale.__mul__ = lambda self, x: x - self.k
    check(f, (X, Scale(2.0)), static=static)


def test_an_array_on_the_left_is_numpys_business():
    def f(x, v):
        return x + v

    check(f, (X, Right()))
