"""The frame-evaluation hook ``sot._C``: its contract, case by case.

Each test installs a callback (or a cache) for one function's code object and
checks what the hook passes on and what the call then returns, next to what
the plain call returns.
"""
import sys
import threading
import traceback

import pytest
from bytecode import Bytecode, Instr

from sot import _hook as hook

PY311 = sys.version_info >= (3, 11)


# ---------------------------------------------------------------- helpers

def uniform_code(fn, tag=None):
    """``fn``'s code in uniform-argument form: every parameter (positional,
    keyword-only, ``*args``, ``**kwargs``) becomes a plain positional one, in
    co_varnames order. The body is unchanged because locals keep their slots.
    With ``tag``, every return yields ``(tag, value)`` instead of ``value``,
    which proves that the replacement (not the original) ran."""
    code = fn.__code__ if hasattr(fn, "__code__") else fn
    bc = Bytecode.from_code(code)
    bc.argcount = bc.argcount + bc.kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    bc.kwonlyargcount = 0
    bc.posonlyargcount = 0
    bc.flags = bc.flags & ~(0x04 | 0x08)  # CO_VARARGS | CO_VARKEYWORDS
    if tag is not None:
        body = []
        for ins in bc:
            if isinstance(ins, Instr) and ins.name == "RETURN_CONST":
                ins = Instr("LOAD_CONST", ins.arg, location=ins.location)
                body.append(ins)
                ins = Instr("RETURN_VALUE", location=ins.location)
            if isinstance(ins, Instr) and ins.name == "RETURN_VALUE":
                body.append(Instr("LOAD_CONST", tag, location=ins.location))
                if PY311:
                    body.append(Instr("SWAP", 2, location=ins.location))
                else:
                    body.append(Instr("ROT_TWO", location=ins.location))
                body.append(Instr("BUILD_TUPLE", 2, location=ins.location))
            body.append(ins)
        bc[:] = body
    return bc.to_code()


def always(globals_, *rest):
    return True


def never(globals_, *rest):
    return False


class Recorder:
    """A callback that records the frame infos of one code object and answers
    with ``answer`` (a value, or a function of the frame info)."""

    def __init__(self, code, answer=None):
        self.code = code
        self.answer = answer
        self.infos = []

    def __call__(self, info):
        if info.f_code is not self.code:
            return None
        self.infos.append(info)
        return self.answer(info) if callable(self.answer) else self.answer


@pytest.fixture(autouse=True)
def clean_hook():
    assert hook.get_callback() is None
    assert not hook.hook_installed()
    hook.reset_counters()
    yield
    assert hook.get_callback() is None, "a test left a callback set"
    assert not hook.hook_installed(), "a test left the hook installed"


def run_hooked(callback, fn, *args, **kwargs):
    with hook.callback_set(callback):
        return fn(*args, **kwargs)


# -------------------------------------------------------- sample functions

def positional(a, b):
    return a * 10 + b


def with_defaults(a, b=2, c=3):
    return (a, b, c)


def with_posonly_kwonly(a, /, b, *, c, d=4):
    return (a, b, c, d)


def with_star(a, *args, k=0, **kwargs):
    return (a, args, k, sorted(kwargs.items()))


def make_closure(x):
    y = [x]

    def inner(z):
        return (x, y[0], z)

    return inner


def captures_argument(a, b):
    def get():
        return a + b
    return get()


def raises_value_error(x):
    if x > 0:
        raise ValueError(f"bad x={x}")  # the user's line
    return x


def factorial(n):
    return 1 if n <= 1 else n * factorial(n - 1)


class Counter:
    def __init__(self, start):
        self.start = start

    def add(self, k, *, scale=1):
        return self.start + k * scale


