"""picoGPT's GPT-2 forward (benchmarks/workloads.py: list(map(lambda ...))
over heads in a function whose locals a lambda captures, wpe[range(len(inputs))],
np.tri for the causal mask) is one graph per call, bitwise equal to eager,
and a new token list of the same length reuses it."""
import os
import sys

import numpy as np

import sot
from difftest import assert_same

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import workloads as W  # noqa: E402

PARAMS, N_HEAD = W.gpt2_params(n_vocab=50, n_ctx=16, n_embd=16, n_head=4, n_layer=2)


def forward(ids):
    return W.gpt2(ids, **PARAMS, n_head=N_HEAD)


def test_gpt2_forward_is_one_graph_with_no_break():
    report = sot.explain(sot.to_static(forward), [3, 7, 1, 9, 2])
    assert report.breaks == [], [str(b) for b in report.breaks]
    assert report.graph_count == 1


def test_gpt2_forward_is_bitwise_equal_and_new_token_lists_reuse_the_graph():
    static = sot.to_static(forward)
    rng = np.random.default_rng(1)
    for _ in range(4):
        ids = [int(t) for t in rng.integers(0, 50, size=7)]
        assert_same(forward(ids), static(ids), bitwise=True)
    assert sot.translation_count(static) == 1
    ids = [1, 2, 3]  # another length: one more translation
    assert_same(forward(ids), static(ids), bitwise=True)
    assert sot.translation_count(static) == 2
