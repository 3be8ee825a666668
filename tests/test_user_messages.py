"""Errors and logs a user sees name user-facing things (the function, the
option, the environment variable, the source expression) and say what to
do, never sot's internals (StaticFunction, __sot_s0, t1, bytecode offsets)."""
import re
import subprocess
import sys

import numpy as np
import pytest

import sot
from difftest import python_env

INTERNAL = re.compile(r"__sot_|StaticFunction|\bt\d+\b|offset \d+|int\(\)")


def test_to_static_of_a_non_callable_names_to_static():
    with pytest.raises(TypeError) as e:
        sot.to_static(42)
    assert str(e.value) == "sot.to_static() needs a function, method or callable object, not int 42"
    with pytest.raises(TypeError, match=r"sot.to_static\(\) needs .* not str"):
        sot.to_static(backend="numpy")("f")


@pytest.mark.parametrize("level,value", [(0, 0), (4, 4), ("2", 2), ("debug", 4), ("Trace", 4), ("breaks", 1),
                                         ("off", 0)])
def test_set_verbosity_takes_levels_and_their_names(level, value):
    from sot import logs
    try:
        sot.set_verbosity(level)
        assert logs.verbosity() == value
    finally:
        sot.set_verbosity(0)


@pytest.mark.parametrize("level", [9, -1, "loud", 2.0, True, None])
def test_set_verbosity_rejects_what_is_not_a_level_and_lists_the_levels(level):
    with pytest.raises(ValueError) as e:
        sot.set_verbosity(level)
    assert f"verbosity {level!r} is not a level; expected 0..4 or one of 'off', 'breaks'" in str(e.value)
    assert not INTERNAL.search(str(e.value))


def test_set_code_level_takes_levels_and_names_and_rejects_others():
    from sot import logs
    try:
        sot.set_code_level("graphs")
        assert logs.code_level() == 1
    finally:
        sot.set_code_level(0)
    with pytest.raises(ValueError, match=r"code level 3 is not a level; expected 0..2 or one of 'off', 'graphs'"):
        sot.set_code_level(3)


def run_python(code, **env_vars):
    env = python_env()
    env.update(env_vars)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_sot_log_level_takes_names_and_warns_naming_itself_for_others():
    out = run_python("import sot.logs as l; print(l.verbosity())", SOT_LOG_LEVEL="debug")
    assert out.returncode == 0 and out.stdout.strip() == "4", out.stderr
    out = run_python("import sot.logs as l; print(l.verbosity())", SOT_LOG_LEVEL="loud")
    assert out.returncode == 0 and out.stdout.strip() == "0", out.stderr
    assert "environment variable SOT_LOG_LEVEL='loud' is not a level" in out.stderr and "ignored" in out.stderr


@pytest.mark.parametrize("var,value,message", [
    ("SOT_BACKEND", "cuda", "environment variable SOT_BACKEND='cuda' is not a backend; "
                            "expected one of numpy, onnxruntime, auto"),
    ("SOT_CACHE_SIZE", "big", "environment variable SOT_CACHE_SIZE='big' is not an integer"),
    ("SOT_CACHE_SIZE", "0", "environment variable SOT_CACHE_SIZE=0 must be >= 1"),
    ("SOT_MIN_GRAPH_SIZE", "ten", "environment variable SOT_MIN_GRAPH_SIZE='ten' is not an integer"),
    ("SOT_DYNAMIC", "yes", "environment variable SOT_DYNAMIC='yes' must be 0, 1 or unset"),
])
def test_a_bad_environment_variable_is_named(monkeypatch, var, value, message):
    monkeypatch.setenv(var, value)
    with pytest.raises(ValueError) as e:
        sot.to_static(lambda x: x)
    assert message in str(e.value)


def test_a_bad_option_says_which_values_exist():
    with pytest.raises(ValueError, match="unknown backend 'cuda'; expected one of numpy, onnxruntime, auto"):
        sot.to_static(lambda x: x, backend="cuda")
    with pytest.raises(ValueError, match="cache_size must be >= 1, not 0"):
        sot.to_static(lambda x: x, cache_size=0)


def normalize(x):
    m = x.mean(axis=-1, keepdims=True)
    if float(m.max()) > 100:
        print("large values")
    return (x - m) / (x.std(axis=-1, keepdims=True) + 1e-5)


def all_positive(x):
    if (x > 0).all():
        return x
    return -x


def logged(fn, *args, level=3):
    import io
    import logging
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logging.getLogger("sot").addHandler(handler)
    try:
        sot.set_verbosity(level)
        report = sot.explain(fn, *args)
    finally:
        sot.set_verbosity(0)
        logging.getLogger("sot").removeHandler(handler)
    return stream.getvalue(), str(report)


LINE = normalize.__code__.co_firstlineno + 2       # the `if float(m.max()) > 100:` line


def test_resume_functions_and_their_stack_values_are_named_by_source():
    x = np.random.default_rng(0).random((8, 16)).astype(np.float32)
    log, report = logged(sot.to_static(normalize), x)
    for text in (log, report):
        assert not INTERNAL.search(text), text
        # the float from data stays in the graph; the condition's outcome is
        # the resume function's stack value, guarded and named by its source expression
        if sys.version_info >= (3, 11):      # column positions: the expression itself
            assert f"normalize (resumed after `float(m.max()) > 100`, line {LINE})" in text
            assert "the value of `float(m.max()) > 100` is False" in text
        else:
            assert f"normalize (resumed at line {LINE})" in text
            assert f"the value computed at line {LINE} is False" in text


def test_an_array_condition_is_described_by_dtype_and_shape():
    x = np.ones((4, 4), np.float32)
    _log, report = logged(sot.to_static(all_positive), x)
    assert "the truth value of a bool scalar computed in the graph depends on its data" in report
    assert not INTERNAL.search(report), report
