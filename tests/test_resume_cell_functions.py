"""A function the trace makes after a graph break, held in a cell of the
original frame (a recursive inner function, or one another inner function
calls), must be in that cell when the next part of the frame runs.

A resume function takes the frame's cells as free variables; when its
graph ended at a second break, the replacement made the function again but
stored it in a fast local of the same name, so the next resume function
found the cell empty (NameError: cannot access free variable)."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def recursive_after_break(x, lst):
    print("first break")
    def depth(n):
        return 0 if n == 0 else depth(n - 1) + 1
    print("second break")
    return x + depth(len(lst))


def called_by_other_inner_after_break(x):
    print("first break")
    def outer(v):
        return inner(v) * 2
    def inner(v):
        return v + 1
    print("second break")
    return outer(x)


def lambda_in_cell_after_break(x):
    print("first break")
    f = lambda v: v * 3  # noqa: E731
    g = lambda v: f(v) + 1  # noqa: E731
    print("second break")
    return g(x), f(x)


def recursive_after_break_then_array_work(x):
    print("first break")
    y = x * 2
    def total(v, n):
        return v if n == 0 else total(v + y, n - 1)
    print("second break")
    return total(x, 3), y


def cell_function_through_three_breaks(x):
    print("one")
    def visit(n):
        return [] if n == 0 else [n] + visit(n - 1)
    print("two")
    a = visit(2)
    print("three")
    return x + len(a) + len(visit(3))


CASES = [
    (recursive_after_break, (X, [1, 2])),
    (called_by_other_inner_after_break, (X,)),
    (lambda_in_cell_after_break, (X,)),
    (recursive_after_break_then_array_work, (X,)),
    (cell_function_through_three_breaks, (X,)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_function_in_cell_survives_the_next_break(fn, args):
    check(fn, args, static=sot.to_static(fn, min_graph_size=0))
