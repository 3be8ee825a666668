"""Shape ops — reshape, transpose/T/mT, swapaxes, moveaxis, expand_dims,
squeeze, ravel, flatten, broadcast_to, copy, astype, real/imag, and
concatenate/stack/hstack/vstack/split — agree with eager NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from test_ir_oracle import (ALL_DTYPES, CORE_DTYPES, A, F, M, assert_matches_eager,
                            assert_unsupported, sample)

OPERANDS = {
    "scalar": lambda dt: sample((), dt, scalar=True),
    "0d": lambda dt: sample((), dt),
    "1d": lambda dt: sample((6,), dt),
    "2d": lambda dt: sample((2, 3), dt),
    "3d": lambda dt: sample((2, 3, 4), dt),
    "empty": lambda dt: sample((0, 3), dt),
    "unit": lambda dt: sample((1, 3, 1), dt),
}

# (op, extra args, kwargs) applied to every operand; eager errors must be unsupported
CASES = [
    (F(np.reshape), ((-1,),), {}), (F(np.reshape), ((),), {}), (F(np.reshape), ((3, -1),), {}),
    (F(np.reshape), (-1,), {"order": "F"}), (F(np.reshape), (), {"shape": (1, -1)}),
    (F(np.reshape), ((1, 1),), {}), (F(np.reshape), ((6, 4),), {}), (F(np.reshape), ((-1, 0),), {}),
    (F(np.reshape), ((-1, -1),), {}), (F(np.reshape), ((0, -1),), {}), (F(np.reshape), ((0, 3),), {}),
    (M("reshape"), ((-1,),), {}), (M("reshape"), (-1,), {}), (M("reshape"), (3, -1), {}),
    (M("reshape"), ((),), {}), (M("reshape"), ([2, -1],), {}), (M("reshape"), (1, 1, -1), {"order": "F"}),
    (F(np.transpose), (), {}), (F(np.transpose), ((1, 0),), {}), (F(np.transpose), (), {"axes": (0, -1, 1)}),
    (M("transpose"), (), {}), (M("transpose"), (1, 0), {}), (M("transpose"), ((2, 0, 1),), {}),
    (M("transpose"), (None,), {}), (M("transpose"), ((0, 0),), {}),
    (A("T"), (), {}),
    (F(np.swapaxes), (0, 1), {}), (F(np.swapaxes), (-1, 0), {}), (M("swapaxes"), (0, -1), {}),
    (F(np.moveaxis), (0, -1), {}), (F(np.moveaxis), ((0, 1), (-1, 0)), {}), (F(np.moveaxis), (-1, 0), {}),
    (F(np.expand_dims), (0,), {}), (F(np.expand_dims), (-1,), {}), (F(np.expand_dims), ((0, 2),), {}),
    (F(np.expand_dims), (), {"axis": (-1, 0)}), (F(np.expand_dims), (3,), {}),
    (F(np.squeeze), (), {}), (F(np.squeeze), (0,), {}), (F(np.squeeze), (), {"axis": (0, -1)}),
    (M("squeeze"), (), {}), (M("squeeze"), (-1,), {}), (M("squeeze"), (1,), {}),
    (F(np.ravel), (), {}), (F(np.ravel), ("F",), {}), (M("ravel"), (), {}), (M("flatten"), (), {}),
    (M("flatten"), ("F",), {}),
    (F(np.broadcast_to), ((2, 3),), {}), (F(np.broadcast_to), ((4, 2, 3),), {}),
    (F(np.broadcast_to), (), {"shape": (5, 1, 3, 1)}), (F(np.broadcast_to), ((0,),), {}),
    (F(np.broadcast_to), (6,), {}),
    (F(np.copy), (), {}), (M("copy"), (), {}), (M("copy"), ("F",), {}),
    (M("astype"), (np.float32,), {}), (M("astype"), (np.dtype("int8"),), {}), (M("astype"), ("f2",), {}),
    (M("astype"), (bool,), {}), (M("astype"), (float,), {}), (M("astype"), (np.uint8,), {"casting": "safe"}),
    (M("astype"), (np.complex64,), {"copy": False}), (M("astype"), (int,), {}),
    (A("real"), (), {}), (A("imag"), (), {}),
]


def _case_id(case):
    op, args, kwargs = case
    return f"{op.kind}:{op.name}{args}{kwargs or ''}"


@pytest.mark.parametrize("operand", OPERANDS)
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_shape_op_matches_eager(case, dtype, operand):
    op, args, kwargs = case
    assert_matches_eager(op, OPERANDS[operand](dtype), *args, **kwargs)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_astype_between_every_pair_of_dtypes_matches_eager(dtype):
    for target in ALL_DTYPES:
        assert_matches_eager(M("astype"), sample((2, 3), dtype), target)
        assert_matches_eager(M("astype"), sample((), dtype, scalar=True), target)


@pytest.mark.skipif(not hasattr(np.ndarray, "mT"), reason="no ndarray.mT")
@pytest.mark.parametrize("operand", OPERANDS)
def test_matrix_transpose_attribute_matches_eager(operand):
    assert_matches_eager(A("mT"), OPERANDS[operand](np.float32))


def test_reshape_of_0d_array_to_empty_shape_stays_a_0d_array():
    assert type(assert_matches_eager(F(np.reshape), sample((), np.float32), ())) is np.ndarray
    assert type(assert_matches_eager(M("copy"), sample((), np.float32))) is np.ndarray


def test_reshape_copy_false_is_not_captured_because_it_depends_on_strides():
    assert_unsupported(F(np.reshape), sample((2, 3), np.float32), (6,), copy=False)


def test_astype_to_object_or_string_dtype_is_unsupported():
    assert_unsupported(M("astype"), sample((2, 3), np.float32), object)
    assert_unsupported(M("astype"), sample((2, 3), np.float32), np.dtype("U5"))
    assert_unsupported(M("astype"), sample((2, 3), np.float32), "datetime64[s]")


# ----------------------------------------------------------------------------
# joining and splitting

JOIN_SHAPES = {
    "same-2d": [(2, 3), (2, 3)],
    "rows": [(2, 3), (4, 3), (0, 3)],
    "cols": [(2, 3), (2, 1)],
    "1d": [(3,), (4,)],
    "0d": [(), ()],
    "3d": [(2, 3, 4), (2, 3, 4), (2, 3, 4)],
    "single": [(2, 3)],
    "mixed-ndim": [(2, 3), (3,)],
}
JOIN_CASES = [
    (F(np.concatenate), (), {}), (F(np.concatenate), (1,), {}), (F(np.concatenate), (-1,), {}),
    (F(np.concatenate), (None,), {}), (F(np.concatenate), (), {"axis": 0, "dtype": np.float64}),
    (F(np.stack), (), {}), (F(np.stack), (1,), {}), (F(np.stack), (-1,), {}), (F(np.stack), (), {"axis": 2}),
    (F(np.hstack), (), {}), (F(np.vstack), (), {}), (F(np.hstack), (), {"dtype": np.float32}),
]


@pytest.mark.parametrize("dtypes", [(np.float32,), (np.int8, np.uint8), (np.bool_, np.float16, np.int64)],
                         ids=lambda d: "-".join(np.dtype(x).name for x in d))
@pytest.mark.parametrize("shapes", JOIN_SHAPES)
@pytest.mark.parametrize("case", JOIN_CASES, ids=_case_id)
def test_join_matches_eager(case, shapes, dtypes):
    op, args, kwargs = case
    arrays = [sample(s, dtypes[i % len(dtypes)], seed=i) for i, s in enumerate(JOIN_SHAPES[shapes])]
    assert_matches_eager(op, arrays, *args, **kwargs)
    assert_matches_eager(op, tuple(arrays), *args, **kwargs)


def test_join_of_numpy_scalars_matches_eager():
    scalars = [sample((), np.float32, scalar=True), sample((), np.float32, seed=1, scalar=True)]
    for op in (F(np.stack), F(np.hstack), F(np.vstack), F(np.concatenate)):
        assert_matches_eager(op, scalars)


SPLIT_CASES = [(3,), (1,), (2,), ([1, 4],), ([2],), ([],), ([-2],), ([4, 1],), ([0, 0, 9],), (2, 1), (3, -1),
               ([1], 1), (0,), (4,)]


@pytest.mark.parametrize("shape", [(6, 3), (6,), (0, 3), (6, 0)], ids=str)
@pytest.mark.parametrize("args", SPLIT_CASES, ids=str)
def test_split_returns_one_symbol_per_piece_like_eager(args, shape):
    result = assert_matches_eager(F(np.split), sample(shape, np.float32), *args)
    assert isinstance(result, (list, Exception))


def test_split_of_0d_is_unsupported_like_eager():
    assert_matches_eager(F(np.split), sample((), np.float32), 1)
