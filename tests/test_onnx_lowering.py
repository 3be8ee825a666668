"""The onnxruntime backend against the NumPy backend, op by op.

``assert_backends_agree(op, *args, **kwargs)`` records ``op`` into a one-op
StatementIR (arrays become inputs, as in test_ir_oracle), compiles it for
both backends and checks: the ORT graph lowered the op (unless told it may
not), and its results have the same Python type, dtype and shape as the
NumPy backend's, with equal values — exactly for integers and bools, within
a tolerance of the dtype for floats — and the same effect on the inputs.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

from sot.backends import compile_graph
from sot.ir import StatementIR, UnsupportedOp
from test_ir_oracle import A, Const, F, M, O, _trace  # noqa: F401

pytest.importorskip("onnxruntime")

FLOATS = ["float16", "float32", "float64"]
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
INTS = SIGNED + UNSIGNED
ALL = FLOATS + INTS + ["bool"]
RTOL = {"float16": 2e-3, "float32": 2e-5, "float64": 1e-12}


def sample(shape, dtype, seed=0, special=True):
    """Values that exercise the semantics: negatives, zeros, extremes, NaN/inf."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(shape) < 0.5
    if dtype.kind == "f":
        x = (rng.standard_normal(shape) * 3).astype(dtype)
        if special and x.size >= 8:
            flat = x.reshape(-1)
            flat[:4] = [0.0, -1.5, 2.5, -0.5]
            flat[5] = np.nan if x.size > 12 else flat[5]
        return x
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -20), min(info.max, 20)
    x = rng.integers(lo, hi + 1, shape).astype(dtype)
    if special and x.size >= 8:
        flat = x.reshape(-1)
        flat[:4] = [0, info.max, info.min, 1]
        if info.min < 0:
            flat[4] = -1
    return x


def one_op_graph(op, args, kwargs):
    graph = StatementIR("one")
    inputs: list = []
    symargs = _trace(graph, copy.deepcopy(args), inputs)
    symkwargs = _trace(graph, copy.deepcopy(kwargs), inputs)
    result = graph.add_op(op, symargs, symkwargs)
    graph.set_outputs(list(result) if isinstance(result, tuple) else [result])
    return graph, inputs


def assert_close(ort_value, np_value, path="result"):
    assert type(ort_value) is type(np_value), f"{path}: type {type(ort_value)} != {type(np_value)}"
    if not isinstance(np_value, (np.ndarray, np.generic)):
        assert ort_value == np_value
        return
    assert ort_value.dtype == np_value.dtype, f"{path}: dtype {ort_value.dtype} != {np_value.dtype}"
    assert ort_value.shape == np_value.shape, f"{path}: shape {ort_value.shape} != {np_value.shape}"
    if np_value.dtype.kind == "f":
        rtol = RTOL[np_value.dtype.name]
        finite = np.isfinite(np_value)
        scale = np.max(np.abs(np_value[finite]), initial=1.0) if np.ndim(np_value) else 1.0
        np.testing.assert_allclose(ort_value, np_value, rtol=rtol, atol=rtol * min(scale, 1e3),
                                   equal_nan=True, err_msg=path)
        assert np.array_equal(np.isnan(ort_value), np.isnan(np_value)), f"{path}: NaNs differ"
    else:
        assert np.array_equal(ort_value, np_value), f"{path}: values differ\n{ort_value!r}\n{np_value!r}"


def assert_backends_agree(op, *args, may_not_lower=False, **kwargs):
    """See the module docstring; returns the ORT compiled graph."""
    try:
        graph, inputs = one_op_graph(op, args, kwargs)
    except UnsupportedOp:
        return None
    ref = compile_graph(graph, "numpy")
    ort = compile_graph(graph, "onnxruntime")
    if not may_not_lower:
        assert ort.backend == "onnxruntime", f"{graph}\nnot lowered: {ort.explain()['not_lowered']}"
    ref_inputs, ort_inputs = copy.deepcopy(inputs), copy.deepcopy(inputs)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ref(*ref_inputs)
        actual = ort(*ort_inputs)
    assert len(actual) == len(expected)
    for i, (a, e) in enumerate(zip(actual, expected)):
        assert_close(a, e, f"{graph}\noutput {i}")
    for i, (a, e) in enumerate(zip(ort_inputs, ref_inputs)):
        assert_close(a, e, f"input {i} after the call")
    return ort


# ----------------------------------------------------------------------------
# elementwise

BINARY_OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor",
                    "lshift", "rshift", "lt", "le", "eq", "ne", "gt", "ge"]


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", BINARY_OPERATORS)
def test_binary_operators_agree_for_every_dtype(name, dtype):
    x = sample((4, 5), dtype, 1)
    y = sample((4, 5), dtype, 2)
    if name == "pow" and np.dtype(dtype).kind in "iub":
        y = np.abs(y) % 5 if dtype != "bool" else y
        assert_backends_agree(O(name), x, Const(3))
        assert_backends_agree(O(name), x, Const(0))
        assert_backends_agree(O(name), x, y, may_not_lower=True)
        return
    if name in ("lshift", "rshift") and np.dtype(dtype).kind in "iu":
        y = (np.abs(y.astype(np.int64)) % (np.dtype(dtype).itemsize * 8 + 3)).astype(dtype)
    assert_backends_agree(O(name), x, y)