SIGNATURE_CASES = [
    (positional, (1, 2), {}, (1, 2), {"a": 1, "b": 2}),
    (positional, (), {"b": 5, "a": 7}, (7, 5), {"a": 7, "b": 5}),
    (with_defaults, (1,), {"c": 9}, (1, 2, 9), {"a": 1, "b": 2, "c": 9}),
    (with_posonly_kwonly, (1, 2), {"c": 3}, (1, 2, 3, 4), {"a": 1, "b": 2, "c": 3, "d": 4}),
    (with_star, (1, 2, 3), {"k": 4, "z": 5}, (1, 4, (2, 3), {"z": 5}),
     {"a": 1, "k": 4, "args": (2, 3), "kwargs": {"z": 5}}),
    (with_star, (1,), {}, (1, 0, (), {}), {"a": 1, "k": 0, "args": (), "kwargs": {}}),
]


# ------------------------------------------------------ the frame info

@pytest.mark.parametrize("fn,args,kwargs,vector,names", SIGNATURE_CASES)
def test_callback_sees_uniform_argument_vector(fn, args, kwargs, vector, names):
    rec = Recorder(fn.__code__)
    assert run_hooked(rec, fn, *args, **kwargs) == fn(*args, **kwargs)
    (info,) = rec.infos
    assert info.args == vector
    assert info.f_locals == names
    assert info.f_globals is globals()
    assert info.f_builtins["len"] is len
    assert info.closure is None


def test_callback_sees_free_cells_of_a_closure():
    inner = make_closure(5)
    rec = Recorder(inner.__code__)
    assert run_hooked(rec, inner, 7) == (5, 5, 7)
    (info,) = rec.infos
    assert info.args == (7,)
    assert info.closure == inner.__closure__
    assert [c.cell_contents for c in info.closure] == [5, [5]]


def test_argument_that_is_a_cell_variable_is_passed_raw():
    rec = Recorder(captures_argument.__code__)
    assert run_hooked(rec, captures_argument, 2, 3) == 5
    (info,) = rec.infos
    assert info.args == (2, 3)  # values, not cell objects (3.10: cell2arg)
    assert info.f_locals == {"a": 2, "b": 3}


def test_method_receives_self_first():
    obj = Counter(100)
    rec = Recorder(Counter.add.__code__)
    assert run_hooked(rec, obj.add, 2, scale=3) == 106
    (info,) = rec.infos
    assert info.args == (obj, 2, 3)


def test_frames_seen_counts_intercepted_frames():
    rec = Recorder(positional.__code__)
    with hook.callback_set(rec):
        for i in range(5):
            positional(i, i)
    assert hook.frames_seen() >= 5
    hook.reset_counters()
    assert hook.frames_seen() == 0


# ----------------------------------------------------- replacement code

@pytest.mark.parametrize("fn,args,kwargs,vector,names", SIGNATURE_CASES)
def test_replacement_runs_on_the_argument_vector(fn, args, kwargs, vector, names):
    rec = Recorder(fn.__code__, uniform_code(fn, tag="R"))
    assert run_hooked(rec, fn, *args, **kwargs) == ("R", fn(*args, **kwargs))
    assert len(rec.infos) == 1


def test_replacement_of_a_closure_uses_the_same_cells():
    inner = make_closure(5)
    rec = Recorder(inner.__code__, uniform_code(inner, tag="R"))
    assert run_hooked(rec, inner, 1) == ("R", (5, 5, 1))


def test_replacement_with_an_argument_captured_by_an_inner_function():
    rec = Recorder(captures_argument.__code__, uniform_code(captures_argument, tag="R"))
    assert run_hooked(rec, captures_argument, 2, 3) == ("R", 5)


def test_replacement_of_a_method():
    obj = Counter(100)
    rec = Recorder(Counter.add.__code__, uniform_code(Counter.add, tag="R"))
    assert run_hooked(rec, obj.add, 2, scale=3) == ("R", 106)


def test_replacement_callees_are_intercepted_but_not_the_replacement_itself():
    seen = []

    def cb(info):
        seen.append(info.f_code.co_name)
        if info.f_code is outer.__code__:
            return uniform_code(outer)
        return None

    def callee(x):
        return x + 1

    def outer(x):
        return callee(x) * 2

    assert run_hooked(cb, outer, 3) == 8
    assert seen.count("outer") == 1
    assert seen.count("callee") == 1


