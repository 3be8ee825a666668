"""Fused patterns: the benchmark workloads run on onnxruntime with the fused
op in the emitted ONNX graph and results within float tolerance of eager;
variants fuse too, and a pattern whose intermediate is needed elsewhere does
not."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import sot
from sot.backends import compile_graph
from sot.ir import StatementIR, TensorMeta
from test_ir_oracle import F, M, O
from ort_tolerance import assert_ort_close
from test_onnx_lowering import assert_close

pytest.importorskip("onnxruntime")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import workloads as W  # noqa: E402

RNG = np.random.default_rng(0)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def onnx_graphs(fn, *args):
    """Run ``fn`` under backend='onnxruntime'; the (backend, source) of each graph."""
    static = sot.to_static(fn, backend="onnxruntime")
    report = sot.explain(static, *args)
    graphs = [(backend, src) for e in report.entries for _ops, backend, src in e.graphs]
    return static, graphs


def op_types(source: str) -> set:
    """Op types called in a printed ONNX graph (``name = Op <attrs> (inputs)``)."""
    found = set()
    for line in source.splitlines():
        if " = " in line:
            rhs = line.split(" = ", 1)[1].strip()
            found.add(rhs.split(" ")[0].split("(")[0].split("<")[0].split(".")[-1])
    return found


def assert_like_eager(fn, args, out):
    """``out`` (onnxruntime) is eager ``fn(*args)``: same type, dtype and shape,
    values within the tolerance of the least precise float involved (a
    float64 result of float32 inputs went through float32 MatMuls)."""
    assert_ort_close(out, fn(*args), inputs=args)


WORKLOADS = {
    "gelu_tanh": (W.gelu_tanh, lambda: (f32(64, 64),), {"FastGelu"}, {"Tanh", "Pow"}),
    "gelu_cube": (W.gelu_cube, lambda: (f32(64, 64),), {"FastGelu"}, {"Tanh"}),
    "softmax": (W.softmax, lambda: (f32(32, 128),), {"Softmax"}, {"Exp", "ReduceMax", "ReduceSum"}),
    "layernorm": (W.layernorm, lambda: (f32(32, 128), f32(128), f32(128)), {"LayerNormalization"},
                  {"Sqrt", "Pow", "Div"}),   # (1.23: a ReduceMean centres the rows first)
    "attention": (W.attention, lambda: (f32(2, 64, 16), f32(2, 64, 16), f32(2, 64, 16)),
                  {"Softmax", "MatMul"}, {"Exp", "ReduceMax", "ReduceSum"}),
    "attention_f32": (W.attention_f32, lambda: (f32(2, 64, 16), f32(2, 64, 16), f32(2, 64, 16)),
                      {"Softmax", "MatMul"}, {"Exp", "ReduceMax", "ReduceSum", "Cast"}),
    "mlp": (W.MLP(layers=4, width=32), lambda: (f32(8, 32),), {"Gemm"}, {"Add"}),
}


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workload_runs_on_onnxruntime_with_its_fused_op(name):
    fn, make_args, fused, gone = WORKLOADS[name]
    args = make_args()
    static, graphs = onnx_graphs(fn, *args)
    assert len(graphs) == 1, graphs
    backend, source = graphs[0]
    assert backend == "onnxruntime"
    ops = op_types(source)
    assert fused <= ops, f"{fused - ops} missing from\n{source}"
    assert not (gone & ops), f"{gone & ops} left unfused in\n{source}"
    for _ in range(2):
        assert_like_eager(fn, args, static(*args))


def test_attention_keeps_numpys_float64_scores():
    # q @ k.T / np.sqrt(d) divides by a float64 scalar: eagerly the scores,
    # the softmax and the result are float64, and so they are on onnxruntime
    args = WORKLOADS["attention"][1]()
    static, graphs = onnx_graphs(W.attention, *args)
    out = static(*args)
    assert out.dtype == np.float64
    assert "double" in graphs[0][1]
    assert_like_eager(W.attention, args, out)


def test_attention_with_a_python_float_scale_stays_float32_on_onnxruntime():
    args = WORKLOADS["attention_f32"][1]()
    static, graphs = onnx_graphs(W.attention_f32, *args)
    out = static(*args)
    assert out.dtype == np.float32 and W.attention(*args).dtype == np.float64
    assert "double" not in graphs[0][1]
    assert_like_eager(W.attention_f32, args, out)


def test_mlp_batch_one_and_wide_agree():
    mlp = W.MLP(layers=42, width=64)
    static = sot.to_static(mlp, backend="onnxruntime")
    for batch in (1, 16):
        x = f32(batch, 64)
        assert_like_eager(mlp, (x,), static(x))


@pytest.mark.parametrize("offset", [1000.0, 1e5])
def test_layernorm_of_rows_with_a_large_mean_is_as_accurate_as_numpy(offset):
    x = (f32(16, 1024) + offset).astype(np.float32)
    w, b = np.ones(1024, np.float32), np.zeros(1024, np.float32)
    static = sot.to_static(W.layernorm, backend="onnxruntime")
    out = static(x, w, b)
    truth = W.layernorm(x.astype(np.float64), w, b)
    numpy_error = np.max(np.abs(W.layernorm(x, w, b) - truth))
    assert np.max(np.abs(out - truth)) <= 2 * numpy_error


# ----------------------------------------------------------------------------
# variants and non-matches, on the IR

def softmax_graph(spelling, axis=-1, returned_extra=False, dtype=np.float64):
    g = StatementIR("softmax")
    x = g.add_input(TensorMeta((6, 5, 7), dtype))
    if spelling == "functions":
        m = g.add_op(F(np.max), (x,), {"axis": axis, "keepdims": True})
        e = g.add_op(F(np.exp), (g.add_op(F(np.subtract), (x, m)),))
        s = g.add_op(F(np.sum), (e,), {"axis": axis, "keepdims": True})
        y = g.add_op(F(np.divide), (e, s))
    else:
        m = g.add_op(M("max"), (x,), {"axis": axis, "keepdims": True})
        e = g.add_op(F(np.exp), (g.add_op(O("sub"), (x, m)),))
        s = g.add_op(M("sum"), (e,), {"axis": axis, "keepdims": True})
        y = g.add_op(O("truediv"), (e, s))
    g.set_outputs([y, s] if returned_extra else [y])
    return g


def run_both(g, *inputs):
    compiled = compile_graph(g, "onnxruntime")
    ref = compile_graph(g, "numpy")(*inputs)
    for a, e in zip(compiled(*inputs), ref):
        assert_close(a, e)
    return compiled


@pytest.mark.parametrize("spelling", ["methods", "functions"])
@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_softmax_fuses_on_any_axis_in_any_spelling(spelling, axis):
    x = RNG.standard_normal((6, 5, 7))
    x[0, 0, 0] = np.nan
    compiled = run_both(softmax_graph(spelling, axis), x)
    assert compiled.explain()["fused"] == ["softmax"]


def test_softmax_whose_sum_is_also_returned_is_not_fused():
    compiled = run_both(softmax_graph("methods", returned_extra=True), RNG.standard_normal((6, 5, 7)))
    assert compiled.explain()["fused"] == [] and compiled.backend == "onnxruntime"


def test_gelu_with_another_constant_is_not_fused():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((4, 4), np.float32))
    inner = g.add_op(O("mul"), (0.7, g.add_op(O("add"), (x, g.add_op(O("mul"), (0.044715, g.add_op(O("pow"), (x, 3))))))))
    y = g.add_op(O("mul"), (g.add_op(O("mul"), (0.5, x)), g.add_op(O("add"), (1, g.add_op(F(np.tanh), (inner,))))))
    g.set_outputs([y])
    compiled = run_both(g, f32(4, 4))
    assert compiled.explain()["fused"] == []


def test_gemm_needs_two_dimensional_operands_and_fuses_bias_of_any_broadcast():
    for a_shape, bias_shape, fused in [((4, 8), (3,), True), ((4, 8), (4, 3), True), ((4, 8), (1, 3), True),
                                      ((2, 4, 8), (3,), False)]:
        g = StatementIR("g")
        a = g.add_input(TensorMeta(a_shape, np.float32))
        w = g.add_input(TensorMeta((8, 3), np.float32))
        b = g.add_input(TensorMeta(bias_shape, np.float32))
        g.set_outputs([g.add_op(O("add"), (g.add_op(O("matmul"), (a, w)), b))])
        compiled = run_both(g, f32(*a_shape), f32(8, 3), f32(*bias_shape))
        assert compiled.explain()["fused"] == (["gemm"] if fused else [])


def test_layernorm_with_var_and_without_affine_fuses():
    g = StatementIR("ln")
    x = g.add_input(TensorMeta((5, 16), np.float32))
    mean = g.add_op(M("mean"), (x, -1), {"keepdims": True})
    var = g.add_op(M("var"), (x, -1), {"keepdims": True})
    y = g.add_op(O("truediv"), (g.add_op(O("sub"), (x, mean)), g.add_op(F(np.sqrt), (g.add_op(O("add"), (var, 1e-6)),))))
    g.set_outputs([y])
    compiled = run_both(g, f32(5, 16))
    assert compiled.explain()["fused"] == ["layernorm"]


def test_an_in_place_operator_inside_a_pattern_keeps_it_unfused():
    g = StatementIR("g")
    x0 = g.add_input(TensorMeta((4, 6), np.float32))
    x = g.add_op(O("mul"), (x0, 1.0))
    m = g.add_op(M("max"), (x, -1), {"keepdims": True})
    g.add_op(O("iadd"), (x, 1.0))     # x changes after its max was taken
    e = g.add_op(F(np.exp), (g.add_op(O("sub"), (x, m)),))
    g.set_outputs([g.add_op(O("truediv"), (e, g.add_op(M("sum"), (e, -1), {"keepdims": True})))])
    compiled = run_both(g, f32(4, 6))
    assert compiled.explain()["fused"] == []


def test_a_large_float64_matmul_is_left_to_numpy_and_the_softmax_still_fuses():
    args = tuple(f32(4, 512, 64) for _ in range(3))
    static, graphs = onnx_graphs(W.attention, *args)
    (backend, source), = graphs
    assert backend == "numpy+onnxruntime"
    assert "Softmax" in op_types(source) and "np.matmul" not in source
    assert "matmul(" in source   # the statements on NumPy are listed
    assert_like_eager(W.attention, args, static(*args))


# ----------------------------------------------------------------------------
# what onnxruntime makes of the emitted graph

def compiled_graphs(monkeypatch, fn, *args, backend="onnxruntime"):
    """Run ``fn`` under sot and return the compiled graphs (the objects)."""
    import sot.runner
    made = []
    real = sot.runner.compile_graph

    def recording(*a, **k):
        made.append(real(*a, **k))
        return made[-1]
    monkeypatch.setattr(sot.runner, "compile_graph", recording)
    static = sot.to_static(fn, backend=backend)
    out = static(*args)
    return static, out, made


def optimized_ops(model, tmp_path) -> list:
    """Op types of ``model`` after onnxruntime's graph optimisations (level ALL,
    as the sessions are made), read back from the optimised model it writes."""
    import onnx
    import onnxruntime as ort
    path = str(tmp_path / "optimized.onnx")
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.optimized_model_filepath = path
    options.log_severity_level = 3
    ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return sorted(n.op_type for n in onnx.load(path).graph.node)


def test_float32_attention_is_two_matmuls_and_a_softmax_once_optimised(monkeypatch, tmp_path):
    # no Reshape after the first MatMul (the IR knows its shape), so
    # onnxruntime folds the scale into it (FusedMatMul with alpha)
    args = (f32(2, 64, 16), f32(2, 64, 16), f32(2, 64, 16))
    _static, out, made = compiled_graphs(monkeypatch, W.attention_f32, *args)
    (compiled,) = made
    assert compiled.explain()["fused"] == ["attention"]
    (model,) = compiled.models
    assert "Reshape" not in {n.op_type for n in model.graph.node}
    assert optimized_ops(model, tmp_path) == ["FusedMatMul", "MatMul", "Softmax"]
    assert_like_eager(W.attention_f32, args, out)


@pytest.mark.parametrize("d", [24, 7])
def test_attention_whose_scale_is_not_a_power_of_two_agrees_with_eager(d):
    # the folded scale multiplies by 1/sqrt(d) where NumPy divides by sqrt(d):
    # equal up to rounding
    args = tuple(f32(3, 40, d) for _ in range(3))
    static = sot.to_static(W.attention_f32, backend="onnxruntime")
    for _ in range(2):
        assert_like_eager(W.attention_f32, args, static(*args))


@pytest.mark.parametrize("a_shape,b_shape", [((5,), (5,)), ((5,), (5, 3)), ((4, 5), (5,)), ((2, 4, 5), (5, 3)),
                                             ((3, 1, 4, 5), (2, 5, 3))])
def test_matmul_of_any_rank_keeps_numpys_shape_without_a_reshape(a_shape, b_shape):
    g = StatementIR("mm")
    a = g.add_input(TensorMeta(a_shape, np.float32))
    b = g.add_input(TensorMeta(b_shape, np.float32))
    g.set_outputs([g.add_op(O("matmul"), (a, b))])
    compiled = run_both(g, f32(*a_shape), f32(*b_shape))
    (model,) = compiled.models
    # a matrix times a vector is a matrix times a column (tests/test_onnx_matvec.py)
    matvec = len(a_shape) >= 2 and len(b_shape) == 1
    assert [n.op_type for n in model.graph.node] == (["Unsqueeze", "MatMul", "Squeeze"] if matvec else ["MatMul"])


@pytest.mark.parametrize("name,kernels", [("gelu_tanh", {"FastGelu"}), ("gelu_cube", {"FastGelu"}),
                                          ("softmax", {"Softmax"}), ("layernorm", {"LayerNormalization"}),
                                          ("mlp", {"Gemm"})])
def test_the_fused_kernels_survive_onnxruntimes_optimisations(monkeypatch, tmp_path, name, kernels):
    fn, make_args, _fused, gone = WORKLOADS[name]
    args = make_args()
    _static, out, made = compiled_graphs(monkeypatch, fn, *args)
    (compiled,) = made
    (model,) = compiled.models
    ops = set(optimized_ops(model, tmp_path))
    assert kernels <= ops and not (gone & ops), ops
    assert_like_eager(fn, args, out)
