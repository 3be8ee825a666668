"""The CompiledGraph protocol (sot/backends/compiled.py): what every
backend's compiled graph offers to its callers (the runner, sot.explain),
so that none reaches into a backend's private attributes.

Each backend's graph is a CompiledGraph; its ``fn`` (the warm path) gives
what calling it gives and what the NumPy reference gives (bitwise on NumPy,
within float32 tolerance on onnxruntime); ``backend``, ``source`` and
``explain()`` describe it."""
from __future__ import annotations

import numpy as np
import pytest

from sot.backends import CompiledGraph, compile_graph, compile_numpy
from sot.ir import StatementIR, TensorMeta
from ort_tolerance import assert_ort_close
from test_ir_oracle import F, O

pytest.importorskip("onnxruntime")


def f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def lowered():
    g = StatementIR("lowered")
    x = g.add_input(TensorMeta((4, 8), np.float32))
    g.set_outputs([g.add_op(F(np.tanh), (g.add_op(O("mul"), (x, 2.0)),))])
    return g, [f32(4, 8)]


def split():
    g = StatementIR("split")
    x = g.add_input(TensorMeta((4, 8), np.float32))
    g.set_outputs([g.add_op(O("mul"), (g.add_op(F(np.expm1), (g.add_op(F(np.exp), (x,)),)), 3.0))])
    return g, [f32(4, 8)]


def nothing_lowers():
    g = StatementIR("nothing")
    x = g.add_input(TensorMeta((4, 8), np.float32))
    g.set_outputs([g.add_op(F(np.expm1), (x,))])
    return g, [f32(4, 8)]


def symbolic():
    g = StatementIR("symbolic")
    x = g.add_input(TensorMeta((6, 4), np.float32), "x", symbolic=[(0, "b")])
    n = g.add_dim(x, 0)
    g.set_outputs([g.add_op(O("mul"), (x, g.add_op(O("truediv"), (n, 3))))])
    return g, [f32(9, 4)]


def per_shape():
    g = StatementIR("per_shape")
    x = g.add_input(TensorMeta((6, 4), np.float32), "x", symbolic=[(0, "b")])
    n = g.add_dim(x, 0)
    y = g.add_op(O("getitem"), (x, slice(n, None, -1)))   # lowers only at static sizes
    g.set_outputs([g.add_op(O("mul"), (y, 2.0))])
    return g, [f32(5, 4)]


CASES = {
    ("lowered", "numpy"): "numpy", ("lowered", "onnxruntime"): "onnxruntime",
    ("split", "onnxruntime"): "numpy+onnxruntime", ("nothing_lowers", "onnxruntime"): "numpy",
    ("lowered", "auto"): "auto", ("symbolic", "onnxruntime"): "onnxruntime (symbolic)",
    ("per_shape", "onnxruntime"): "onnxruntime (per shape)",
}


@pytest.mark.parametrize("case,backend", list(CASES), ids=[f"{c}-{b}" for c, b in CASES])
def test_every_backend_gives_a_compiled_graph_whose_fn_is_its_call(case, backend):
    g, inputs = globals()[case]()
    compiled = compile_graph(g, backend)
    assert isinstance(compiled, CompiledGraph)
    assert compiled.backend == CASES[case, backend]
    assert isinstance(compiled.source, str) and compiled.source
    report = compiled.explain()
    assert isinstance(report, dict) and isinstance(report["backend"], str)
    want = compile_numpy(g)(*inputs)
    for _ in range(3):   # auto: both backends on its first calls
        by_fn, by_call = compiled.fn(*inputs), compiled(*inputs)
        assert type(by_fn) is tuple and type(by_call) is tuple
        if compiled.backend == "numpy":
            for got in (by_fn, by_call):
                for a, w in zip(got, want):
                    assert a.dtype == w.dtype and a.shape == w.shape and np.array_equal(a, w)
        else:
            assert_ort_close(by_fn, want, inputs=inputs)
            assert_ort_close(by_call, want, inputs=inputs)


def test_a_graph_nothing_of_which_lowers_says_why_on_numpy():
    g, inputs = nothing_lowers()
    compiled = compile_graph(g, "onnxruntime")
    assert compiled.backend == "numpy"
    (item,) = compiled.explain()["not_lowered"]
    assert item["op"] == "expm1" and "ONNX" in item["reason"]
    assert "not_lowered" not in compile_graph(g, "numpy").explain()
