"""Code from installed libraries (issue 21).

- "is this NumPy" is decided by the module object, never a name prefix;
- installed packages are traced, except the skip table (one table in
  sot/_skip.py); sot.skip / sot.trace_into adjust it; skipped codes are
  logged and listed by explain with their rule;
- Python numbers that change between calls become graph inputs
  (executor/scalar_policy.py), bitwise as eager, specialised again where
  their value steers the trace;
- freeze=True never freezes values computed during the call;
- acceptance: a small layer/optimizer library installed in a temporary site
  directory, driven by a decorated training step (subprocess).
"""
from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import textwrap
import types
import warnings

import numpy as np
import pytest

import sot
from sot import _skip
from sot.executor.function_graph import is_user_class

from difftest import assert_same, python_env
from ort_tolerance import assert_ort_close

DATA = os.path.join(os.path.dirname(__file__), "data")


# -- 1. NumPy by its module object ------------------------------------------------------

def _fake_module(name, tmp_path):
    mod = types.ModuleType(name)
    mod.__file__ = str(tmp_path / f"{name}.py")
    exec("class Layer:\n    def __init__(self):\n        self.w = 1.0\n", mod.__dict__)
    mod.Layer.__module__ = name
    return mod


@pytest.mark.parametrize("name", ["numpy_ml", "numpy_helpers", "numpyro", "numpy"])
def test_a_package_named_like_numpy_is_not_numpy(name, tmp_path, monkeypatch):
    if name == "numpy":  # a class that claims NumPy's name from a module that is not NumPy's
        mod = _fake_module("numpy_shadow", tmp_path)
        mod.Layer.__module__ = "numpy_shadow"
    else:
        mod = _fake_module(name, tmp_path)
        monkeypatch.setitem(sys.modules, name, mod)
    assert not _skip.is_numpy_module(mod)
    assert is_user_class(mod.Layer)


def test_numpy_and_its_submodules_are_numpy():
    for name in ("numpy", "numpy.linalg", "numpy.random", "numpy._core.multiarray"):
        assert _skip.is_numpy_module(name), name
    for value in (np.ndarray, np.float32, np.random.Generator, np.mean, np.linalg.norm):
        assert _skip.is_numpy_object(value), value
    assert not is_user_class(np.random.Generator) and not is_user_class(np.poly1d)
    assert not _skip.in_package("onnxruntime_extensions", "onnxruntime")
    assert _skip.in_package("onnxruntime.capi", "onnxruntime")


def test_attributes_of_a_numpy_named_package_are_traced(tmp_path, monkeypatch):
    mod = types.ModuleType("numpy_layers")
    mod.__file__ = str(tmp_path / "numpy_layers.py")
    exec(textwrap.dedent("""
        import numpy as np
        class Dense:
            def __init__(self):
                self.w = np.arange(6.0).reshape(2, 3)
                self.scale = 2.0
            def __call__(self, x):
                return (x @ self.w) * self.scale
    """), mod.__dict__)
    mod.Dense.__module__ = "numpy_layers"
    monkeypatch.setitem(sys.modules, "numpy_layers", mod)
    layer = mod.Dense()
    report = sot.explain(lambda x: layer(x) + 1, np.ones((4, 2)))
    assert report.graph_count == 1 and not report.breaks
    assert_same((np.ones((4, 2)) @ layer.w) * 2.0 + 1, report.result, bitwise=True)


# -- 2. the skip table --------------------------------------------------------------------

def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


@pytest.fixture
def fake_install(tmp_path, monkeypatch):
    """A stdlib directory with a site-packages inside it (as most installs
    have), holding a package `tinypkg`; sot decides with these directories."""
    lib = tmp_path / "lib" / "python3"
    site = lib / "site-packages"
    _write(site / "tinypkg" / "__init__.py", """
        import numpy as np
        def scale(x):
            return x * 2.0 + 1.0
    """)
    _write(lib / "stdmod.py", """
        def double(x):
            return x * 2.0
    """)
    monkeypatch.setattr(_skip, "_stdlib_dirs", lambda: [str(lib) + os.sep])
    monkeypatch.setattr(_skip, "_site_dirs", lambda: [str(site) + os.sep])
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(lib))
    _skip.forget()
    import tinypkg
    import stdmod
    yield tinypkg, stdmod
    for name in ("tinypkg", "stdmod"):
        sys.modules.pop(name, None)
    monkeypatch.undo()
    _skip._user_rules.clear()
    _skip.forget()
    sot.reset()


