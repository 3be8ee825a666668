"""A set's iteration order is its hash table's: the trace keeps, for each
set it models, the very set eager's operations make (never a copy, which
lays the table out anew), so iterating the result of an operator, a
method, `set(a_set)`, `set(a_dict)` or an update gives eager's order."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)
A = (36, 5, 16, 19, 24, 25, 30, 2 ** 61 - 1, 8, -3)   # values that collide in small tables
B = (0, 6, 7, 15, 20, 21, 25, 29, 16, 2 ** 40)


def operators(x):
    a, b = set(A), set(B)
    return list(a - b), list(a & b), list(a | b), list(a ^ b), list(b - a), x + 1


def methods(x):
    a, b = set(A), set(B)
    return (list(a.difference(b)), list(a.intersection(B)), list(a.union(list(B))),
            list(a.symmetric_difference(b)), a.isdisjoint(b), x + 1)


def updates(x):
    a = set(A)
    a -= {5, 16}
    a |= set(B)
    b = set(B)
    b.difference_update(A)
    b.update({1: 0, 2: 0, 99: 0})
    c = set(A)
    c.intersection_update(B, A)
    c.symmetric_difference_update(set(range(30)))
    return list(a), list(b), list(c), x + 1


def copies(x):
    a = set(A)
    a.discard(36)
    a.discard(8)
    a.add(44)
    return list(a), list(set(a)), list(a.copy()), list(frozenset(a)), list(set(dict.fromkeys(A))), x + 1


def frozen(x):
    f = frozenset(A)
    s = set(B)
    return list(f | s), list(f - s), list(s ^ f), sorted(f & s), x + 1


CASES = [operators, methods, updates, copies, frozen]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_set_order_matches_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
    assert_captured_whole(fn, X)


def text(x):
    a = set(A)
    a.discard(36)
    a.add(29)   # where 36 was: another slot than a fresh table gives it
    s = {str(v) for v in B}
    s.discard("0")
    s.add("zz")
    return str(a), repr(a), "-".join(s), "-".join([str(v) for v in a]), x + 1


def test_set_text_order_matches_eager():
    check(text, (X,), static=sot.to_static(text, min_graph_size=0))
    assert_captured_whole(text, X)
