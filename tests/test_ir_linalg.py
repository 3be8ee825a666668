"""Products — matmul/@/@=, dot, inner, outer, tensordot, einsum — agree
with eager NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from test_ir_oracle import F, M, O, assert_matches_eager, assert_unsupported, sample

MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
                 ((5, 1, 2, 3), (7, 3, 4)), ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((3,), (2, 3, 1)),
                 ((2, 3), (4, 3)), ((), (3,)), ((2, 2, 3), (3, 3, 4))]
DTYPES = [(np.float32, np.float32), (np.int8, np.int8), (np.float16, np.float64), (np.bool_, np.bool_),
          (np.int32, np.complex64), (np.uint8, np.int8)]


@pytest.mark.parametrize("dtypes", DTYPES, ids=lambda d: f"{np.dtype(d[0]).name}-{np.dtype(d[1]).name}")
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_function_and_operator_match_eager(shapes, dtypes):
    a, b = sample(shapes[0], dtypes[0]), sample(shapes[1], dtypes[1], seed=1)
    assert_matches_eager(F(np.matmul), a, b)
    assert_matches_eager(O("matmul"), a, b)


def test_matmul_of_two_vectors_gives_a_numpy_scalar():
    assert isinstance(assert_matches_eager(O("matmul"), sample((3,), np.float32), sample((3,), np.float32)),
                      np.float32)


@pytest.mark.parametrize("shapes", [((2, 3), (3, 3)), ((4, 2, 3), (3, 3)), ((2, 3), (3, 4)), ((3,), (3, 3))],
                         ids=str)
def test_inplace_matmul_matches_eager_when_the_shape_is_kept(shapes):
    assert_matches_eager(O("imatmul"), sample(shapes[0], np.float64), sample(shapes[1], np.float64))


def test_matmul_dtype_keyword_and_out_rejection():
    assert_matches_eager(F(np.matmul), sample((2, 3), np.int8), sample((3, 2), np.int8), dtype=np.float32)
    assert_unsupported(F(np.matmul), sample((2, 3), np.int8), sample((3, 2), np.int8), out=np.zeros((2, 2)))


DOT_SHAPES = [((), ()), ((), (2, 3)), ((2, 3), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
              ((2, 3), (3, 4)), ((2, 3, 4), (5, 4, 2)), ((2, 3), (2, 3)), ((0, 3), (3, 0))]


@pytest.mark.parametrize("dtypes", DTYPES, ids=lambda d: f"{np.dtype(d[0]).name}-{np.dtype(d[1]).name}")
@pytest.mark.parametrize("shapes", DOT_SHAPES, ids=str)
def test_dot_function_and_method_match_eager(shapes, dtypes):
    a, b = sample(shapes[0], dtypes[0]), sample(shapes[1], dtypes[1], seed=1)
    assert_matches_eager(F(np.dot), a, b)
    assert_matches_eager(M("dot"), a, b)


def test_dot_with_numpy_scalars_matches_eager():
    assert_matches_eager(F(np.dot), sample((), np.float32, scalar=True), sample((3,), np.float32))
    assert_matches_eager(F(np.dot), sample((), np.int8, scalar=True), sample((), np.int8, scalar=True))
    assert_matches_eager(F(np.dot), sample((3,), np.float32), 2.0)


INNER_SHAPES = [((), ()), ((), (2, 3)), ((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)),
                ((2, 5, 3), (4, 3)), ((2, 3), (3, 2))]


@pytest.mark.parametrize("dtypes", DTYPES, ids=lambda d: f"{np.dtype(d[0]).name}-{np.dtype(d[1]).name}")
@pytest.mark.parametrize("shapes", INNER_SHAPES, ids=str)
def test_inner_and_outer_match_eager(shapes, dtypes):
    a, b = sample(shapes[0], dtypes[0]), sample(shapes[1], dtypes[1], seed=1)
    assert_matches_eager(F(np.inner), a, b)
    assert_matches_eager(F(np.outer), a, b)


TENSORDOT_CASES = [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4, 5), 0),
                   ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3, 4), (4, 3), ((-1, 1), (0, -1))),
                   ((2, 3), (3, 2), (1, 0)), ((2, 3), (2, 3), 3), ((2, 3), (4, 3), 1),
                   ((2, 3), (3, 2), ([0, 1], [0])), ((), (), 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", TENSORDOT_CASES, ids=str)
def test_tensordot_matches_eager(case, dtype):
    a, b, axes = case
    assert_matches_eager(F(np.tensordot), sample(a, dtype), sample(b, dtype, seed=1), axes)
    assert_matches_eager(F(np.tensordot), sample(a, dtype), sample(b, dtype, seed=1), axes=axes)


EINSUM_CASES = [("ij,jk->ik", (2, 3), (3, 4)), ("ij,jk", (2, 3), (3, 4)), ("ij->ji", (2, 3)),
                ("ij", (2, 3)), ("ji", (2, 3)), ("ii->i", (3, 3)), ("ii", (3, 3)), ("ij->", (2, 3)),
                ("i,i->", (3,), (3,)), ("i,j->ij", (2,), (3,)), ("...ij,...jk->...ik", (5, 2, 3), (3, 4)),
                ("...i,...i", (2, 3), (4, 1, 3)), ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
                ("ij,ij->i", (3, 1), (3, 4)), ("i...->...", (2, 3, 4)), ("ij...,jk...->ik...", (2, 3, 5), (3, 4, 5)),
                ("ijk->kji", (2, 3, 4)), ("i j , j k -> i k", (2, 3), (3, 4)), ("ij,jk->ik", (2, 3), (4, 4)),
                ("ij->ik", (2, 3)), ("i,i", (0,), (0,)), ("ab,bc,cd->ad", (2, 3), (3, 4), (4, 5)),
                ("ii->i", (3, 1)), ("ii", (1, 3)), ("ij,ij->ij", (3, 1), (1, 4)), ("ij,jk", (2, 1), (3, 4)),
                ("i,i", (1,), (0,)), ("ij,j", (2, 0), (1,)), ("ij,jk->ik", (2, 3), (3, 4), (4, 5)),
                ("ijk", (2, 3)), ("i->j", (2,)), ("ab...,b", (2, 3, 4, 5), (3,)), ("...", ())]


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.complex64, np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", EINSUM_CASES, ids=lambda c: c[0])
def test_einsum_matches_eager(case, dtype):
    spec, *shapes = case
    operands = [sample(s, dtype, seed=i) for i, s in enumerate(shapes)]
    assert_matches_eager(F(np.einsum), spec, *operands)


def test_einsum_dtype_and_optimize_keywords():
    a, b = sample((2, 3), np.int8), sample((3, 4), np.int8)
    assert_matches_eager(F(np.einsum), "ij,jk->ik", a, b, dtype=np.float64)
    assert_matches_eager(F(np.einsum), "ij,jk->ik", a, b, optimize=True)


def test_einsum_operand_list_form_is_not_captured():
    a = sample((2, 3), np.float32)
    assert_unsupported(F(np.einsum), a, [0, 1], [1, 0])


@pytest.mark.parametrize("name", ["matmul", "dot", "inner"])
def test_product_with_mismatched_core_dimensions_is_unsupported_like_eager(name):
    err = assert_matches_eager(F(getattr(np, name)), sample((2, 3), np.float32), sample((4, 2), np.float32))
    assert isinstance(err, ValueError)
