"""Two constructs that crashed the simulator (an internal error, the whole
frame run natively) instead of breaking the graph.

A graph break at the last instruction of a try body (an array op NumPy
raises on, in `return a + b` inside `try`): the instruction after it is the
end of the exception range (a TryEnd pseudo-instruction on 3.11+), which has
no line number. The resume splice takes the break's own line there; the
frame breaks (graph before it kept) instead of falling back whole with an
internal error.

`iter(callable, sentinel)`: the builtin's model took one argument (a
TypeError inside the simulator); it now breaks the graph at the call."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def return_in_try(x):
    y = x * 2
    try:
        return y + x[:, :3]
    except ValueError as e:
        return y, str(e)


def return_in_nested_try(x):
    log = []
    y = x - 1
    try:
        try:
            return y @ x
        except KeyError:
            log.append("inner")
        finally:
            log.append("finally")
    except ValueError as e:
        log.append(str(e))
    return y, log


@pytest.mark.parametrize("fn", [return_in_try, return_in_nested_try])
def test_break_at_the_end_of_a_try_range_matches_eager(fn):
    check(fn, (X,), calls=2)


@pytest.mark.parametrize("fn", [return_in_try, return_in_nested_try])
def test_break_at_the_end_of_a_try_range_breaks_instead_of_falling_back(fn):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X)
    assert not report.fallbacks, [str(f) for f in report.fallbacks]
    assert report.breaks and report.graph_count >= 1


def iter_with_sentinel(x):
    items = [3, 2, 1, 0, 5]
    return list(iter(items.pop, 1)), items, x * 2


def test_iter_of_a_callable_and_a_sentinel_breaks_without_an_internal_error():
    check(iter_with_sentinel, (X,), calls=2)
    report = sot.explain(sot.to_static(iter_with_sentinel, min_graph_size=0), X)
    assert not report.fallbacks and not any("internal" in str(b) for b in report.breaks)
