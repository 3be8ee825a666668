"""`import` inside a traced function (handlers/imports.py): a module already
in sys.modules is loaded from there, guarded on that entry's identity; an
import that would run module code (or the import system) breaks and runs
natively, exactly once per call as eager."""
import contextlib
import io
import sys
import textwrap

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float64).reshape(2, 3)


def imports_of_loaded_modules(x):
    import math
    import os.path
    import numpy.linalg as la
    from collections import OrderedDict as OD
    from numpy import float32, linalg
    return x * math.pi, os.path.sep, la is linalg, OD.__name__, float32(2) * x


def test_imports_of_loaded_modules_are_captured():
    check(imports_of_loaded_modules, (X,))
    assert_captured_whole(imports_of_loaded_modules, X)


def test_import_in_a_branch():
    def f(x, fast):
        if fast:
            import math
            return x * math.e
        return x

    check(f, (X, True), (X, False))
    assert_captured_whole(f, X, True)


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A fresh package `sotpkg_<n>` whose modules print when they run."""
    name = f"sotpkg_{len(sys.modules)}_{id(tmp_path) % 9973}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("print('init ran')\nSCALE = 2.0\n")
    (root / "extra.py").write_text("print('extra ran')\nOFFSET = 5.0\n")
    (root / "user.py").write_text(textwrap.dedent("""
        import sot

        def relative(x):
            from . import SCALE
            from .extra import OFFSET
            return x * SCALE + OFFSET

        def absolute(x):
            import {name}.extra
            return x + {name}.extra.OFFSET, {name}.SCALE
    """).format(name=name))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]


def _run(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args)
    return result, out.getvalue()


def test_an_import_that_runs_module_code_runs_natively(package):
    user = __import__(package + ".user", fromlist=["user"])
    for mod in (package + ".extra",):
        sys.modules.pop(mod, None)
    static = sot.to_static(user.absolute)
    result, out = _run(static, X)   # extra is not imported yet: its code runs, once
    assert out == "extra ran\n"
    np.testing.assert_array_equal(result[0], X + 5.0)
    result, out = _run(static, X)
    assert out == ""
    report = sot.explain(sot.to_static(user.absolute), X)
    assert not report.breaks, [str(b) for b in report.breaks]   # now it is loaded: captured whole


def test_relative_imports_resolve_in_the_package(package):
    user = __import__(package + ".user", fromlist=["user"])
    sys.modules.pop(package + ".extra", None)
    static = sot.to_static(user.relative)
    _, out = _run(static, X)
    assert out == "extra ran\n"
    check(user.relative, (X,), static=static)
    assert_captured_whole(user.relative, X)


def test_a_replaced_sys_modules_entry_is_seen(package):
    user = __import__(package + ".user", fromlist=["user"])
    __import__(package + ".extra")
    static = sot.to_static(user.absolute)
    check(user.absolute, (X,), static=static)
    count = sot.translation_count(static)
    extra = sys.modules[package + ".extra"]
    fake = type(extra)(package + ".extra")
    fake.OFFSET = -1.0
    sys.modules[package + ".extra"] = fake
    try:
        check(user.absolute, (X,), static=static)   # `import a.b` binds a; a.b is still the old attribute
        assert sot.translation_count(static) > count
    finally:
        sys.modules[package + ".extra"] = extra


def test_a_removed_module_is_imported_again(package):
    user = __import__(package + ".user", fromlist=["user"])
    __import__(package + ".extra")
    static = sot.to_static(user.absolute)
    _run(static, X)
    _run(static, X)   # captured whole: the import is a guarded lookup
    del sys.modules[package + ".extra"]
    result, out = _run(static, X)
    assert out == "extra ran\n"
    eager, eager_out = _run(user.absolute, X)
    assert eager_out == ""
    np.testing.assert_array_equal(result[0], eager[0])


def test_import_star_and_replaced_import_break():
    import builtins

    def f(x):
        import math
        return x * math.tau

    calls = []

    def spy(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    real = builtins.__import__
    static = sot.to_static(f)
    check(f, (X,), static=static)
    builtins.__import__ = spy
    try:
        np.testing.assert_array_equal(static(X), X * np.pi * 2)
        assert calls.count("math") == 1   # the replaced __import__ runs, as eager
    finally:
        builtins.__import__ = real
