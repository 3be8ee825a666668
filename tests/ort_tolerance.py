"""How close onnxruntime's results must be to NumPy's, on any CPU.

onnxruntime's kernels are not NumPy's: MatMul, reductions, Exp/Tanh and the
fused ops accumulate in another order and pick their instructions per CPU
(SSE, AVX2, AVX-512, NEON), so a float32 result differs from NumPy's by a
few units in the last place per operation, and more where a sum cancels.
A tolerance that holds on every x86-64 and ARM CPU therefore:

* is set by the *least precise* float in the computation: a float64 result
  computed from float32 arrays (``q @ k.T / np.sqrt(d)``) carries float32
  rounding, so it gets float32's tolerance;
* has an absolute part scaled to the result's magnitude (a sum that cancels
  to ~0 is still off by ~eps times its terms).

Types, dtypes and shapes are always compared exactly; integers and bools
exactly; NaNs must be where NumPy has them.
"""
from __future__ import annotations

import numpy as np

# relative tolerance by dtype; float32: ~1000 ulp, room for a K=512 MatMul
# or a long reduction accumulated in another order
RTOL = {"float16": 2e-3, "float32": 1e-4, "float64": 1e-12}


def _float_names(value) -> set:
    if isinstance(value, (tuple, list)):
        return set().union(*(_float_names(v) for v in value)) if value else set()
    if isinstance(value, dict):
        return _float_names(list(value.values()))
    if isinstance(value, (np.dtype, type)):
        dtype = np.dtype(value)
    else:
        dtype = getattr(value, "dtype", None)
    if dtype is not None and np.dtype(dtype).kind == "f":
        return {np.dtype(dtype).name}
    return set()


def loosest_rtol(*values) -> float | None:
    """The rtol of the least precise float dtype among ``values`` (arrays,
    NumPy scalars, dtypes, or containers of them); None without floats."""
    names = _float_names(list(values))
    return max((RTOL[n] for n in names if n in RTOL), default=None)


def assert_ort_close(got, want, path="result", *, inputs=(), rtol=None):
    """``got`` (from onnxruntime) matches ``want`` (NumPy): same Python type,
    dtype and shape; values within the tolerance of the least precise float
    among ``want`` and ``inputs`` (``rtol`` can only loosen it).
    Recurses into tuples and lists."""
    assert type(got) is type(want), f"{path}: type {type(got).__name__} != {type(want).__name__}"
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), f"{path}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_ort_close(g, w, f"{path}[{i}]", inputs=inputs, rtol=rtol)
        return
    if not isinstance(want, (np.ndarray, np.generic)):
        assert got == want, f"{path}: {got!r} != {want!r}"
        return
    assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{path}: shape {got.shape} != {want.shape}"
    if want.dtype.kind not in "fc":
        assert np.array_equal(got, want), f"{path}: values differ\n{got!r}\n{want!r}"
        return
    tol = max(rtol or 0.0, loosest_rtol(want, inputs) or RTOL["float64"])
    finite = np.isfinite(want)
    scale = float(np.max(np.abs(want[finite]), initial=1.0)) if np.ndim(want) else max(1.0, abs(float(want)) if finite else 1.0)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * min(scale, 1e3), equal_nan=True, err_msg=path)
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{path}: NaNs differ"
