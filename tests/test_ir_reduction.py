"""Reductions and cumulative ops agree with eager NumPy, as functions and
as methods, over axis/keepdims/dtype/ddof variants."""

from __future__ import annotations

import numpy as np
import pytest

from sot.ir import StatementIR, TensorMeta
from test_ir_oracle import CORE_DTYPES, F, M, assert_matches_eager, assert_unsupported, sample

REDUCTIONS = ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "var", "std", "any", "all"]
FUNCTION_ONLY = ["amax", "amin"]
CUMULATIVE = ["cumsum", "cumprod"]

SHAPES = {"scalar": None, "0d": (), "1d": (5,), "2d": (3, 4), "3d": (2, 3, 4), "empty-row": (0, 4)}
AXES = [None, 0, -1, (0, 1), (-1, 0), 1]


def _operand(shape_name, dtype):
    shape = SHAPES[shape_name]
    return sample((), dtype, scalar=True) if shape is None else sample(shape, dtype)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", REDUCTIONS + FUNCTION_ONLY)
def test_reduction_function_matches_eager(name, dtype, shape, axis, keepdims):
    x = _operand(shape, dtype)
    assert_matches_eager(F(getattr(np, name)), x, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_method_matches_eager(name, dtype, shape, axis):
    x = _operand(shape, dtype)
    assert_matches_eager(M(name), x, axis)
    assert_matches_eager(M(name), x, axis=axis, keepdims=True)


@pytest.mark.parametrize("name", REDUCTIONS + CUMULATIVE)
def test_reduction_without_arguments_gives_a_numpy_scalar_or_flat_array(name):
    x = sample((3, 4), np.float32)
    expected = assert_matches_eager(M(name), x)
    assert assert_matches_eager(F(getattr(np, name)), x).dtype == expected.dtype


def test_reduction_of_int8_sums_in_int64():
    result = assert_matches_eager(F(np.sum), sample((4, 5), np.int8))
    assert isinstance(result, np.int64)


def test_reduction_of_bool_sums_in_int64_and_means_in_float64():
    assert isinstance(assert_matches_eager(M("sum"), sample((4,), np.bool_)), np.int64)
    assert isinstance(assert_matches_eager(M("mean"), sample((4,), np.bool_)), np.float64)


def test_reduction_of_0d_array_gives_a_numpy_scalar():
    assert isinstance(assert_matches_eager(F(np.sum), sample((), np.float32)), np.float32)


def test_full_reduction_with_keepdims_stays_an_array_except_for_0d_operands():
    assert type(assert_matches_eager(F(np.sum), sample((2, 3), np.float32), keepdims=True)) is np.ndarray
    # NumPy quirk, followed: a 0-d operand reduces to a NumPy scalar even with keepdims
    assert type(assert_matches_eager(F(np.sum), sample((), np.float32), keepdims=True)) is np.float32


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.bool_, np.complex64],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "cumsum", "cumprod"])
def test_reduction_dtype_keyword_matches_eager(name, dtype):
    x = sample((3, 4), np.int8)
    assert_matches_eager(F(getattr(np, name)), x, axis=1, dtype=dtype)
    assert_matches_eager(M(name), sample((3, 4), np.float16), None, dtype)


@pytest.mark.parametrize("ddof", [0, 1, 2, 4, 5])
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_and_std_with_ddof_match_eager(name, ddof):
    x = sample((3, 4), np.float32)
    assert_matches_eager(F(getattr(np, name)), x, ddof=ddof)
    assert_matches_eager(F(getattr(np, name)), x, 1, None, None, ddof)
    assert_matches_eager(M(name), x, axis=0, ddof=ddof, keepdims=True)
    assert_matches_eager(M(name), sample((2, 3), np.complex64), ddof=ddof)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2], ids=str)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", CUMULATIVE)
def test_cumulative_op_matches_eager(name, dtype, shape, axis):
    x = _operand(shape, dtype)
    assert_matches_eager(F(getattr(np, name)), x, axis=axis)
    assert_matches_eager(M(name), x, axis)


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "amax"])
def test_max_over_an_empty_axis_is_unsupported_like_eager(name):
    err = assert_matches_eager(F(getattr(np, name)), sample((0, 4), np.float32), axis=0)
    assert isinstance(err, ValueError)
    # but over the non-empty axis it is fine
    assert_matches_eager(F(getattr(np, name)), sample((0, 4), np.float32), axis=1)


def test_argmax_with_tuple_axis_is_unsupported_like_eager():
    assert_matches_eager(F(np.argmax), sample((3, 4), np.float32), axis=(0, 1))


def test_axis_out_of_range_or_repeated_is_unsupported_like_eager():
    assert_matches_eager(F(np.sum), sample((3, 4), np.float32), axis=2)
    assert_matches_eager(F(np.sum), sample((3, 4), np.float32), axis=(0, -2))


def test_reduction_out_is_not_an_op_argument():
    """out= is the executor's (sot/executor/writes_out.py): a write after the op."""
    x = sample((3, 4), np.float32)
    assert_unsupported(F(np.sum), x, out=np.zeros((), np.float32))
    assert_unsupported(F(np.sum), x, 0, None, np.zeros(4, np.float32))
    assert_unsupported(F(np.mean), x, axis=sample((), np.int64, scalar=True))


def test_reduction_where_and_initial():
    x = sample((3, 4), np.float32)
    assert_matches_eager(F(np.sum), x, where=sample((3, 4), np.bool_))
    assert_matches_eager(F(np.sum), x, axis=0, where=sample((4,), np.bool_))
    assert_matches_eager(F(np.max), x, initial=0.0)
    assert_matches_eager(M("sum"), x, initial=0.0)
    assert_unsupported(F(np.sum), x, where=sample((3,), np.bool_))       # NumPy raises: no broadcast
    assert_unsupported(F(np.sum), x, initial=np.zeros(2, np.float32))   # not a scalar


def test_reduction_out_none_is_harmless():
    assert_matches_eager(F(np.sum), sample((3, 4), np.float32), 0, None, None)
    assert_matches_eager(M("max"), sample((3, 4), np.float32), out=None)


def test_reduction_meta_is_a_numpy_scalar_meta():
    g = StatementIR("r")
    x = g.add_input(TensorMeta((3, 4), np.float16))
    assert g.add_op(M("mean"), (x,)).meta == TensorMeta((), np.float16, True)
    assert g.add_op(M("argmax"), (x, 1)).meta == TensorMeta((3,), np.intp, False)
