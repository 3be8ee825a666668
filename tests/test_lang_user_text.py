"""str(), repr() and f-strings of user objects whose class defines
__str__/__repr__ in Python: the method is inlined (no graph break); object's
own defaults (they show the address), a non-str result and a format spec
object.__format__ rejects still run natively, as eager."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class Named:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Named({self.name!r})"


class Both(Named):
    def __str__(self):
        return "<" + self.name + ">"


class BadRepr:
    def __repr__(self):
        return 3


class Plain:
    pass


GLOBAL = Named("g")


def repr_str_of_new_objects(x):
    a, b = Named("a"), Both("b")
    return repr(a), str(a), repr(b), str(b), x + 1


def fstring_conversions(x):
    a, b = Named("a"), Both("b")
    return f"{a!r}|{a!s}|{a}|{b}|{b!r}|{b!s:>8}", x * 2


def repr_of_an_existing_object(x):
    return repr(GLOBAL), f"{GLOBAL}", x - 1


def local_class_text(x):
    class R:
        def __repr__(self):
            return "R()"
    return repr(R()), str(R()), f"{R()!r}", x


CAPTURED = [repr_str_of_new_objects, fstring_conversions, repr_of_an_existing_object, local_class_text]


@pytest.mark.parametrize("fn", CAPTURED, ids=lambda f: f.__name__)
def test_user_text_is_inlined_and_matches_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
    assert_captured_whole(fn, X)


def test_a_changed_repr_between_calls_is_seen():
    static = sot.to_static(repr_of_an_existing_object, min_graph_size=0)
    check(repr_of_an_existing_object, (X,), static=static)
    old = Named.__repr__
    try:
        Named.__repr__ = lambda self: "changed"
        check(repr_of_an_existing_object, (X,), static=static)
    finally:
        Named.__repr__ = old
    check(repr_of_an_existing_object, (X,), static=static)


def repr_not_a_str(x):
    return x + 1, repr(BadRepr())


def default_repr(x):
    return x + 1, repr(Plain()).split(" at ")[0]


def spec_on_object_format(x):
    return x + 1, f"{Named('a'):>10}"


@pytest.mark.parametrize("fn", [repr_not_a_str, default_repr, spec_on_object_format], ids=lambda f: f.__name__)
def test_what_is_not_modelled_runs_as_eager(fn):
    check(fn, (X,), static=sot.to_static(fn, min_graph_size=0))
