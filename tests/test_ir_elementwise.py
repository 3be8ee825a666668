"""Elementwise ops — ufuncs, Python operators (binary, comparison, bitwise,
unary, in-place), round, clip, where — agree with eager NumPy."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from sot.ir import all_ops
from test_ir_oracle import (ALL_DTYPES, CORE_DTYPES, Const, F, M, O, assert_matches_eager,
                            assert_matches_eager_unless_value_dependent, assert_unsupported, sample)

UFUNC_OPS = sorted((op for op in all_ops() if op.kind == "function" and isinstance(op.target, np.ufunc)),
                   key=lambda op: op.name)
UNARY_UFUNCS = [op for op in UFUNC_OPS if op.target.nin == 1]
BINARY_UFUNCS = [op for op in UFUNC_OPS if op.target.nin == 2]

REQUIRED_UFUNCS = """add subtract multiply divide true_divide floor_divide power float_power mod
remainder fmod negative positive absolute abs exp exp2 log log2 log10 log1p expm1 sqrt cbrt square
reciprocal tanh sinh cosh sin cos tan arcsin arccos arctan arctan2 arcsinh arccosh arctanh sign
floor ceil trunc rint maximum minimum fmax fmin logical_and logical_or logical_xor logical_not isnan
isinf isfinite equal not_equal less less_equal greater greater_equal bitwise_and bitwise_or
bitwise_xor bitwise_not invert left_shift right_shift hypot""".split()

# operand kinds: NumPy scalar, 0-d array, arrays of several shapes
UNARY_FORMS = {
    "scalar": lambda dt: sample((), dt, scalar=True),
    "0d": lambda dt: sample((), dt),
    "2x3": lambda dt: sample((2, 3), dt),
    "empty": lambda dt: sample((0, 3), dt),
}


@pytest.mark.parametrize("name", REQUIRED_UFUNCS)
def test_required_ufunc_is_registered_by_identity(name):
    op = F(getattr(np, name))
    assert op.kind == "function" and op.target is getattr(np, name)


@pytest.mark.parametrize("form", UNARY_FORMS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", UNARY_UFUNCS, ids=lambda op: op.name)
def test_unary_ufunc_matches_eager(op, dtype, form):
    assert_matches_eager(op, UNARY_FORMS[form](dtype))


BINARY_SHAPES = {
    "same": ((2, 3), (2, 3)),
    "broadcast": ((2, 1, 3), (4, 1)),
    "row": ((2, 3), (3,)),
    "0d-array": ((2, 3), ()),
    "0d-0d": ((), ()),
    "empty": ((0, 3), (1, 3)),
}


@pytest.mark.parametrize("shapes", BINARY_SHAPES)
@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.int8, np.int8), (np.int8, np.uint8),
                                    (np.float16, np.int64), (np.bool_, np.bool_), (np.int32, np.float32),
                                    (np.complex64, np.float64), (np.uint64, np.int64)],
                         ids=lambda d: f"{np.dtype(d[0]).name}-{np.dtype(d[1]).name}")
@pytest.mark.parametrize("op", BINARY_UFUNCS, ids=lambda op: op.name)
def test_binary_ufunc_matches_eager(op, dtypes, shapes):
    a, b = BINARY_SHAPES[shapes]
    assert_matches_eager(op, sample(a, dtypes[0]), sample(b, dtypes[1], seed=1))


PY_SCALARS = [2, -3, 0.5, True, 1j, 300, 2**40]


@pytest.mark.parametrize("scalar", PY_SCALARS, ids=repr)
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["add", "multiply", "power", "maximum", "arctan2", "bitwise_and",
                                  "floor_divide", "less", "left_shift"])
def test_binary_ufunc_with_python_scalar_on_either_side_is_weakly_typed(name, dtype, scalar):
    op = F(getattr(np, name))
    assert_matches_eager(op, sample((2, 3), dtype), scalar)
    assert_matches_eager(op, scalar, sample((2, 3), dtype))
    assert_matches_eager(op, sample((), dtype, scalar=True), scalar)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int16, np.uint8, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_ufunc_dtype_keyword_is_captured(dtype):
    assert_matches_eager(F(np.add), sample((2, 3), np.int8), 3, dtype=dtype)
    assert_matches_eager(F(np.sqrt), sample((2, 3), np.float64), dtype=np.float32)
    assert_matches_eager(F(np.multiply), sample((2, 3), np.float64), 2.5, dtype=dtype, casting="unsafe")


def test_ufunc_with_numpy_scalar_constant_is_strongly_typed():
    assert_matches_eager(F(np.add), sample((3,), np.float16), Const(np.float64(1.5)))
    assert_matches_eager(F(np.add), sample((3,), np.int8), Const(np.int64(7)))


def test_ufunc_of_int8_with_out_of_range_python_int_is_unsupported_like_eager():
    err = assert_matches_eager(F(np.add), sample((3,), np.int8), 1000)
    assert isinstance(err, OverflowError)


def test_ufunc_out_and_where_are_not_captured():
    x = sample((2, 3), np.float32)
    assert_unsupported(F(np.add), x, 1.0, out=np.empty((2, 3), np.float32))
    assert_unsupported(F(np.add), x, 1.0, x)  # positional out
    assert_unsupported(F(np.exp), x, where=x > 0)
    assert_unsupported(F(np.exp), x, order="F")


def test_ufunc_on_mismatched_shapes_is_unsupported_like_eager():
    err = assert_matches_eager(F(np.add), sample((2, 3), np.float32), sample((4,), np.float32))
    assert isinstance(err, ValueError)


def test_bitwise_ufunc_on_floats_is_unsupported_like_eager():
    err = assert_matches_eager(F(np.bitwise_and), sample((3,), np.float32), 1)
    assert isinstance(err, TypeError)


# ----------------------------------------------------------------------------
# Python operators

BINARY_OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor",
                    "lshift", "rshift", "lt", "le", "eq", "ne", "gt", "ge"]
INPLACE_OPERATORS = ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior",
                     "ixor", "ilshift", "irshift"]

OPERAND_PAIRS = {
    "array-array": lambda dt: (sample((2, 3), dt), sample((2, 3), dt, seed=1)),
    "array-row": lambda dt: (sample((2, 3), dt), sample((3,), dt, seed=1)),
    "array-0d": lambda dt: (sample((2, 3), dt), sample((), dt, seed=1)),
    "scalar-scalar": lambda dt: (sample((), dt, scalar=True), sample((), dt, seed=1, scalar=True)),
    "scalar-0d": lambda dt: (sample((), dt, scalar=True), sample((), dt, seed=1)),
    "0d-0d": lambda dt: (sample((), dt), sample((), dt, seed=1)),
    "array-int": lambda dt: (sample((2, 3), dt), 2),
    "int-array": lambda dt: (3, sample((2, 3), dt)),
    "float-array": lambda dt: (1.0, sample((2, 3), dt)),
    "array-float": lambda dt: (sample((2, 3), dt), 0.5),
    "bool-scalar": lambda dt: (True, sample((), dt, scalar=True)),
    "scalar-complex": lambda dt: (sample((), dt, scalar=True), 2j),
    "array-mixed": lambda dt: (sample((2, 3), dt), sample((3,), np.float32)),
    "0d-negint": lambda dt: (sample((), dt), -2),
}


@pytest.mark.parametrize("pair", OPERAND_PAIRS)
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", BINARY_OPERATORS)
def test_binary_operator_matches_eager(name, dtype, pair):
    assert_matches_eager(O(name), *OPERAND_PAIRS[pair](dtype))


@pytest.mark.parametrize("pair", ["array-array", "array-row", "array-0d", "array-int", "array-float",
                                  "scalar-scalar", "0d-0d", "array-mixed", "0d-negint"])
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", INPLACE_OPERATORS)
def test_inplace_operator_matches_eager_including_the_mutated_input(name, dtype, pair):
    assert_matches_eager(O(name), *OPERAND_PAIRS[pair](dtype))


def test_inplace_add_of_float_to_int_array_is_unsupported_like_eager():
    err = assert_matches_eager(O("iadd"), sample((3,), np.int32), 1.5)
    assert isinstance(err, TypeError)


def test_inplace_operator_cannot_grow_its_target():
    err = assert_matches_eager(O("iadd"), sample((3, 1), np.float32), sample((1, 4), np.float32))
    assert isinstance(err, ValueError)
    err = assert_matches_eager(O("imul"), sample((), np.float32), sample((3,), np.float32))
    assert isinstance(err, ValueError)


def test_inplace_operator_on_numpy_scalar_rebinds_like_eager():
    # np.float32(1) += array gives a new array; the scalar itself is immutable
    assert_matches_eager(O("iadd"), sample((), np.float32, scalar=True), sample((3,), np.float64))


@pytest.mark.parametrize("form", UNARY_FORMS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["neg", "pos", "invert", "abs"])
def test_unary_operator_matches_eager(name, dtype, form):
    assert_matches_eager(O(name), UNARY_FORMS[form](dtype))


@pytest.mark.parametrize("name", BINARY_OPERATORS + INPLACE_OPERATORS + ["neg", "pos", "invert", "abs",
                                                                           "matmul", "imatmul", "getitem"])
def test_operator_op_targets_the_operator_module(name):
    op = O(name)
    assert op.kind == "operator" and op.target is getattr(operator, name)


def test_comparison_with_none_matches_eager():
    assert_matches_eager(O("eq"), sample((3,), np.float32), None)
    assert_matches_eager(O("ne"), None, sample((3,), np.int8))


def test_python_operator_with_constant_list_broadcasts():
    assert_matches_eager(O("add"), sample((2, 3), np.float32), [1, 2, 3])
    assert_matches_eager(O("mul"), [1.5, 2.0, -1.0], sample((2, 3), np.int16))


def test_integer_power_with_negative_exponent_is_unsupported_like_eager():
    err = assert_matches_eager(O("pow"), sample((3,), np.int64), -1)
    assert isinstance(err, ValueError)


# ----------------------------------------------------------------------------
# round, clip, where, conj

@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("form", UNARY_FORMS)
def test_round_and_around_match_eager(dtype, form):
    x = UNARY_FORMS[form](dtype)
    assert_matches_eager(F(np.round), x)
    assert_matches_eager(F(np.round), x, 1)
    assert_matches_eager(F(np.around), x, decimals=-1)
    assert_matches_eager(M("round"), x, 2)


@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("form", UNARY_FORMS)
def test_clip_with_none_bounds_matches_eager(dtype, form):
    x = UNARY_FORMS[form](dtype)
    assert_matches_eager(F(np.clip), x, 0, 3)
    assert_matches_eager(F(np.clip), x, None, 1.5)
    assert_matches_eager(F(np.clip), x, -1, None)
    assert_matches_eager(F(np.clip), x, sample((3,), dtype, seed=2), None)
    assert_matches_eager(M("clip"), x, 0)
    assert_matches_eager(M("clip"), x, max=2)
    assert_matches_eager(M("clip"), x, None, 2)


@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.int8, np.float16), (np.int64, np.bool_),
                                    (np.complex64, np.int8)], ids=str)
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), (2, 3)), ((2, 1), (3,), ()), ((), (), ()),
                                    ((0, 1), (1, 3), (3,))], ids=str)
def test_where_with_three_arguments_matches_eager(dtypes, shapes):
    cond = sample(shapes[0], np.bool_)
    assert_matches_eager(F(np.where), cond, sample(shapes[1], dtypes[0]), sample(shapes[2], dtypes[1], seed=3))
    assert_matches_eager(F(np.where), cond, sample(shapes[1], dtypes[0]), 0.0)
    assert_matches_eager(F(np.where), sample((), np.bool_, scalar=True), 1, sample(shapes[2], dtypes[1]))


def test_where_with_one_argument_is_nonzero_of_a_data_dependent_length():
    """(tests/test_data_dependent.py runs it through the decorator.)"""
    assert_matches_eager(F(np.where), sample((3,), np.bool_))
    assert_matches_eager(F(np.where), sample((2, 3), np.float32))
    assert_unsupported(F(np.where), sample((), np.bool_))   # NumPy 2 raises on a 0-d condition


@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
def test_conj_method_matches_eager(dtype):
    for form in UNARY_FORMS.values():
        assert_matches_eager(M("conj"), form(dtype))
        assert_matches_eager(M("conjugate"), form(dtype))


@pytest.mark.parametrize("exponent", [np.array(2.0), np.array(2, np.int8), np.array(0.5), np.array(-1.0),
                                      np.float64(2), np.array(3.0)], ids=repr)
@pytest.mark.parametrize("base", [np.float32, np.uint8, np.float64, np.int64], ids=lambda d: np.dtype(d).name)
def test_power_by_a_traced_0d_exponent_matches_eager_or_is_refused_when_its_dtype_depends_on_the_value(
        base, exponent):
    # NumPy 2.2's ndarray.__pow__ takes value-dependent fast paths (float32 ** array(2.0) is float32)
    assert_matches_eager_unless_value_dependent(O("pow"), sample((2, 3), base), exponent)
    assert_matches_eager_unless_value_dependent(O("ipow"), sample((2, 3), base), exponent)
    assert_matches_eager(F(np.power), sample((2, 3), base), exponent)
