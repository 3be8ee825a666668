"""Graphs with symbolic dims on onnxruntime: one ONNX model for every size.

Differential: each function runs eagerly and decorated (backend onnxruntime
or auto, the batch dim symbolic) over several sizes; results must have the
eager types, dtypes and shapes, values exact for ints and bools and within
float tolerance for floats; the graph must be compiled once, symbolically
(its sessions counted), and sizes where the symbolic graph does not hold
run on NumPy, raising as eager does."""
import os
import sys

import numpy as np
import pytest

import sot
from sot.backends import compile_graph
from sot.backends.onnx.symbolic import SymbolicOnnxGraph
from sot.backends.symbolic_shapes import PerShapeCompiledGraph, check_sizes
from sot.ir import StatementIR, TensorMeta
from test_ir_oracle import F, O
from test_dynamic_shapes import first_half, reshape_rows, scaled, zeros_rows  # the acceptance cases
from test_onnx_lowering import assert_close

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import workloads as W  # noqa: E402

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")


def close(want, got, path="result"):
    assert type(got) is type(want), f"{path}: {type(got).__name__} != {type(want).__name__}"
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for i, (w, g) in enumerate(zip(want, got)):
            close(w, g, f"{path}[{i}]")
    else:
        assert_close(got, want, path, rtol=1e-5)


def graphs_of(static, *args):
    return [g for e in sot.explain(static, *args).entries for g in e.graphs]


def run_sizes(fn, sizes, make, backend="onnxruntime", symbolic=True, sessions=None, axes=(0,)):
    """Eager vs decorated at each size, ``axes`` of the arrays symbolic; with
    ``sessions`` (the fixture), no session is created after the first size."""
    static = sot.to_static(fn, backend=backend, dynamic=False)
    first = None
    for n in sizes:
        if sessions is not None and first is None and n != sizes[0]:
            first = len(sessions)
        args = make(n)
        _mark(args, axes)
        try:
            want = fn(*args)
        except Exception as e:  # noqa: BLE001 - the decorated call must raise the same
            with pytest.raises(type(e)) as info:
                static(*args)
            assert str(info.value) == str(e)
            continue
        close(want, static(*args))
    assert sot.translation_count(static) == 1
    if sessions is not None:
        assert len(sessions) == first, "a session was created for a new size"
    if symbolic:
        args = make(sizes[0])
        _mark(args, axes)
        backends = [g[1] for g in graphs_of(static, *args)]
        assert backends and all("symbolic" in b or b == "numpy" for b in backends), backends
    return static


def _mark(args, axes):
    for a in args:   # symbolic from the first call
        if isinstance(a, np.ndarray):
            sot.mark_dynamic(a, [i for i in axes if i < a.ndim and a.shape[i] >= 2])


def f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# -- shape arithmetic -----------------------------------------------------------------

def python_numbers(x):
    n = x.shape[0]
    return (x.shape, x.size, n * 2 - 1, n / 3, -n, n // 3, n % 4, n ** 2, abs(1 - n), n == 7,
            x.mean(axis=0) * n, x[n - 1], x[-1], np.sqrt(n) * x[0])


def reshapes(x):
    n, m = x.shape[0], x.shape[1]
    y = x.reshape(n * m, -1)
    return y.reshape(-1), x.ravel() + 1, x.reshape(m, n, -1).sum(axis=1), np.expand_dims(x, 1).squeeze(1)


def reductions(x):
    i = (x * 100).astype(np.int64)
    return (x.sum(axis=0), x.max(axis=0), x.min(axis=(0, 2)), x.mean(), x.var(axis=0), x.std(axis=0, ddof=1),
            x.argmax(axis=0), x.argmin(), i.sum(axis=0), i.max(axis=0), i.argmax(axis=0), i.sum(),
            (x > 0).any(axis=0), (x > 0).all(axis=1), np.cumsum(x), x.cumsum(axis=0), i.argmax(axis=0, keepdims=True))


