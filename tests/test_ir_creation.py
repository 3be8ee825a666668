"""Array creation — zeros, ones, full, arange, linspace, eye, *_like —
agrees with eager NumPy; ``np.empty`` is deliberately not an op."""

from __future__ import annotations

import numpy as np
import pytest

from sot.ir import lookup_function
from test_ir_oracle import CORE_DTYPES, Const, F, assert_matches_eager, assert_unsupported, sample

SHAPES = [3, (), (2, 3), (0, 4), [2, 1, 2], (Const(np.int64(2)), 3)]
DTYPE_ARGS = [None, np.float32, np.int8, "f2", bool, np.dtype("complex64"), int]


@pytest.mark.parametrize("dtype", DTYPE_ARGS, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fn", [np.zeros, np.ones], ids=lambda f: f.__name__)
def test_zeros_and_ones_match_eager(fn, shape, dtype):
    assert_matches_eager(F(fn), shape)
    assert_matches_eager(F(fn), shape, dtype)
    assert_matches_eager(F(fn), shape, dtype=dtype, order="F")


@pytest.mark.parametrize("fill", [0, 2.5, True, -1, 1j, 300, Const(np.float16(2)), sample((3,), np.int8),
                                  sample((), np.float32, scalar=True)], ids=repr)
@pytest.mark.parametrize("dtype", [None, np.float32, np.int8, np.uint8], ids=str)
def test_full_matches_eager(fill, dtype):
    assert_matches_eager(F(np.full), (2, 3), fill, dtype)
    assert_matches_eager(F(np.full), (4, 2, 3), fill, dtype=dtype)


@pytest.mark.parametrize("operand", ["scalar", "0d", "2d", "empty"])
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
def test_like_functions_match_eager(dtype, operand):
    x = {"scalar": sample((), dtype, scalar=True), "0d": sample((), dtype),
         "2d": sample((2, 3), dtype), "empty": sample((0, 3), dtype)}[operand]
    for fn in (np.zeros_like, np.ones_like):
        assert_matches_eager(F(fn), x)
        assert_matches_eager(F(fn), x, np.float32)
        assert_matches_eager(F(fn), x, shape=(4, 1))
        assert_matches_eager(F(fn), x, dtype=np.int16, shape=3)
    assert_matches_eager(F(np.full_like), x, 7)
    assert_matches_eager(F(np.full_like), x, 2.5, np.float64)
    assert_matches_eager(F(np.full_like), x, sample((3,), np.float32), shape=(2, 3))


ARANGE_ARGS = [(5,), (0,), (-3,), (2, 9), (9, 2), (1, 10, 3), (10, 1, -3), (0.0, 1.0, 0.1), (0, 1, 0.3),
               (1.5,), (0, 5, 0.5), (-1.0, 1.0, 0.25), (Const(np.float32(0)), 5), (0, 3, Const(np.int8(1))),
               (Const(np.int16(2)), Const(np.int16(7))), (0, 1e-3, 1e-4), (0, 10, 1.0 / 3), (0.1, 0.5, 0.1)]


@pytest.mark.parametrize("dtype", [None, np.float32, np.int8, np.uint8], ids=str)
@pytest.mark.parametrize("args", ARANGE_ARGS, ids=repr)
def test_arange_matches_eager(args, dtype):
    assert_matches_eager(F(np.arange), *args, dtype=dtype)


def test_arange_keyword_forms_match_eager():
    assert_matches_eager(F(np.arange), stop=4)
    assert_matches_eager(F(np.arange), 1, stop=4)
    assert_matches_eager(F(np.arange), start=1, stop=7, step=2)
    assert_matches_eager(F(np.arange), 2, step=3)
    assert_matches_eager(F(np.arange), 2, 8, step=-1)


def test_arange_of_a_traced_extent_is_unsupported():
    assert_unsupported(F(np.arange), sample((), np.int64, scalar=True))


def test_arange_with_zero_step_is_unsupported_like_eager():
    assert_matches_eager(F(np.arange), 0, 5, 0)


def test_arange_length_of_a_large_range_is_inferred_without_allocating():
    from sot.ir import StatementIR
    g = StatementIR("big")
    assert g.add_op(F(np.arange), (0, 2**50)).meta.shape == (2**50,)
    assert g.add_op(F(np.arange), (0.0, 2.0**50, 0.5)).meta.shape == (2**51,)


@pytest.mark.parametrize("kwargs", [{}, {"num": 7}, {"num": 0}, {"num": 1}, {"endpoint": False, "num": 5},
                                    {"dtype": np.float32, "num": 4}, {"dtype": np.int32, "num": 6}],
                         ids=str)
@pytest.mark.parametrize("bounds", [(0, 1), (1.5, -2.5), (Const(np.float32(0)), Const(np.float32(1))),
                                    (0, 10), (1j, 2)], ids=repr)
def test_linspace_matches_eager(bounds, kwargs):
    assert_matches_eager(F(np.linspace), *bounds, **kwargs)


def test_linspace_retstep_and_negative_num():
    """retstep=True gives (samples, step); below two points the step is the Python float nan (not captured)."""
    assert_matches_eager(F(np.linspace), 0, 1, retstep=True)
    assert_matches_eager(F(np.linspace), np.float32(0), 2, 4, retstep=True, endpoint=False)
    assert_unsupported(F(np.linspace), 0, 1, 1, retstep=True)
    assert_matches_eager(F(np.linspace), 0, 1, -1)


@pytest.mark.parametrize("args", [(3,), (0,), (2, 4), (4, 2, 1), (3, 3, -1), (3, None, 5), (1,)], ids=repr)
@pytest.mark.parametrize("dtype", [None, np.int8, np.bool_, np.complex64], ids=str)
def test_eye_matches_eager(args, dtype):
    assert_matches_eager(F(np.eye), *args, dtype=dtype)


def test_empty_is_not_an_op_because_its_contents_are_garbage():
    assert lookup_function(np.empty) is None
    assert lookup_function(np.empty_like) is None


def test_creation_with_like_or_negative_shape_is_unsupported():
    assert_unsupported(F(np.zeros), (2, 3), like=sample((1,), np.float32))
    assert_matches_eager(F(np.ones), (-1, 3))
