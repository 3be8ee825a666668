"""operator getters and functions as values, functools.cmp_to_key, math.prod
and fsum over sequences, dict.fromkeys, chain.from_iterable, frozenset,
list slice assignment, dict |= and str()/repr() of containers, inside
decorated functions; where the answer needs array data the trace breaks
with a reason and still matches eager."""
import functools
import itertools
import math
import operator

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


class Box:
    def __init__(self, inner):
        self.inner = inner


def getters(x):
    rows = operator.itemgetter(0, 2)(x)
    first = operator.itemgetter(1)([5, 6, 7])
    shape = operator.attrgetter("shape")(x)
    dotted = operator.attrgetter("inner.T.shape", "inner.ndim")(Box(x))
    summed = operator.methodcaller("sum", axis=1)(x)
    by_second = sorted([(1, "b"), (2, "a")], key=operator.itemgetter(1))
    return rows, first, shape, dotted, summed, by_second


def getter_returned(x):
    return operator.itemgetter(1, 0), operator.attrgetter("a", "b.c"), operator.methodcaller("sum", 1), x + 1


def operator_functions_as_values(x):
    total = functools.reduce(operator.add, [x, x, 1.0])
    product = functools.reduce(operator.mul, range(1, 5), 1)
    pairs = list(map(operator.sub, [5, 6], [1, 2]))
    return total, product, pairs, operator.index(7), operator.index(np.int64(3)), operator.length_hint([1, 2])


def index_of_array_breaks(x):
    return [10, 20, 30][operator.index(x.astype(np.int64)[0, 0] + 6)]


def cmp_sorted(x):
    def by_len_then_desc(a, b):
        return (len(a) - len(b)) or (1 if a < b else -1 if a > b else 0)
    words = sorted(["bb", "a", "ccc", "ab", "b"], key=functools.cmp_to_key(by_len_then_desc))
    nums = [3, 1, 2]
    nums.sort(key=functools.cmp_to_key(lambda a, b: b - a), reverse=True)
    return words, nums, x * len(words)


def cmp_over_arrays_breaks(x):
    return sorted([x[0], x[1], x[2]], key=functools.cmp_to_key(lambda a, b: float(a.sum() - b.sum())))


def cmp_raises(x):
    return sorted([1, 2], key=functools.cmp_to_key(lambda a, b: a / 0)), x


def math_over_sequences(x):
    return (math.prod([2, 3, 4]), math.prod((1.5, 2), start=2), math.prod([x, x]), math.prod([]),
            math.fsum([0.1] * 10), sum([0.1] * 10), math.fsum(()), x + 1)


def math_over_iterators(x):
    # the builtin takes the items of a generator, a range, an iterator: none is read twice
    gen = (v for v in [1, 2, 3])
    return (math.prod(gen), list(gen), math.prod(range(1, 5)), math.fsum(v / 10 for v in range(10)),
            math.prod(iter([x, x])), math.prod("a"), math.prod((2, 3)))


def math_prod_of_a_number_raises(x):
    return math.prod(3), x


def fsum_of_arrays_breaks(x):
    return math.fsum([x.sum(), x.max()])


def fromkeys_and_chain(x):
    shared = dict.fromkeys(["a", "b"], [])
    shared["a"].append(x)
    flat = list(itertools.chain.from_iterable([[1, 2], (3,), x]))
    lazy = itertools.chain.from_iterable(iter([[4], [5, 6]]))
    return shared, shared["a"] is shared["b"], dict.fromkeys("xyz"), flat, next(lazy), list(lazy)


def frozensets(x):
    f = frozenset([3, 1, 3])
    return f, 3 in f, f.union({4}), frozenset(), frozenset("ab") == frozenset("ba"), len(f) * x


FROZEN = frozenset({1, 2})


class EqualsAnything:
    def __eq__(self, other):
        return True

    __hash__ = None


def sets_and_frozensets_mixed(x):
    s = {1, 2}
    t = {1}
    t |= FROZEN
    return (s == FROZEN, s != frozenset([1, 2]), s <= FROZEN, FROZEN | {3}, {3} | FROZEN, FROZEN - s, t,
            s == {1: 0, 2: 0}.keys(), s == EqualsAnything(), s == [1, 2], x + 1)


def frozenset_of_arrays_raises(x):
    return frozenset([x])


def slice_stores(x):
    a = [0, 1, 2, 3, 4]
    a[1:3] = [x, x * 2, x * 3]
    b = list(range(6))
    b[::2] = "abc"
    del b[1:3]
    c = [1, 2]
    c[:] = c + c
    d = [1, 2, 3]
    d[5:] = (9,)
    return a, b, c, d


def extended_slice_size_mismatch_raises(x):
    b = [0, 1, 2, 3]
    b[::2] = [1]
    return b, x


def tuple_and_float_keys(x):
    d = {0: x, (1, 2): "t", 2.5: "f", ("a", (1, None)): 3}
    a, b = 1, 2
    e = {(a, b): x}
    e[(a, b)] = x * 2
    e[(b, a)] = 0
    del e[(b, a)]
    return (d[0], d[(1, 2)], d[2.5], d[("a", (1, None))], (1, 2) in d, d.get((1, 2)), d.get(1.0), d.pop(2.5),
            d, e, e[(1, 2)])


def nan_in_a_tuple_key_breaks(x):
    d = {(1, float("nan")): 1}
    return len(d), x


def numpy_int_indexes(x):
    items = [1, 2, 3]
    return items[np.int64(1)], (4, 5)[np.int32(-1)], "abc"[np.int32(2)], x + 1


