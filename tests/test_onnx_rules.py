"""The table of ONNX lowerings (sot/backends/onnx/rules.py) and try_lower,
the one place that undoes a lowering that failed half way."""
from __future__ import annotations

import numpy as np
import pytest

from sot.backends import compile_graph
from sot.backends.onnx import rules
from sot.backends.onnx.builder import GraphBuilder, NotLowered
from sot.backends.onnx.lowering import OnnxSegment, plan, try_lower
from sot.ir import StatementIR, TensorMeta
from ort_tolerance import assert_ort_close
from test_ir_oracle import F, M, O

pytest.importorskip("onnxruntime")


def test_the_table_has_a_rule_per_op_and_every_ufunc_lowers_through_one():
    assert rules.rule_for(O("add")).python_numbers                      # a weak operand
    assert rules.rule_for(F(np.reshape)).python_numbers                 # a size
    assert not rules.rule_for(F(np.ravel)).python_numbers
    assert rules.rule_for(M("transpose")).symbolic
    assert rules.rule_for(F(np.arctan2)) is rules.rule_for(F(np.hypot))   # ufuncs: one rule
    assert rules.rule_for(F(np.arctan2)).lower is rules.rule_for(O("add")).lower
    assert rules.rule_for(F(np.matmul)).lower is rules.rule_for(O("matmul")).lower   # not the ufunc's
    assert rules.rule_for(F(np.sort)) is None


def _graph():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((4, 8), np.float32))
    g.set_outputs([g.add_op(O("mul"), (g.add_op(F(np.sort), (x,)), 2.0))])
    return g


def test_a_registered_rule_is_used_by_the_plan(monkeypatch):
    g = _graph()
    assert [st.op.name for st, _ in plan(g).not_lowered] == ["sort"]
    assert "no ONNX lowering for function sort" in plan(g).not_lowered[0][1]

    def lower_sort(b, st):   # along the last axis, ascending: TopK of all its elements
        x = b.value(st.args[0])
        k = b.ints([st.args[0].meta.shape[-1]])
        values, _ = b.node("TopK", [x, k], np.float32, st.outputs[0].meta.shape, n_out=2, axis=-1, largest=0)
        return [values]
    monkeypatch.setattr(rules, "RULES", dict(rules.RULES))
    rules.register([("function", "sort")], lower_sort)
    assert plan(g).not_lowered == []
    compiled = compile_graph(g, "onnxruntime")
    assert compiled.backend == "onnxruntime"
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    assert_ort_close(compiled(x), (np.sort(x) * 2.0,), inputs=[x])


class _HalfLowered:
    """A pattern whose lowering adds a node and an input, then gives up."""

    def __init__(self, st):
        self.statements, self.outputs = [st], st.outputs

    def lower(self, b):
        b.node("Neg", [b.value(self.statements[0].args[0])], np.float32)
        raise NotLowered("half way")


def test_try_lower_leaves_the_segment_as_it_was_when_lowering_fails():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((4, 8), np.float32))
    y = g.add_op(F(np.tanh), (x,))
    z = g.add_op(O("mul"), (y, 2.0))
    g.set_outputs([z])
    seg = OnnxSegment(GraphBuilder("g"))
    assert try_lower(seg, g.statements[0]) is None and "t0" in seg.defined
    before = (list(seg.builder.nodes), list(seg.builder.inputs), dict(seg.builder.env), dict(seg.defined))
    e = try_lower(seg, _HalfLowered(g.statements[1]))
    assert isinstance(e, NotLowered) and str(e) == "half way"
    assert (seg.builder.nodes, seg.builder.inputs, seg.builder.env, seg.defined) == before
    assert try_lower(seg, g.statements[1]) is None and z.name in seg.defined
