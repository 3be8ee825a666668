"""The hook's warm path: guards evaluated in C (GuardProgram), entries tried
most recently hit first, fully captured frames entered without a replacement
frame, and the C wrapper that to_static returns.

The C guard's decisions are compared with the generated Python guard on
randomized guard sets in tests/test_guards.py (every `holds()` check and
the hypothesis tests); here: what the program reads, strict mode over real
translations, and the cache mechanics."""
from __future__ import annotations

import functools
import gc
import inspect
import sys
import threading
import weakref

import numpy as np
import pytest

import sot
from sot import _C, _hook
from sot.guards.compile import compile_guards
from sot.guards.guard import IdGuard, TensorGuard, TypeGuard, ValueGuard
from sot.guards.tracker import AttrTracker, LocalTracker

from difftest import check

X = LocalTracker(0, "x")


# ------------------------------------------------------------ GuardProgram


class Counting:
    """Counts attribute reads made through __getattr__."""

    def __init__(self, **attrs):
        object.__setattr__(self, "reads", 0)
        object.__setattr__(self, "attrs", attrs)

    def __getattr__(self, name):
        object.__setattr__(self, "reads", self.reads + 1)
        try:
            return self.attrs[name]
        except KeyError:
            raise AttributeError(name) from None


def test_program_reads_each_path_once_like_the_python_reference():
    obj = Counting(w=np.ones(3), k=2)
    guards = [TypeGuard(X, Counting), TensorGuard(AttrTracker(X, "w"), obj.attrs["w"]),
              ValueGuard(AttrTracker(X, "k"), 2)]
    gf = compile_guards(guards, 1, 0)
    assert gf.program is not None
    obj.reads = 0
    assert gf.reference({}, obj) is True
    py_reads, obj.reads = obj.reads, 0
    assert gf.program({}, obj) is True
    assert obj.reads == py_reads == 2


def test_program_stops_at_the_first_failing_guard():
    obj = Counting(w=np.ones(3))
    gf = compile_guards([TypeGuard(X, Counting), ValueGuard(AttrTracker(X, "k"), 1),
                         TensorGuard(AttrTracker(X, "w"), np.ones(3))], 1, 0)
    obj.reads = 0
    assert gf.program({}, obj) is False  # k is missing: AttributeError means "does not hold"
    assert obj.reads == 1


def test_program_leaves_reference_counts_unchanged():
    a = np.ones((2, 3), np.float32)
    name = "w"
    obj = Counting(w=a)
    gf = compile_guards([TypeGuard(X, Counting), TensorGuard(AttrTracker(X, name), a)], 1, 0)
    before = sys.getrefcount(a), sys.getrefcount(obj)
    for _ in range(1000):
        assert gf.program({}, obj)
        assert not gf.program({}, a)
    assert (sys.getrefcount(a), sys.getrefcount(obj)) == before


def test_symbolic_dims_in_the_program_mean_any_size_from_two():
    # The shape form the C side accepts for a symbolic dimension (None).
    prog = _C.GuardProgram(1, 0, 1, (("arg", 0, 0), ("tensor", 0, np.ndarray, np.dtype("float32"),
                                                      (None, 4), True)))
    assert prog({}, np.ones((7, 4), np.float32))
    assert prog({}, np.ones((2, 4), np.float32))
    assert not prog({}, np.ones((1, 4), np.float32))
    assert not prog({}, np.ones((0, 4), np.float32))
    assert not prog({}, np.ones((7, 5), np.float32))
    assert not prog({}, np.ones((7, 4), np.float64))


@pytest.mark.parametrize("ops, error", [
    ((("nope", 0),), ValueError),
    ((("arg", 0, 5),), ValueError),            # argument out of range
    ((("type", 0, int),), ValueError),         # reads a register never loaded
    ((("arg", 0, 0), ("arg", 0, 0)), ValueError),  # writes a register twice
    ((("arg", 0, 0), ("type", 0, 3)), TypeError),  # not a type
    (("arg",), TypeError),
])
def test_malformed_programs_are_refused(ops, error):
    with pytest.raises(error):
        _C.GuardProgram(1, 0, 1, ops)


def test_program_with_wrong_vector_length_does_not_hold():
    prog = _C.GuardProgram(1, 0, 1, (("arg", 0, 0), ("type", 0, int)))
    assert prog({}, 1) is True
    assert prog({}, 1, 2) is False
    assert prog({}) is False


# ------------------------------------------------- strict mode end to end


def _shapes_and_scalars(x, k, flag=None):
    y = x * k
    if flag is None:
        return y.sum(axis=-1)
    return y + np.float32(1.5)


class _Model:
    def __init__(self):
        self.w = np.ones((4, 4), np.float32)
        self.scale = 0.5

    def __call__(self, x):
        return np.maximum(x @ self.w * self.scale, 0)


