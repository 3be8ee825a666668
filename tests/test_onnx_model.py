"""``sot.backends.onnx.to_model``: a whole StatementIR as one ONNX model
(what sot.save writes).  The model runs in plain onnxruntime and matches the
NumPy backend within float32 tolerance; symbolic dims are its dim_params;
a graph that is not one model raises NotOneModel saying which statements."""
from __future__ import annotations

import numpy as np
import pytest

from sot.backends import compile_numpy
from sot.backends.onnx import to_model
from sot.ir import StatementIR, TensorMeta
from ort_tolerance import assert_ort_close
from test_ir_oracle import F, O

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
from sot.backends.onnx.model import NotOneModel  # noqa: E402


def f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def run(model, names, inputs):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {i.name: v for i, v in zip(session.get_inputs(), inputs)}
    return tuple(session.run(names, feed))


def test_a_static_graph_is_one_model_with_its_outputs_in_order_repeats_included():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((4, 8), np.float32))
    y = g.add_op(F(np.tanh), (g.add_op(O("mul"), (x, 2.0)),))
    s = g.add_op(F(np.sum), (y,), {"axis": -1})
    g.set_outputs([y, s])
    model, names = to_model(g, outputs=[s, y, s])
    onnx.checker.check_model(model, full_check=True)
    assert len(names) == 3 and len(model.graph.output) == 3
    x_value = f32(4, 8)
    y_want, s_want = compile_numpy(g)(x_value)
    assert_ort_close(run(model, names, [x_value]), (s_want, y_want, s_want), inputs=[x_value])


def test_symbolic_dims_are_the_dim_params_given():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((6, 4), np.float32), "x", symbolic=[(0, "b")])
    n = g.add_dim(x, 0)
    g.set_outputs([g.add_op(O("mul"), (x, g.add_op(O("truediv"), (n, 3))))])
    key = (x.meta.shape[0], x.meta.shadow[0])
    model, names = to_model(g, {key: "batch"})
    (inp,) = model.graph.input
    assert [d.dim_param or d.dim_value for d in inp.type.tensor_type.shape.dim] == ["batch", 4]
    reference = compile_numpy(g)
    for size in (2, 5, 11):
        x_value = f32(size, 4, seed=size)
        assert_ort_close(run(model, names, [x_value]), reference(x_value), inputs=[x_value])


def test_a_graph_that_is_not_one_model_says_which_statements():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((4, 8), np.float32))
    g.set_outputs([g.add_op(O("mul"), (g.add_op(F(np.expm1), (x,)), 2.0))])
    with pytest.raises(NotOneModel) as e:
        to_model(g)
    ((st, why),) = e.value.not_lowered
    assert st.op.name == "expm1" and "expm1" in str(e.value)

    g = StatementIR("g")
    x = g.add_input(TensorMeta((6, 4), np.float32), "x", symbolic=[(0, "b")])
    y = g.add_op(O("getitem"), (x, slice(g.add_dim(x, 0), None, -1)))   # lowers only at static sizes
    g.set_outputs([g.add_op(O("mul"), (y, 2.0))])
    with pytest.raises(NotOneModel) as e:
        to_model(g)
    assert [st.op.name for st, _ in e.value.not_symbolic] == ["getitem"] and not e.value.not_lowered
