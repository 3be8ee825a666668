"""Hostile use, round 2: loops whose body became a function (sot/breaks/loop_body.py).

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
