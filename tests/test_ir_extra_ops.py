"""Ops beyond the core list — nan-reductions, median, sort/argsort, diff,
isclose, nan_to_num, real/imag, tril/triu, flips, roll, atleast_*d, tile,
repeat, take, diagonal, trace, array_split/hsplit/vsplit/dsplit — agree
with eager NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from test_ir_oracle import CORE_DTYPES, F, M, assert_matches_eager, assert_unsupported, sample

OPERANDS = {
    "scalar": lambda dt: sample((), dt, scalar=True),
    "0d": lambda dt: sample((), dt),
    "1d": lambda dt: sample((6,), dt),
    "2d": lambda dt: sample((3, 4), dt),
    "3d": lambda dt: sample((2, 3, 4), dt),
    "empty": lambda dt: sample((0, 3), dt),
}

CASES = [
    (F(np.nansum), (), {}), (F(np.nansum), (1,), {"keepdims": True}), (F(np.nanprod), (-1,), {}),
    (F(np.nanmean), (), {"axis": 0}), (F(np.nanmax), (), {}), (F(np.nanmin), (0,), {}),
    (F(np.nanargmax), (), {}), (F(np.nanargmin), (-1,), {}), (F(np.nanvar), (), {"ddof": 1}),
    (F(np.nanstd), (None,), {"keepdims": True}), (F(np.median), (), {}), (F(np.median), (0,), {}),
    (F(np.median), (), {"axis": (0, 1), "keepdims": True}), (F(np.nanmedian), (-1,), {}),
    (F(np.sort), (), {}), (F(np.sort), (0,), {}), (F(np.sort), (None,), {}), (F(np.sort), (), {"kind": "stable"}),
    (F(np.argsort), (), {}), (F(np.argsort), (), {"axis": None}), (M("argsort"), (0,), {}),
    (M("argsort"), (), {"stable": True}),
    (F(np.diff), (), {}), (F(np.diff), (2,), {}), (F(np.diff), (), {"axis": 0}), (F(np.diff), (0,), {}),
    (F(np.diff), (7,), {}),
    (F(np.isclose), (0.5,), {}), (F(np.isclose), (1,), {"atol": 2.0, "equal_nan": True}),
    (F(np.nan_to_num), (), {}), (F(np.nan_to_num), (), {"nan": -1.0, "posinf": 9.0}),
    (F(np.real), (), {}), (F(np.imag), (), {}),
    (F(np.tril), (), {}), (F(np.triu), (1,), {}), (F(np.tril), (), {"k": -1}),
    (F(np.flip), (), {}), (F(np.flip), (0,), {}), (F(np.flip), (), {"axis": (0, -1)}),
    (F(np.fliplr), (), {}), (F(np.flipud), (), {}),
    (F(np.roll), (1,), {}), (F(np.roll), (-2,), {"axis": 0}), (F(np.roll), ((1, 2), (0, -1)), {}),
    (F(np.atleast_1d), (), {}), (F(np.atleast_2d), (), {}), (F(np.atleast_3d), (), {}),
    (F(np.tile), (2,), {}), (F(np.tile), ((2, 1),), {}), (F(np.tile), ((0, 2, 1, 3),), {}), (F(np.tile), ((),), {}),
    (F(np.repeat), (2,), {}), (F(np.repeat), (3,), {"axis": 0}), (F(np.repeat), (0,), {"axis": -1}),
    (M("repeat"), (2,), {}), (M("repeat"), (1, 1), {}),
    (F(np.take), ([0, -1],), {}), (F(np.take), (1,), {"axis": 0}), (F(np.take), ([[0, 1]],), {"axis": -1}),
    (F(np.take), ([5],), {"mode": "clip"}), (F(np.take), ([5],), {"mode": "wrap", "axis": 0}),
    (F(np.take), ([7],), {}), (M("take"), ([2, 0],), {}), (M("take"), (0, 1), {}),
    (F(np.diagonal), (), {}), (F(np.diagonal), (1,), {}), (F(np.diagonal), (-1, 1, 0), {}),
    (F(np.diagonal), (), {"offset": 9}), (M("diagonal"), (), {"axis1": -1, "axis2": 0}),
    (F(np.trace), (), {}), (F(np.trace), (1,), {}), (F(np.trace), (), {"dtype": np.float32}),
    (M("trace"), (0, -1, 0), {}),
    (F(np.array_split), (3,), {}), (F(np.array_split), (4,), {"axis": -1}), (F(np.array_split), ([1, 2],), {}),
    (F(np.hsplit), (2,), {}), (F(np.vsplit), (1,), {}), (F(np.dsplit), (2,), {}), (F(np.hsplit), ([1],), {}),
]


def _case_id(case):
    op, args, kwargs = case
    return f"{op.kind}:{op.name}{args}{kwargs or ''}"


@pytest.mark.parametrize("operand", OPERANDS)
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_extra_op_matches_eager(case, dtype, operand):
    op, args, kwargs = case
    assert_matches_eager(op, OPERANDS[operand](dtype), *args, **kwargs)


def test_take_with_traced_indices_matches_eager():
    x = sample((3, 4), np.float32)
    assert_matches_eager(F(np.take), x, np.array([[0, 5], [11, 2]]))
    assert_matches_eager(F(np.take), x, np.array([3, 0]), axis=1)
    assert_matches_eager(M("take"), x, np.array(2))
    assert_matches_eager(F(np.take), x, np.array([1, 9]), axis=0)  # out of bounds: raises at run time


def test_take_with_boolean_indices_is_unsupported():
    assert_unsupported(F(np.take), sample((3,), np.float32), np.array([True, False, True]))


def test_extra_ops_refuse_what_they_cannot_capture():
    x = sample((3, 4), np.float64)
    assert_unsupported(F(np.median), x, overwrite_input=True)
    assert_unsupported(F(np.nan_to_num), x, copy=False)
    assert_unsupported(F(np.diff), x, prepend=np.zeros((3, 2)), axis=0)   # off-axis dims differ: NumPy raises
    assert_unsupported(F(np.repeat), x, [1, 2], axis=0)   # a count per element, but 2 for 3 rows: NumPy raises
    assert_unsupported(F(np.repeat), x, np.float64(2))   # traced counts (a data-dependent size) must cast to intp
    assert_unsupported(F(np.repeat), x, np.arange(2), axis=0)   # 2 traced counts for 3 rows: NumPy raises
    assert_unsupported(F(np.roll), x, np.int64(1))
    assert_unsupported(F(np.atleast_1d), x, x)
    assert_unsupported(F(np.sort), sample((3,), np.float32), order="x")
