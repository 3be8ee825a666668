"""Functions as values: lambdas, map, filter, sorted(key=), functools.reduce,
functools.partial, operator.* functions, any/all/min/max/sum over Python
values, captured without a break and with eager's order of steps."""
import functools
import operator

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def map_lambda_over_a_split(x, n):
    parts = np.split(x, 2, axis=-1)
    heads = list(map(lambda p: np.split(p, n, axis=0), parts))
    return [a + b for a, b in zip(*heads)]


def map_of_two_iterables(x):
    return list(map(operator.sub, [x, x * 2], [1, 2, 3]))


def filter_and_sorted(x):
    sizes = sorted(filter(lambda s: s > 1, x.shape + (1, 5)), reverse=True)
    return x.reshape(-1)[: sizes[0]] * len(sizes)


def sorted_with_key(x):
    parts = [x[:1], x, x[:2]]
    return sorted(parts, key=lambda p: p.shape[0])


def reduce_with_operator(x):
    total = functools.reduce(operator.add, [x, x * 2, x * 3])
    prod = functools.reduce(lambda a, b: a * b, x.shape, 1)
    return total * prod


def partial_of_a_numpy_function(x):
    summed = functools.partial(np.sum, axis=0)
    scaled = functools.partial(operator.mul, 2.0)
    return summed(scaled(x)), summed(x, keepdims=True)


def operator_functions_as_values(x):
    ops = [operator.add, operator.sub, operator.truediv, operator.lt, operator.iadd, operator.neg]
    out = []
    for op in ops:
        out.append(op(x) if op is operator.neg else op(x + 0, 2.0))
    return out


def any_all_min_max_sum(x, mode):
    flags = [x.shape[0] <= 0, x.shape[1] <= 0]
    if any(flags) or not all([x.ndim == 2, mode == "same"]):
        return x
    k = max(x.shape, key=lambda d: -d) + min(3, 4) + sum(d for d in x.shape)
    return x * k


@pytest.mark.parametrize("fn, args", [
    (map_lambda_over_a_split, (X, 3)),
    (map_of_two_iterables, (X,)),
    (filter_and_sorted, (X,)),
    (sorted_with_key, (X,)),
    (reduce_with_operator, (X,)),
    (partial_of_a_numpy_function, (X,)),
    (operator_functions_as_values, (X,)),
    (any_all_min_max_sum, (X, "same")),
    (any_all_min_max_sum, (X, "valid")),
])
def test_functions_as_values_are_one_graph_and_match_eager(fn, args):
    check(fn, args)
    assert_captured_whole(fn, *args)


def test_map_is_lazy_side_effects_keep_eager_order():
    def f(x):
        log = []
        m = map(lambda v: log.append(v.shape) or v * 2, [x, x[:1]])
        before = list(log)
        first = next(m)
        middle = list(log)
        rest = list(m)
        return before, first, middle, rest, log
    check(f, (X,))
    assert_captured_whole(f, X)


def test_iterator_partly_consumed_then_listed_gives_the_rest():
    def f(x):
        it = iter([x, x + 1, x + 2])
        first = next(it)
        return first, list(it), list(it)
    check(f, (X,))


def test_zip_over_a_shared_iterator_takes_items_as_eager_does():
    def f(x):
        it = iter([x, x + 1, x + 2, x + 3, x + 4])
        pairs = list(zip(it, it))
        return pairs, list(it)
    check(f, (X,))


def test_any_stops_at_the_first_true_item():
    def f(x):
        seen = []
        hit = any(seen.append(d) or d > 3 for d in x.shape)
        return hit, seen
    check(f, (X,))


def test_min_of_arrays_breaks_and_matches_eager():
    def f(x):
        return min([x.sum(), x.max()])
    check(f, (X,))


def test_sorted_of_arrays_without_key_breaks_and_matches_eager():
    def f(x):
        return sorted([x[0, 0], x[1, 1]])
    check(f, (X,))


def test_returned_map_object_is_a_real_map():
    def f(x):
        return map(lambda v: v + 1, [x, x])
    static = sot.to_static(f)
    out = static(X)
    assert type(out) is map
    assert all(np.array_equal(a, b) for a, b in zip(out, f(X)))
