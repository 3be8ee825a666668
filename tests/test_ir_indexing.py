"""Indexing ``x[index]`` — ints, slices (negative steps), None, Ellipsis,
tuples of these, and integer-array indices — agrees with eager NumPy;
boolean indices other than one traced mask (tests/test_data_dependent.py)
are not captured."""

from __future__ import annotations

import numpy as np
import pytest

from sot.ir import StatementIR, TensorMeta, UnsupportedOp
from test_ir_oracle import CORE_DTYPES, Const, O, assert_matches_eager, assert_unsupported, sample

GETITEM = O("getitem")
S = slice

BASIC_INDICES = [
    0, -1, 2, 5, -6, S(None), S(1, None), S(None, None, -1), S(-1, 0, -2), S(10, -10, -3), S(None, 0),
    S(2, 1), S(None, None, 0), None, Ellipsis, (), (0,), (0, 0), (0, -1), (1, S(None, None, 2)),
    (S(None), 1), (Ellipsis, 0), (0, Ellipsis), (None, 0, None), (Ellipsis, None), (None, Ellipsis, None),
    (0, 0, 0), (0, 0, 0, 0), (Ellipsis, Ellipsis), (S(None), None, S(None, None, -1)), (-1, Ellipsis, -1),
    (Ellipsis, 0, Ellipsis), (S(0, 1), S(0, 1)), (np.int64(1),), np.int32(-1), (0, np.intp(2)),
]

SHAPES = {"scalar": None, "0d": (), "1d": (6,), "2d": (3, 4), "3d": (2, 3, 4), "empty": (0, 3)}


def _operand(name, dtype=np.float32):
    shape = SHAPES[name]
    return sample((), dtype, scalar=True) if shape is None else sample(shape, dtype)


@pytest.mark.parametrize("operand", SHAPES)
@pytest.mark.parametrize("index", BASIC_INDICES, ids=repr)
def test_basic_indexing_matches_eager(index, operand):
    assert_matches_eager(GETITEM, _operand(operand), index)


@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
def test_integer_indexing_down_to_0d_gives_a_numpy_scalar(dtype):
    result = assert_matches_eager(GETITEM, sample((3, 4), dtype), (1, 2))
    assert isinstance(result, np.generic)
    assert type(assert_matches_eager(GETITEM, sample((3, 4), dtype), (1, 2, Ellipsis))) is np.ndarray
    assert isinstance(assert_matches_eager(GETITEM, sample((), dtype), ()), np.generic)


ARRAY_INDICES = [
    [0, 2], [[0, 1], [2, 0]], [-1], [], ([0, 1], [1, 2]), ([0, 1], S(None)), (S(None), [0, 3]),
    ([0], [1, 2]), ([0, 1], 1), (1, [0, 2]), (Ellipsis, [0, 1]), ([0, 1], Ellipsis), ([[0], [1]], [0, 1, 2]),
    ([0, 1], None), (None, [0, 1]), ([0, 1], S(None), [0, 2]), (0, S(None), [0, 1]), ([0, 1], None, [1, 2]),
    ([0, 1], Ellipsis, [1, 2]), ([5],), ([0, 1], [0, 1, 2]), ([0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2]),
    ([-4, 3],), ([0], [-5]), ([], [7]), ([[]], [9, 9]),
]


@pytest.mark.parametrize("operand", ["1d", "2d", "3d", "empty"])
@pytest.mark.parametrize("index", ARRAY_INDICES, ids=repr)
def test_constant_integer_array_indexing_matches_eager(index, operand):
    if operand == "empty" and index == (S(None), [0, 3]):
        # out of bounds, into an empty result: NumPy 2.2 only warns, later NumPys raise
        assert_unsupported(GETITEM, _operand(operand), index)
        return
    assert_matches_eager(GETITEM, _operand(operand), index)


def _with_arrays(index, dtype):
    """The same index with its lists turned into (traced) integer arrays."""
    if isinstance(index, list):
        return np.array(index, dtype=dtype)
    if isinstance(index, tuple):
        return tuple(_with_arrays(i, dtype) for i in index)
    return index


@pytest.mark.parametrize("index_dtype", [np.intp, np.int8, np.uint8, np.int32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("operand", ["1d", "2d", "3d"])
@pytest.mark.parametrize("index", [i for i in ARRAY_INDICES if i != []], ids=repr)
def test_traced_integer_array_indexing_matches_eager(index, operand, index_dtype):
    if index_dtype == np.uint8 and "-" in repr(index):
        return  # negative indices do not fit uint8
    index = _with_arrays(index, index_dtype)
    assert_matches_eager(GETITEM, _operand(operand), index)


def test_traced_0d_integer_index_acts_like_an_int():
    assert_matches_eager(GETITEM, sample((3, 4), np.float32), np.array(1))
    assert_matches_eager(GETITEM, sample((3, 4), np.float32), (np.int64(2), np.array(-1)))
    assert_matches_eager(GETITEM, sample((3, 4), np.float32), (np.array(1), [0, 1]))


def test_out_of_bounds_traced_index_raises_at_run_time_like_eager():
    err = assert_matches_eager(GETITEM, sample((3, 4), np.float32), np.array([0, 7]))
    assert isinstance(err, IndexError)


def test_boolean_indexing_other_than_one_traced_mask_is_unsupported():
    """(A traced mask gives a size known at run time: tests/test_data_dependent.py.)"""
    x = sample((3, 4), np.float32)
    assert_unsupported(GETITEM, x, x[0] > 0)   # the mask's shape is not the leading axes'
    assert_unsupported(GETITEM, x, [True, False])   # a constant mask of another length: NumPy raises
    assert_unsupported(GETITEM, x, [[True, False, True, True]] * 3)   # a constant 2-d mask
    assert_unsupported(GETITEM, x, (0, sample((3,), np.bool_)))   # beside an int, not its axis' length
    assert_unsupported(GETITEM, x, (sample((3,), np.bool_), sample((2,), np.int64)))   # beside an index array
    assert_unsupported(GETITEM, x, True)


def test_constant_bool_list_selects_its_trues():
    x = sample((3, 4), np.float32)
    assert_matches_eager(GETITEM, x, [True, False, True])
    assert_matches_eager(GETITEM, x, (slice(None), [False, True, True, False]))


def test_float_index_and_non_constant_slice_are_unsupported():
    x = sample((3, 4), np.float32)
    assert_unsupported(GETITEM, x, 1.0)
    assert_unsupported(GETITEM, x, sample((2,), np.float32))
    g = StatementIR("g")
    n = g.add_input(TensorMeta((), np.int64, True))
    with pytest.raises(UnsupportedOp):
        g.add_op(GETITEM, (g.add_input(TensorMeta((3, 4), np.float32)), S(0, n)))
    assert_unsupported(GETITEM, x, "a")


def test_index_errors_are_unsupported_like_eager():
    x = sample((3, 4), np.float32)
    for index in [3, (0, 4), (0, 0, 0), (Ellipsis, Ellipsis), ([0, 3],), S(None, None, 0)]:
        err = assert_matches_eager(GETITEM, x, index)
        assert isinstance(err, (IndexError, ValueError)), index


def test_indexing_with_a_constant_slice_object_is_bound_not_spliced():
    assert_matches_eager(GETITEM, sample((6,), np.float32), Const(S(np.int64(1), None, 2)))
