"""One guard program, two evaluators (issue 14's design step), and the
guards that landed with it: a class guard that guards what the trace read
(not the whole class), metaclass and ABC-registry changes, and the memory
overlap of written arrays checked in C.

The C program (``sot._C.GuardProgram``) and the Python reference
(``sot.guards.program_ref``) run the same op list; these tests check they
agree op by op, that strict mode really compares them, and the decorated
function against eager for each guard kind.
"""
from __future__ import annotations

import abc
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sot
from sot import _C, _hook
from sot.guards import cguard, program_ref
from sot.guards.compile import compile_guards
from sot.guards.guard import DictKeysGuard, GlobalAbsentGuard, IdGuard, LenGuard, TensorGuard, \
    TypeGuard, ValueGuard, DimEqualGuard
from sot.guards.invariants import AbcTokenGuard, ClassUnchangedGuard, KeyAbsentGuard, SameGuard
from sot.guards.overlap import OverlapGuard
from sot.guards.tracker import AttrTracker, BuiltinTracker, CellTracker, ConstTracker, GlobalTracker, \
    ItemTracker, LocalTracker
from difftest import assert_same, check

X = np.array([-1.5, 0.0, 2.0])
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _cell(v):
    return (lambda: v).__closure__[0]


def _both(gf, g, *values):
    """The C program's and the reference's decision, which must agree."""
    py = gf.reference(g, *values)
    assert gf.program is not None
    c = gf.program(g, *values)
    assert c is py, (gf.ops, values)
    assert (gf.first_failure(g, *values) is None) is py
    return py


# -- one program, two evaluators ------------------------------------------------------

def test_the_reference_runs_every_op_the_c_program_runs():
    src = (ROOT / "csrc" / "guard_parse.c").read_text()
    names = re.search(r"op_names\[\] = \{(.*?)NULL", src, re.S).group(1)
    c_ops = set(re.findall(r'"(\w+)"', names))
    assert c_ops == set(program_ref.LOADS) | set(program_ref._CHECKS)


class _Obj:
    pass


def _every_kind():
    """Guards of every kind over two args and a cell, and frames to try."""
    a, b = LocalTracker(0, "a"), LocalTracker(1, "b")
    w = AttrTracker(a, "w")
    guards = [TypeGuard(a, _Obj), ClassUnchangedGuard(_Obj), DictKeysGuard(AttrTracker(a, "__dict__"), {"w": 0, "k": 0}),
              TensorGuard(w, np.ones((3, 2))), ValueGuard(AttrTracker(a, "k"), 2.0),
              TensorGuard(b, np.ones((3, 2))), DimEqualGuard(w, 0, b, 0), SameGuard(w, b, False),
              OverlapGuard(w, b, False), GlobalAbsentGuard("len"), IdGuard(BuiltinTracker("len"), len),
              LenGuard(GlobalTracker("xs"), [1, 2]), ValueGuard(ItemTracker(GlobalTracker("xs"), 0), 1),
              KeyAbsentGuard(GlobalTracker("mod"), "sum"), ValueGuard(CellTracker(0, "c"), (1, -0.0)),
              IdGuard(ConstTracker(None), None), AbcTokenGuard()]
    return guards


def _frame(w=None, k=2.0, b=None, xs=(1, 2), shadow=False, cell=(1, -0.0), mod=None):
    o = _Obj()
    o.w = np.ones((3, 2)) if w is None else w
    o.k = k
    g = {"xs": list(xs), "mod": {} if mod is None else mod}
    if shadow:
        g["len"] = 0
    return g, o, np.ones((3, 2)) if b is None else b, _cell(cell)


@pytest.mark.parametrize("frame,holds", [
    (_frame(), True),
    (_frame(w=np.ones((3, 2), np.float32)), False),
    (_frame(k=-2.0), False),
    (_frame(k=2), False),
    (_frame(b=np.ones((4, 2))), False),
    (_frame(xs=(1, 2, 3)), False),
    (_frame(xs=(True, 2)), False),
    (_frame(shadow=True), False),
    (_frame(cell=(1, 0.0)), False),
    (_frame(mod={"sum": 1}), False),
], ids=["holds", "dtype", "value", "value-type", "dim", "len", "item-type", "shadowed", "signed-zero",
        "key-present"])
def test_c_and_reference_agree_on_every_guard_kind(frame, holds):
    gf = compile_guards(_every_kind(), 2, 1)
    assert _both(gf, *frame) is holds


