"""`in` on dict views made in the trace answers as the view does: keys by
lookup, values by scan (identity, then ==), items by key then value; the
view sees stores made after it was taken."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def view_membership(x):
    d = {"a": 1, 2: "two", (1, 2): 3.5}
    k, v, it = d.keys(), d.values(), d.items()
    d["b"] = 2
    return ("b" in k, "z" in k, 2 in k, 2.0 in k, (1, 2) in k, 1 in v, 2 in v, "two" in v, 9 in v,
            ("a", 1) in it, ("a", 2) in it, (2, "two") in it, ("b", 2.0) in it, ("a",) in it, "a" in it,
            ("zz", 1) in it, x + 1)


def view_of_an_argument(x, d):
    return "k" in d.keys(), 5 in d.values(), ("k", 5) in d.items(), x * 2


def test_view_membership_is_captured_and_matches_eager():
    check(view_membership, (X,), static=sot.to_static(view_membership, min_graph_size=0))
    assert_captured_whole(view_membership, X)


@pytest.mark.parametrize("d", [{"k": 5}, {"k": 6}, {"j": 5}], ids=str)
def test_view_of_an_argument_follows_its_contents(d):
    static = sot.to_static(view_of_an_argument, min_graph_size=0)
    check(view_of_an_argument, (X, d), (X, {"k": 5, "m": 1}), static=static)


def array_value_in_values(x):
    d = {"a": x}
    return x in d.values()


def test_an_array_value_runs_as_eager():
    check(array_value_in_values, (X,), static=sot.to_static(array_value_in_values, min_graph_size=0))
