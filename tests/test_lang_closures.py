"""Graph breaks in functions whose locals inner functions capture: the
frame's cells are handed to the resume function, so code on both sides of
the break (and functions made before it) share them."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def static0(fn):
    return sot.to_static(fn, min_graph_size=0)


def captured_on_both_sides(fn, *args):
    report = sot.explain(static0(fn), *args)
    assert not report.fallbacks, [str(b) for b in report.fallbacks]
    assert report.graph_count >= 2
    return report


def cell_rebound_after_the_break(x):
    k = 2.0
    y = x * k
    print("mid")
    k = 3.0
    g = lambda v: v * k  # noqa: E731
    return g(y), k


def argument_captured_by_a_generator_expression(x):
    n = 3
    y = sum(x * i for i in range(n))
    print("mid", n)
    return [v * n for v in y]


def data_dependent_branch_with_a_cell(x):
    k = x * 2
    if float(x.sum()) > 0:
        k = k + 1
    return [k * v for v in range(3)]


def closure_made_after_the_break_reads_the_cell(x, scale):
    y = x + 1
    print("between")

    def f(v):
        return v * scale + y
    return f(x)


@pytest.mark.parametrize("fn, args", [
    (cell_rebound_after_the_break, (X,)),
    (argument_captured_by_a_generator_expression, (X,)),
    (data_dependent_branch_with_a_cell, (X,)),
    (data_dependent_branch_with_a_cell, (-X - 10,)),
    (closure_made_after_the_break_reads_the_cell, (X, 2.0)),
])
def test_break_in_a_function_with_cells_is_split_and_matches_eager(fn, args):
    check(fn, args, static=static0(fn))
    captured_on_both_sides(fn, *args)


def test_inner_function_alive_across_the_break_still_matches_eager():
    def f(x):
        count = 0

        def bump():
            nonlocal count
            count += 1
            return count
        bump()
        y = x * 2
        print("between")
        bump()
        return y + count, count
    check(f, (X,), static=static0(f))


def inner_function_alive_across_the_break(x):
    k = 2.0

    def inner(v, s=3.0):
        return v * k * s
    y = inner(x)
    print("cell")
    k = 5.0
    return y, inner(x), inner(x, 1.0)


def recursive_inner_function(x):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    y = x * 2
    print("mid")
    return y * fact(4)


def lambda_list_alive_across_the_break(x):
    a, b = 2.0, 3.0
    f = lambda v: v * a  # noqa: E731
    g = f
    y = f(x) + 1
    print("mid")
    return f(x) + g(x) * b + y, f is g


@pytest.mark.parametrize("fn", [inner_function_alive_across_the_break, recursive_inner_function,
                                lambda_list_alive_across_the_break])
def test_function_made_before_the_break_is_made_again_after_it(fn):
    check(fn, (X,), static=static0(fn))
    captured_on_both_sides(fn, X)
