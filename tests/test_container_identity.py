"""Identity of lists and tuples the trace makes.

`a is b` where one side is a list the trace made (a display, list(), a
slice, copy(), sorted(), a comprehension, `+`, `*`): CPython makes a fresh
object every time, and the trace keeps one Variable per list, so the answer
is the Variables' identity, decided without a graph break; a list reached
from outside the frame is not decided so (two places may hold one list).

A tuple is not always new: for an exact tuple `t`, `t + ()`, `() + t`,
`t * 1`, `t[:]` and `tuple(t)` are `t` itself (sot/executor/tuple_reuse.py).
The trace made a second tuple there, so the outputs held two objects where
eager holds one (`u is t` answered False after a break), and `tuple(p)` of a
namedtuple `p` returned `p` itself (its type was the namedtuple's)."""
import collections
import copy

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class Holder:
    pass


def fresh_lists_are_distinct(x):
    a = [x, 1]
    b = a
    made = [a[:], list(a), a.copy(), a + [], a * 1, [v for v in a], sorted([2, 1]), copy.copy(a)]
    return x + 1, b is a, [m is a for m in made], [a is m for m in made], made[0] is made[1]


def aliases_through_places_are_the_same(x, arg, obj, dct):
    a = [x, 1]
    d = {"k": a}
    obj.l = a
    arg.append(a)
    dct["z"] = a

    def inner():
        return a
    t = (a,)
    return (x * 2, d["k"] is a, obj.l is a, arg[-1] is a, inner() is a, t[0] is a, [a][0] is a,
            dct["z"] is a, list(d.values())[0] is a, max([a, a], key=len) is a, obj.l is arg[-1],
            dict(d)["k"] is a, copy.copy(d)["k"] is a, copy.deepcopy(d)["k"] is a)


def new_list_against_argument_list(x, arg):
    a = list(arg)
    return x - 1, a is arg, arg is a, a == arg


def new_list_against_other_kinds(x):
    a, t = [1], (1,)
    return x, a is None, a is x, a is t, a is not [1]


@pytest.mark.parametrize("fn, args", [
    (fresh_lists_are_distinct, (X,)),
    (aliases_through_places_are_the_same, (X, [0], Holder(), {})),
    (new_list_against_argument_list, (X, [1, 2])),
    (new_list_against_other_kinds, (X,)),
], ids=lambda v: getattr(v, "__name__", "args"))
def test_identity_of_new_lists_matches_eager_without_a_break(fn, args):
    assert_captured_whole(fn, *copy.deepcopy(args))
    check(fn, args, static=sot.to_static(fn, min_graph_size=0))


def argument_lists_may_be_one(x, a, b):
    return x + 1, a is b


def test_two_argument_lists_are_not_decided_by_the_new_list_rule():
    static = sot.to_static(argument_lists_may_be_one, min_graph_size=0)
    lst = [1]
    for a, b in ((lst, lst), ([1], [1]), (lst, lst)):
        assert static(X, a, b)[1] is (a is b)


Pair = collections.namedtuple("Pair", "a b")


def tuple_ops_that_return_the_tuple(x):
    t = (x, 1)
    same = [t + (), () + t, t * 1, 1 * t, t[:], t[0:2], t[::1], t[-5:9], tuple(t)]
    other = [t + (2,), t * 2, t[1:], t[::-1], t[:1], (*t,)]
    return x + 1, [s is t for s in same], [o is t for o in other], same, other


def tuple_kept_across_a_break(x):
    t = (x, 1)
    u = t + ()
    v = t[:]
    print("break")
    return x + 1, u is t, v is u, tuple(t) is t


def tuple_of_namedtuple_is_a_plain_tuple(x):
    p = Pair(x, 1)
    t = tuple(p)
    return x * 2, type(t), t, t is p, type(p[:]), type(p + ()), p[:] is p


@pytest.mark.parametrize("fn", [tuple_ops_that_return_the_tuple, tuple_kept_across_a_break,
                                tuple_of_namedtuple_is_a_plain_tuple], ids=lambda f: f.__name__)
def test_tuple_identity_and_type_follow_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))


def only_ops_that_return_the_tuple(x):
    t = (x, 1)
    return x + 1, [s is t for s in (t + (), () + t, t * 1, t[:], tuple(t))]


def test_tuple_ops_that_return_the_tuple_are_captured_whole():
    assert_captured_whole(only_ops_that_return_the_tuple, X)
    check(only_ops_that_return_the_tuple, (X,), static=sot.to_static(only_ops_that_return_the_tuple, min_graph_size=0))
