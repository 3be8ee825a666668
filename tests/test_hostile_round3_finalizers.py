"""Hostile use, round 3: a frame drops the last reference to an object whose
release runs code (a class's `__del__`, a `weakref.finalize` callback), then
reads what that code changed. The trace modelled the drop as nothing
happening: a later side effect broke the graph (side_effects.py), but a
later *read* (a class counter, a log list) saw the value from before the
release, silently. Typically the object was made natively before a graph
break and reached the resume function as an argument (a local, or a value
on the stack that `make().attr` consumes), its only reference.
A resume function dropping an object it was passed now breaks the graph at
the drop, which runs natively; one passed a stack value whose release runs
code runs natively. (A decorated function's own arguments are
held by its caller through the decorator, as through any wrapper: dropping
one frees nothing.)"""
from __future__ import annotations

import weakref

import numpy as np
import pytest

import sot


class Counted:
    alive = 0

    def __init__(self):
        Counted.alive += 1

    def __del__(self):
        Counted.alive -= 1


class Plain:
    pass


class Tagged(Counted):
    def __init__(self, tag):
        super().__init__()
        self.tag = tag


def _make(tag):
    return Tagged(tag)


def _rebind_list_then_read_counter(x):
    items = [Counted() for _ in range(3)]   # runs natively (a class with __del__): the rest resumes
    before = Counted.alive
    items = None                            # releases them eagerly, here
    return x + before, Counted.alive


def _del_then_read_counter(x):
    c = Counted()
    del c
    return x * 2, Counted.alive


def _finalize_then_read_log(x, log):
    obj = Plain()
    weakref.finalize(obj, log.append, "finalized")
    del obj
    return x + 1, list(log)


def _temporary_then_read_counter(x):
    tag = Tagged(3).tag                     # the temporary goes once its attribute is read
    return x * tag, Counted.alive


def _temporary_after_a_print(x):
    print("made")
    tag = _make(2).tag + 1
    return x * tag, Counted.alive


@pytest.mark.parametrize("fn", [_rebind_list_then_read_counter, _del_then_read_counter,
                                _temporary_then_read_counter, _temporary_after_a_print])
def test_a_read_after_a_release_sees_what_the_finalizer_did(fn):
    for g in (fn, sot.to_static(fn)):
        results = [g(np.arange(3.0)) for _ in range(3)]
        assert [r[1] for r in results] == [0, 0, 0], (g, results)
        assert [r[0].tolist() for r in results] == [fn(np.arange(3.0))[0].tolist()] * 3


def test_a_read_after_a_weakref_finalize_sees_its_callback():
    for g in (_finalize_then_read_log, sot.to_static(_finalize_then_read_log)):
        for _ in range(3):
            log = []
            _, seen = g(np.arange(3.0), log)
            assert seen == ["finalized"], (g, seen)


def _rebind_array_argument(x, y):
    y = y * 2
    return x + y


def test_dropping_an_array_argument_stays_one_graph():
    report = sot.explain(sot.to_static(_rebind_array_argument, min_graph_size=0), np.ones(2), np.ones(2))
    assert not report.breaks and not report.fallbacks and report.graph_count == 1