def test_installed_packages_are_traced_the_standard_library_is_not(fake_install):
    tinypkg, stdmod = fake_install
    assert _skip.skip_rule(tinypkg.scale.__code__) is None
    assert _skip.skip_rule(stdmod.double.__code__) == _skip.STDLIB_WHY
    assert _skip.skip_rule(np._core._methods._mean.__code__) == _skip.NUMPY_WHY
    assert "sot itself" in _skip.skip_rule(sot.api.to_static.__code__)

    def fn(x):
        y = tinypkg.scale(x)
        return stdmod.double(y) + y

    x = np.arange(4.0)
    report = sot.explain(fn, x)
    assert_same(fn(x), report.result, bitwise=True)
    assert any(e.code_name == "scale" and e.graphs for e in report.entries)
    assert [(name, rule) for name, _f, _l, rule in report.skipped] == [("double", _skip.STDLIB_WHY)]
    assert "not traced (1 code(s) your code called):" in str(report) and "double" in str(report)
    assert report.to_dict()["skipped"][0]["rule"] == _skip.STDLIB_WHY


def test_explain_lists_the_skipped_codes_the_users_code_called_not_their_callees():
    def fn(x):
        return np.percentile(x, 50) + np.mean(x)  # NumPy's Python helpers call each other

    x = np.arange(5.0)
    report = sot.explain(fn, x)
    assert_same(fn(x), report.result, bitwise=True)
    names = {name for name, _f, _l, _r in report.skipped}
    assert {"percentile", "mean"} <= names, names
    # _mean is what np.mean calls, _quantile what np.percentile calls
    assert not names & {"_mean", "_quantile", "_ureduce", "_count_reduce_items"}, names


def test_skip_and_trace_into_adjust_the_table(fake_install, caplog):
    tinypkg, stdmod = fake_install

    def fn(x):
        return stdmod.double(tinypkg.scale(x))

    x = np.arange(4.0)
    sot.skip(tinypkg)
    sot.trace_into("stdmod")
    assert _skip.skip_rule(tinypkg.scale.__code__) == "sot.skip(tinypkg)"
    assert _skip.skip_rule(stdmod.double.__code__) is None
    sot.set_verbosity(1)
    try:
        with caplog.at_level(logging.INFO, logger="sot"):
            report = sot.explain(fn, x)
    finally:
        sot.set_verbosity(0)
    assert_same(fn(x), report.result, bitwise=True)
    assert [(n, r) for n, _f, _l, r in report.skipped] == [("scale", "sot.skip(tinypkg)")]
    assert any(e.code_name == "double" and e.graphs for e in report.entries)
    assert "scale" in caplog.text and "is not traced: sot.skip(tinypkg)" in caplog.text
    with pytest.raises(ValueError):
        sot.skip("no_such_module_anywhere")


def test_skip_a_function_and_decorated_library_code_is_translated(fake_install):
    tinypkg, stdmod = fake_install
    sot.skip(tinypkg.scale)
    assert _skip.skip_rule(tinypkg.scale.__code__).startswith("sot.skip(")
    f = sot.to_static(lambda x: tinypkg.scale(x) + 1)
    assert_same(np.arange(3.0) * 2.0 + 2.0, f(np.arange(3.0)), bitwise=True)
    # what the user decorated is translated wherever it lives
    g = sot.to_static(stdmod.double)
    report = sot.explain(g, np.arange(3.0))
    assert report.graph_count == 1 and report.entries[0].code_name == "double"


