"""Named regression tests for bugs found by the fuzzer and the stress /
hostile-input suites. A test marked xfail(strict=True) documents a bug that
is still open (its reason says what is wrong); when the bug is fixed the test
passes, strict xfail turns that into a failure, and the marker is removed."""
from __future__ import annotations

import traceback
import warnings

import numpy as np
import pytest

import sot


def _user_frames(exc):
    return [(fs.name, fs.lineno) for fs in traceback.extract_tb(exc.__traceback__) if fs.filename == __file__]


def _sot_frames(exc):
    return [fs.filename for fs in traceback.extract_tb(exc.__traceback__) if fs.filename.startswith("<sot")]


def _raise_after_print(x):
    print("before")
    return np.sort(x.astype(np.float32), axis=-1)   # AxisError for a 0-d x


def test_traceback_after_graph_break_has_no_extra_frame(capsys):
    frames = []
    for fn in (_raise_after_print, sot.to_static(_raise_after_print)):
        with pytest.raises(np.exceptions.AxisError) as info:
            fn(np.ones((), np.int64))
        frames.append(_user_frames(info.value))
    assert frames[0] == frames[1]


# Tracebacks through graph breaks: the rest of a split function runs as a
# resume function, called by the hook once the replacement's frame is gone
# (sot._C.Resume), and a failing graph makes the hook run the frame natively
# (sot._C.RerunNatively): the user's frames are eager's, and no sot frame
# sits between them.

def _reshape_15(x):
    return x.reshape(3, 5) + 1          # ValueError unless x.size == 15


def _tb_one_break(x):
    y = x * 2
    print("b")
    return _reshape_15(y) * 3


def _tb_two_breaks(x):
    y = x * 2
    print("b")
    y = y + 1
    print("c")
    z = y - 1
    return z[np.array([0, 99])]         # IndexError


def _tb_helper_raises(x):
    y = np.tanh(x)
    print("b")
    y = y + 1
    return _reshape_15(y)


def _tb_prints(x):
    print("in callee")
    return x + 1


def _tb_break_in_callee(x):
    y = _tb_prints(x * 2)               # a break at the call site
    return _reshape_15(y)


def _tb_break_in_loop(x, n):
    for i in range(n):
        print(i)
        x = x + 1
    return _reshape_15(x)


def _tb_graph_fails_after_break(x, idx):
    y = x * 2
    print("b")
    return np.tanh(y)[idx]              # the compiled graph raises IndexError


def _tb_graph_fails(x, idx):
    y = x * 2
    return y[idx] + 1


def _tb_closure():
    k = 2.0

    def graph_fails_with_closure(x, idx):
        y = x * k
        return y[idx] + 1
    return graph_fails_with_closure


