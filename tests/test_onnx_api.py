"""onnxruntime with the API-breadth fixes: reshapes with -1 under symbolic
dims feeding integer reductions, compared with eager over several sizes."""
import numpy as np
import pytest

from test_onnx_symbolic import run_sizes

pytest.importorskip("onnxruntime")


def ints(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) - 7


def reshape_rows_sum(x):
    return x.reshape(x.shape[0], -1).sum(-1)


def reshape_all_sum(x):
    return x.reshape(-1, 4).sum(-1), x.reshape(-1).sum(), x.reshape(-1, 3, 4).max(axis=1)


def reshape_float(x):
    return (x.reshape(x.shape[0], -1) * 0.5).mean(-1), x.reshape(2, -1).sum(0)


@pytest.mark.parametrize("fn", [reshape_rows_sum, reshape_all_sum])
def test_integer_reshape_with_minus_one_then_sum_under_symbolic_dims(fn, sessions):
    run_sizes(fn, [3, 5, 8], lambda n: (ints(n, 3, 4),), sessions=sessions)


def test_float_reshape_with_minus_one_under_symbolic_dims(sessions):
    run_sizes(reshape_float, [4, 6, 10], lambda n: (ints(n, 3, 4).astype(np.float32),), sessions=sessions)
