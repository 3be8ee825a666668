"""`del obj.name` and `delattr(obj, name)` on an object made in the trace:
the name leaves the object's instance dict inside the graph (a later read
finds the class attribute it shadowed, `hasattr` is False, a store puts it
back at the end of the dict, as in CPython). What it cannot do exactly
breaks and gives eager's result: a class's own `__delattr__`, a property or
slot of that name, a missing name (AttributeError), and an object from
outside the call (a side effect not replayed)."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float64)


class Scaled:
    scale = 2.0

    def __init__(self, x):
        self.x = x
        self.scale = 3.0
        self.tmp = x + 1


def unshadow(x):
    p = Scaled(x)
    del p.scale                 # the class's 2.0 shows through
    return p.x * p.scale


def delattr_then_store(x):
    p = Scaled(x)
    delattr(p, "tmp")
    missing = hasattr(p, "tmp")
    p.tmp = x * 5               # back, at the end of the dict
    return missing, list(vars(p)), p.tmp, p


def delete_twice(x):
    p = Scaled(x)
    del p.tmp
    try:
        del p.tmp               # AttributeError, caught by the user
    except AttributeError as e:
        return x - 1, str(e)
    return x


class Guarded:
    def __init__(self, x):
        self.x = x

    def __delattr__(self, name):
        print("deleting", name)
        object.__delattr__(self, name)


def own_delattr(x):
    g = Guarded(x)
    del g.x
    return x * 2, hasattr(g, "x")


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, x):
        self.a, self.b = x, x + 1


def delete_slot(x):
    s = Slotted(x)
    del s.a
    return s.b * 2, hasattr(s, "a")


def delete_on_argument(obj, x):
    del obj.tmp
    return x + 1


@pytest.mark.parametrize("fn", [unshadow, delattr_then_store])
def test_delete_is_captured_whole(fn):
    assert_captured_whole(fn, X)
    check(fn, (X,), (X[:4],))


@pytest.mark.parametrize("fn", [delete_twice, own_delattr, delete_slot])
def test_what_breaks_gives_eagers_result(fn):
    check(fn, (X,), (X[:4],))


def test_delete_on_an_argument_runs_as_eagerly():
    def fresh():
        return Scaled(X)
    eager_obj, traced_obj = fresh(), fresh()
    static = sot.to_static(delete_on_argument)
    np.testing.assert_array_equal(delete_on_argument(eager_obj, X), static(traced_obj, X))
    assert vars(eager_obj).keys() == vars(traced_obj).keys() == {"x", "scale"}
    with pytest.raises(AttributeError):
        static(traced_obj, X)   # deleted already, as eagerly


def test_a_class_gaining_a_property_is_seen():
    class Box:
        def __init__(self, x):
            self.v = x

    def drop(x):
        b = Box(x)
        del b.v
        return x * 3, hasattr(b, "v")

    static = sot.to_static(drop)
    for _ in range(2):
        assert static(X)[1] is False
    Box.v = property(lambda self: 7, None, lambda self: None)   # `del b.v` now runs the deleter
    with pytest.raises(AttributeError):
        drop(X)     # __init__'s store has no setter: eagerly AttributeError
    with pytest.raises(AttributeError):
        static(X)