def test_exception_in_replacement_keeps_type_message_and_user_line():
    rec = Recorder(raises_value_error.__code__, uniform_code(raises_value_error))
    with pytest.raises(ValueError, match="bad x=3") as excinfo:
        run_hooked(rec, raises_value_error, 3)
    lines = [fs.line for fs in traceback.extract_tb(excinfo.value.__traceback__)]
    assert any("the user's line" in (line or "") for line in lines)
    assert run_hooked(rec, raises_value_error, -1) == -1


def test_replacement_with_wrong_arity_is_a_type_error():
    def wrong(a):
        return a

    rec = Recorder(positional.__code__, wrong.__code__)
    with pytest.raises(TypeError, match="uniform arguments"):
        run_hooked(rec, positional, 1, 2)


# ------------------------------------------------------- callback answers

def test_callback_none_runs_the_original_each_time():
    rec = Recorder(positional.__code__, None)
    with hook.callback_set(rec):
        assert [positional(i, 1) for i in range(3)] == [1, 11, 21]
    assert len(rec.infos) == 3


def test_skip_marks_the_code_and_stops_asking():
    def fn(x):
        return x + 1

    rec = Recorder(fn.__code__, hook.SKIP)
    with hook.callback_set(rec):
        assert [fn(i) for i in range(4)] == [1, 2, 3, 4]
    assert len(rec.infos) == 1
    assert hook.is_skipped(fn.__code__)
    hook.unskip_code(fn.__code__)
    assert not hook.is_skipped(fn.__code__)
    run_hooked(rec, fn, 0)
    assert len(rec.infos) == 2
    hook.skip_code(fn.__code__)
    run_hooked(rec, fn, 0)
    assert len(rec.infos) == 2


def test_callback_returning_something_else_is_a_type_error():
    rec = Recorder(positional.__code__, 42)
    with pytest.raises(TypeError, match="None, SKIP or a code object"):
        run_hooked(rec, positional, 1, 2)


def test_exception_from_callback_propagates_and_hook_stays_consistent():
    def boom(info):
        if info.f_code is positional.__code__:
            raise KeyError("from callback")
        return None

    with hook.callback_set(boom):
        for _ in range(1000):  # on 3.12+ the unrun frame must be popped each time
            with pytest.raises(KeyError, match="from callback"):
                positional(1, 2)
        assert hook.get_callback() is boom
        assert hook.hook_installed()
    rec = Recorder(positional.__code__, uniform_code(positional, tag="R"))
    assert run_hooked(rec, positional, 1, 2) == ("R", 12)
    assert factorial(50) == factorial(49) * 50


def test_hook_is_uninstalled_after_outermost_call_even_when_it_raises():
    def cb(info):
        return None

    with pytest.raises(ZeroDivisionError):
        with hook.callback_set(cb):
            with hook.callback_set(cb):
                assert hook.hook_installed()
                1 / 0
    assert not hook.hook_installed()
    assert hook.get_callback() is None


def test_set_callback_returns_previous_and_rejects_non_callables():
    def a(info):
        return None

    def b(info):
        return None

    assert hook.set_callback(a) is None
    try:
        assert hook.set_callback(b) is a
        assert hook.get_callback() is b
        with pytest.raises(TypeError):
            hook.set_callback(3)
        assert hook.get_callback() is b
    finally:
        assert hook.set_callback(None) is b
    assert not hook.hook_installed()


# -------------------------------------------------------------- the cache

def test_cache_hit_runs_replacement_without_asking_the_callback():
    code = positional.__code__
    calls = []

    def guard(g, a, b):
        calls.append((g is globals(), a, b))
        return a > 0

    hook.set_cache(code, [(guard, uniform_code(positional, tag="hit"))])
    try:
        rec = Recorder(code, None)
        with hook.callback_set(rec):
            assert positional(1, 2) == ("hit", 12)
            assert positional(-1, 2) == -8  # guard false: miss, callback says None
        assert calls == [(True, 1, 2), (True, -1, 2)]
        assert len(rec.infos) == 1
    finally:
        hook.clear_cache(code)
    assert hook.get_cache(code) is None