def test_c_and_reference_agree_on_aliasing_and_identity():
    gf = compile_guards(_every_kind(), 2, 1)
    g, o, b, c = _frame()
    o.w = b  # the same array: `same` and `overlap` fail
    assert _both(gf, g, o, b, c) is False
    base = np.ones((6, 2))
    o.w, b = base[:3], base[2:5]
    assert _both(gf, g, o, b, c) is False
    o.w, b = base[:3], base[3:]
    assert _both(gf, g, o, b, c) is True
    assert "share memory" in compile_guards([OverlapGuard(LocalTracker(0, "a"), LocalTracker(1, "b"), False)],
                                            2, 0).first_failure({}, base, base[1:])


def test_strict_mode_runs_the_reference_beside_c_and_counts_disagreements(monkeypatch):
    def f(x):
        return x + 1

    static = sot.to_static(f)
    before = _C.guard_counters()
    previous = _C.set_guard_strict(True)
    try:
        for v in (X, X, X * 2, X.astype(np.float32), X):
            assert_same(f(v), static(v))
        agreed = _C.guard_counters()
        # a twin that says "does not hold": C says it holds, the twin decides
        monkeypatch.setattr(program_ref.Reference, "__call__", lambda self, g, *values: False)
        assert_same(f(X), static(X))
        after = _C.guard_counters()
    finally:
        _C.set_guard_strict(previous)
    assert agreed["c_evaluations"] > before["c_evaluations"]
    assert agreed["strict_mismatches"] == before["strict_mismatches"]
    assert after["strict_mismatches"] > agreed["strict_mismatches"]


def test_without_c_guards_the_reference_is_the_warm_guard(monkeypatch):
    monkeypatch.setattr(cguard, "C_GUARDS", False)
    gf = compile_guards([ValueGuard(LocalTracker(0, "x"), 1)], 1, 0)
    assert gf.program is None and gf.hot is gf.reference
    assert gf.hot({}, 1) is True and gf.hot({}, 2) is False


