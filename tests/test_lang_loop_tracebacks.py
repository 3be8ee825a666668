"""An exception raised in a loop body that became a function of its own
(breaks/loop_body.py) has eager's traceback: one entry for the user's
function at the failing line, not a second at the `for` line for the
replacement that calls the body (csrc/traceback_fixup.h). Recursion keeps
every frame it has eagerly."""
import contextlib
import io
import traceback

import numpy as np
import pytest

import sot


def native(v):
    print("native", v.shape)   # a graph break inside the loop body
    return v


def body_raises(x, n):
    y = x + 1
    for i in range(3):
        y = native(y * 2)
        if i == n:
            y = y[100]
    return y


def nested_loops_raise(x, n):
    y = x + 1
    for i in range(2):
        for j in range(2):
            y = native(y * 2)
            if i * 2 + j == n:
                y = y[100]
    return y


def recursion_in_a_loop(x, n):
    y = x + 1
    for i in range(2):
        y = native(y)
        if n > 0 and i == 1:
            y = recursion_in_a_loop(y, n - 1)
        elif n == 0 and i == 1:
            y = y[100]
    return y


def recursion_without_a_loop(x, n):
    y = native(x + 1)
    if n == 0:
        return y[100]
    return recursion_without_a_loop(y, n - 1)


def _entries(fn, *args):
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            fn(*args)
        except IndexError as e:
            return [(f.name, f.lineno) for f in traceback.extract_tb(e.__traceback__)][1:]
    raise AssertionError("no IndexError")


@pytest.mark.parametrize("fn, ns", [(body_raises, (0, 1, 2)), (nested_loops_raise, (0, 3)),
                                    (recursion_in_a_loop, (0, 2)), (recursion_without_a_loop, (0, 2))])
def test_traceback_is_eager_s(fn, ns):
    static = sot.to_static(fn, backend="numpy", min_graph_size=0)
    x = np.arange(4.0)
    for n in ns:
        for _ in range(2):   # the translating call and a cached one
            assert _entries(static, x, n) == _entries(fn, x, n)