def numpy_int_index_out_of_range_raises(x):
    return [1, 2][np.int64(5)], x


def texts(x):
    return (repr([1, "a", (2.5, None)]), str({"k": [1, 2], 3: True}), repr({7}), str(()), repr([[]]),
            str([1.0, -0.0, float("inf")]), x)


def text_of_arrays(x):
    return repr([x[0, :2]]), str((x.sum(),))


@pytest.mark.parametrize("fn", [
    getters, operator_functions_as_values, index_of_array_breaks, cmp_sorted, cmp_over_arrays_breaks, cmp_raises,
    math_over_sequences, math_over_iterators, math_prod_of_a_number_raises, fsum_of_arrays_breaks, fromkeys_and_chain, frozensets, sets_and_frozensets_mixed, frozenset_of_arrays_raises,
    slice_stores, extended_slice_size_mismatch_raises, tuple_and_float_keys, nan_in_a_tuple_key_breaks,
    numpy_int_indexes, numpy_int_index_out_of_range_raises, texts, text_of_arrays])
def test_matches_eager(fn):
    check(fn, (X,), (X * 2,))


@pytest.mark.parametrize("fn", [getters, operator_functions_as_values, cmp_sorted, math_over_sequences, math_over_iterators,
                                fromkeys_and_chain, frozensets, slice_stores, tuple_and_float_keys, numpy_int_indexes,
                                texts])
def test_captured_without_a_break(fn):
    assert_captured_whole(fn, X)


@pytest.mark.parametrize("fn, reason", [
    (index_of_array_breaks, "operator.index() of an array"),
    (cmp_over_arrays_breaks, "read from array data"),
    (fsum_of_arrays_breaks, "math.fsum() of values computed in the graph"),
    (text_of_arrays, "repr() of an array reads its data"),
])
def test_what_needs_array_data_breaks_with_a_reason(fn, reason):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X)
    assert any(reason in str(b) for b in report.breaks), [str(b) for b in report.breaks]


def test_getters_made_in_the_frame_are_rebuilt():
    ig, ag, mc, _ = sot.to_static(getter_returned)(X)
    assert type(ig) is operator.itemgetter and ig("ab") == ("b", "a")
    assert type(ag) is operator.attrgetter and type(mc) is operator.methodcaller
    np.testing.assert_array_equal(mc(X), X.sum(1))


def cmp_with_output(x):
    def noisy(a, b):
        print("cmp", a, b)
        return a - b
    return sorted([3, 1, 2, 5, 4], key=functools.cmp_to_key(noisy)), x


def test_cmp_calls_keep_eager_order_and_count():
    check(cmp_with_output, (X,))


def dict_ior_argument(x, d):
    merged = d | {"b": 2}
    d |= {"c": 3}
    return merged, x * len(d)


def list_slice_store_argument(lst, x):
    lst[1:] = [x * 2]
    return len(lst)


def test_stores_into_arguments_are_visible_after_the_call():
    d = {"a": 1}
    static = sot.to_static(dict_ior_argument)
    static(X, d)
    assert d == {"a": 1, "c": 3}
    check(dict_ior_argument, (X, {"a": 1}), (X, {}))
    lst = [1, 2, 3]
    sot.to_static(list_slice_store_argument)(lst, X)
    assert len(lst) == 2 and lst[0] == 1
    check(list_slice_store_argument, ([1, 2, 3], X), ([], X))


# -- itertools.groupby: lazy, as CPython steps it ----------------------------------------------

def groupby_counts(x):
    return [(k, len(list(g))) for k, g in itertools.groupby("aabccc")], x + 1


def groupby_advanced_ends_the_previous_group(x):
    groups = itertools.groupby([1, 1, 2, 3, 3, 5], key=lambda v: v % 2)
    k1, a = next(groups)
    k2, b = next(groups)
    return k1, list(a), k2, list(b), [(k, list(g)) for k, g in groups], x * 2


def groupby_rows(x):
    return [sum(g) for _, g in itertools.groupby(x, key=lambda r: 1)]


def groupby_array_keys_break(x):
    return [k for k, _ in itertools.groupby([x[0].sum(), x[1].sum()])]


@pytest.mark.parametrize("fn", [groupby_counts, groupby_advanced_ends_the_previous_group, groupby_rows,
                                groupby_array_keys_break])
def test_groupby_matches_eager(fn):
    check(fn, (X,))


def test_groupby_of_constant_keys_is_captured_and_array_keys_break():
    for fn in (groupby_counts, groupby_advanced_ends_the_previous_group, groupby_rows):
        assert_captured_whole(fn, X)
    report = sot.explain(sot.to_static(groupby_array_keys_break, min_graph_size=0), X)
    assert any("groupby keys" in str(b) for b in report.breaks), [str(b) for b in report.breaks]


def tee_steps_the_input_when_asked(x):
    steps = []

    def gen():
        for i in range(3):
            steps.append(i)
            yield x * i
    a, b = itertools.tee(gen())
    first = next(a)
    seen_then = list(steps)
    return first, seen_then, list(b), list(a), steps, itertools.tee([1], 0)


def tee_three_ways(x):
    a, b, c = itertools.tee(iter([1, 2, 3]), 3)
    return list(zip(a, b)), list(c), x + 1


def test_tee_matches_eager_and_is_captured():
    for fn in (tee_steps_the_input_when_asked, tee_three_ways):
        check(fn, (X,))
        assert_captured_whole(fn, X)