def test_a_decorated_function_without_c_guards_matches_eager():
    code = textwrap.dedent("""
        import numpy as np, sot
        from sot.guards import cguard
        assert not cguard.C_GUARDS
        class C:
            k = 2.0
        def f(x, c, n):
            return x * c.k + n
        s = sot.to_static(f)
        x = np.arange(3.0)
        for c, n in [(C(), 1), (C(), 1), (C(), 2.0), (C(), -0.0)]:
            a, b = f(x, c, n), s(x, c, n)
            assert a.dtype == b.dtype and (a == b).all()
        C.k = property(lambda self: 5.0)
        assert (f(x, C(), 1) == s(x, C(), 1)).all()
        print("ok")
    """)
    env = {"SOT_C_GUARDS": "0", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "ok", out.stderr


# -- classes: guard what the trace read -------------------------------------------------

class Counter:
    calls = 0
    scale = 2.0


def counts_calls(x):
    Counter.calls += 1
    return x * Counter.scale


class Model:
    cache = None
    scale = 3.0

    def forward(self, x):
        y = x * self.scale
        Model.cache = {"last": 1}  # a class-level cache rebound on every call
        return y + 1


def runs_model(x, m):
    return m.forward(x)


def _calls_until_stable(fn, static, args, calls=8):
    counts = []
    for _ in range(calls):
        assert_same(fn(*args), static(*args))
        counts.append(sot.translation_count(static))
    return counts


def test_a_class_counter_written_every_call_keeps_its_entry():
    static = sot.to_static(counts_calls)
    Counter.calls = 0
    counts = _calls_until_stable(counts_calls, static, (X,))
    assert counts[3] == counts[-1]  # the entry is reused: no re-translation per call
    assert Counter.calls == 16  # eager and decorated each added one per call


def test_a_class_level_cache_rebound_every_call_keeps_its_entry():
    static = sot.to_static(runs_model)
    counts = _calls_until_stable(runs_model, static, (X, Model()))
    assert counts[1] == counts[-1]
    assert Model.cache == {"last": 1}


@pytest.mark.parametrize("change", [
    lambda C: setattr(C, "scale", property(lambda self: 10.0)),
    lambda C: setattr(C, "forward", lambda self, x: x - 7),
    lambda C: setattr(C, "scale", 5.0),
    lambda C: setattr(C.__mro__[1], "forward", lambda self, x: x * 0),
], ids=["property", "method", "plain-value-read-by-the-trace", "base-method"])
def test_a_class_changed_after_harmless_writes_still_re_translates(change):
    class Base:
        def forward(self, x):
            return x + 100

    class M(Base):
        cache = None
        scale = 3.0

        def forward(self, x):
            y = x * self.scale
            type(self).cache = {"n": 1}
            return y + 1

    def run(x, m):
        return m.forward(x)

    static = sot.to_static(run)
    _calls_until_stable(run, static, (X, M()), calls=3)
    change(M)
    _calls_until_stable(run, static, (X, M()), calls=2)


def test_the_precise_class_check_agrees_in_c_and_python():
    class A:
        k = 1
        _private = 1

        def m(self):
            return 1

    gf = compile_guards([ClassUnchangedGuard(A)], 0, 0)
    assert _both(gf, {}) is True
    A.k = 2  # a plain value nothing read: another object may be there
    assert _both(gf, {}) is True and _both(gf, {}) is True  # (the second takes C's fast path)
    A._private = 2  # a protocol-style name: pinned
    assert _both(gf, {}) is False
    A._private = 1
    assert _both(gf, {}) is True
    A.new = 1  # a new name
    assert _both(gf, {}) is False
    del A.new
    assert _both(gf, {}) is True
    A.k = staticmethod(len)  # now a descriptor
    assert _both(gf, {}) is False
    A.k = 3
    A.m = lambda self: 2
    assert _both(gf, {}) is False


# -- metaclasses and ABCs ---------------------------------------------------------------

def picks(x, o, cls):
    return x + 1 if isinstance(o, cls) else x - 1


def test_a_metaclass_instancecheck_added_later_is_seen():
    class Meta(type):
        pass

    class Base(metaclass=Meta):
        pass

    class Plain:
        pass

    static = sot.to_static(picks)
    check(picks, (X, Plain(), Base), static=static)
    Meta.__instancecheck__ = lambda cls, inst: True
    check(picks, (X, Plain(), Base), static=static)
    del Meta.__instancecheck__
    check(picks, (X, Plain(), Base), static=static)


def test_a_metaclass_property_added_later_is_seen():
    class Meta(type):
        pass

    class Cfg(metaclass=Meta):
        scale = 2.0

    def f(x, cfg):
        return x * cfg.scale

    static = sot.to_static(f)
    check(f, (X, Cfg), static=static)
    Meta.scale = property(lambda cls: 5.0)  # a metaclass data descriptor wins over the class's own
    check(f, (X, Cfg), static=static)


def test_abc_register_after_the_trace_is_seen():
    class Shape(abc.ABC):
        pass

    class Square:
        pass

    static = sot.to_static(picks)
    check(picks, (X, Square(), Shape), static=static)
    first = sot.translation_count(static)
    check(picks, (X, Square(), Shape), static=static)
    assert sot.translation_count(static) == first  # nothing registered: the entry is reused
    Shape.register(Square)
    check(picks, (X, Square(), Shape), static=static)


def test_issubclass_of_an_abc_sees_register():
    class Shape(abc.ABC):
        pass

    class Circle:
        pass

    def f(x, c):
        return x + 1 if issubclass(c, Shape) else x - 1

    static = sot.to_static(f)
    check(f, (X, Circle), static=static)
    Shape.register(Circle)
    check(f, (X, Circle), static=static)


def test_a_user_instancecheck_runs_natively_as_often_as_eager():
    seen = []

    class Meta(type):
        def __instancecheck__(cls, inst):
            seen.append(1)
            return True

    class Duck(metaclass=Meta):
        pass

    class Plain:
        pass

    static = sot.to_static(picks)
    check(picks, (X, Plain(), Duck), static=static, calls=2)
    assert len(seen) == 4  # two eager calls, two decorated ones


# -- writes into arrays: the overlap guard runs in C ---------------------------------------

def adds_into(a, b):
    a += b
    return a.sum()


def test_overlap_guards_run_in_c_and_see_new_aliasing():
    static = sot.to_static(adds_into)
    base = np.arange(8.0)
    for a, b in [(base[:4], base[4:]), (base[:4], base[4:]), (base[:4], base[2:6]), (base[:4], base[4:])]:
        check(adds_into, (a, b), static=static, calls=1)
    entries = _hook.get_cache(adds_into.__code__)
    programs = [e[0] for e in entries if any(op[0] == "overlap" for op in getattr(e[0], "ops", ()))]
    assert programs and all(isinstance(p, _C.GuardProgram) for p in programs)
