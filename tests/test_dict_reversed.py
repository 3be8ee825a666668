"""`reversed()` of a plain dict and of its keys/values/items views is
captured (it broke the graph: "reversed() of dict"): the keys in reverse
insertion order, an iterator of eager's type, CPython's size-changed error
when the dict grows while it is iterated, and the real iterator made again
where it is live after the graph."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def reversed_forms(x):
    d = {"a": x, "b": 2, "c": 3}
    r = reversed(d)
    first = next(r)
    return (x + 1, first, list(r), list(reversed(d)), list(reversed(d.values()))[2] + 1,
            list(reversed(d.items()))[0], type(reversed(d)), type(reversed(d.values())), type(reversed(d.items())))


def reversed_argument_dict(x, d):
    return x * 2, list(reversed(d)), [k for k in reversed(d.keys())], sum(reversed(d.values()))


def grows_while_iterated_in_reverse(x):
    d = {"a": 1, "b": 2}
    out = []
    try:
        for k in reversed(d):
            out.append(k)
            d["z"] = 1
    except RuntimeError as e:
        out.append(str(e))
    return x - 1, out, d


def live_after_a_break(x):
    d = {"a": 1, "b": 2, "c": 3}
    it = reversed(d.items())
    first = next(it)
    print("break")
    return x, first, list(it), type(it)


def returned_half_used(x):
    d = {"a": 1, "b": 2, "c": 3}
    it = reversed(d)
    next(it)
    return x + 2, it


CASES = [(reversed_forms, (X,)), (reversed_argument_dict, (X, {"p": 1, "q": 2, "r": 3})),
         (grows_while_iterated_in_reverse, (X,)), (live_after_a_break, (X,))]


@pytest.mark.parametrize("fn, args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_matches_eager(fn, args):
    check(fn, args, static=sot.to_static(fn, min_graph_size=0))


@pytest.mark.parametrize("fn, args", CASES[:3], ids=[fn.__name__ for fn, _ in CASES[:3]])
def test_captured_without_a_break(fn, args):
    assert_captured_whole(fn, *args)


def test_returned_iterator_is_eagers_kind_at_eagers_position():
    want, got = returned_half_used(X)[1], sot.to_static(returned_half_used, min_graph_size=0)(X)[1]
    assert type(got) is type(want) and list(got) == list(want) == ["b", "a"]
