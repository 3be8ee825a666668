"""heapq and bisect inside decorated functions: the real C functions order
the items (so ties and the comparison order are CPython's); (priority,
array) entries are ordered by their priorities without reading the arrays;
a tie that reaches the arrays breaks, as it needs their data."""
import bisect
import heapq

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def heap_of_constants(x):
    h = []
    for p, name in [(3, "c"), (1, "a"), (2, "b"), (1, "z")]:
        heapq.heappush(h, (p, name))
    first = heapq.heappop(h)
    a = [5, 1, 4, 1, 3]
    heapq.heapify(a)
    r = heapq.heappushpop(a, 0), heapq.heapreplace(a, 9)
    return first, h, a, r, x + 1


def heap_of_prioritised_arrays(x):
    h = []
    heapq.heappush(h, (1, "b", x))
    heapq.heappush(h, (0, "a", x * 2))
    heapq.heappush(h, (1, "a", x - 1))
    return heapq.heappop(h)[2], [entry[1] for entry in h], heapq.heappop(h)[2]


def heap_tie_reaches_the_arrays(x):
    h = []
    heapq.heappush(h, (1, x.sum()))
    heapq.heappush(h, (1, x.max()))
    return h


def heap_tie_on_the_same_array(x):
    h = []
    heapq.heappush(h, (1, x))
    heapq.heappush(h, (1, x))   # the same object: equal without reading it
    return h, x + 1


def empty_heap_pop_raises(x):
    return heapq.heappop([]), x


def bisect_and_insort(x):
    a = [1, 2, 2, 4]
    found = (bisect.bisect_left(a, 2), bisect.bisect_right(a, 2), bisect.bisect(a, 3), bisect.bisect_left(a, 2, 2),
             bisect.bisect_right(a, 2, 0, 1))
    bisect.insort(a, 3)
    bisect.insort_left(a, 0)
    names = ["a", "c"]
    bisect.insort(names, "b")
    return found, a, names, x * 2


def bisect_negative_lo_raises(x):
    return bisect.bisect_left([1, 2], 1, -1), x


@pytest.mark.parametrize("fn", [heap_of_constants, heap_of_prioritised_arrays, heap_tie_reaches_the_arrays,
                                heap_tie_on_the_same_array, empty_heap_pop_raises, bisect_and_insort, bisect_negative_lo_raises])
def test_matches_eager(fn):
    check(fn, (X,), (X * 3,))


@pytest.mark.parametrize("fn", [heap_of_constants, heap_of_prioritised_arrays, heap_tie_on_the_same_array,
                                bisect_and_insort])
def test_captured_without_a_break(fn):
    assert_captured_whole(fn, X)


def test_a_tie_between_arrays_breaks_with_a_reason():
    report = sot.explain(sot.to_static(heap_tie_reaches_the_arrays, min_graph_size=0), X)
    assert any("heapq/bisect compare values that are not Python constants" in str(b) for b in report.breaks)


def push_pop_argument(h, x):
    heapq.heappush(h, 2)
    return heapq.heappop(h) * x


def test_heap_argument_is_mutated_as_eager_and_cached():
    h = [5, 3]
    static = sot.to_static(push_pop_argument)
    static(h, X)
    assert h == [3, 5] or h == sorted(h)
    check(push_pop_argument, ([5, 3], X), ([1], X), ([], X))
    n = sot.translation_count(static)
    check(push_pop_argument, ([5, 3], X), static=static)
    assert sot.translation_count(static) == n   # the same kind of argument hits the cache


def test_heaps_of_varying_numbers_keep_eager_order():
    """Numbers that vary between calls become graph inputs; ordering them
    specialises the trace on their values (and a comparison that stops the
    trace midway is never retried on the half-moved heap)."""
    static = sot.to_static(push_pop_argument)
    for heap in ([5, 3], [1], [], [5, 3], [2, 9, 4], [5, 3]):
        check(push_pop_argument, (heap, X), static=static, calls=2)


def drain_heap(h, x):
    heapq.heapify(h)
    heapq.heappush(h, 3)
    first = heapq.heappop(h)
    bisect.insort(h, 2)
    return first * x, [heapq.heappop(h) for _ in range(len(h))]


def test_random_heaps_match_eager():
    import random
    rnd = random.Random(0)
    static = sot.to_static(drain_heap)
    for _ in range(10):
        check(drain_heap, ([rnd.randint(0, 6) for _ in range(rnd.randint(0, 5))], X), static=static, calls=2)
