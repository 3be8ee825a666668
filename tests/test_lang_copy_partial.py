"""copy.copy / copy.deepcopy of lists, dicts and tuples of arrays and
constants (sot/executor/copies.py), and functools.partial's .func/.args/
.keywords (sot/executor/partials.py): eager's values and sharing, no break."""
import copy
import functools

import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4)


def copies_of_containers(x):
    a = [x, [1, 2], {"k": x}, (x, 1), (1, "a")]
    b = copy.copy(a)
    c = copy.deepcopy(a)
    b[1].append(3)
    c[2]["new"] = 0
    d = copy.copy({"a": [1]})
    d["a"].append(2)
    return b[1] is a[1], a, c, d, b[0] is a[0], c[3][1], copy.copy((1, 2))


def copies_of_arrays(x):
    y = copy.copy(x)
    y[0, 0] = 9
    z = copy.deepcopy(x.T)
    w = copy.copy(x[:, ::2])
    return x, y, z, w, copy.deepcopy([x, x])


def copy_then_write_keeps_the_input(x):
    deep = copy.deepcopy({"w": [x, x * 2]})
    deep["w"][0] += 1
    return x, deep


def partial_attributes(x):
    p = functools.partial(np.add, x)
    q = functools.partial(np.multiply, 2.0)
    r = functools.partial(p, 3)
    return p.func is np.add, len(p.args), p.keywords, p(1), q.args, q(x), r.args[1], p.args is p.args


def partial_keywords_are_one_dict(x):
    def f(a, b=1, c=2):
        return a * b + c
    p = functools.partial(f, b=3)
    kw = p.keywords
    kw["c"] = 10
    return p(x), p.keywords is kw, sorted(p.keywords.items())


CASES = [copies_of_containers, copies_of_arrays, copy_then_write_keeps_the_input, partial_attributes,
         partial_keywords_are_one_dict]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_matches_eager(fn):
    check(fn, (X,), (X[:2],), static=sot.to_static(fn, min_graph_size=0))


@pytest.mark.parametrize("fn", [copies_of_containers, copies_of_arrays, partial_attributes,
                                partial_keywords_are_one_dict], ids=lambda f: f.__name__)
def test_no_break(fn):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X)
    assert not report.breaks and not report.fallbacks, [str(b) for b in report.breaks + report.fallbacks]


class Thing:
    pass


def copy_of_user_object(x):
    t = Thing()
    return copy.copy(t) is t, x + 1


def test_other_values_stay_eager_s():
    check(copy_of_user_object, (X,), static=sot.to_static(copy_of_user_object, min_graph_size=0))