def test_code_run_by_the_import_system_is_never_traced():
    seen = []

    class Finder:  # an import hook, as pytest's assertion rewriter or an editable install has
        def find_spec(self, name, path=None, target=None):
            if name == "sot_test_no_such_module":
                seen.append(name)
            return None

    def fn(x):
        y = x * 2
        try:
            import sot_test_no_such_module  # noqa: F401
        except ImportError:
            y = y + 1
        return y

    sys.meta_path.insert(0, Finder())
    try:
        x = np.arange(3.0)
        report = sot.explain(fn, x)
        assert_same(fn(x), report.result, bitwise=True)
        assert len(seen) == 2  # once eagerly, once under sot: as often as eager
        rules = {name: rule for name, _f, _l, rule in report.skipped}
        assert rules.get("find_spec") == _skip.IMPORT_WHY, report.skipped
        assert not any(rule == _skip.FROZEN_WHY for rule in rules.values())  # never listed
    finally:
        sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "Finder"]


def test_a_skipped_code_costs_one_decision(fake_install):
    tinypkg, stdmod = fake_install
    from sot import _hook
    f = sot.to_static(lambda x: stdmod.double(x))
    f(np.ones(2))
    assert _hook.is_skipped(stdmod.double.__code__)  # the hook never asks again
    sot.reset()
    assert not _hook.is_skipped(stdmod.double.__code__)  # decided again after a reset


# -- 3. Python numbers that change between calls ------------------------------------------

class Counter:
    def __init__(self, beta=0.9):
        self.t = 0
        self.beta = beta

    def step(self, g):
        self.t += 1
        return g / (1 - self.beta ** self.t)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_a_step_counter_becomes_an_input_bitwise_as_eager(dtype):
    eager, traced = Counter(), Counter()
    f = sot.to_static(lambda g: traced.step(g))
    g = np.arange(1, 5).astype(dtype)
    for _ in range(8):
        assert_same(eager.step(g), f(g), bitwise=True)
        assert type(traced.t) is int and traced.t == eager.t
    assert sot.translation_count(f) == 2  # the second value makes it an input
    report = sot.explain(f, g)     # `self.t += 1` is replayed after the graph: step is inlined
    assert report.graph_count == 1 and not report.breaks, str(report)
    assert "type(traced.t) is int" in report.guards


class Box:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def test_a_float_hyperparameter_that_changes_keeps_weak_scalar_semantics():
    box = Box(lr=0.1)

    def fn(w):
        return w - box.lr * w

    f = sot.to_static(fn)
    w = np.linspace(0, 1, 5, dtype=np.float32)
    for k in range(6):
        box.lr = 0.1 * (k + 1)
        assert_same(fn(w), f(w), bitwise=True)
    assert sot.translation_count(f) == 2


def test_a_number_the_control_flow_needs_is_specialised_again():
    box = Box(n=1)

    def fn(x):
        if box.n % 2:
            x = x + box.n
        for _ in range(box.n):
            x = x * 2
        return x

    f = sot.to_static(fn)
    x = np.arange(3.0)
    for n in (1, 2, 3, 2, 1, 3):
        box.n = n
        assert_same(fn(x), f(x), bitwise=True)
    assert sot.translation_count(f) <= 5  # value-guarded again: one entry per value
    report = sot.explain(f, x)
    assert report.graph_count == 1 and not report.fallbacks, str(report)
    assert not any("type(box.n)" in g for g in report.guards)
    assert "box.n == 3" in report.guards


def test_a_changing_exponent_is_specialised_not_computed_far_away():
    # The check of a number input computes its ops again at a far-away
    # stand-in value; n ** (n * n) there has ~10**13 digits and would never
    # finish: a large exponent specialises the number instead.
    def fn(x, n):
        return x * float(n ** (n * n) % 7)

    f = sot.to_static(fn)
    x = np.arange(3.0)
    for n in (2, 3, 4, 3, 2):
        assert_same(fn(x, n), f(x, n), bitwise=True)
    assert sot.translation_count(f) <= 3


def test_a_recursive_function_with_a_changing_depth():
    def f(x, n):
        y = np.tanh(x) * 2
        if n == 0:
            return (y + 1).sum()
        return (y - 1).sum() + f(x * 0.5, n - 1)

    s = sot.to_static(f)
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
    for n in (3, 2, 3):
        assert_same(f(x, n), s(x, n), bitwise=True)
    report = sot.explain(f, x, 3)
    assert report.graph_count >= 1 and not report.fallbacks, str(report)


