"""sot.save of functions that write into arrays (sot/export/save.py).

A write into an array the function made itself (preallocate-then-fill,
``out=`` into a local, ``y[mask] = v`` on a copy, ``+=`` through a view of
a local) is exported as computing that array's new value; the file, run by
plain onnxruntime, matches eager within float32 tolerance.  A write into an
argument, a global or a weight has no memory in the file to go to: an
ExportError that names the user's line.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import sot
from difftest import run_plain_onnxruntime
from ort_tolerance import assert_ort_close


def _session(path):
    import onnxruntime as ort
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def fill_rows(x):
    out = np.empty((4, x.shape[1]), np.float32)
    for i in range(4):
        out[i] = np.tanh(x[i]) * 0.5 + x[i]
    return out


def out_into_local(x):
    y = np.empty_like(x)
    np.add(x, 1.0, out=y)
    np.multiply(y, x, out=y, where=x > 0)
    y *= 2.0
    return y


def masked_on_a_copy(x):
    y = x.copy()
    y[x > 0.5] = 0.0
    y[:, 0] = -1.0
    return y, y.sum(axis=1)


def stencil_on_a_copy(x):
    u = x.copy()
    inner = u[1:-1, 1:-1]
    for _ in range(2):
        inner += 0.1 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * inner)
    u[0] = u[1]
    return u


def copyto_where(x):
    y = x * 0.5
    np.copyto(y, x * 3.0, where=x < 0.3)
    y[y > 1.0] = 1.0
    return y


LOCAL_WRITERS = [
    (fill_rows, [4, 8]),
    (out_into_local, ["n", 8]),
    (masked_on_a_copy, [5, 8]),
    (stencil_on_a_copy, [6, 8]),
    (copyto_where, [4, 5]),
]


@pytest.mark.parametrize("fn, spec", LOCAL_WRITERS, ids=[f.__name__ for f, _ in LOCAL_WRITERS])
def test_writes_into_locals_are_exported_and_match_eager_in_plain_onnxruntime(fn, spec, tmp_path):
    path = sot.save(fn, tmp_path / fn.__name__, input_spec=[sot.InputSpec(spec, "float32", "x")])
    session = _session(path)
    for rows in sorted({4 if d == "n" else d for d in spec[:1]} | ({3, 7} if spec[0] == "n" else set())):
        x = np.random.default_rng(rows).random((rows,) + tuple(spec[1:])).astype(np.float32)
        expected = fn(x.copy())
        got = session.run(None, {"x": x})
        expected = expected if isinstance(expected, tuple) else (expected,)
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            assert_ort_close(g, e)


def test_stencil_model_runs_without_sot(tmp_path):
    path = sot.save(stencil_on_a_copy, tmp_path / "s", input_spec=[sot.InputSpec([6, 8], "float32", "x")])
    x = np.random.default_rng(0).random((6, 8)).astype(np.float32)
    assert_ort_close(run_plain_onnxruntime(path, "x", x, tmp_path), stencil_on_a_copy(x.copy()))


STATE = np.zeros(3, np.float32)


def into_a_global(x):
    STATE[0] = x.sum()
    return x * 2.0


class Model:
    def __init__(self):
        self.w = np.ones(3, np.float32)

    def forward(self, x):
        self.w *= 0.5 
        return x * self.w


def into_a_view_of_an_argument(x):
    v = x[1:]
    v += 1.0          
    return x * 2.0


@pytest.mark.parametrize("fn, line", [(into_a_global, "STATE[0] = x.sum()"),
                                      (Model().forward, "self.w *= 0.5"),
                                      (into_a_view_of_an_argument, "v += 1.0")])
def test_writes_into_arguments_globals_and_weights_name_the_line(fn, line, tmp_path):
    with pytest.raises(sot.ExportError, match=r"test_export_writes.py:\d+ \(" + re.escape(line) + r"\)"):
        sot.save(fn, tmp_path / "f", input_spec=[sot.InputSpec([3], "float32", "x")])
