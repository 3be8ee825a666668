"""A symbolic graph compiled once per input shape (PerShapeCompiledGraph)
keeps at most MAX_SHAPES entries and at most MAX_SHAPES_BYTES in the
entries other than the newest; explain shows what each entry holds."""
import gc
import weakref

import numpy as np
import pytest

from sot.backends import compile_graph, symbolic_shapes
from sot.backends.symbolic_shapes import PerShapeCompiledGraph
from sot.explain_graphs import placement
from sot.ir import StatementIR, TensorMeta
from test_ir_oracle import F, O

from ort_tolerance import assert_ort_close

pytest.importorskip("onnxruntime")

WIDTH = 4096   # np.ones((WIDTH,)): a constant in every compiled model


def per_shape_graph() -> StatementIR:
    """x[n::-1] * np.ones(WIDTH): a negative step from a traced start lowers only at
    static sizes, so the graph is compiled per input shape."""
    g = StatementIR("g")
    x = g.add_input(TensorMeta((6, WIDTH), np.float32), "x", symbolic=[(0, "b")])
    n = g.add_dim(x, 0)
    y = g.add_op(O("getitem"), (x, slice(n, None, -1)))
    scale = g.add_op(F(np.ones), ((WIDTH,),), {"dtype": np.float32})
    g.set_outputs([g.add_op(O("mul"), (y, scale))])
    return g


def x_of(rows: int) -> np.ndarray:
    return np.random.default_rng(rows).standard_normal((rows, WIDTH)).astype(np.float32)


def test_each_entry_reports_the_bytes_it_holds():
    g = per_shape_graph()
    compiled = compile_graph(g, "onnxruntime")
    assert isinstance(compiled, PerShapeCompiledGraph)
    ref = compile_graph(g, "numpy")
    for rows in (2, 3):
        assert_ort_close(compiled(x_of(rows)), ref(x_of(rows)))
    report = compiled.explain()
    held = [entry["held_bytes"] for entry in report["per_shape"].values()]
    assert len(held) == 2 and all(h > 0 for h in held)   # its constants at least
    assert report["per_shape_bytes"]["held"] == sum(held)
    line = next(line for line in placement(compiled) if line.startswith("compiled per input shape"))
    assert "2 shape(s)" in line and f"at most {symbolic_shapes.MAX_SHAPES}" in line


def compiled_holding(monkeypatch, held: int, limit: int):
    """The graph per shape (and its NumPy reference), each entry said to hold ``held`` bytes."""
    monkeypatch.setattr(symbolic_shapes, "_held", lambda compiled: held)
    monkeypatch.setattr(symbolic_shapes, "MAX_SHAPES_BYTES", limit)
    g = per_shape_graph()
    return compile_graph(g, "onnxruntime"), compile_graph(g, "numpy")


def test_least_recently_used_entries_are_dropped_past_the_byte_limit(monkeypatch):
    compiled, ref = compiled_holding(monkeypatch, 100, 250)
    alive = []
    for rows in (2, 3, 4):
        assert_ort_close(compiled(x_of(rows)), ref(x_of(rows)))
        entry = compiled._compiled[((rows, WIDTH),)]
        alive.append(weakref.ref(entry[0]))
        if rows == 3:
            compiled(x_of(2))   # 2 is now the most recently used
    assert list(compiled._compiled) == [((2, WIDTH),), ((4, WIDTH),)]   # 3 went: 300 bytes > 250
    assert compiled.explain()["per_shape_bytes"]["held"] == 200
    gc.collect()
    assert [r() is None for r in alive] == [False, True, False]   # the dropped entry's session is freed
    assert_ort_close(compiled(x_of(3)), ref(x_of(3)))   # and compiled again when met again


def test_the_newest_entry_is_kept_whatever_it_holds(monkeypatch):
    compiled, ref = compiled_holding(monkeypatch, 10_000, 1)
    for rows in (2, 3, 2):
        assert_ort_close(compiled(x_of(rows)), ref(x_of(rows)))
        assert list(compiled._compiled) == [((rows, WIDTH),)]
