"""Client programs, fifth set (benchmarks/client_programs5.py: an LSTM over a
list of steps, a GRU encoder with a dataclass config and an Enum pooling,
an optimizer class with per-parameter state by an Enum rule, HMM
forward-backward and Viterbi, beam search over a tiny language model,
im2col convolution over stride tricks, Gray-Scott reaction-diffusion,
Longstaff-Schwartz with a passed-in Generator, PCA with sign fixing,
conjugate gradients over CSR with np.add.reduceat, an MLP on mini-batches
with logging and a progress callback, Gaussian-mixture EM) decorated as
users decorate them give eager's results bitwise, eager's stdout, the same
random numbers consumed, and do to their arguments what eager does; over
two sizes and two seeds."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import client_programs5 as CP5  # noqa: E402
from test_client_programs import assert_program_matches  # noqa: E402


@pytest.mark.parametrize("name", list(CP5.PROGRAMS))
def test_client_program_decorated_is_eager_bitwise(name):
    assert_program_matches(CP5.PROGRAMS, name)