def test_strict_mode_finds_no_disagreement_on_real_translations():
    previous = _C.set_guard_strict(True)
    try:
        before = _C.guard_counters()
        fn = sot.to_static(_shapes_and_scalars)
        model = _Model()
        static_model = sot.to_static(model)
        for shape in [(3,), (3, 4), (2, 4), (3,)]:
            for k in (2, 2.0, 3, True):
                for flag in (None, "x"):
                    check(_shapes_and_scalars, (np.ones(shape, np.float32), k, flag), calls=2, static=fn)
            x = np.ones(shape[:-1] + (4,), np.float32)
            np.testing.assert_array_equal(static_model(x), model(x))
        model.scale = 2.0
        np.testing.assert_array_equal(static_model(np.ones((2, 4), np.float32)),
                                      model(np.ones((2, 4), np.float32)))
        after = _C.guard_counters()
    finally:
        _C.set_guard_strict(previous)
    assert after["c_evaluations"] > before["c_evaluations"] + 20
    assert after["strict_mismatches"] == before["strict_mismatches"]


# --------------------------------------------------------- cache mechanics


def _scale(x):
    return x * 2 + 1


def test_entries_are_tried_most_recently_hit_first():
    fn = sot.to_static(_scale, dynamic=False)  # one entry per shape
    a, b, c = np.ones(2), np.ones(3), np.ones(4)
    for x in (a, b, c):
        fn(x)
    code = _scale.__code__

    def shapes():
        return [e[0].ops[1][4] for e in _hook.get_cache(code)]

    assert shapes() == [(2,), (3,), (4,)]
    fn(c)
    assert shapes() == [(4,), (2,), (3,)]
    fn(b)
    assert shapes() == [(3,), (4,), (2,)]
    assert sot.translation_count(fn) == 3


def test_catch_all_entry_stays_last():
    fn = sot.to_static(_scale, cache_size=2, dynamic=False)
    for n in (2, 3, 4, 5):
        fn(np.ones(n))
    fn(np.ones(3))
    entries = _hook.get_cache(_scale.__code__)
    assert not isinstance(entries[-1][0], _C.GuardProgram) and entries[-1][1] is None
    np.testing.assert_array_equal(fn(np.ones(5)), _scale(np.ones(5)))


def test_fully_captured_frames_are_entered_directly():
    fn = sot.to_static(_scale)
    fn(np.ones(2))
    (entry,) = _hook.get_cache(_scale.__code__)
    assert len(entry) == 3 and callable(entry[2])
    assert isinstance(entry[0], _C.GuardProgram)


def _printing(x):
    y = x + 1
    print("mid")
    return y * 2


def test_a_frame_with_a_break_keeps_its_replacement_frame(capsys):
    fn = sot.to_static(_printing)
    check(_printing, (np.ones(3),), static=fn)
    (entry,) = _hook.get_cache(_printing.__code__)
    assert len(entry) == 2


def _raises_in_graph(x):
    y = x + 1
    return y.reshape(5)


def test_error_in_a_directly_entered_graph_points_at_the_user_line():
    fn = sot.to_static(_raises_in_graph)
    fn(np.ones(5))
    with pytest.raises(ValueError) as info:
        fn(np.ones(6))
    user = [fs for fs in inspect.getinnerframes(info.tb) if fs.filename == __file__]
    assert user[-1].function == "_raises_in_graph"
    assert "reshape" in user[-1].code_context[0]


# -------------------------------------------------------- StaticFunction


def test_wrapper_looks_like_the_function():
    def documented(x, y=2):
        """Doc."""
        return x * y

    fn = sot.to_static(documented)
    assert isinstance(fn, _C.StaticFunction)
    assert fn.__name__ == "documented" and fn.__doc__ == "Doc."
    assert fn.__wrapped__ is documented and fn.__qualname__ == documented.__qualname__
    assert inspect.signature(fn) == inspect.signature(documented)
    assert weakref.ref(fn)() is fn
    assert "documented" in repr(fn)
    np.testing.assert_array_equal(fn(np.ones(2), y=3), documented(np.ones(2), y=3))


class _WithMethod:
    def __init__(self):
        self.b = np.arange(3.0)

    @sot.to_static
    def method(self, x):
        return x + self.b

    @staticmethod
    @sot.to_static
    def static(x):
        return x * 3


def test_decorated_methods_bind_like_functions():
    obj = _WithMethod()
    x = np.ones(3)
    np.testing.assert_array_equal(obj.method(x), x + obj.b)
    bound = obj.method
    assert bound.__self__ is obj
    np.testing.assert_array_equal(bound(x), x + obj.b)
    np.testing.assert_array_equal(_WithMethod.method(obj, x), x + obj.b)
    np.testing.assert_array_equal(obj.static(x), x * 3)


def _boom(x):
    raise KeyError("boom")


