"""getattr(obj, name, default) and hasattr(obj, name) are simulated where a
missing attribute is known exactly (arrays, NumPy scalars, builtin
constants, objects made in the trace), with no graph break."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class Plain:
    kind = "plain"

    def __init__(self, v):
        self.v = v

    @property
    def twice(self):
        return self.v * 2


class Slotted:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a


def on_arrays(x):
    s = x.sum()
    return (getattr(x, "shape"), getattr(x, "nope", 5), hasattr(x, "T"), hasattr(x, "zzz"),
            getattr(s, "nope", None), hasattr(s, "dtype"), x + 1)


def on_constants(x):
    t, n = (1, 2), 3
    return (hasattr(t, "count"), hasattr(n, "real"), hasattr("ab", "nope"), getattr(n, "nope", "d"),
            getattr(None, "x", 0), x * 2)


def on_new_objects(x):
    p, s = Plain(x), Slotted(x)
    return (hasattr(p, "v"), hasattr(p, "kind"), hasattr(p, "missing"), getattr(p, "missing", -1),
            getattr(p, "kind", None), hasattr(p, "twice"), getattr(p, "twice", 0) + 1,
            hasattr(s, "__dict__"), hasattr(s, "a"), getattr(s, "b", 7), p.v + s.a)


@pytest.mark.parametrize("fn", [on_arrays, on_constants, on_new_objects], ids=lambda f: f.__name__)
def test_matches_eager_without_a_break(fn):
    static = sot.to_static(fn, min_graph_size=0)
    check(fn, (X,), (X[:1],), static=static)
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X)
    assert not report.breaks and not report.fallbacks, [str(b) for b in report.breaks + report.fallbacks]


class Grows:
    def __init__(self, v):
        self.v = v


def reads_grows(x):
    g = Grows(x)
    return getattr(g, "extra", 0), hasattr(g, "extra"), g.v + 1


def test_a_name_added_to_the_class_later_retranslates():
    static = sot.to_static(reads_grows, min_graph_size=0)
    check(reads_grows, (X,), static=static)
    Grows.extra = 10
    try:
        check(reads_grows, (X,), static=static)
        assert static(X)[:2] == (10, True)
    finally:
        del Grows.extra
    check(reads_grows, (X,), static=static)


class RaisingProperty:
    @property
    def p(self):
        raise AttributeError("inside")


def property_raises_attributeerror(x):
    return hasattr(RaisingProperty(), "p"), getattr(RaisingProperty(), "p", 3), x + 1


def test_a_lookup_that_raises_is_eager_s():
    check(property_raises_attributeerror, (X,), static=sot.to_static(property_raises_attributeerror,
                                                                      min_graph_size=0))
