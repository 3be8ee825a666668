"""Differential testing: run a function eagerly and under sot, compare everything.

`check(fn, *arg_sets)` calls the undecorated and decorated function on deep
copies of each argument set (several times, so cached entries are exercised)
and compares results (values, Python types, dtypes, shapes), side effects on
the arguments, stdout, and exceptions (type and message).
"""
from __future__ import annotations

import collections
import contextlib
import copy
import io

import numpy as np

import sot


def assert_same(eager, traced, path="result", *, bitwise=False):
    """Same types, dtypes, shapes and values, recursively through lists,
    tuples, dicts and plain objects.  ``bitwise``: arrays also have the same
    strides and the same bytes (NaN payloads, signed zeros)."""
    assert type(eager) is type(traced), f"{path}: type {type(eager).__name__} != {type(traced).__name__}"
    if isinstance(eager, (np.ndarray, np.generic)):
        assert eager.dtype == traced.dtype, f"{path}: dtype {eager.dtype} != {traced.dtype}"
        assert np.shape(eager) == np.shape(traced), f"{path}: shape {np.shape(eager)} != {np.shape(traced)}"
        if not bitwise:
            assert np.array_equal(eager, traced, equal_nan=eager.dtype.kind in "fc"), f"{path}: values differ"
            return
        if isinstance(eager, np.ndarray):
            assert eager.strides == traced.strides, f"{path}: strides {eager.strides} != {traced.strides}"
        e, t = np.ascontiguousarray(eager).tobytes(), np.ascontiguousarray(traced).tobytes()
        assert e == t, f"{path}: bytes differ"
    elif isinstance(eager, collections.deque):
        assert eager.maxlen == traced.maxlen, f"{path}: maxlen {eager.maxlen} != {traced.maxlen}"
        assert_same(list(eager), list(traced), f"{path}(items)", bitwise=bitwise)
    elif isinstance(eager, collections.ChainMap):
        assert_same(eager.maps, traced.maps, f"{path}.maps", bitwise=bitwise)
    elif isinstance(eager, (list, tuple)):
        assert len(eager) == len(traced), f"{path}: length {len(eager)} != {len(traced)}"
        for i, (a, b) in enumerate(zip(eager, traced)):
            assert_same(a, b, f"{path}[{i}]", bitwise=bitwise)
    elif isinstance(eager, dict):
        assert list(eager) == list(traced), f"{path}: keys differ"
        for k in eager:
            assert_same(eager[k], traced[k], f"{path}[{k!r}]", bitwise=bitwise)
    elif hasattr(eager, "__dict__") and not isinstance(eager, type) and type(eager).__eq__ is object.__eq__ \
            and not hasattr(eager, "__code__"):
        assert_same(vars(eager), vars(traced), f"{path}.__dict__", bitwise=bitwise)
    elif isinstance(eager, float) and eager != eager:
        assert traced != traced, f"{path}: NaN != {traced}"
    else:
        assert eager == traced, f"{path}: {eager!r} != {traced!r}"


def _run(fn, args, kwargs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            return ("ok", fn(*args, **kwargs)), out.getvalue()
        except Exception as e:  # compared, not swallowed
            return ("raised", e), out.getvalue()


def check(fn, *arg_sets, calls=3, kwargs=None, static=None):
    """Compare eager and traced over every argument set; return the decorated fn."""
    static = static or sot.to_static(fn)
    kwargs = kwargs or {}
    for args in arg_sets:
        for _ in range(calls):
            eager_args, traced_args = copy.deepcopy(args), copy.deepcopy(args)
            (e_kind, e_val), e_out = _run(fn, eager_args, kwargs)
            (t_kind, t_val), t_out = _run(static, traced_args, kwargs)
            assert e_kind == t_kind, f"eager {e_kind} {e_val!r} but traced {t_kind} {t_val!r}"
            if e_kind == "raised":
                assert type(e_val) is type(t_val) and str(e_val) == str(t_val)
            else:
                assert_same(e_val, t_val)
                _check_identity(e_val, eager_args, t_val, traced_args)
            assert e_out == t_out, "stdout differs"
            assert_same(eager_args, traced_args, "arguments after the call")
    return static


def _check_identity(e_val, e_args, t_val, t_args):
    """A returned argument must be the caller's object in both runs."""
    for ea, ta in zip(e_args, t_args):
        assert (e_val is ea) == (t_val is ta), "identity of the returned object differs"


def explain(fn, *args, **kwargs):
    return sot.explain(fn, *args, **kwargs)


def assert_captured_whole(fn, *args, graphs=(0, 1)):
    """`fn` runs with no graph break and no fallback (min_graph_size=0), in a
    number of graphs from `graphs` (none where no array op runs)."""
    report = sot.explain(sot.to_static(fn, min_graph_size=0), *args)
    assert not report.breaks, [str(b) for b in report.breaks]
    assert report.graph_count in graphs, report.graph_count
    return report


def case_params(cases: dict) -> list:
    """pytest params ``(fn, arg_sets)`` of a ``{name: (fn, arg_sets)}`` table,
    each ``fn`` named (and its test id) for its case."""
    import pytest
    out = []
    for name, (fn, arg_sets) in cases.items():
        fn.__name__ = name
        out.append(pytest.param(fn, arg_sets, id=name))
    return out


def check_case(fn, arg_sets):
    """`fn` matches eager on every argument set (bitwise on the NumPy
    backend) and runs in one graph with no break on the first (traced
    first, before other shapes make dims symbolic)."""
    assert_captured_whole(fn, *arg_sets[0])
    static = check(fn, *arg_sets, calls=2)
    for args in arg_sets:
        assert_same(fn(*args), static(*args), bitwise=True)


def python_env() -> dict:
    """Environment for a subprocess started outside the source tree: the
    installed sot (CI), or the in-place build named by a relative PYTHONPATH."""
    import os
    env = dict(os.environ)
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep))
    return env


_PLAIN_ORT = (
    "import sys, numpy as np, onnxruntime as ort\n"
    "s = ort.InferenceSession(sys.argv[1], providers=['CPUExecutionProvider'])\n"
    "np.save(sys.argv[4], s.run(None, {sys.argv[2]: np.load(sys.argv[3])})[0])\n"
    "assert 'sot' not in sys.modules\n"
)


def run_plain_onnxruntime(model_path, name: str, value, tmp_path):
    """The first output of ``model_path`` run by onnxruntime alone in a fresh
    process (no PYTHONPATH, so sot cannot be imported): what a deployment sees."""
    import os
    import subprocess
    import sys
    np.save(tmp_path / "plain_in.npy", value)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "-c", _PLAIN_ORT, str(model_path), name, str(tmp_path / "plain_in.npy"),
                    str(tmp_path / "plain_out.npy")], check=True, env=env, cwd=str(tmp_path))
    return np.load(tmp_path / "plain_out.npy")