def test_cache_entries_are_tried_in_list_order_and_the_list_is_shared():
    code = positional.__code__
    entries = [(never, uniform_code(positional, tag="first")),
               (always, uniform_code(positional, tag="second")),
               (always, uniform_code(positional, tag="third"))]
    hook.set_cache(code, entries)
    try:
        assert hook.get_cache(code) is entries
        assert run_hooked(Recorder(code), positional, 1, 2) == ("second", 12)
        entries.reverse()  # the Python side may reorder in place
        assert run_hooked(Recorder(code), positional, 1, 2) == ("third", 12)
    finally:
        hook.clear_cache(code)


def test_guard_receives_globals_arguments_and_free_cells():
    inner = make_closure(5)
    got = []

    def guard(g, z, x_cell, y_cell):
        got.append((g is globals(), z, x_cell.cell_contents, y_cell.cell_contents))
        return True

    hook.set_cache(inner.__code__, [(guard, uniform_code(inner, tag="R"))])
    try:
        assert run_hooked(Recorder(inner.__code__), inner, 9) == ("R", (5, 5, 9))
    finally:
        hook.clear_cache(inner.__code__)
    assert got == [(True, 9, 5, [5])]


def test_guard_that_raises_is_a_miss():
    code = positional.__code__

    def bad_guard(g, a, b):
        raise RuntimeError("guard failed")

    hook.set_cache(code, [(bad_guard, uniform_code(positional, tag="R"))])
    try:
        rec = Recorder(code, None)
        assert run_hooked(rec, positional, 1, 2) == 12
        assert len(rec.infos) == 1
    finally:
        hook.clear_cache(code)


def test_cache_hit_with_none_runs_the_original():
    code = positional.__code__
    hook.set_cache(code, [(always, None)])
    try:
        rec = Recorder(code, uniform_code(positional, tag="R"))
        assert run_hooked(rec, positional, 1, 2) == 12
        assert rec.infos == []
    finally:
        hook.clear_cache(code)


def test_deep_recursion_through_the_cache_intercepts_every_level():
    code = factorial.__code__
    levels = []

    def guard(g, n):
        levels.append(n)
        return True

    hook.set_cache(code, [(guard, uniform_code(factorial))])
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 5000))
    try:
        assert run_hooked(Recorder(code), factorial, 300) == factorial(300)
    finally:
        sys.setrecursionlimit(old_limit)
        hook.clear_cache(code)
    assert levels == list(range(300, 0, -1))


def test_set_cache_validates_its_arguments():
    with pytest.raises(TypeError):
        hook.set_cache(positional, [])
    with pytest.raises(TypeError):
        hook.set_cache(positional.__code__, ((always, None),))
    with pytest.raises(TypeError):
        hook.set_cache(positional.__code__, [(always,)])
    with pytest.raises(TypeError):
        hook.is_skipped("not code")


# ------------------------------------------------- frames left untouched

def test_generators_are_not_intercepted():
    def gen(n):
        yield from range(n)

    seen = []
    with hook.callback_set(lambda info: seen.append(info.f_code) or None):
        assert list(gen(3)) == [0, 1, 2]
    assert gen.__code__ not in seen


def test_nothing_is_intercepted_while_a_trace_function_is_active():
    rec = Recorder(positional.__code__, uniform_code(positional, tag="R"))

    def tracer(frame, event, arg):
        return None

    sys.settrace(tracer)
    try:
        assert run_hooked(rec, positional, 1, 2) == 12
    finally:
        sys.settrace(None)
    assert rec.infos == []
    sys.setprofile(tracer)
    try:
        assert run_hooked(rec, positional, 1, 2) == 12
    finally:
        sys.setprofile(None)
    assert rec.infos == []
    assert run_hooked(rec, positional, 1, 2) == ("R", 12)


def test_module_and_class_bodies_are_not_intercepted():
    seen = []
    with hook.callback_set(lambda info: seen.append(info.f_code.co_name) or None):
        class Body:
            x = 1
        exec("y = 2", {})
    assert "Body" not in seen
    assert "<module>" not in seen


