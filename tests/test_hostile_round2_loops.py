"""Hostile use, round 2: loops whose body became a function (sot/breaks/loop_body.py);
the nested-loop cases were found by a generator of random nested loops with breaks.

A `return` inside an inner loop of an outer loop whose body breaks: the outer
body function returned through a stub reached by a jump, and the inner loop
(planned again inside that function) took the jump for a `break` carrying
nothing, so the call returned None instead of the value."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check


def _return_from_inner_loop(x, rows):
    for row in rows:
        for v in row:
            print(v)
            if v == 3:
                return x, v
            x = x + v
    return x, None


def _return_const_from_inner_loop(x, rows):
    for row in rows:
        for v in row:
            print(v)
            if v == 3:
                return 5
            x = x + v
    return 7


def _return_from_while_in_for(x, items):
    for v in items:
        n = 0
        while n < v:
            print(n)
            n += 1
            x = x * 2
            if n == 2:
                return x, n
    return x, -1


def _inner_break_else_then_return(x, rows):
    for row in rows:
        for v in row:
            print(v)
            if v == 2:
                break
            x = x + v
        else:
            x = x * 2
            continue
        return x
    return -x


@pytest.mark.parametrize("fn", [_return_from_inner_loop, _return_const_from_inner_loop, _inner_break_else_then_return],
                         ids=lambda f: f.__name__.strip("_"))
def test_return_from_a_loop_nested_in_a_breaking_loop_body(fn):
    check(fn, (np.ones(2), [[1, 2], [3], []]), (np.ones(2), [[1], [4, 5]]), (np.ones(2), []))


def test_return_from_a_while_loop_in_a_for_body():
    check(_return_from_while_in_for, (np.ones(2), [1, 3]), (np.ones(2), [1, 1]))


def _three_nested_loops_returning(x, items):
    acc = []
    v0 = 0
    while v0 < 1:
        v0 += 1
        for v1 in items[::-1]:
            for v2 in items:
                if v2 == 2:
                    break
                if float(x.sum()) > 30:
                    return x
            else:
                x = x * 2
            x = x + v1
            acc.append(v1)
        for v1 in list(range(len(items))):
            for v2 in list(range(len(items))):
                print(v2)
            if float(x.sum()) > 14:
                return x
            x = x + v1
    return x, acc


def test_returns_from_loops_nested_three_deep():
    """The body functions of nested loops are planned again inside each
    other: a return's value kept in a hidden local there was read as an
    unbound user local (UnboundLocalError on 3.10/3.11, a crash on 3.12+)."""
    check(_three_nested_loops_returning, (np.ones(2), [1, 2, 3]), (np.ones(2), [0]), (np.ones(2), [3, 1, 2, 0]))
