"""The ops of ops_api, ops_linalg_fft and ops_ufunc_methods agree with eager
NumPy (inferred meta and the NumPy backend's bytes) over dtypes and operand
shapes including NumPy scalars, 0-d, empty and non-contiguous arrays; where
eager raises they are refused or raise the same error from the graph."""

from __future__ import annotations

import numpy as np
import pytest

from sot.ir.ops_ufunc_methods import lookup_ufunc_method
from test_ir_extra_ops import OPERANDS as EXTRA_OPERANDS, _case_id
from test_ir_oracle import (CORE_DTYPES, F, M, assert_matches_eager, assert_unsupported, sample)

OPERANDS = {**EXTRA_OPERANDS, "noncontig": lambda dt: sample((4, 3), dt).T}


def U(ufunc, method):
    op = lookup_ufunc_method(ufunc, method)
    assert op is not None
    return op


# (op, args after the operand, kwargs)
CASES = [
    (F(np.asarray), (), {}), (F(np.asarray), (np.float32,), {}), (F(np.array), (), {}),
    (F(np.array), (), {"ndmin": 3}), (F(np.array), (), {"dtype": np.int16}),
    (F(np.ascontiguousarray), (), {}), (F(np.asfortranarray), (), {}),
    (F(np.ascontiguousarray), (), {"dtype": np.float64}),
    (M("view"), (), {}),
    (F(np.angle), (), {}), (F(np.angle), (True,), {}), (F(np.sinc), (), {}),
    (F(np.ptp), (), {}), (F(np.ptp), (0,), {}), (F(np.ptp), (), {"axis": -1, "keepdims": True}),
    (F(np.nancumsum), (), {}), (F(np.nancumsum), (0,), {}), (F(np.nancumprod), (-1,), {}),
    (F(np.partition), (0,), {}), (F(np.partition), (-1,), {"axis": 0}), (F(np.argpartition), (1,), {}),
    (F(np.partition), ([0, 1],), {"axis": None}),
    (F(np.searchsorted), (0.5,), {}), (F(np.searchsorted), (np.zeros(3),), {"side": "right"}),
    (F(np.convolve), ([1.0, 2.0],), {}), (F(np.correlate), ([1.0, 2.0, 3.0],), {"mode": "same"}),
    (F(np.convolve), ([1, 2],), {"mode": "valid"}),
    (F(np.percentile), (30,), {}), (F(np.quantile), ([0.1, 0.9],), {"axis": 0}),
    (F(np.quantile), (0.5,), {"axis": -1, "keepdims": True, "method": "nearest"}),
    (F(np.nanpercentile), (50,), {}),
    (F(np.interp), ([0.0, 1.0, 2.0], [3.0, 4.0, 5.0]), {}),
    (F(np.cov), (), {}), (F(np.cov), (), {"rowvar": False}), (F(np.corrcoef), (), {}),
    (F(np.cov), (), {"ddof": 0}),
    (F(np.diag), (), {}), (F(np.diag), (1,), {}), (F(np.diag), (-2,), {}),
    (F(np.histogram), (), {"bins": 3, "range": (-2.0, 2.0)}), (F(np.histogram), ([-1.0, 0.0, 1.0],), {}),
    (F(np.histogram), (), {"bins": 4, "range": (0, 1), "density": True}),
    (F(np.meshgrid), ([1.0, 2.0, 3.0],), {}), (F(np.meshgrid), ([1, 2],), {"indexing": "ij", "sparse": True}),
    (F(np.linalg.inv), (), {}), (F(np.linalg.det), (), {}), (F(np.linalg.pinv), (), {}),
    (F(np.linalg.norm), (), {}), (F(np.linalg.norm), (), {"axis": 0}), (F(np.linalg.norm), ("fro",), {}),
    (F(np.linalg.norm), (1,), {"axis": -1, "keepdims": True}), (F(np.linalg.norm), (np.inf,), {}),
    (F(np.linalg.matrix_power), (3,), {}), (F(np.linalg.matrix_power), (0,), {}),
    (F(np.linalg.cholesky), (), {}), (F(np.linalg.eigvalsh), (), {}),
    (F(np.linalg.eigh), (), {}), (F(np.linalg.eigh), ("U",), {}), (F(np.linalg.svd), (), {}),
    (F(np.linalg.svd), (False,), {}), (F(np.linalg.svd), (), {"compute_uv": False}),
    (F(np.linalg.qr), (), {}), (F(np.linalg.qr), ("complete",), {}), (F(np.linalg.qr), ("r",), {}),
    (F(np.linalg.slogdet), (), {}),
    (F(np.fft.fft), (), {}), (F(np.fft.fft), (8,), {}), (F(np.fft.ifft), (), {"axis": 0}),
    (F(np.fft.rfft), (), {}), (F(np.fft.irfft), (), {}), (F(np.fft.irfft), (5,), {}),
    (F(np.fft.hfft), (), {}), (F(np.fft.ihfft), (), {}),
    (F(np.fft.fft2), (), {}), (F(np.fft.ifftn), (), {}), (F(np.fft.rfftn), (), {}),
    (F(np.fft.rfft2), (), {"norm": "ortho"}),
    (F(np.fft.fftshift), (), {}), (F(np.fft.ifftshift), (), {"axes": 0}),
    (F(np.pad), (1,), {}), (F(np.pad), (2,), {"mode": "reflect"}), (F(np.pad), ((0, 2),), {"mode": "edge"}),
    (F(np.pad), (1,), {"mode": "wrap"}), (F(np.pad), (1,), {"constant_values": 3}),
    (F(np.pad), (1,), {"mode": "mean"}), (F(np.pad), (2,), {"mode": "linear_ramp", "end_values": 1}),
    (F(np.lib.stride_tricks.sliding_window_view), (2,), {"axis": -1}),
    (F(np.lib.stride_tricks.sliding_window_view), (1,), {"axis": 0}),
    (U(np.add, "reduce"), (), {}), (U(np.add, "reduce"), (), {"axis": None}),
    (U(np.multiply, "reduce"), (1,), {"keepdims": True}), (U(np.maximum, "reduce"), (), {"axis": (0, -1)}),
    (U(np.add, "reduce"), (), {"dtype": np.float64, "initial": 2}),
    (U(np.subtract, "accumulate"), (), {}), (U(np.add, "accumulate"), (), {"axis": -1}),
    (U(np.logical_or, "accumulate"), (), {}),
    (U(np.subtract, "outer"), ([1, 2, 3],), {}), (U(np.multiply, "outer"), (2.5,), {}),
    (U(np.add, "reduceat"), ([0, 1],), {}), (U(np.maximum, "reduceat"), ([1, 0, 2],), {"axis": -1}),
    (U(np.add, "reduceat"), (0,), {}),
]


