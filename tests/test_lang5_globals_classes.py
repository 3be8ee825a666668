"""``del`` of a global (replayed after the graph as a store is: global_stores.py),
the builtin decorators in a class statement inside the trace
(local_classes.py), and instances of ``abc.ABC`` classes made in the trace
(classes.can_create): each matches eager, with no break, and each guard
path (a global bound or not, of another type; a class attribute changed;
the builtin shadowed) translates again or stays correct."""
import abc
import builtins
import sys

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, assert_same, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) / 5 - 1
THIS = sys.modules[__name__]
G = 1.0


def _globals_after(fn, *args):
    """(result or exception, whether G is bound, its value) after `fn`."""
    try:
        out = ("ok", fn(*args))
    except Exception as e:  # compared with eager's
        out = ("raised", (type(e), str(e)))
    return out, "G" in THIS.__dict__, THIS.__dict__.get("G")


def _same_as_eager(fn, setups, args=(X,)):
    """For each setup of G (a value, or None: unbound), eager and decorated
    leave the same result and the same G."""
    static = sot.to_static(fn, min_graph_size=0)
    for setup in setups:
        for run in (fn, static):
            THIS.__dict__.pop("G", None)
            if setup is not None:
                THIS.G = setup
            got = _globals_after(run, *args)
            if run is fn:
                want = got
            else:
                assert want[0][0] == got[0][0], (want, got)
                assert_same(want[0][1], got[0][1])
                assert want[1:] == got[1:], (want, got)
    THIS.G = 1.0
    return static


def store_use_delete(x):
    global G
    G = 2.0
    y = x * G
    del G
    return y


def delete_what_was_there(x):
    global G
    y = x + G
    del G
    return y


def delete_unread(x):
    global G
    del G
    return x - 1


def read_after_delete(x):
    global G
    del G
    return x + G   # eager: NameError at this line


def test_del_global_captures_whole():
    for fn in (store_use_delete, delete_what_was_there, delete_unread):
        THIS.G = 1.0
        assert_captured_whole(fn, X)
    THIS.G = 1.0


@pytest.mark.parametrize("fn", [store_use_delete, delete_what_was_there, delete_unread, read_after_delete],
                         ids=lambda f: f.__name__)
def test_del_global_matches_eager_on_every_guard_path(fn):
    # bound (float), bound (another float: same translation), unbound (eager
    # NameError, or a store first), bound to another type, then bound again
    _same_as_eager(fn, [1.0, 5.0, None, "s", 3, 1.0])


def test_del_of_an_unbound_global_raises_at_the_users_line():
    THIS.__dict__.pop("G", None)
    static = sot.to_static(delete_unread, min_graph_size=0)
    with pytest.raises(NameError, match="'G' is not defined") as info:
        static(X)
    assert info.traceback[-1].frame.code.name == "delete_unread"
    THIS.G = 1.0


def test_read_after_delete_raises_name_error_with_g_deleted():
    THIS.G = 1.0
    static = sot.to_static(read_after_delete, min_graph_size=0)
    with pytest.raises(NameError, match="'G' is not defined") as info:
        static(X)
    assert info.traceback[-1].frame.code.name == "read_after_delete"
    assert "G" not in THIS.__dict__
    THIS.G = 1.0


# -- decorators in a class statement inside the trace ------------------------------------

def local_property_and_friends(x, k):
    class P:
        base = 2.0

        def __init__(self, w):
            self._w = w

        @property
        def w(self):
            return self._w * self.base

        @w.setter
        def w(self, v):
            self._w = v - k

        @classmethod
        def make(cls, w):
            return cls(w)

        @staticmethod
        def shift(v):
            return v - k
    p = P.make(x)
    a = P.shift(p.w)
    p.w = x * 3
    return a, p.w, p._w


def local_stacked_decorators(x):
    class Q:
        scale = 3.0

        @staticmethod
        def helper(v):
            return v + 1

        @classmethod
        def apply(cls, v):
            return cls.helper(v) * cls.scale
    return Q.apply(x), Q().apply(x + 1)


def test_local_class_decorators_capture_and_match_eager():
    assert_captured_whole(local_property_and_friends, X, 0.5)
    check(local_property_and_friends, (X, 0.5), (X, 2.0))
    assert_captured_whole(local_stacked_decorators, X)
    check(local_stacked_decorators, (X,), (X[:2],))


def test_a_shadowed_builtin_decorator_is_seen():
    static = sot.to_static(local_stacked_decorators, min_graph_size=0)
    want = local_stacked_decorators(X)
    assert_same(want, static(X))
    THIS.staticmethod = lambda f: builtins.staticmethod(lambda v: v * 0 - 7)   # the body reads this now
    try:
        shadowed = local_stacked_decorators(X)
        assert_same(shadowed, static(X))
        assert_same(shadowed[0], X * 0 - 21)
    finally:
        del THIS.staticmethod
    assert_same(want, static(X))


def local_decorator_calls_user_code(x):
    log = []

    def deco(f):
        log.append(f.__name__)
        return f

    class R:
        @deco
        def m(self, v):
            return v * 2
    return R().m(x), log


def test_a_user_decorator_in_a_class_body_breaks_and_matches_eager():
    report = sot.explain(sot.to_static(local_decorator_calls_user_code, min_graph_size=0), X)
    assert report.breaks and "built natively" in str(report.breaks[0])
    check(local_decorator_calls_user_code, (X,))


# -- abc.ABC classes ---------------------------------------------------------------------

class Layer(abc.ABC):
    gain = 2.0

    @abc.abstractmethod
    def forward(self, x):
        ...

    def __call__(self, x):
        return self.forward(x) * self.gain


class Double(Layer):
    def forward(self, x):
        return x * 2


class StillAbstract(Layer):
    pass


def make_and_call_abc(x):
    d = Double()
    return d(x), isinstance(d, Layer), isinstance(d, abc.ABC)


def make_abstract(x):
    return StillAbstract()(x)


def test_abc_instances_capture_and_follow_class_attribute_changes():
    assert_captured_whole(make_and_call_abc, X)
    static = check(make_and_call_abc, (X,))
    Layer.gain = -1.0
    try:
        assert_same(make_and_call_abc(X), static(X))
    finally:
        Layer.gain = 2.0
    assert_same(make_and_call_abc(X), static(X))


def test_abc_registration_is_seen():
    def is_layer(x, obj):
        return x * 2 if isinstance(obj, Layer) else x

    class Plain:
        pass
    static = sot.to_static(is_layer, min_graph_size=0)
    assert_same(is_layer(X, Plain()), static(X, Plain()))
    Layer.register(Plain)
    assert_same(is_layer(X, Plain()), static(X, Plain()))
    assert_same(X * 2, static(X, Plain()))


def test_an_abstract_class_raises_eagers_type_error():
    check(make_abstract, (X,))
    static = sot.to_static(make_abstract)
    with pytest.raises(TypeError, match="abstract"):
        static(X)


def test_del_of_another_modules_global_in_a_callee():
    import types
    mod = types.ModuleType("lang5_other")
    exec("H = 3.0\ndef drop(x):\n    global H\n    y = x * H\n    del H\n    return y\n", mod.__dict__)

    def f(x):
        return mod.drop(x) + 1
    assert_captured_whole(f, X)   # (it deletes H)
    static = sot.to_static(f, min_graph_size=0)
    for h in (3.0, 5.0, None, 2.0):
        if h is not None:
            mod.H = h
        if h is None:
            with pytest.raises(NameError, match="'H' is not defined"):
                static(X)
            continue
        assert_same(X * h + 1, static(X))
        assert not hasattr(mod, "H")