def test_a_number_out_of_an_int8_range_raises_as_eager():
    box = Box(k=1)
    f = sot.to_static(lambda a: a + box.k)
    a = np.arange(3, dtype=np.int8)
    for k in (1, 2, 3, 300):
        box.k = k
        try:
            expected = ("ok", a + box.k)
        except OverflowError as e:
            expected = ("raised", str(e))
        try:
            got = ("ok", f(a))
        except OverflowError as e:
            got = ("raised", str(e))
        assert expected[0] == got[0]
        if expected[0] == "ok":
            assert_same(expected[1], got[1], bitwise=True)
        else:
            assert expected[1] == got[1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.int32])
def test_number_inputs_on_onnxruntime_promote_as_numpy(dtype):
    # 0-d inputs of the model; the Python arithmetic on them runs in Python
    # first; each use promotes as NumPy promotes a Python number (NEP 50)
    def fn(c, g):
        c.t += 1
        return g * c.lr / (1 - c.beta ** c.t) + c.t, g + c.t, c.t * 2

    eager, traced = Box(t=0, lr=0.1, beta=0.9), Box(t=0, lr=0.1, beta=0.9)
    f = sot.to_static(fn, backend="onnxruntime")
    g = np.arange(1, 5).astype(dtype)
    for _ in range(6):
        want, got = fn(eager, g), f(traced, g)
        assert_ort_close(got, want, inputs=(g,))
        assert type(traced.t) is int and traced.t == eager.t
    assert sot.translation_count(f) == 2
    report = sot.explain(f, traced, g)
    assert any("onnxruntime" in backend for _n, backend, _s in report.entries[0].graphs), str(report)
    assert "type(c.t) is int" in report.guards


def test_number_inputs_on_onnxruntime_raise_and_warn_as_eager():
    def fn(c, a):
        c.t += 1
        scale = 2.0 / (1 - c.beta ** (c.t - 3))    # Python: 0.0 ** 0 at t == 3, ZeroDivisionError
        return a * scale, a / (c.t - 5), a + c.k   # NumPy: divide by zero at t == 5; int8 + 300 overflows

    f = sot.to_static(fn, backend="onnxruntime")
    eager, traced = Box(t=0, beta=0.0, k=1), Box(t=0, beta=0.0, k=1)
    a = np.arange(3, dtype=np.int8)
    for k in (1, 2, 5, 300, 7, 8, 9):
        eager.k = traced.k = k
        outcomes = []
        for g, c in ((fn, eager), (f, traced)):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                try:
                    outcomes.append(("ok", g(c, a)))
                except (ZeroDivisionError, OverflowError) as e:
                    outcomes.append((type(e), str(e)))
            outcomes[-1] += ([(w.category, str(w.message)) for w in seen],)
        assert outcomes[0][0] == outcomes[1][0] and outcomes[0][2] == outcomes[1][2], outcomes
        if outcomes[0][0] == "ok":
            assert_ort_close(outcomes[1][1], outcomes[0][1], inputs=(a,))
        assert eager.t == traced.t
    report = sot.explain(f, traced, a)
    assert any("onnxruntime" in backend for e in report.entries for _n, backend, _s in e.graphs), str(report)


def test_dynamic_false_keeps_numbers_as_values():
    c = Counter()
    f = sot.to_static(lambda g: c.step(g), dynamic=False)
    g = np.ones(2)
    for _ in range(3):
        f(g)
    from sot.guards import cache
    assert not any("type(self.t)" in gd for e in cache.entries(Counter.step.__code__) for gd in e.guards)


# -- 5. freeze=True freezes nothing computed during the call --------------------------------

def _helper(x):
    print("helper")  # a graph break: helper's result reaches the resume function
    return x * 2, 3


