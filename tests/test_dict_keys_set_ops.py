"""A dict's keys view is set-like: `&`, `|`, `-`, `^` with another keys
view, a set or a frozenset, and comparisons with those, are captured (they
broke the graph: "operator and_ on dictview and dictview"), with eager's
result, type and set iteration order (sot/executor/dict_views.py)."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def set_operators(x):
    a = {"x": 1, "y": 2, "w": 0}
    b = {"y": 3, "z": 4, "w": 5}
    return (x + 1, list(a.keys() & b.keys()), list(a.keys() | b.keys()), list(a.keys() - b.keys()),
            list(a.keys() ^ b.keys()), list(a.keys() ^ {"q", "x"}), list({"y", "k"} & a.keys()),
            len(a.keys() - frozenset({"x"})), type(a.keys() & b.keys()), "y" in a.keys() & b.keys())


def comparisons(x):
    a = {"x": 1, "y": 2}
    return (x * 2, a.keys() == {"y": 0, "x": 0}.keys(), a.keys() == {"x", "y"}, a.keys() != {"x"},
            a.keys() <= {"x", "y", "z"}, a.keys() < a.keys(), {"x"} < a.keys(), a.keys() == ["x", "y"])


def with_argument_dict(x, d):
    wanted = {"a", "c"}
    missing = wanted - d.keys()
    return x + len(d.keys() & wanted), sorted(missing), d.keys() >= {"a"}


def inplace_makes_a_new_set(x):
    a = {"x": 1}
    k = a.keys()
    k |= {"y"}
    return x, sorted(k), type(k), a


def returned_set_falls_back_with_eagers_set(x):
    a = {"x": 1, "y": 2}
    return x, a.keys() | {"z"}


def result_iterated_in_order(x):
    a = {str(i): i for i in range(12)}
    b = {str(i): i for i in range(5, 20)}
    return x + 1, [k for k in a.keys() & b.keys()], "".join(a.keys() ^ b.keys())


CASES = [(set_operators, (X,)), (comparisons, (X,)), (with_argument_dict, (X, {"a": 1, "b": 2})),
         (inplace_makes_a_new_set, (X,)), (result_iterated_in_order, (X,)),
         (returned_set_falls_back_with_eagers_set, (X,))]


@pytest.mark.parametrize("fn, args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_matches_eager_in_one_graph(fn, args):
    check(fn, args, static=sot.to_static(fn, min_graph_size=0))
    if fn is not returned_set_falls_back_with_eagers_set:
        assert_captured_whole(fn, *args)


def other_operands(x):
    a = {"x": 1, "y": 2}
    b = {"y": 0, "q": 1}
    return (x + 1, sorted(a.keys() - b), sorted(a.keys() & ["y", "z"]), sorted(a.keys() | ("k",)),
            a.keys() == b, a.keys() == ["x", "y"], sorted(["x", "m"] & a.keys()))


def items_views(x):
    a = {"x": 1, "y": 2}
    return (x * 3, a.items() == {"y": 2, "x": 1}.items(), a.items() != {"x": 1}.items(),
            len(a.items() & {("x", 1), ("y", 5)}), ("x", 1) in a.items(), a.items() <= {("x", 1), ("y", 2)})


def items_view_with_array_values_follow_eager(x):
    a = {"x": x}
    return a.items() == {"x": 1}.items()


@pytest.mark.parametrize("fn", [other_operands, items_views], ids=lambda f: f.__name__)
def test_other_operands_and_items_views(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
    assert_captured_whole(fn, X)


def test_items_view_of_arrays_is_not_compared_in_the_trace():
    fn = items_view_with_array_values_follow_eager
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
