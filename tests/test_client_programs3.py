"""Client programs, third set (benchmarks/client_programs3.py: a trainer
class with a config dataclass and callbacks, a particle filter and a
Metropolis chain drawing from a Generator passed in, an image pipeline over
images of many sizes, a tokenizer with a bag-of-words vocabulary, Dijkstra
with heapq, a finite-difference solver writing its boundary in place, a
whole decorated Kalman loop, a small autograd engine, a recommender with
np.add.at and bincount, L-BFGS with a deque, a recursive decision tree)
decorated as users decorate them give eager's results bitwise, eager's
stdout, the same random numbers consumed, and do to their arguments what
eager does; over two sizes and two seeds, so re-translations and cached
entries both run."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import client_programs3 as CP3  # noqa: E402
from test_client_programs import assert_program_matches  # noqa: E402


@pytest.mark.parametrize("name", list(CP3.PROGRAMS))
def test_client_program_decorated_is_eager_bitwise(name):
    assert_program_matches(CP3.PROGRAMS, name)