def test_freeze_does_not_freeze_values_computed_in_the_call(capsys):
    w = Box(w=np.arange(3.0))

    def fn(x):
        a, n = _helper(x)
        return a, a + n + w.w

    f = sot.to_static(fn, freeze=True, min_graph_size=1)
    x = np.ones(3)
    for _ in range(4):
        a, b = f(x)
        assert a.flags.writeable
        assert_same(fn(x), (a, b), bitwise=True)
    assert sot.translation_count(f) == 2  # no identity guard on `a`: no translation per call
    assert not w.w.flags.writeable  # an attribute is still frozen
    sot.reset()


# -- acceptance: an installed library ------------------------------------------------------

_TRAIN = r'''
import site, sys
site.addsitedir(sys.argv[1])
import numpy as np
import sot
from sot import translate
import numpy_tinynn as nn

assert nn.__file__.startswith(sys.argv[1]), nn.__file__

class Model:
    def __init__(self):
        self.l1 = nn.Dense(4, 8, 0)
        self.l2 = nn.Dense(8, 4, 1)
        self.cell = nn.LSTMCell(4, 8, 2)
        self.opt = nn.Adam()
        self.h = np.zeros((3, 8))
        self.c = np.zeros((3, 8))

def train_step(m, x, target):
    m.opt.step()
    m.h, m.c = m.cell.forward(x, m.h, m.c)
    h1 = nn.relu(m.l1.forward(x) + m.h)
    y = m.l2.forward(h1)
    loss = nn.mse(y, target)
    dh, g2 = m.l2.backward(nn.mse_grad(y, target))
    _, g1 = m.l1.backward(dh * (h1 > 0))
    for name, layer, g in (("l1", m.l1, g1), ("l2", m.l2, g2)):
        for k in ("W", "b"):
            layer.params[k] = m.opt.update(name + k, layer.params[k], g[k])
    return loss

rng = np.random.default_rng(0)
data = [(rng.standard_normal((3, 4)), rng.standard_normal((3, 4))) for _ in range(8)]
eager, traced = Model(), Model()
step = sot.to_static(train_step)
entries = []
translate._recorders.append(entries)
counts = []
for x, t in data:
    a, b = train_step(eager, x, t), step(traced, x, t)
    assert type(a) is type(b) and a.tobytes() == b.tobytes(), (a, b)
    counts.append(len(entries))
for name in ("h", "c"):
    assert getattr(eager, name).tobytes() == getattr(traced, name).tobytes()
for la, lb in ((eager.l1, traced.l1), (eager.l2, traced.l2)):
    for k in ("W", "b"):
        assert la.params[k].tobytes() == lb.params[k].tobytes()
assert (eager.opt.t, eager.cell.current_step) == (traced.opt.t, traced.cell.current_step) == (8, 8)
print("COUNTS", counts)
print("GRAPHS", [len(e.graphs) for e in entries])
print("BREAKS", [str(r) for e in entries for r in (e.graph_break, e.fallback) if r is not None])
print("NUMBER_INPUTS", sorted({g for g in entries[-1].guards if g.startswith("type(m.") and g.endswith("is int")}))
'''


def test_an_installed_training_library_is_captured(tmp_path):
    site_dir = tmp_path / "site-packages"
    site_dir.mkdir()
    shutil.copytree(os.path.join(DATA, "numpy_tinynn"), site_dir / "numpy_tinynn")
    shutil.copytree(os.path.join(DATA, "numpy_tinynn-0.1.dist-info"), site_dir / "numpy_tinynn-0.1.dist-info")
    script = tmp_path / "train.py"
    script.write_text(_TRAIN)
    proc = subprocess.run([sys.executable, str(script), str(site_dir)], capture_output=True, text=True,
                          env=python_env(), cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    counts = eval(out["COUNTS"])
    # the first step creates Adam's state and meets the step counters at 0;
    # from the second step on, the counters are graph inputs, the stores into
    # the library's objects are replayed after one graph: no translation
    assert counts[2:] == [counts[1]] * (len(counts) - 2), counts
    assert eval(out["GRAPHS"]) == [1] * counts[-1]   # the library's code inlined: one graph per translation
    assert eval(out["BREAKS"]) == []
    assert eval(out["NUMBER_INPUTS"]) == ["type(m.cell.current_step) is int", "type(m.opt.t) is int"]
