"""Guards do not keep alive what the user's code makes and drops.

A class (or function, or object) made inside the decorated function and
reaching a resume function is pinned by an identity or type guard. Eager
frees it when the call ends; a guard holding it strongly kept one per cache
entry alive (``Base.__subclasses__()`` grew, memory grew). Such guards hold
a weak reference (ops ``wid``/``wtype``): once the object dies the guard
never holds again, and the entry is dropped at the code's next translation.
"""
import gc
import types
import weakref

import numpy as np
import pytest

import sot
from sot import _C
from sot.guards import cache
from sot.guards.guard import IdGuard, TypeGuard
from sot.guards.compile import compile_guards
from sot.guards.tracker import LocalTracker

from difftest import check


class Base:
    pass


def local_class_across_a_break(x):
    class Local(Base):
        scale = 2

    print("break")
    return x * Local.scale, Local.__name__


def local_instance_across_a_break(x):
    class Local(Base):
        def __init__(self):
            self.k = 3

    obj = Local()
    print("break")
    return x + obj.k


def local_function_across_a_break(x):
    k = x.shape[0]

    def add(v):
        return v + k

    print("break")
    return add(x)


@pytest.mark.parametrize("fn", [local_class_across_a_break, local_instance_across_a_break,
                                local_function_across_a_break])
def test_made_per_call_matches_eager(fn):
    check(fn, (np.arange(4.0),), (np.ones((2, 3), np.float32),))


@pytest.mark.parametrize("fn", [local_class_across_a_break, local_instance_across_a_break])
def test_classes_made_per_call_are_freed_as_in_eager(fn, capsys):
    before = set(Base.__subclasses__())   # earlier tests' (frozen by conftest)
    static = sot.to_static(fn)
    for _ in range(12):
        static(np.arange(4.0))
    gc.collect()
    assert set(Base.__subclasses__()) <= before


def test_a_strictly_checked_weak_guard_agrees_with_its_python_twin():
    before = _C.guard_counters()
    previous = _C.set_guard_strict(True)
    try:
        static = sot.to_static(local_instance_across_a_break)
        for _ in range(5):
            static(np.arange(3.0))
    finally:
        _C.set_guard_strict(previous)
    assert _C.guard_counters()["strict_mismatches"] == before["strict_mismatches"]


def test_a_weak_guard_holds_while_its_object_lives_and_never_after():
    class C:
        pass

    c = C()
    guard = compile_guards([IdGuard(LocalTracker(0, "a"), c), TypeGuard(LocalTracker(1, "b"), C)], 2, 0)
    ref = weakref.ref(c)
    ops = [op[0] for op in guard.ops if op[0] not in ("arg",)]
    assert ops == ["wid", "wtype"]
    for run in (guard.hot, guard.reference):
        assert run({}, c, C()) is True
        assert run({}, object(), C()) is False
    del c, C
    gc.collect()
    assert ref() is None
    for run in (guard.hot, guard.reference):
        assert run({}, None, None) is False
    assert all(gd.is_dead() for gd in guard.guards)
    assert "collected" in guard.describe()[0]


def test_entries_whose_objects_died_leave_the_cache_and_count_against_its_size():
    code = compile("x", "<weak-entries>", "eval")
    added = []
    for k in range(5):
        class Made:   # noqa: B903 -- a class made per "call"
            pass
        gf = compile_guards([IdGuard(LocalTracker(0, "c"), Made)], 1, 0)
        added.append(cache.add_entry(code, gf.hot, code, types.SimpleNamespace(guard=gf), 3))
        del Made, gf
        gc.collect()
    rec = cache.record(code)
    assert added == [True, True, True, False, False]
    assert rec.dead == 3 and rec.entries == []      # dropped (their graphs freed) ...
    assert rec.overflowed                           # ... and counted: native past the limit, as before
    cache.clear(code)


def test_a_class_made_per_call_does_not_retranslate_every_call(capsys):
    static = sot.to_static(local_class_across_a_break)
    for _ in range(10):
        static(np.arange(4.0))
    gc.collect()
    assert max(cache.translation_count(rec.code) for rec in cache._records.values()) <= 3
    assert max(len(cache.entries(rec.code)) for rec in cache._records.values()) <= 2


def methods_using_super_across_a_break(x):
    class Plain:          # no user base: its own __dict__/__weakref__ descriptors
        def g(self):
            return 3

    class Sub(Base):
        def m(self):      # a __class__ cell: the method refers to the class
            return super().__init__() or 4

    p, s = Plain(), Sub()
    print("break")
    return x * p.g() + s.m(), type(p).__name__


def test_classes_whose_methods_refer_to_them_are_freed_as_in_eager(capsys):
    before = set(Base.__subclasses__())
    static = sot.to_static(methods_using_super_across_a_break)
    for _ in range(8):
        static(np.arange(3.0))
    check(methods_using_super_across_a_break, (np.arange(3.0),))
    gc.collect()
    assert set(Base.__subclasses__()) <= before


def test_a_local_class_changed_between_calls_is_seen():
    def make():
        class Local:
            k = 2

            def m(self, x):
                return x * self.k
        return Local

    Local = make()

    def f(o, x):
        return o.m(x)

    static = check(f, (Local(), np.arange(3.0)))
    Local.k = 5                      # a plain value: read through a guarded tracker
    assert (static(Local(), np.arange(3.0)) == np.arange(3.0) * 5).all()
    Local.m = lambda self, x: x - 1  # a method replaced
    assert (static(Local(), np.arange(3.0)) == np.arange(3.0) - 1).all()
    del Local.m
    with pytest.raises(AttributeError):
        static(Local(), np.arange(3.0))
