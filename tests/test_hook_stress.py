"""The hook under load: reference counts, memory, the data stack, threads.

Replacements here are written by hand in uniform-argument form (plain
positional parameters), so these tests need no bytecode rewriting.
"""
import gc
import sys
import threading
import tracemalloc

import pytest

from sot import _hook as hook


@pytest.fixture(autouse=True)
def clean_hook():
    yield
    assert hook.get_callback() is None
    assert not hook.hook_installed()


def rss_bytes():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096
    except OSError:  # not Linux: tracemalloc alone has to do
        return 0


RESULT = object()


def original(a, b=None, *rest, key=None, **extra):
    return RESULT


def replacement(a, b, rest, key, extra):  # the uniform form of `original`
    return RESULT


def always(g, *rest):
    return True


def never(g, *rest):
    return False


PATHS = {
    "replacement": ([(always, replacement.__code__)], None),
    "cache_hit_original": ([(always, None)], None),
    "callback_original": ([(never, replacement.__code__)], None),
    "callback_replacement": ([], replacement.__code__),
}


def make_callback(answer):
    def cb(info):
        return answer if info.f_code is original.__code__ else None
    return cb


@pytest.mark.parametrize("path", sorted(PATHS))
def test_reference_counts_of_arguments_and_result_are_unchanged(path):
    entries, answer = PATHS[path]
    a, b, r, k, v = object(), object(), object(), object(), object()
    hook.set_cache(original.__code__, list(entries))
    try:
        with hook.callback_set(make_callback(answer)):
            original(a, b, r, key=k, z=v)  # warm up
            gc.collect()
            before = [sys.getrefcount(o) for o in (a, b, r, k, v, RESULT)]
            for _ in range(2000):
                assert original(a, b, r, key=k, z=v) is RESULT
            after = [sys.getrefcount(o) for o in (a, b, r, k, v, RESULT)]
    finally:
        hook.clear_cache(original.__code__)
    assert after == before


@pytest.mark.parametrize("path", sorted(PATHS))
def test_100k_hooked_calls_leave_memory_flat(path):
    entries, answer = PATHS[path]
    hook.set_cache(original.__code__, list(entries))
    payload = list(range(8))
    try:
        with hook.callback_set(make_callback(answer)):
            for _ in range(2000):
                original(payload, 1, 2, key=3, z=4)
            gc.collect()
            tracemalloc.start()
            rss0 = rss_bytes()
            traced0, _ = tracemalloc.get_traced_memory()
            for _ in range(100_000):
                original(payload, 1, 2, key=3, z=4)
            gc.collect()
            traced1, _ = tracemalloc.get_traced_memory()
            rss1 = rss_bytes()
            tracemalloc.stop()
    finally:
        hook.clear_cache(original.__code__)
    assert traced1 - traced0 < 64 * 1024
    assert rss1 - rss0 < 4 * 1024 * 1024


# A frame large enough that recursion crosses data-stack chunks (16 KiB on
# 3.11+) at many different depths.
def big_frame(n, a=0, b=0, c=0, d=0, e=0, f=0, g=0, h=0):
    x0 = x1 = x2 = x3 = x4 = x5 = x6 = x7 = x8 = x9 = n
    if n <= 0:
        return x0 + x9
    return big_frame(n - 1, a, b, c, d, e, f, g, h) + 1


def big_frame_uniform(n, a, b, c, d, e, f, g, h):
    x0 = x1 = x2 = x3 = x4 = x5 = x6 = x7 = x8 = x9 = n  # noqa: F841
    if n <= 0:
        return x0 + x9
    return big_frame(n - 1, a, b, c, d, e, f, g, h) + 1


def test_data_stack_survives_replaced_recursion_at_every_depth():
    hook.set_cache(big_frame.__code__, [(always, big_frame_uniform.__code__)])
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 5000))
    try:
        with hook.callback_set(make_callback(None)):
            rss0 = rss_bytes()
            for repeat in range(3):
                for depth in range(0, 400, 7):
                    assert big_frame(depth) == depth
            rss1 = rss_bytes()
    finally:
        sys.setrecursionlimit(old)
        hook.clear_cache(big_frame.__code__)
    assert big_frame(300) == 300
    assert rss1 - rss0 < 4 * 1024 * 1024


def test_data_stack_survives_callback_errors_at_every_depth():
    class Stop(Exception):
        pass

    def cb(info):
        if info.f_code is big_frame.__code__ and info.args[0] == 0:
            raise Stop
        return None

    hook.set_cache(big_frame.__code__, [(lambda g, n, *r: n > 0, big_frame_uniform.__code__)])
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 5000))
    try:
        with hook.callback_set(cb):
            for depth in range(0, 400, 7):
                with pytest.raises(Stop):
                    big_frame(depth)
    finally:
        sys.setrecursionlimit(old)
        hook.clear_cache(big_frame.__code__)
    assert big_frame(300) == 300


def test_many_threads_hammer_the_hook_concurrently():
    errors = []

    def worker(i):
        try:
            tag = f"T{i}"

            ns = {}
            exec(f"def repl(a, b, rest, key, extra): return ({tag!r}, a)", ns)
            repl = ns["repl"]

            def cb(info):
                return repl.__code__ if info.f_code is original.__code__ else None

            with hook.callback_set(cb):
                for j in range(3000):
                    assert original(j) == (tag, j)
                    assert hook.get_callback() is cb
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert original(1) is RESULT


def test_clearing_the_cache_releases_the_replacement_and_its_function():
    rc = replacement.__code__
    before = sys.getrefcount(rc)
    hook.set_cache(original.__code__, [(always, rc)])
    with hook.callback_set(make_callback(None)):
        for _ in range(3):
            assert original(1) is RESULT
    hook.clear_cache(original.__code__)
    assert sys.getrefcount(rc) == before
    hook.set_cache(original.__code__, [(always, rc)])
    with hook.callback_set(make_callback(None)):
        original(1)
    hook.set_cache(original.__code__, [])  # replacing the list drops it too
    assert sys.getrefcount(rc) == before
    hook.clear_cache(original.__code__)


def test_replacement_sees_the_globals_of_each_function_sharing_a_code():
    import types

    def read_x():
        return X  # noqa: F821

    def read_x_uniform():
        return ("R", X)  # noqa: F821

    f1 = types.FunctionType(read_x.__code__, {"X": 1})
    f2 = types.FunctionType(read_x.__code__, {"X": 2})
    hook.set_cache(read_x.__code__, [(always, read_x_uniform.__code__)])
    try:
        with hook.callback_set(make_callback(None)):
            assert [f1(), f2(), f1(), f2()] == [("R", 1), ("R", 2), ("R", 1), ("R", 2)]
    finally:
        hook.clear_cache(read_x.__code__)
