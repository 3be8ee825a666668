"""Zero-argument super() in methods whose frame is split by a graph break
(resume functions, loop bodies): it finds the class and the instance as
eagerly. It raised "super(): arg[0] deleted" on the translating call (the
resume function's first local is a stack value), see
sot/breaks/explicit_super.py."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check


class Base:
    def m(self, a):
        return a + 1


class PrintsThenSuper(Base):
    def m(self, a):
        print("m")                     # a graph break before super()
        return super().m(a) * 2


class SuperObjectKept(Base):
    def m(self, a):
        print("m")
        s = super()
        return s.m(a) * 2 + super().m(a)


class SelfInACell(Base):
    def m(self, a):
        get = lambda: self            # noqa: E731 - self becomes a cell
        print("m")
        return super().m(a) * 2 + (get() is self)


class SuperInBrokenLoop(Base):
    def m(self, a):
        t = 0
        for i in range(3):
            print(i)                   # the loop body is translated on its own
            t = t + super().m(a)
        return t


class SelfRebound(Base):
    def m(self, a):
        self = Base()                  # super() then fails eagerly: its object is the first local
        print("m")
        return super().m(a)


class InitSuper:
    def __init__(self):
        print("init")
        super().__init__()
        self.v = 2


class DoublingDict(dict):
    def __getitem__(self, k):
        print("get", k)
        return super().__getitem__(k) * 2


class Klass(Base):
    @classmethod
    def c(cls, a):
        print("c")
        return super().__init_subclass__ is not None and a


class Gen(Base):
    def m(self, a):
        print("g")
        yield super().m(a)


@pytest.mark.parametrize("cls", [PrintsThenSuper, SuperObjectKept, SelfInACell, SuperInBrokenLoop, SelfRebound],
                         ids=lambda c: c.__name__)
def test_super_after_a_graph_break_in_a_method(cls):
    check(lambda x, obj: obj.m(x), (np.ones(2), cls()))


def test_super_in_init_dict_subclass_classmethod_and_generator():
    check(lambda x: x * InitSuper().v, (np.ones(2),))
    check(lambda x, d: x * d["a"], (np.ones(2), DoublingDict(a=3)))
    check(lambda x: x * Klass.c(2), (np.ones(2),))
    check(lambda x, g: list(g.m(x)), (np.ones(2), Gen()))
