"""Builtin facts folded at trace time (sot/executor/builtin_values.py):
class names, `==` between classes, hash() of constant tuples, tuple
count/index; each matches eager, with no graph break, and a changed class
name retranslates."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class Named:
    pass


class Meta(type):
    def __eq__(cls, other):
        return True

    __hash__ = type.__hash__


class WithEqMeta(metaclass=Meta):
    pass


def type_comparisons(x):
    v = x[0, 0]
    return (type(3) == int, type(2.5) is float, type(v) == float, type(x) != np.ndarray, int != float,
            type(v).__name__, type(x).__qualname__, type(iter([])).__name__, ValueError.__name__, x + 1)


def user_class_names(x):
    e = KeyError("k")
    return Named.__name__, Named.__qualname__, type(e).__name__, type(Named()) == Named, x * 2


def hashes_and_tuple_methods(x):
    t = (1, 2, 1, (3, "a"))
    u = t + (x.shape[0],)
    return (hash((1, 2)) == hash((1, 2)), hash(t), hash((None, 2.5, True)), t.index(2), t.count(1),
            u.index(2, 1), u.count((3, "a")), x - 1)


@pytest.mark.parametrize("fn", [type_comparisons, user_class_names, hashes_and_tuple_methods],
                         ids=lambda f: f.__name__)
def test_matches_eager_without_a_break(fn):
    check(fn, (X,), (X[:1].astype(np.float64),), static=sot.to_static(fn, min_graph_size=0))
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X)
    assert not report.breaks and not report.fallbacks, [str(b) for b in report.breaks + report.fallbacks]


def metaclass_eq(x):
    return WithEqMeta == int, x + 1


def tuple_index_missing(x):
    t = (1, 2)
    try:
        t.index(5)
    except ValueError as e:
        return str(e), x
    return None


def tuple_of_arrays_index(x):
    t = (x, x + 1)
    return t.index(x), t.count(x)


@pytest.mark.parametrize("fn", [metaclass_eq, tuple_index_missing, tuple_of_arrays_index],
                         ids=lambda f: f.__name__)
def test_what_is_not_plain_stays_eager_s(fn):
    # a metaclass __eq__, an error eager raises, items compared by identity
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))


def reads_name(x):
    return Named.__name__, x + 1


def test_a_renamed_class_retranslates():
    static = sot.to_static(reads_name, min_graph_size=0)
    check(reads_name, (X,), static=static)
    Named.__name__ = "Renamed"
    try:
        check(reads_name, (X,), static=static)
        assert static(X)[0] == "Renamed"
    finally:
        Named.__name__ = "Named"
    assert static(X)[0] == "Named"
