"""benchmarks/lang_coverage.py: every function matches eager under sot, and
at least 90 % of them are captured with no graph break or fallback."""
import copy
import os
import sys

import pytest

import sot
from difftest import check

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import lang_coverage  # noqa: E402


@pytest.mark.parametrize("category, fn, args", lang_coverage.CASES,
                         ids=[f"{c}-{f.__name__}" for c, f, _ in lang_coverage.CASES])
def test_each_coverage_function_matches_eager(category, fn, args):
    check(fn, copy.deepcopy(args), static=sot.to_static(fn, min_graph_size=0))


def test_at_least_nine_in_ten_are_captured_with_no_break():
    captured, total, _per, misses = lang_coverage.measure()
    assert captured / total >= 0.9, misses
