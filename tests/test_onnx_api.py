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


# -- gathers: integer-array indexing, take, take_along_axis ------------------------

from test_ir_oracle import F, M, O, Const, sample  # noqa: E402
from test_onnx_lowering import assert_backends_agree  # noqa: E402

GATHER_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", GATHER_DTYPES)
@pytest.mark.parametrize("index", [np.array([0, 2, -1, 2]), np.array([[1, 0], [-3, 2]]), np.array(1),
                                   np.array([], np.int64), np.array([2, 0], np.int32),
                                   np.array([1, 2], np.uint8)], ids=lambda i: f"{i.dtype}{list(i.shape)}")
def test_index_array_gathers_agree(dtype, index):
    x = sample((3, 4), dtype, 5)
    empty = index.size == 0  # zero-size arrays stay on NumPy
    assert_backends_agree(O("getitem"), x, index, may_not_lower=empty)
    assert_backends_agree(O("getitem"), x, (slice(None), index % 4), may_not_lower=empty)
    assert_backends_agree(O("getitem"), sample((2, 3, 4), dtype, 6), (Ellipsis, index % 4), may_not_lower=empty)
    assert_backends_agree(F(np.take), x, index, may_not_lower=empty)
    assert_backends_agree(F(np.take), x, index, axis=1, may_not_lower=empty)
    assert_backends_agree(M("take"), x, index % 3, 0, may_not_lower=empty)


@pytest.mark.parametrize("index", [[0, 2, -1], [[1], [2]], [], Const(np.array([3, -3]))])
def test_constant_index_lists_gather_agree(index):
    empty = index == []
    assert_backends_agree(O("getitem"), sample((3, 4), "float32", 7), index, may_not_lower=empty)
    assert_backends_agree(F(np.take), sample((3, 4), "int64", 7), index, axis=0, may_not_lower=empty)


def test_constant_index_out_of_bounds_is_not_captured():
    from test_ir_oracle import assert_unsupported
    assert_unsupported(O("getitem"), sample((3, 4), "float32", 7), [0, 3])


@pytest.mark.parametrize("dtype", GATHER_DTYPES)
def test_take_along_axis_gathers_agree(dtype):
    x = sample((3, 4), dtype, 8)
    idx = np.argsort(sample((3, 4), "float32", 9), axis=1)
    assert_backends_agree(F(np.take_along_axis), x, idx, axis=1)
    assert_backends_agree(F(np.take_along_axis), x, idx[:, :2] - 4, axis=-1)
    assert_backends_agree(F(np.take_along_axis), x, np.array([0, 11, -1]), axis=None)
    assert_backends_agree(F(np.take_along_axis), x, idx[:1], axis=1, may_not_lower=True)  # broadcast


def test_out_of_bounds_traced_indices_raise_eagers_error_on_onnxruntime():
    import sot
    table = sample((5, 3), "float32", 1)

    def f(ids):
        return table[ids] * 2, np.take(table, ids, axis=0), np.take_along_axis(table, ids * 3, axis=None)
    static = sot.to_static(f, backend="onnxruntime")
    for good in (np.array([0, 4, -5]), np.array([1])):
        for want, got in zip(f(good), static(good)):
            np.testing.assert_allclose(got, want)
    for bad in (np.array([5]), np.array([-6, 0]), np.array([2 ** 40])):
        with pytest.raises(IndexError) as eager:
            f(bad)
        with pytest.raises(IndexError) as traced:
            static(bad)
        assert str(traced.value) == str(eager.value)


def test_uint64_indices_are_not_lowered():
    from sot.backends import compile_graph
    from test_onnx_lowering import one_op_graph
    graph, _ = one_op_graph(O("getitem"), (sample((3, 4), "float32", 7), np.array([1], np.uint64)), {})
    (entry, *_) = compile_graph(graph, "onnxruntime").explain()["not_lowered"]
    assert entry["op"] == "getitem" and "uint64" in entry["reason"]


def test_embedding_lookup_with_symbolic_length(sessions):
    table = sample((10, 4), "float32", 2)

    def embed(ids):
        return table[ids] + table[np.arange(ids.shape[0]) % 10]
    run_sizes(embed, [3, 5, 9], lambda n: (np.arange(n, dtype=np.int64) % 10,), sessions=sessions)