def test_callback_is_restored_after_returns_raises_and_nesting():
    assert _hook.get_callback() is None
    with pytest.raises(KeyError):
        sot.to_static(_boom)(np.ones(1))
    assert _hook.get_callback() is None and not _hook.hook_installed()
    inner = sot.to_static(_scale)
    seen = []

    def outer(x):
        seen.append(_hook.get_callback())
        y = inner(x)
        seen.append(_hook.get_callback())
        return y

    sot.not_to_static(outer)
    static_outer = sot.to_static(outer)
    static_outer(np.ones(2))
    assert seen[0] is seen[1] is static_outer.__sot_callback__
    assert _hook.get_callback() is None


def test_disable_is_read_on_every_call(monkeypatch):
    fn = sot.to_static(_scale)
    monkeypatch.setenv("SOT_DISABLE", "1")
    fn(np.ones(7))
    assert sot.translation_count(fn) == 0
    monkeypatch.delenv("SOT_DISABLE")
    fn(np.ones(7))
    assert sot.translation_count(fn) == 1


def test_wrapper_is_collected_with_its_function():
    def local(x):
        return x + 1

    fn = sot.to_static(local)
    fn(np.ones(2))
    ref = weakref.ref(fn)
    del fn, local
    gc.collect()
    assert ref() is None


def test_threads_share_the_warm_path():
    fn = sot.to_static(_scale)
    errors = []

    def worker(n):
        try:
            for _ in range(200):
                x = np.full(n, float(n))
                np.testing.assert_array_equal(fn(x), _scale(x))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in (2, 3, 4, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sot.translation_count(fn) <= 4


def test_functools_partial_of_a_wrapper():
    fn = functools.partial(sot.to_static(_scale))
    np.testing.assert_array_equal(fn(np.ones(2)), _scale(np.ones(2)))


# ------------------------------------------------------------- quiet runs

_seen_hook = []


@sot.not_to_static  # a skipped code: its frames never count as intercepted
def _note_hook(i):
    _seen_hook.append(_hook.hook_installed())
    return i % 3


def _native_loop(x, n):
    total = 0
    for i in range(n):  # past the unroll limit: runs natively after a graph break
        total += _note_hook(i)
    return x * total


def test_a_calm_native_loop_runs_without_the_hook():
    # every callee of the loop is skipped after two translations, so after two
    # watched runs the loop runs with the default evaluator (on 3.11+ that
    # keeps CPython's call specialisation), and results stay eager's
    fn = sot.to_static(_native_loop)
    _seen_hook.clear()
    fn(np.ones(3), 1500)
    assert len(_seen_hook) == 1500 and all(_seen_hook)  # watched
    for call in range(8):
        check(_native_loop, (np.ones(3), 1500), calls=1, static=fn)
    _seen_hook.clear()
    fn(np.ones(3), 1500)
    assert _seen_hook and not any(_seen_hook)
    assert _hook.get_callback() is None and not _hook.hook_installed()


def _array_helper(x):
    return x * 0.5 + 1


def _loop_maybe_arrays(x, n, use_arrays):
    total = 0
    for i in range(n):
        if use_arrays:
            x = _array_helper(x)
        total += _note_hook(i)
    return x * total


def test_a_quiet_loop_is_watched_again_and_notices_new_callees():
    fn = sot.to_static(_loop_maybe_arrays)
    for _ in range(6):
        check(_loop_maybe_arrays, (np.ones(3), 1200, False), calls=1, static=fn)
    assert sot.translation_count(_array_helper) == 0
    for _ in range(70):  # a watched run comes within 64 quiet ones
        check(_loop_maybe_arrays, (np.ones(3), 1200, True), calls=1, static=fn)
    assert sot.translation_count(_array_helper) >= 1
    _seen_hook.clear()
    fn(np.ones(3), 1200, True)
    assert all(_seen_hook)  # the array helper needs the hook: no longer quiet


@sot.not_to_static
def _raise_at(i, at):
    if i == at:
        raise ValueError("at %d" % i)
    return 1


def _loop_that_may_raise(x, at):
    total = 0
    for i in range(1500):
        total += _raise_at(i, at)
    return x + total


def test_an_exception_out_of_a_quiet_run_restores_the_hook():
    fn = sot.to_static(_loop_that_may_raise)
    for _ in range(5):
        check(_loop_that_may_raise, (np.ones(2), -1), calls=1, static=fn)
    inner_state = []

    def outer(x):
        try:
            fn(x, 700)
        except ValueError:
            inner_state.append(_hook.hook_installed())
        return x

    sot.not_to_static(outer)
    sot.to_static(outer)(np.ones(2))
    assert inner_state == [True]  # the outer call's callback is still in force
    assert not _hook.hook_installed()
    check(_loop_that_may_raise, (np.ones(2), 3), calls=2, static=fn)
