"""A matrix times a vector on onnxruntime, the matrix a transpose (``X.T @ y``,
a logistic regression's gradient): onnxruntime 1.32 fuses Transpose + MatMul
with a 1-d second operand into a FusedMatMul that drops the transpose, so
sot lowers matrix @ vector as matrix @ column, squeezed."""
from __future__ import annotations

import numpy as np
import pytest

import sot
from ort_tolerance import assert_ort_close

pytest.importorskip("onnxruntime")

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 5))
X3 = rng.normal(size=(2, 30, 5))
Y30, Y5 = rng.normal(size=30), rng.normal(size=5)

PRODUCTS = {
    "X.T @ y": (lambda x, y: x.T @ y, (X, Y30)),
    "np.transpose(X) @ y": (lambda x, y: np.transpose(x) @ y, (X, Y30)),
    "X.T.dot(y)": (lambda x, y: x.T.dot(y), (X, Y30)),
    "np.matmul(X.T, y) / n": (lambda x, y: np.matmul(x.T, y) / len(y), (X, Y30)),
    "batched transpose @ y": (lambda x, y: x.transpose(0, 2, 1) @ y, (X3, Y30)),
    "swapaxes @ y": (lambda x, y: np.swapaxes(x, -1, -2) @ y + 1, (X3, Y30)),
    "y @ X.T": (lambda x, y: y @ x.T, (X, Y5)),
    "X @ y": (lambda x, y: x @ y, (X, Y5)),
    "float32 X.T @ y": (lambda x, y: x.T @ y, (X.astype(np.float32), Y30.astype(np.float32))),
    "int X.T @ y": (lambda x, y: x.T @ y, ((X * 10).astype(np.int64), (Y30 * 10).astype(np.int64))),
}


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_matrix_times_vector_on_onnxruntime_matches_numpy(name):
    fn, args = PRODUCTS[name]
    static = sot.to_static(fn, backend="onnxruntime", min_graph_size=0)
    report = sot.explain(static, *args)
    assert report.graph_count == 1 and not report.breaks
    for _ in range(2):
        assert_ort_close(static(*args), fn(*args), name, inputs=args)