@pytest.mark.parametrize("min_graph_size", [0, 10])   # compiled / native region before the break
@pytest.mark.parametrize("fn, args", [
    (_tb_one_break, (np.ones(4),)),
    (_tb_two_breaks, (np.ones(4),)),
    (_tb_helper_raises, (np.ones(4),)),
    (_tb_break_in_callee, (np.ones(4),)),
    (_tb_break_in_loop, (np.ones(4), 3)),
    (_tb_graph_fails_after_break, (np.ones(4), np.array([7, 0]))),
    (_tb_graph_fails, (np.ones(4), np.array([0, 99]))),
    (_tb_closure(), (np.ones(4), np.array([0, 99]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_traceback_through_breaks_lists_the_eager_user_frames(fn, args, min_graph_size, capsys):
    def raised(f):
        with pytest.raises(Exception) as info:
            f(*args)
        return info.value
    eager = raised(fn)
    static = sot.to_static(fn, min_graph_size=min_graph_size)
    for _ in range(3):                  # the first call translates, the others run from the cache
        traced = raised(static)
        assert (type(traced), str(traced)) == (type(eager), str(eager))
        assert _user_frames(traced) == _user_frames(eager)
        assert _sot_frames(traced) == []


def _warn_after_break(x):
    print("b")
    warnings.warn("from the callee", UserWarning, stacklevel=2)
    return x + 1


def _calls_warn_after_break(x):
    y = x * 2
    return _warn_after_break(y)


def test_stacklevel_after_a_break_in_a_callee_names_the_caller(capsys):
    """The resume function's caller is the frame's caller, not the replacement."""
    lines = []
    for fn in (_calls_warn_after_break, sot.to_static(_calls_warn_after_break)):
        for _ in range(2):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                fn(np.ones(3))
            lines.append([(w.filename, w.lineno) for w in caught])
    assert lines[0] == [(__file__, _calls_warn_after_break.__code__.co_firstlineno + 2)]
    assert all(seen == lines[0] for seen in lines)


def _break_then_return(x, k):
    print(k)
    return x + k


def test_translation_leaves_no_cyclic_garbage_holding_arguments(capsys):
    import gc
    import sys
    static = sot.to_static(_break_then_return)
    x = np.ones(3)
    base = sys.getrefcount(x)
    gc.disable()
    try:
        r = static(x, 1)
        del r
        assert sys.getrefcount(x) == base
    finally:
        gc.enable()


def _same_source_function():
    ns = {"np": np}
    exec("def f(x):\n    return x * 2 + 1\n", ns)
    return ns["f"]


def test_equal_code_objects_have_separate_records():
    from sot import _hook
    f1, f2 = _same_source_function(), _same_source_function()
    assert f1.__code__ == f2.__code__ and f1.__code__ is not f2.__code__
    sot.to_static(f1)(np.ones(3))
    sot.to_static(f2)(np.ones(3))
    assert (sot.translation_count(f1), sot.translation_count(f2)) == (1, 1)
    sot.reset()
    assert not _hook.get_cache(f2.__code__)


def test_graph_sources_do_not_accumulate_in_linecache():
    import gc
    import linecache

    def graphs():
        return sum(1 for k in linecache.cache if k.startswith("<sot numpy graph"))

    sot.reset()
    gc.collect()
    before = graphs()
    for i in range(20):
        ns = {"np": np}
        exec(f"def f(x):\n    return x * {i} + 1\n", ns)
        sot.to_static(ns["f"])(np.ones(3))
        del ns
    sot.reset()
    gc.collect()
    assert graphs() <= before


class _HashCounting:
    """Not a plain user class (it has __getattr__), so the tracer treats it as opaque."""
    hashes = 0

    def __getattr__(self, name):
        raise AttributeError(name)

    def __hash__(self):
        type(self).hashes += 1
        return 7


def _ignores_obj(x, obj):
    unused = obj
    return x + 1


def test_opaque_object_hash_not_called_by_tracer():
    _HashCounting.hashes = 0
    sot.to_static(_ignores_obj)(np.ones(2), _HashCounting())
    assert _HashCounting.hashes == 0   # eager never hashes it


_BREAK_THEN_RAISE = '''
def f(x):
    print("break")
    return x[10]
'''


def test_resume_function_not_shared_between_equal_codes(capsys):
    fns = []
    for filename in ("/tmp/sot_regress_module_a.py", "/tmp/sot_regress_module_b.py"):
        ns = {"np": np}
        exec(compile(_BREAK_THEN_RAISE, filename, "exec"), ns)
        fns.append((filename, ns["f"]))
    for filename, f in fns:
        with pytest.raises(IndexError) as info:
            sot.to_static(f)(np.ones(2))
        files = {fs.filename for fs in traceback.extract_tb(info.value.__traceback__)
                 if fs.name == "f"}
        assert files == {filename}


def _nested_loop_break_then_try(x, y, n, lst):
    for i2 in range(min(n, 3)):
        for e3 in sorted(lst):
            y = (np.where(y > len(lst), np.clip(y, 0, 3.5), -1.5) if not (min(min(len(x), x.size), len(x)) > 2)
                 else y.astype(np.float32))
            y = ((y * y) // ((x.mean() * np.count_nonzero(y)) + (np.linalg.norm(y) * np.prod(x))))
    try:
        n = n
    except IndexError:
        n = -1


@pytest.mark.skipif(__import__("sys").version_info < (3, 11), reason="3.10 plans this loop without error")
def test_plan_loop_no_internal_error_nested_loop_then_try():
    x = np.array([[1.5], [1.5], [1.25]])
    report = sot.explain(_nested_loop_break_then_try, x, x.copy(), 1, [])
    assert [b for b in report.breaks if b.category == "internal-error"] == []


_STORE_AFTER_GRAPH_SCRIPT = """
import numpy as np, sot

class Config:
    count = 0

CFG = Config()

def f(x, y):
    v2 = x * 2
    v2 = np.greater_equal((np.multiply(y, x) - (v2.reshape(-1) @ v2.reshape(-1))), np.subtract((x / v2[:1]), v2))
    CFG.count += 1

s = sot.to_static(f)
for _ in range(3):
    s(np.array([2, 1]), np.array([3, 1]))
print(CFG.count)
"""


def test_global_attribute_increment_after_graph_replayed_every_call(tmp_path):
    import subprocess
    import sys
    from difftest import python_env
    proc = subprocess.run([sys.executable, "-c", _STORE_AFTER_GRAPH_SCRIPT], capture_output=True, text=True,
                          env=python_env(), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "3"


class _Counter:
    count = 0


def _bump(c, x):
    c.count += 1
    return x * c.count


def test_class_attribute_shadowed_by_an_instance_attribute_is_seen():
    # The first call reads the class attribute; its store creates an
    # instance attribute, which later calls must read instead.
    eager_c, traced_c = _Counter(), _Counter()
    static = sot.to_static(_bump, min_graph_size=0)
    for _ in range(3):
        np.testing.assert_array_equal(static(traced_c, np.ones(2)), _bump(eager_c, np.ones(2)))
    assert traced_c.count == eager_c.count == 3


_SEGFAULT_313_SCRIPT = """
import numpy as np, sot

def f(x, y, n, lst, scale=1.5):
    tag = 'abc'
    lst.insert(0, x.ndim)
    vs1 = [y * _i + len(lst) for _i in range(2)]
    v2 = sum(vs1, y * 0)
    if not lst:
        if x.shape == y.shape:
            v4, k3 = ((x if max(n, x.size) >= len(x) else x), len(x))
            v4, *_rest = [v4, k3, x]
        v6, k5 = (x, len(lst))
    else:
        v8, k7 = (v2, n)
        v8, *_rest = [v8, k7, x]
        if scale is None:
            v8 = v8

s = sot.to_static(f)
for _ in range(2):
    s(np.ones((2, 3)), np.arange(6.0).reshape(2, 3), 0, [])
print("ok")
"""


def test_no_segfault_resumed_frame_unpack_ex_313(tmp_path):
    # 3.13 crashed: a rebuilt superinstruction packed a local index >= 16.
    import subprocess
    import sys
    from difftest import python_env
    proc = subprocess.run([sys.executable, "-c", _SEGFAULT_313_SCRIPT], capture_output=True, text=True,
                          env=python_env(), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.returncode, proc.stderr[-2000:])


def test_numpy_is_library_code_wherever_it_was_imported_from(monkeypatch):
    # found with numpy on PYTHONPATH (outside site-packages): np.mean's Python
    # helpers were traced and broke the graph
    from sot import _skip
    monkeypatch.setattr(_skip, "_site_dirs", lambda: [])
    monkeypatch.setattr(_skip, "_stdlib_dirs", lambda: [])
    monkeypatch.setattr(_skip, "DEFAULT_SKIPS", ())
    _skip.forget()
    assert not _skip.is_user_code(np._core._methods._mean.__code__)
    monkeypatch.undo()
    _skip.forget()
    assert _skip.is_user_code(_break_then_return.__code__)
