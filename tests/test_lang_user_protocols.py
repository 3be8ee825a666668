"""Object protocols of user objects are inlined (executor/user_protocols.py):
truth by __bool__ then __len__, len(), obj[k], `in`, iteration by __iter__,
obj.__class__ and cls.__mro__; results CPython checks (a bool from
__bool__, a non-negative int from __len__) are checked, and where eager
raises the frame runs natively to raise the same."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class Bag:
    def __init__(self, *items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __contains__(self, v):
        return v in self.items

    def __iter__(self):
        return iter(self.items)


class Rows:
    def __init__(self, a):
        self.a = a

    def __iter__(self):          # a generator method
        for i in range(self.a.shape[0]):
            yield self.a[i] * (i + 1)

    def __len__(self):
        return self.a.shape[0]


class Flag:
    def __init__(self, on):
        self.on = on

    def __bool__(self):
        return self.on


class BadBool:
    def __bool__(self):
        return 1                  # eager: TypeError


class NegLen:
    def __len__(self):
        return -1                 # eager: ValueError


class Base:
    def who(self):
        return "base"


class Left(Base):
    pass


class Right(Base):
    def who(self):
        return "right"


class Diamond(Left, Right):
    pass


def test_container_protocols_of_an_object_made_in_the_frame():
    def f(x):
        b = Bag(1, 2, 3)
        total = x
        for v in b:
            total = total + v
        return total, len(b), b[1], 2 in b, 7 not in b, bool(b), not Bag()

    check(f, (X,))
    assert_captured_whole(f, X)


def test_protocols_of_an_argument_are_guarded():
    def f(x, b):
        if b:
            return x * len(b), b[0], 3 in b
        return x

    static = check(f, (X, Bag(2, 3)), (X, Bag()), (X, Bag(3)))
    assert sot.translation_count(static) >= 2


def test_iteration_by_a_generator_method_and_len_of_an_array_dim():
    def f(x):
        r = Rows(x)
        return [row.sum() for row in r], len(r), list(iter(r))

    check(f, (X,), (np.ones((4, 2), np.float32),))
    assert_captured_whole(f, X)


def test_truth_by_bool_in_branches_and_operators():
    def f(x, flag):
        y = x + 1 if flag else x - 1
        return y, not flag, bool(flag), flag and 1, flag or 2

    check(f, (X, Flag(True)), (X, Flag(False)))
    assert_captured_whole(f, X, Flag(True))


def test_results_cpython_checks_raise_as_eager():
    def f(x, obj):
        return bool(obj), x

    def g(x, obj):
        return len(obj), x

    check(f, (X, BadBool()))
    check(g, (X, NegLen()))


def test_mro_and_isinstance_through_a_diamond():
    def f(x):
        d = Diamond()
        names = []
        for k in type(d).__mro__:
            names.append(k.__name__)
        return names, isinstance(d, Right), isinstance(d, (int, Left)), d.who(), d.__class__ is Diamond, x

    check(f, (X,))
    assert_captured_whole(f, X)


def test_class_with_a_changed_dunder_retranslates():
    class Box:
        def __init__(self, v):
            self.v = v

        def __len__(self):
            return 2

    def f(x, b):
        return x * len(b)

    static = check(f, (X, Box(1)))
    Box.__len__ = lambda self: 5
    check(f, (X, Box(1)), static=static)
