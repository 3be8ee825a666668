"""Needless retranslation after a graph break (sot/executor/str_data.py's
trial, sot/executor/list_lengths.py): a str passed to a call that breaks
whatever its value is not value-guarded, and a resume function that
iterates a list of another length on each call runs natively once it has
seen `list_lengths.LIMIT` lengths. Every call is eager's (results, the
arguments after the call); the translation counts (sot.translation_count)
stop growing; where a value or a length does matter, it still retranslates.
"""
from __future__ import annotations

import re

import numpy as np

import sot
from sot.executor import list_lengths

from difftest import check

_WORD = re.compile(r"[a-z]+")
WORDS = "the a model data graph array loss grad step train test value".split()
VOCAB = {w: i for i, w in enumerate(sorted(set(WORDS)))}


def tokenize(text):
    return _WORD.findall(text.lower())      # re.Pattern: a graph break whatever the text


def docs_of(seed, n=12):
    rng = np.random.default_rng(seed)
    return [" ".join(WORDS[int(k)] for k in rng.integers(0, len(WORDS), int(rng.integers(2, 9)))).capitalize()
            + "." for _ in range(n)]


def calls(fn, arg_sets, static):
    for args in arg_sets:
        check(fn, args, calls=1, static=static)


# -- a str given to a call that breaks -----------------------------------------------------

def tokens_times(x, text):
    toks = tokenize(text)
    return x * 2.0, toks


def test_str_passed_to_a_breaking_call_is_not_value_guarded():
    static = sot.to_static(tokens_times)
    x = np.arange(4.0)
    calls(tokens_times, [(x, "Alpha beta"), (x, "Gamma delta")], static)
    after_two = sot.translation_count(static)
    calls(tokens_times, [(x, f"Word{i} data model") for i in range(12)], static)
    assert sot.translation_count(static) == after_two     # was one translation per text


def branch_on_lowered(x, text):
    if text.lower() == "up":                # the value steers the trace: it is needed
        return x + 1.0
    return x - 1.0


def test_str_whose_value_steers_the_trace_is_still_value_guarded():
    static = sot.to_static(branch_on_lowered)
    x = np.arange(3.0)
    calls(branch_on_lowered, [(x, "UP"), (x, "Down"), (x, "up"), (x, "sideways"), (x, "Up ")], static)
    report = sot.explain(static, x, "DOWN")
    assert report.translation_count == 1 and not report.breaks   # a new value: a new translation, no break
    assert np.array_equal(report.result, x - 1.0)


# -- a loop over a list of varying length, after a break -----------------------------------

def bag_of_words(docs, vocab, X):
    for i, d in enumerate(docs):
        for tok in tokenize(d):             # the rest of the body: a resume function over the tokens
            j = vocab.get(tok)
            if j is not None:
                X[i, j] += 1.0
    return X * 2.0


def test_loop_over_tokens_of_varying_length_stops_retranslating():
    static = sot.to_static(bag_of_words)
    X = np.zeros((12, len(VOCAB)))
    calls(bag_of_words, [(docs_of(0), VOCAB, X)], static)
    first = sot.translation_count(static)
    assert first <= 8                       # 18-odd before: a translation per document and per length
    calls(bag_of_words, [(docs_of(s), VOCAB, X) for s in range(1, 6)], static)
    assert sot.translation_count(static) == first


def test_after_reset_the_resume_function_translates_again():
    static = sot.to_static(bag_of_words)
    X = np.zeros((12, len(VOCAB)))
    calls(bag_of_words, [(docs_of(0), VOCAB, X)], static)
    sot.reset()
    assert sot.translation_count(static) == 0
    calls(bag_of_words, [(docs_of(1), VOCAB, X)], static)
    assert sot.translation_count(static) > 0


def scaled_sums(items, x):
    print("start")                          # a break: the rest is a resume function
    for v in items:
        x = x + v
    return x


def test_list_of_arrays_of_varying_length_still_translates_per_length():
    static = sot.to_static(scaled_sums)
    x = np.ones(3)
    lengths = list(range(1, 7))             # past list_lengths.LIMIT
    assert list_lengths.LIMIT < len(lengths)
    calls(scaled_sums, [([np.full(3, float(k)) for k in range(n)], x) for n in lengths], static)
    report = sot.explain(static, [np.ones(3)] * (lengths[-1] + 1), x)
    assert not report.fallbacks and report.graph_count == 1   # a graph for the new length, not native


def plain_sums(items, x):
    print("start")
    total = 0
    for v in items:
        total = total + v
    return x * total


def test_list_of_numbers_of_varying_length_runs_natively_with_eager_results():
    static = sot.to_static(plain_sums)
    x = np.ones(3)
    arg_sets = [(list(range(n)), x) for n in range(1, 9)]
    calls(plain_sums, arg_sets, static)
    settled = sot.translation_count(static)
    calls(plain_sums, [(list(range(n)), x) for n in range(9, 15)] + arg_sets, static)
    assert sot.translation_count(static) == settled