def indexing(x):
    n = x.shape[0]
    # + 0: a returned view stays on NumPy (it shares memory with x)
    return (x[1:] + 0, x[-3:] + 0, x[::-1] + 0, x[::2] + 0, x[:-1, None] + 0, x[..., 0] + 0,
            x[n // 3: n - 1] + 0, x[2:n:2] + 0, x[:, 1:] + 0, x[1, :, 2] + 0, x[-2, 1] + 0,
            x[: n // 2, ::-1] + 0, x[n - 2] + 0, x[-n] + 0, x[::-1][n // 2] + 0)


def joins(x):
    return (np.concatenate([x, x * 2]), np.stack([x, x], axis=1), np.concatenate([x, x], axis=None),
            np.hstack([x, x]), np.vstack([x[0], x[1]]), np.concatenate([x[:1], x]))


def splits(x):
    a, b = np.split(x, [1])
    c, d, e = np.array_split(x, 3)
    f, g = np.split(x, 2, axis=2)
    return a + 1, b * 2, c, d, e, f - g, np.split(x, [x.shape[0] // 2, 5])[1]


def creation(x):
    n = x.shape[0]
    return (np.zeros_like(x), np.full_like(x, 2.5), np.ones((n, 2), np.int32), np.full((2, n), 7),
            np.arange(n), np.arange(1, n, 2), np.broadcast_to(x[:, :1, :1], (n, 3, 4)) + 0,
            np.zeros(n) + x[:, 0, 0])


def rearrange(x):
    return (np.tile(x, (2, 1, 1)), np.repeat(x, 2, axis=0), np.repeat(x, 3), np.roll(x, 2, axis=0),
            np.roll(x, -1), np.outer(x[:, 0, 0], x[:, 1, 1]), np.flip(x, 0), np.tril(x), x.T, x.swapaxes(0, 1),
            np.transpose(x, (1, 0, 2)), x.astype(np.int16), x @ x[0].T, np.where(x > 0, x, 0.5),
            np.clip(x, -0.5, 0.5))


def layers(x):
    return W.softmax(x), W.gelu_tanh(x), W.layernorm(x, LN_W, LN_B), x @ LN_M + LN_B


def python_number_operands(x):
    # a Python number where a fused pattern expects an array (gemm's bias, layernorm's scale)
    n = x.shape[0]
    return x[0] @ LN_M + n, W.layernorm(x, n, LN_B), W.layernorm(x, LN_W, x.shape[-1] / 2)


LN_W, LN_B, LN_M = f32(4, seed=7), f32(4, seed=8), f32(4, 4, seed=9)


CASES = [
    (reshape_rows, (2, 3, 4)), (scaled, (2, 3, 4)), (zeros_rows, (2, 3, 4)), (first_half, (2, 3, 4)),
    (python_numbers, (2, 3, 4)), (reshapes, (2, 3, 4)), (reductions, (2, 3, 4)), (indexing, (5, 3, 4)),
    (joins, (2, 3, 4)), (splits, (6, 3, 4)), (creation, (2, 3, 4)), (rearrange, (2, 3, 4)),
    (layers, (2, 3, 4)), (python_number_operands, (2, 3, 4)),
]


@pytest.mark.parametrize("fn,shape", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_symbolic_graph_matches_eager_at_every_size(fn, shape, sessions):
    def make(n):
        return (f32(n, *shape[1:], seed=n),)
    run_sizes(fn, [shape[0], 3, 7, 2, 16, 5, 3, 10], make, sessions=sessions)
    assert sessions


@pytest.mark.parametrize("fn", [reshape_rows, scaled, zeros_rows, first_half, python_numbers])
def test_auto_backend_runs_the_symbolic_model(fn, sessions, symbolic_graphs):
    run_sizes(fn, [2, 3, 9, 4, 17, 3, 2, 8, 5], lambda n: (f32(n, 3, 8, seed=n),), backend="auto",
              symbolic=False, sessions=sessions)
    assert len(sessions) >= 1 and symbolic_graphs


def test_two_symbolic_dims_and_int_dtypes():
    def f(x, y):
        n, m = x.shape
        return (x.reshape(m, n).T * 3 + y[:m], (x // 3) % 5, x.sum(axis=1) * m, np.argmax(x, axis=1),
                x[n - 1] << 2, (x > 4) & (y[:m] < 5))
    make = lambda n: (np.arange(n * (n + 3), dtype=np.int64).reshape(n, n + 3) - 7,  # noqa: E731
                      np.arange(2 * n + 9, dtype=np.int64) % 11)
    run_sizes(f, [2, 3, 6, 11, 4], make, axes=(0, 1))


def test_sizes_where_the_graph_does_not_hold_run_numpy_and_raise_like_eager(sessions, symbolic_graphs):
    def f(x):
        return np.zeros((x.shape[0] - 3, 2)) + x.sum(), x.squeeze()[: x.shape[0] - 2]

    # size 2: np.zeros((-1, 2)) raises; size 3: a zero-size result; size 4: ok
    run_sizes(f, [5, 2, 3, 4, 8, 2], lambda n: (f32(n, 1, seed=n),), sessions=sessions)
    g = symbolic_graphs[0]
    report = g.explain()
    assert [(5, 1)] in report["checked_shapes"] and [(8, 1)] in report["checked_shapes"]
    assert [(2, 1)] in report["numpy_shapes"] and [(3, 1)] in report["numpy_shapes"]


def test_mlp_one_model_for_batch_sizes_1_to_50(sessions):
    mlp = W.MLP(layers=4, width=32, seed=2)
    static = sot.to_static(mlp, backend="onnxruntime")
    for b in range(1, 51):
        x = f32(b, 32, seed=b)
        close(mlp(x), static(x))
    # batch 1 is a static entry, then one symbolic entry serves 2..50
    assert sot.translation_count(static) == 2
    assert len(sessions) == 2
    backends = [g[1] for g in graphs_of(static, f32(9, 32))]
    assert backends == ["onnxruntime (symbolic)"]


@pytest.fixture
def symbolic_graphs(monkeypatch):
    """The SymbolicOnnxGraphs compiled while the test runs."""
    made = []
    real = SymbolicOnnxGraph.__init__

    def recording(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)
    monkeypatch.setattr(SymbolicOnnxGraph, "__init__", recording)
    return made


# -- the lowering itself ----------------------------------------------------------------


def _symbolic_graph():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((6, 4), np.float32), "x", symbolic=[(0, "b")])
    n = g.add_dim(x, 0)
    h = g.add_op(O("floordiv"), (n, 2))
    y = g.add_op(O("getitem"), (x, slice(None, h)))
    z = g.add_op(O("mul"), (y, g.add_op(O("truediv"), (n, 3))))
    r = g.add_op(F(np.reshape), (z, (-1,)))
    g.set_outputs([r, h])
    return g


def test_model_has_dim_params_and_computes_sizes_from_shapes():
    g = _symbolic_graph()
    compiled = compile_graph(g, "onnxruntime")
    assert isinstance(compiled, SymbolicOnnxGraph) and compiled.sessions == 1
    (model,) = compiled.models
    onnx.checker.check_model(model, full_check=True)
    (inp,) = model.graph.input
    assert [d.dim_param or d.dim_value for d in inp.type.tensor_type.shape.dim] == ["s0", 4]
    ops = {n.op_type for n in model.graph.node}
    assert {"Shape", "Slice"} <= ops
    ref = compile_graph(g, "numpy")
    for n in (2, 3, 7, 12):
        x = f32(n, 4, seed=n)
        close(ref(x), compiled(x))
        assert type(compiled(x)[1]) is int


def test_check_sizes_gives_python_numbers_or_none():
    g = _symbolic_graph()
    numbers = check_sizes(g, [np.zeros((9, 4), np.float32)])
    assert sorted(numbers.values()) == [3.0, 4, 9]                     # n, n // 2, n / 3
    assert [type(v) for v in numbers.values()] == [int, int, float]
    assert check_sizes(g, [np.zeros((1, 4), np.float32)]) is None      # x[:0]: zero-size
    assert check_sizes(g, [np.zeros((9, 5), np.float32)]) is None      # a static dim differs


def test_statement_not_lowered_symbolically_falls_back_per_shape(caplog):
    g = StatementIR("g")
    x = g.add_input(TensorMeta((6, 4), np.float32), "x", symbolic=[(0, "b")])
    n = g.add_dim(x, 0)
    y = g.add_op(O("getitem"), (x, slice(n, None, -1)))   # a negative step from a traced start
    g.set_outputs([g.add_op(O("mul"), (y, 2.0))])
    sot.set_verbosity(1)
    try:
        with caplog.at_level("INFO", logger="sot"):
            compiled = compile_graph(g, "onnxruntime")
    finally:
        sot.set_verbosity(0)
    assert isinstance(compiled, PerShapeCompiledGraph)
    assert "compiled per input shape" in caplog.text and "negative-step" in caplog.text
    ref = compile_graph(g, "numpy")
    for size in (2, 5, 9):
        x_value = f32(size, 4, seed=size)
        close(ref(x_value), compiled(x_value))


def test_python_number_in_a_narrow_integer_loop_is_not_lowered_symbolically():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((6, 4), np.int32), "x", symbolic=[(0, "b")])
    n = g.add_dim(x, 0)
    g.set_outputs([g.add_op(O("add"), (x, n))])     # NumPy raises for n out of int32's range
    compiled = compile_graph(g, "onnxruntime")
    assert isinstance(compiled, PerShapeCompiledGraph)
    for size in (2, 5):
        x_value = np.arange(size * 4, dtype=np.int32).reshape(size, 4)
        close(compile_graph(g, "numpy")(x_value), compiled(x_value))
