"""An iterator the trace made keeps its type: in the trace (`type(it)`) and
when it outlives the graph (returned, or live across a break), where it is
made again (sot/executor/iterator_rebuild.py).

Before, iter() of a str/range/bytes/frozenset constant or an Enum class, and
reversed() of a range or str, were tuple_iterators inside the trace, and any
iterator that outlived the graph (reversed, enumerate, zip,
itertools.repeat, product, combinations, permutations over known items,
np.ndindex too) came back as a tuple_iterator."""
import enum
import itertools

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, assert_same, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class Color(enum.Enum):
    RED = 1
    BLUE = 2


def _described(its):
    """Each iterator as (its type, what is left), read after the call."""
    return [(type(i), list(i)) for i in its]


def types_inside_the_trace(x):
    its = [iter("ab"), iter(range(3)), iter(b"ab"), iter(frozenset({1})), iter(Color), reversed(range(3)),
           reversed("ab"), iter(range(10 ** 20, 10 ** 20 + 2)), iter((1, 2)), reversed((x, 1))]
    return x + 1, [type(i).__name__ for i in its]


def constant_iterators_returned_part_used(x):
    a = iter("abc")
    next(a)
    b = iter(range(4))
    next(b)
    c = iter(Color)
    next(c)
    d = reversed("abc")
    next(d)
    return x + 1, [a, b, c, d, iter(b"xy"), reversed(range(3)), iter(range(10 ** 20, 10 ** 20 + 3))]


def iterators_over_known_items_returned(x):
    t = (x, 1, 2)
    r = reversed(t)
    next(r)
    e = enumerate(t, 5)
    next(e)
    z = zip(t, t, "abc")
    next(z)
    p = itertools.repeat(x, 3)
    next(p)
    return x * 2, [r, e, z, p, reversed(()), enumerate(()), zip(), itertools.repeat(1, 0), iter((x,))]


def combinatoric_iterators_returned(x):
    p = itertools.product((x, 1), (2,), repeat=1)
    next(p)
    return x - 1, [p, itertools.permutations((1, x)), itertools.permutations((1, 2, 3), 2),
                   itertools.combinations((x, 1, 2), 2), np.ndindex(2, 2), np.ndindex(())]


def constant_iterator_across_a_break(x):
    it = iter("abcd")
    out = []
    for ch in it:
        print(ch)
        out.append(ch)
        if ch == "b":
            break
    return x, out, list(it), type(it)


def test_types_inside_the_trace_match_eager():
    assert_captured_whole(types_inside_the_trace, X)
    check(types_inside_the_trace, (X,), static=sot.to_static(types_inside_the_trace, min_graph_size=0))


@pytest.mark.parametrize("fn", [constant_iterators_returned_part_used, iterators_over_known_items_returned,
                                combinatoric_iterators_returned],
                         ids=lambda f: f.__name__)
def test_returned_iterators_keep_type_and_what_is_left(fn):
    static = sot.to_static(fn, min_graph_size=0)
    for _ in range(2):
        want, got = fn(X), static(X)
        assert_same(_described(want[1]), _described(got[1]))


def test_iterator_live_across_a_break_keeps_type():
    check(constant_iterator_across_a_break, (X,), static=sot.to_static(constant_iterator_across_a_break,
                                                                        min_graph_size=0))
