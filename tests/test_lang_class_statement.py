"""A class statement inside a decorated function (LOAD_BUILD_CLASS) runs as
eager runs it: where it is not captured (test_lang_local_classes.py), a
graph break at the statement builds the class natively,
so the class body, its __qualname__, __module__, closure cells, decorators,
metaclass and zero-argument super() are eager's, and the statements around
it keep their graphs."""
import dataclasses

import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def static0(fn):
    return sot.to_static(fn, min_graph_size=0)


def class_with_a_method(x):
    y = x * 2

    class Scale:
        factor = 3

        def apply(self, v):
            return v * self.factor
    s = Scale()
    return s.apply(y) + 1, Scale.__qualname__, Scale.__module__, type(s) is Scale, Scale.__name__


def class_body_reads_a_local(x):
    k = x.shape[1]

    class Holder:
        size = k * 2

        def scaled(self, v):
            return v * k
    return Holder().scaled(x), Holder.size, Holder.__qualname__


def dataclass_in_the_frame(x):
    @dataclasses.dataclass
    class Pair:
        a: np.ndarray
        b: float = 2.0
    p = Pair(x * 2)
    return p.a + p.b, repr(Pair.__dataclass_fields__["b"].default), Pair.__qualname__


def local_subclass_with_super(x):
    class Base:
        def f(self, v):
            return v + 1

    class Child(Base):
        def f(self, v):
            return super().f(v) * 2
    return Child().f(x), [c.__qualname__ for c in Child.__mro__], issubclass(Child, Base)


class Meta(type):
    made = []

    def __new__(mcs, name, bases, ns):
        cls = super().__new__(mcs, name, bases, ns)
        mcs.made.append(name)
        return cls


def class_with_a_metaclass(x):
    y = x + 1

    class WithMeta(metaclass=Meta):
        pass
    return y * len(Meta.made), type(WithMeta) is Meta


def class_statement_in_a_loop(x):
    out = []
    for i in range(3):
        class Step:
            k = i
        out.append(x * Step.k)
    return out, Step.__qualname__


def class_identity_per_call(x):
    class Fresh:
        pass
    return Fresh, x * 2


def class_body_raises(x):
    y = x * 2

    class Bad:
        value = 1 / 0
    return y


CASES = [class_with_a_method, class_body_reads_a_local, dataclass_in_the_frame, local_subclass_with_super,
         class_statement_in_a_loop, class_body_raises]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_class_statement_matches_eager(fn):
    check(fn, (X,), static=static0(fn))
    check(fn, (X,))


def test_metaclass_runs_once_per_call_as_eagerly():
    Meta.made.clear()
    want = [class_with_a_metaclass(X) for _ in range(3)]
    made = list(Meta.made)
    Meta.made.clear()
    static = static0(class_with_a_metaclass)
    got = [static(X) for _ in range(3)]
    assert Meta.made == made == ["WithMeta"] * 3
    for w, g in zip(want, got):
        assert np.array_equal(w[0], g[0]) and w[1] == g[1]


def test_each_call_makes_a_new_class_object_as_eager():
    static = static0(class_identity_per_call)
    first, _ = static(X)
    second, _ = static(X)
    assert first is not second
    assert first.__qualname__ == class_identity_per_call(X)[0].__qualname__
    assert first.__module__ == __name__


def test_the_break_is_at_the_class_statement_only():
    # (a plain class statement is captured: test_lang_local_classes.py; a
    # metaclass makes this one break)
    report = sot.explain(static0(class_with_a_metaclass), X)
    assert not report.fallbacks, [str(f) for f in report.fallbacks]
    assert report.graph_count >= 1
    assert any("class WithMeta" in str(b) for b in report.breaks), [str(b) for b in report.breaks]


def class_then_arrays(x):
    y = x * 2

    class Local:
        k = 3
    return (y + Local.k) * 2, Local.__qualname__


def _make_holder(v):
    class Holder:
        def __init__(self, v):
            self.v = v
    return Holder(v)


def class_made_in_a_callee(x):
    h = _make_holder(x + 1)
    return h.v * 2, type(h).__qualname__


@pytest.mark.parametrize("fn", [class_then_arrays, class_made_in_a_callee], ids=lambda f: f.__name__)
def test_code_after_a_class_statement_is_not_retranslated_every_call(fn):
    # each call makes a new class: a resume function guarded on it never
    # matches again, so after one miss it runs natively (translate.py)
    static = static0(fn)
    for _ in range(12):
        check(fn, (X,), static=static)
    assert sot.translation_count(fn) <= 4