def test_frames_run_by_the_callback_are_not_intercepted():
    depth = []

    def cb(info):
        depth.append(info.f_code.co_name)
        positional(1, 2)  # must not re-enter the callback
        return None

    run_hooked(cb, with_defaults, 1)
    assert "positional" not in depth


def test_two_threads_with_different_callbacks_at_the_same_time():
    barrier = threading.Barrier(2, timeout=10)
    results = {}

    def worker(tag):
        rec = Recorder(positional.__code__, uniform_code(positional, tag=tag))
        with hook.callback_set(rec):
            barrier.wait()  # both callbacks set now
            out = [positional(i, 1) for i in range(50)]
            assert hook.get_callback() is rec
            barrier.wait()
        results[tag] = (out, len(rec.infos))

    threads = [threading.Thread(target=worker, args=(t,)) for t in ("A", "B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for tag in ("A", "B"):
        out, n = results[tag]
        assert out == [(tag, i * 10 + 1) for i in range(50)]
        assert n == 50
    assert not hook.hook_installed()


def test_coroutines_are_not_intercepted_but_their_callees_are():
    async def coro(x):
        return positional(x, 1)

    seen = []
    with hook.callback_set(lambda info: seen.append(info.f_code) or None):
        c = coro(2)
        with pytest.raises(StopIteration) as stop:
            c.send(None)
    assert stop.value.value == 21
    assert coro.__code__ not in seen
    assert positional.__code__ in seen


def test_a_thread_that_exits_with_its_callback_set_releases_the_hook():
    def cb(info):
        return None

    def worker():
        hook.set_callback(cb)  # never cleared by this thread
        positional(1, 2)

    before = sys.getrefcount(cb)
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert not hook.hook_installed()
    assert sys.getrefcount(cb) == before


def test_callback_that_clears_itself_mid_frame():
    def cb(info):
        if info.f_code is positional.__code__:
            hook.set_callback(None)
            return uniform_code(positional, tag="R")
        return None

    previous = hook.set_callback(cb)
    try:
        assert positional(1, 2) == ("R", 12)
        assert hook.get_callback() is None
        assert not hook.hook_installed()
        assert positional(1, 2) == 12
    finally:
        hook.set_callback(previous)


def test_runaway_recursion_is_a_recursion_error_on_every_path():
    def runaway(n):
        return runaway(n + 1)

    code = runaway.__code__
    for entries in ([(always, uniform_code(runaway))], [(always, None)], []):
        hook.set_cache(code, entries)
        try:
            with pytest.raises(RecursionError):
                run_hooked(Recorder(code), runaway, 0)
        finally:
            hook.clear_cache(code)
    assert run_hooked(Recorder(factorial.__code__), factorial, 20) == factorial(20)


def test_callback_set_restores_the_previous_callback_and_shows_no_frames_of_its_own():
    seen = []

    def outer_cb(info):
        seen.append(("outer", info.f_code.co_name))
        return None

    def inner_cb(info):
        seen.append(("inner", info.f_code.co_name))
        return None

    with hook.callback_set(outer_cb):
        with hook.callback_set(inner_cb):
            positional(1, 2)
        assert hook.get_callback() is outer_cb
        positional(1, 2)
    assert seen == [("inner", "positional"), ("outer", "positional")]


class Base:
    def describe(self, x):
        return ("base", x)


class Derived(Base):
    def describe(self, x):
        return ("derived", super().describe(x))


def test_replacement_of_a_method_using_zero_argument_super():
    code = Derived.describe.__code__
    assert code.co_freevars == ("__class__",)
    rec = Recorder(code, uniform_code(Derived.describe, tag="R"))
    assert run_hooked(rec, Derived().describe, 1) == ("R", ("derived", ("base", 1)))
    assert rec.infos[0].closure[0].cell_contents is Derived


def many_args(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, *rest, k0=0, k1=1, k2=2, **kw):
    return sum((a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, k0, k1, k2)) + len(rest) + len(kw)


def test_long_argument_vectors_on_every_path():
    code = many_args.__code__
    args = tuple(range(10)) + (10, 11)
    expected = many_args(*args, k1=5, z=1)
    seen = []

    def guard(g, *vector):
        seen.append(vector)
        return vector[0] == 0

    rec = Recorder(code, uniform_code(many_args, tag="R"))
    assert run_hooked(rec, many_args, *args, k1=5, z=1) == ("R", expected)
    assert rec.infos[0].args == tuple(range(10)) + (0, 5, 2, (10, 11), {"z": 1})
    hook.set_cache(code, [(guard, uniform_code(many_args, tag="hit"))])
    try:
        assert run_hooked(rec, many_args, *args, k1=5, z=1) == ("hit", expected)
        assert run_hooked(Recorder(code), many_args, 1, *args[1:], k1=5, z=1) == expected + 1
    finally:
        hook.clear_cache(code)
    assert len(seen[0]) == 15


def test_skip_is_a_named_sentinel():
    assert repr(hook.SKIP) == "sot._C.SKIP"
    with pytest.raises(TypeError):
        type(hook.SKIP)()


def test_guard_result_whose_truth_test_raises_is_a_miss():
    class Ambiguous:
        def __bool__(self):
            raise ValueError("no truth value")

    code = positional.__code__
    hook.set_cache(code, [(lambda g, a, b: Ambiguous(), uniform_code(positional, tag="R"))])
    try:
        rec = Recorder(code, None)
        assert run_hooked(rec, positional, 1, 2) == 12
        assert len(rec.infos) == 1
    finally:
        hook.clear_cache(code)


def test_cache_replacement_that_is_not_code_is_a_type_error():
    code = positional.__code__
    hook.set_cache(code, [(always, 42)])
    try:
        with pytest.raises(TypeError, match="replacement must be None or a code object"):
            run_hooked(Recorder(code), positional, 1, 2)
    finally:
        hook.clear_cache(code)


# ------------------------------------------------- direct entries, Resume

def two_args(a, b):
    return ("original", a, b)


def test_a_direct_entry_is_called_with_globals_args_and_cells_instead_of_the_frame():
    calls = []

    def direct(g, a, b):
        calls.append(g is globals())
        return ("direct", a, b)

    hook.set_cache(two_args.__code__, [(always, uniform_code(two_args, tag="R"), direct)])
    try:
        assert run_hooked(lambda info: None, two_args, 1, b=2) == ("direct", 1, 2)
    finally:
        hook.clear_cache(two_args.__code__)
    assert calls == [True]


def test_a_direct_entry_raising_rerun_natively_runs_the_original_frame():
    def direct(g, a, b):
        raise hook.RerunNatively

    hook.set_cache(two_args.__code__, [(always, None, direct)])
    try:
        assert run_hooked(lambda info: None, two_args, 1, 2) == ("original", 1, 2)
    finally:
        hook.clear_cache(two_args.__code__)


def test_resume_requests_are_followed_until_a_value_comes_back():
    def last(x):
        return ("last", x)

    def direct(g, a, b):
        return hook.Resume(hook.Resume, last, a + b)  # a Resume may resume into another

    hook.set_cache(two_args.__code__, [(always, None, direct)])
    try:
        assert run_hooked(lambda info: None, two_args, 1, 2) == ("last", 3)
    finally:
        hook.clear_cache(two_args.__code__)


def test_guard_programs_are_evaluated_in_c_and_a_hit_moves_to_the_front():
    from sot import _C
    is_int = _C.GuardProgram(2, 0, 1, (("arg", 0, 0), ("type", 0, int)))
    is_str = _C.GuardProgram(2, 0, 1, (("arg", 0, 0), ("type", 0, str)))
    entries = [(is_int, None, lambda g, a, b: "int"), (is_str, None, lambda g, a, b: "str"),
               (always, None)]
    hook.set_cache(two_args.__code__, entries)
    try:
        assert run_hooked(lambda info: None, two_args, 1, 0) == "int"
        assert run_hooked(lambda info: None, two_args, "s", 0) == "str"
        assert [e[0] for e in entries] == [is_str, is_int, always]
        assert run_hooked(lambda info: None, two_args, 1.5, 0) == ("original", 1.5, 0)
        assert entries[-1][0] is always  # a plain guard never moves
    finally:
        hook.clear_cache(two_args.__code__)
