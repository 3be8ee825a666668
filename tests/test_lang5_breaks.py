"""Constructs the simulator does not capture exactly break the graph (or run
the frame natively) and give eager's results: values, side effects, the
exception at the user's line."""
import collections

import numpy as np
import pytest

import sot
from difftest import case_params, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) / 7 - 0.5
X2 = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)


class PlainKey:
    def __init__(self, n):
        self.n = n


class EqKey:
    def __init__(self, n):
        self.n = n

    def __hash__(self):
        return hash(self.n)

    def __eq__(self, other):
        return isinstance(other, EqKey) and other.n == self.n


def identity_and_user_hashed_keys_mixed(x):
    a = PlainKey(1)
    d = {EqKey(1): x, a: x * 2}   # whether the address-derived hash of `a` collides is not known
    return d[a], len(d), EqKey(1) in d


def user_dict_and_list(x):
    ud = collections.UserDict({"a": x})
    ud["b"] = x * 2
    ul = collections.UserList([x, x + 1])
    ul.append(x * 3)
    return ud["a"] + ud["b"], len(ud), sum(ul), len(ul)


class Counting:
    reads = 0

    def __init__(self):
        self.k = 2.0

    def __getattribute__(self, name):
        type(self).reads += 1
        return object.__getattribute__(self, name)


def getattribute_override(x):
    before = Counting.reads
    c = Counting()
    return x * c.k, Counting.reads - before   # each read runs __getattribute__, eagerly once


class Registry:
    seen: list = []

    def __init_subclass__(cls, tag="", **kw):
        super().__init_subclass__(**kw)
        cls.tag = tag
        Registry.seen.append(tag)


def init_subclass_keywords(x):
    class R(Registry, tag="r"):
        pass
    return x * len(R.tag), R.tag


def fstring_of_data(x):
    return f"{float(x.sum()):.3f}|{x.max():+.2e}|{int(x[0, 0] * 100):04d}"


def format_of_data_then_error(x):
    s = format(float(x.mean()), ".4f")
    return int(s)   # eager: ValueError here


CASES = {
    "identity_and_user_hashed_keys_mixed": (identity_and_user_hashed_keys_mixed, [(X,), (X2,)]),
    "user_dict_and_list": (user_dict_and_list, [(X,), (X2,)]),
    "getattribute_override": (getattribute_override, [(X,), (X2,)]),
    "init_subclass_keywords": (init_subclass_keywords, [(X,), (X2,)]),
    "fstring_of_data": (fstring_of_data, [(X,), (X2,), (X * 3,)]),
    "format_of_data_then_error": (format_of_data_then_error, [(X,), (X2,)]),
}


@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_breaks_and_matches_eager(fn, arg_sets):
    if fn is not format_of_data_then_error:   # (explain would raise eager's ValueError)
        report = sot.explain(sot.to_static(fn, min_graph_size=0), *arg_sets[0])
        assert report.breaks or report.fallbacks, "expected a break or a fallback"
    Counting.reads = 0
    Registry.seen = []
    check(fn, *arg_sets)   # (each check call runs eager first, then the decorated function)


def test_data_formatting_raises_at_the_users_line():
    static = sot.to_static(format_of_data_then_error, min_graph_size=0)
    with pytest.raises(ValueError, match="invalid literal") as info:
        static(X)
    assert info.traceback[-1].frame.code.name == "format_of_data_then_error"


def test_getattribute_side_effects_match_eager():
    Counting.reads = 0
    want = [getattribute_override(X)[1] for _ in range(3)]
    Counting.reads = 0
    static = sot.to_static(getattribute_override, min_graph_size=0)
    got = [static(X)[1] for _ in range(3)]
    assert got == want == [1, 1, 1]
    assert Counting.reads == 3


# -- the truth value of an array of several elements (eager raises ValueError) ------------

def chained_comparison_of_an_array_caught(x):
    try:
        return 0 < x < 3
    except ValueError as e:
        return str(e)[:20]


def if_on_an_array_caught(x):
    y = x * 2
    try:
        if y > 1:
            return y
        return -y
    except ValueError:
        return y + 100


def chained_comparison_of_an_array(x):
    y = x + 1
    return 0 < y < 3


def test_an_array_truth_error_reaches_the_users_handler():
    check(chained_comparison_of_an_array_caught, (X,), (X2,))
    check(if_on_an_array_caught, (X,), (X2,), (np.ones(1, np.float32),))


def test_an_array_truth_error_is_raised_at_the_users_line():
    static = sot.to_static(chained_comparison_of_an_array, min_graph_size=0)
    with pytest.raises(ValueError, match="truth value") as info:
        static(X)
    entry = info.traceback[-1]
    assert entry.frame.code.name == "chained_comparison_of_an_array"
    assert "0 < y < 3" in str(entry.statement)
    check(chained_comparison_of_an_array, (X,), (X2,))
