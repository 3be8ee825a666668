"""itertools from decorated functions, beyond test_lang_itertools: groupby
(keys, the shared underlying iterator, a group read after the grouper moved
on), count/cycle bounded by islice, product/combinations over rows of an
array, accumulate with a function and arrays, starmap over array pairs,
pairwise of rows. Each matches eager (values, types, what is left in a
shared iterator); the modelled ones run in one graph without a break."""
import itertools
import operator

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def chain_of_rows_and_lists(x):
    rows = list(itertools.chain(x, [x[0] * 2], (r + 1 for r in x)))
    return len(rows), rows[-1], list(itertools.chain.from_iterable([[1, 2], (3,), "ab"]))


def product_and_combinations_of_rows(x):
    rows = [x[0], x[1], x[2]]
    sums = [a + b for a, b in itertools.product(rows[:2], rows[1:])]
    pairs = [a * b for a, b in itertools.combinations(rows, 2)]
    return sums, pairs, list(itertools.combinations_with_replacement("ab", 2)), list(itertools.product([0, 1], repeat=3))


def accumulate_with_a_function(x):
    return (list(itertools.accumulate(x, np.maximum)), list(itertools.accumulate([3, 1, 4, 1, 5], max)),
            list(itertools.accumulate([1.5, 2.25], operator.add, initial=0.25)), list(itertools.accumulate([])))


def zip_longest_of_rows(x):
    return [(a, b) for a, b in itertools.zip_longest(x, [1, 2], fillvalue=None)], list(itertools.zip_longest("ab", "c", "def"))


def islice_bounds_count_and_cycle(x):
    idx = list(itertools.islice(itertools.count(2, 3), 4))
    phases = list(itertools.islice(itertools.cycle("xyz"), 1, 8, 2))
    rows = [r * k for r, k in zip(itertools.islice(itertools.cycle(x), 5), itertools.count())]
    return idx, phases, rows, x[idx[0] % 3]


def groupby_keys_and_groups(x):
    data = [1, 1, 2, 3, 3, 3, 1]
    runs = [(k, len(list(g))) for k, g in itertools.groupby(data)]
    parity = [(k, list(g)) for k, g in itertools.groupby(data, key=lambda v: v % 2)]
    words = {k: "".join(g) for k, g in itertools.groupby(sorted("mississippi"))}
    return runs, parity, words, x * len(runs)


def groupby_group_read_late(x):
    it = itertools.groupby("aabbbc")
    k1, g1 = next(it)
    k2, g2 = next(it)
    return k1, list(g1), k2, list(g2), [k for k, _ in it], x + 1   # g1 is exhausted once the grouper moved on


def groupby_of_array_rows_breaks_on_equality(x):
    # equality of arrays needs their data: eager raises (ambiguous truth value)
    return [k for k, _ in itertools.groupby([x[0], x[1]])]


def starmap_over_array_pairs(x):
    return (list(itertools.starmap(np.add, [(x[0], x[1]), (x[1], x[2])])),
            list(itertools.starmap(pow, [(2, 3), (3, 2)])), list(itertools.starmap(operator.sub, zip(x, x[::-1]))))


def pairwise_rows(x):
    return [b - a for a, b in itertools.pairwise(x)], list(itertools.pairwise("abc")), list(itertools.pairwise([]))


def compress_filterfalse_dropwhile(x):
    return (list(itertools.compress("abcdef", [1, 0, 1, 0, 1])), list(itertools.filterfalse(lambda v: v % 2, range(7))),
            list(itertools.dropwhile(lambda v: v < 3, [1, 4, 1, 5])), list(itertools.compress(x, [0, 1, 1])))


def tee_and_shared_iterator(x):
    a, b = itertools.tee(iter([1, 2, 3]))
    first = next(a)
    return first, list(b), list(a), x - 1


def bad_product_repeat_raises(x):
    return list(itertools.product([1], repeat=-1)), x


CASES = [chain_of_rows_and_lists, product_and_combinations_of_rows, accumulate_with_a_function, zip_longest_of_rows,
         islice_bounds_count_and_cycle, groupby_keys_and_groups, groupby_group_read_late,
         groupby_of_array_rows_breaks_on_equality, starmap_over_array_pairs, pairwise_rows,
         compress_filterfalse_dropwhile, tee_and_shared_iterator, bad_product_repeat_raises]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_matches_eager(fn):
    check(fn, (X,), (X[::-1] * 2,))


CAPTURED = [chain_of_rows_and_lists, product_and_combinations_of_rows, accumulate_with_a_function, groupby_group_read_late,
            zip_longest_of_rows, islice_bounds_count_and_cycle, starmap_over_array_pairs, pairwise_rows]


@pytest.mark.parametrize("fn", CAPTURED, ids=lambda f: f.__name__)
def test_captured_without_a_break(fn):
    assert_captured_whole(fn, X)


class Flag:
    def __init__(self, on):
        self.on = on

    def __bool__(self):
        return self.on


def filters_read_truth_as_eager(x):
    flags = [Flag(True), Flag(False), Flag(True)]
    it = iter([1, 2, 3, 4, 5])
    picked = list(itertools.compress(it, [1, 0, 1]))           # stops at the shorter: 4 is not taken
    return (picked, list(it), [f.on for f in itertools.filterfalse(None, flags)],
            list(itertools.filterfalse(bool, [0, 1, "", "a"])), list(itertools.dropwhile(lambda v: not v, [0, 0, 1, 0])),
            list(itertools.compress("abc", flags)), x * 2)


def dropwhile_none_predicate_raises(x):
    return list(itertools.dropwhile(None, [1, 2])), x


def combinations_with_replacement_bad_r(x):
    return list(itertools.combinations_with_replacement("ab", -1)), x


@pytest.mark.parametrize("fn", [filters_read_truth_as_eager, dropwhile_none_predicate_raises,
                                combinations_with_replacement_bad_r], ids=lambda f: f.__name__)
def test_filters_match_eager(fn):
    check(fn, (X,), (X * 2,))


def test_filters_are_captured():
    assert_captured_whole(filters_read_truth_as_eager, X)
    assert_captured_whole(compress_filterfalse_dropwhile, X)


def join_of_iterators(x):
    it = iter(["c", "d", "e"])
    head = "".join(itertools.islice(it, 2))             # takes two, leaves the third
    return ("".join(str(i) for i in range(3)), "-".join(map(str, [1, 2])), head, list(it),
            ",".join(k + str(len(list(g))) for k, g in itertools.groupby("aabccc")), "".join({"p": 1, "q": 2}), x)


def join_takes_everything_before_it_fails(x):
    seen = []

    def gen():
        for v in ["a", 1, "b"]:
            seen.append(v)
            print("step", v)
            yield v
    try:
        "".join(gen())
    except TypeError as e:
        return str(e), seen, x
    return None


@pytest.mark.parametrize("fn", [join_of_iterators, join_takes_everything_before_it_fails], ids=lambda f: f.__name__)
def test_str_join_of_an_iterator_matches_eager(fn):
    check(fn, (X,), (X * 2,))


def test_str_join_of_an_iterator_is_captured():
    assert_captured_whole(join_of_iterators, X)
    assert_captured_whole(groupby_keys_and_groups, X)
