"""itertools over modelled values (sot/executor/iter_tools.py): the same
items in the same order as eager, inputs consumed step by step where eager
steps them (a shared iterator, a list that grows), no graph break."""
import itertools
import operator

import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4)


def combinatorics(x):
    rows = [x[0], x[1], x[2]]
    return (list(itertools.product(range(2), "ab")), list(itertools.product([1, 2], repeat=2)),
            list(itertools.permutations([1, 2, 3], 2)), list(itertools.permutations("ab")),
            [a + b for a, b in itertools.combinations(rows, 2)], list(itertools.combinations(range(4), 5)))


def lazy_ones(x):
    return (list(itertools.chain([1], (2, 3), "ab")), list(itertools.islice(range(10), 2, 8, 3)),
            list(itertools.islice("abcdef", 3)), list(itertools.islice(range(5), 1, None)),
            list(itertools.accumulate([1, 2, 3])), list(itertools.accumulate(x))[-1],
            list(itertools.accumulate([1, 2, 3], operator.mul, initial=10)),
            list(itertools.zip_longest([1, 2], "a", fillvalue=0)), list(itertools.zip_longest([x[0]], [])),
            list(itertools.repeat(x[0], 2)), list(itertools.starmap(operator.mul, [(1, 2), (3, 4)])),
            list(itertools.takewhile(lambda v: v < 3, itertools.count())))


def pairwise_and_cycle(x):
    c = itertools.cycle([x, -x])
    return list(itertools.pairwise([1, 2, 4])), [next(c) for _ in range(3)], list(zip(range(3), itertools.repeat(7)))


def shared_iterator_consumption(x):
    it = iter([1, 2, 3, 4, 5, 6, 7])
    head = list(itertools.islice(it, 2))
    pairs = list(itertools.zip_longest(it, [10]))      # stops as soon as `it` is the last one left
    left = list(it)
    src = [1, 2]
    ch = itertools.chain(src, [9])
    first = next(ch)
    src.append(3)                                       # seen: chain reads the list when it steps
    return head, pairs, left, first, list(ch), x + 1


CASES = [combinatorics, lazy_ones, pairwise_and_cycle, shared_iterator_consumption]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_matches_eager_without_a_break(fn):
    check(fn, (X,), (X[::-1].copy(),), static=sot.to_static(fn, min_graph_size=0))
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X)
    assert not report.breaks and not report.fallbacks, [str(b) for b in report.breaks + report.fallbacks]


def bad_arguments(x):
    try:
        itertools.islice(range(3), -1)
    except ValueError as e:
        return str(e), x
    return None


def float_count(x):
    return list(itertools.takewhile(lambda v: v < 2, itertools.count(0.5, 0.5))), x


@pytest.mark.parametrize("fn", [bad_arguments, float_count], ids=lambda f: f.__name__)
def test_what_is_not_modelled_stays_eager_s(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
