"""A graph break at the last instruction of a try body (an array op NumPy
raises on, in `return a + b` inside `try`): the instruction after it is the
end of the exception range (a TryEnd pseudo-instruction on 3.11+), which has
no line number. The resume splice takes the break's own line there; the
frame breaks (graph before it kept) instead of falling back whole with an
internal error."""
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