@pytest.mark.parametrize("operand", OPERANDS)
@pytest.mark.parametrize("dtype", CORE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_api_op_matches_eager(case, dtype, operand):
    op, args, kwargs = case
    assert_matches_eager(op, OPERANDS[operand](dtype), *args, **kwargs)


def test_square_linalg_on_stacks_and_solve_match_eager():
    a = sample((2, 3, 3), np.float64) + 5 * np.eye(3)
    a[np.isnan(a)] = 1.0
    assert_matches_eager(F(np.linalg.inv), a)
    assert_matches_eager(F(np.linalg.det), a)
    assert_matches_eager(F(np.linalg.solve), a[0], np.arange(3.0))
    assert_matches_eager(F(np.linalg.solve), a, np.ones((2, 3, 2)))
    assert_matches_eager(F(np.linalg.solve), a[0], np.ones((3, 3), np.float32))
    assert_matches_eager(F(np.linalg.solve), a[0], np.ones(4))  # mismatch: refused
    assert_matches_eager(F(np.linalg.inv), np.zeros((2, 2)))  # singular: LinAlgError from the graph


def test_take_along_axis_matches_eager():
    x = sample((3, 4), np.float32)
    idx = np.argsort(x, axis=1)
    assert_matches_eager(F(np.take_along_axis), x, idx, axis=1)
    assert_matches_eager(F(np.take_along_axis), x, idx[:1], axis=1)
    assert_matches_eager(F(np.take_along_axis), x, np.array([[3], [0], [1]]), axis=1)
    assert_matches_eager(F(np.take_along_axis), x, np.array([0, 11, 5]), axis=None)
    assert_matches_eager(F(np.take_along_axis), x, np.array([[9, 0]]), axis=1)  # out of bounds: raises
    assert_matches_eager(F(np.take_along_axis), x, idx.astype(np.float32), axis=1)


def test_arrays_from_nested_sequences_match_eager():
    x, y = sample((3,), np.float32), sample((3,), np.float32, seed=1)
    assert_matches_eager(F(np.array), [x, y])
    assert_matches_eager(F(np.array), [[1.5, 2], [3, 4]])
    assert_matches_eager(F(np.asarray), [x, y], dtype=np.float64)
    assert_matches_eager(F(np.array), [x, sample((4,), np.float32)])  # ragged: refused
    assert_matches_eager(F(np.array), [])


def test_constructors_from_sizes_match_eager():
    for n, k, m in [(3, 0, None), (4, 1, 5), (4, -2, 2), (0, 0, None), (1, 3, 1)]:
        assert_matches_eager(F(np.tri), n, m, k)
        assert_matches_eager(F(np.tri), n, m, k, dtype=int)
        assert_matches_eager(F(np.tril_indices), n, k, m)
        assert_matches_eager(F(np.triu_indices), n, k, m)
    assert_matches_eager(F(np.indices), (2, 3))
    assert_matches_eager(F(np.indices), (0, 4, 1), dtype=np.int8)
    assert_matches_eager(F(np.fft.fftfreq), 8)
    assert_matches_eager(F(np.fft.rfftfreq), 7, 0.5)
    assert_matches_eager(F(np.meshgrid), sample((3,), np.int8), sample((2, 2), np.float32), sample((4,), np.int64))
    assert_matches_eager(F(np.meshgrid), sample((3,), np.int8), sample((5,), np.int64), sample((2,), np.int16),
                         sparse=True)


def test_ufunc_methods_exist_for_every_binary_ufunc():
    for name in ("add", "subtract", "multiply", "maximum", "logical_and", "arctan2", "bitwise_or", "hypot"):
        ufunc = getattr(np, name)
        for method in ("reduce", "accumulate", "outer", "reduceat"):
            assert lookup_ufunc_method(ufunc, method) is not None
    assert lookup_ufunc_method(np.sin, "reduce") is None
    assert lookup_ufunc_method(np.add, "at") is None  # a write: not modelled here


def test_ops_refuse_what_they_cannot_capture():
    x = sample((3, 4), np.float64)
    assert_unsupported(F(np.array), x, copy=False)
    assert_unsupported(M("view"), x, np.float32)  # another itemsize depends on the strides
    assert_unsupported(F(np.partition), x, 4)
    assert_unsupported(F(np.histogram), x, bins="auto")  # the number of bins from the data
    assert_unsupported(U(np.add, "reduceat"), sample((4,), np.float64), [0, 4])
    assert_unsupported(U(np.add, "reduce"), x, where=x > 0)
    assert_unsupported(F(np.linalg.inv), x)
