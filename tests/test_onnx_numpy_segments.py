"""NumPy segments of a graph that runs on onnxruntime with symbolic dims:
their statements read the graph's Python numbers (sizes computed from
shapes) wherever they appear, slice bounds included."""
from __future__ import annotations

import numpy as np
import pytest

from sot.backends import compile_graph
from sot.ir import StatementIR, TensorMeta
from ort_tolerance import assert_ort_close
from test_ir_oracle import O

pytest.importorskip("onnxruntime")


def test_a_view_returned_with_a_bound_from_a_shape_runs_in_the_numpy_segment():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((6, 4), np.float32), "x", symbolic=[(0, "b")])
    half = g.add_op(O("floordiv"), (g.add_dim(x, 0), 2))
    y = g.add_op(O("mul"), (x, 2.0))                        # onnxruntime
    g.set_outputs([g.add_op(O("getitem"), (y, slice(None, half)))])   # a returned view: NumPy
    compiled = compile_graph(g, "onnxruntime")
    assert compiled.backend == "numpy+onnxruntime (symbolic)"
    for size in (2, 5, 9):
        x_value = np.arange(size * 4, dtype=np.float32).reshape(size, 4)
        assert_ort_close(compiled(x_value), ((x_value * 2.0)[: size // 2],), inputs=[x_value])

