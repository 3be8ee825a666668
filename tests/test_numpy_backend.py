"""The NumPy backend: readable generated source that replays each op as
written, constants bound by name, dead intermediates freed, and results
identical to eager NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from sot.backends import CompiledGraph, compile_numpy
from sot.ir import StatementIR, TensorMeta
from test_ir_oracle import A, Const, F, M, O, assert_matches_eager, assert_same_value, sample


def _graph(*metas, name="f"):
    g = StatementIR(name)
    return g, [g.add_input(m) for m in metas]


def test_generated_source_is_a_def_over_the_inputs_that_reads_like_the_user_code():
    g, (x,) = _graph(TensorMeta((4, 8), np.float32), name="softmax")
    m = g.add_op(M("max"), (x, -1), {"keepdims": True})
    e = g.add_op(F(np.exp), (g.add_op(O("sub"), (x, m)),))
    s = g.add_op(M("sum"), (e,), {"axis": -1, "keepdims": True})
    g.set_outputs([g.add_op(O("truediv"), (e, s))])
    compiled = compile_numpy(g)
    assert isinstance(compiled, CompiledGraph) and compiled.graph is g
    assert compiled.source == (
        "def softmax(i0):\n"
        "    t0 = i0.max(-1, keepdims=True)\n"
        "    t1 = i0 - t0\n"
        "    del t0\n"
        "    t2 = np.exp(t1)\n"
        "    del t1\n"
        "    t3 = t2.sum(axis=-1, keepdims=True)\n"
        "    t4 = t2 / t3\n"
        "    del t2, t3\n"
        "    return (t4,)\n"
    )
    x_value = sample((4, 8), np.float32)
    (out,) = compiled(x_value)
    e_value = np.exp(x_value - x_value.max(-1, keepdims=True))
    assert_same_value(out, e_value / e_value.sum(axis=-1, keepdims=True))


def test_operators_are_emitted_as_python_operators():
    g, (x,) = _graph(TensorMeta((3,), np.float32))
    a = g.add_op(O("sub"), (1.0, x))
    b = g.add_op(O("neg"), (a,))
    c = g.add_op(O("pow"), (-2.0, b))
    d = g.add_op(O("getitem"), (c, slice(None, None, -1)))
    e = g.add_op(O("iadd"), (d, 2))
    f = g.add_op(O("abs"), (e,))
    h = g.add_op(O("invert"), (g.add_op(O("lt"), (f, 0.5)),))
    g.set_outputs([h])
    source = compile_numpy(g).source
    for line in ["t0 = 1.0 - i0", "t1 = -t0", "t2 = (-2.0) ** t1", "t3 = t2[::-1]", "t4 = t3\n    t4 += 2",
                 "t5 = abs(t4)", "t6 = t5 < 0.5", "t7 = ~t6"]:
        assert line in source


def test_attributes_methods_and_indexing_are_emitted_as_written():
    g, (x, i) = _graph(TensorMeta((3, 4), np.float32), TensorMeta((2,), np.intp))
    t = g.add_op(A("T"), (x,))
    r = g.add_op(O("getitem"), (t, (Ellipsis, None, i, 0)))
    y = g.add_op(M("astype"), (r, np.float16))
    z = g.add_op(O("getitem"), (x, ()))
    w = g.add_op(O("getitem"), (x, (1,)))
    g.set_outputs([y, z, w])
    source = compile_numpy(g).source
    assert "t0 = i0.T" in source
    assert "t1 = t0[..., None, i1, 0]" in source
    assert "t2 = t1.astype(np.float16)" in source
    assert "t3 = i0[()]" in source and "t4 = i0[1,]" in source


def test_constants_are_bound_by_name_and_numpy_scalars_stay_numpy_scalars():
    g, (x,) = _graph(TensorMeta((3,), np.float16))
    a = g.add_op(O("add"), (x, np.float32(1.5)))
    b = g.add_op(O("mul"), (a, float("nan")))
    c = g.add_op(O("mul"), (b, 1j))
    d = g.add_op(M("astype"), (c, np.dtype(">c16")))
    g.set_outputs([d])
    compiled = compile_numpy(g)
    assert "t0 = i0 + c0  # c0 = np.float32(1.5)" in compiled.source
    assert "t1 = t0 * c1  # c1 = nan" in compiled.source
    assert type(compiled.constants["c0"]) is np.float32
    assert compiled.constants["c2"] == 1j
    value = sample((3,), np.float16)
    (out,) = compiled(value)
    assert_same_value(out, ((value + np.float32(1.5)) * float("nan") * 1j).astype(">c16"))


def test_string_constants_are_literals_that_cannot_inject_code():
    g, (x, y) = _graph(TensorMeta((2, 3), np.float32), TensorMeta((3, 4), np.float32))
    out = g.add_op(F(np.einsum), ("ij,jk->ik", x, y))
    g.set_outputs([out])
    assert "np.einsum('ij,jk->ik', i0, i1)" in compile_numpy(g).source
    from sot.backends.numpy.backend import _Emitter
    hostile = "'); import os; print('"
    assert eval(_Emitter().value(hostile)) == hostile


def test_outputs_may_be_inputs_and_repeated():
    g, (x, y) = _graph(TensorMeta((2,), np.float32), TensorMeta((), np.int8, True))
    s = g.add_op(O("add"), (x, y))
    g.set_outputs([x, s, s, y])
    a, b = sample((2,), np.float32), np.int8(3)
    outputs = compile_numpy(g)(a, b)
    assert outputs[0] is a and outputs[1] is outputs[2] and outputs[3] is b
    assert compile_numpy(g).source.endswith("    return (i0, t0, t0, i1)\n")


def test_graph_with_no_outputs_returns_an_empty_tuple():
    g, (x,) = _graph(TensorMeta((2,), np.float32))
    g.add_op(O("add"), (x, 1))
    compiled = compile_numpy(g)
    assert compiled(np.ones(2, np.float32)) == ()
    assert "del t0" in compiled.source


def test_split_results_are_unpacked_and_unused_pieces_freed():
    g, (x,) = _graph(TensorMeta((6, 2), np.float32))
    parts = g.add_op(F(np.split), (x, 3))
    g.set_outputs([parts[1]])
    compiled = compile_numpy(g)
    assert "(t0, t1, t2) = np.split(i0, 3)" in compiled.source
    assert "del t0, t2" in compiled.source
    value = sample((6, 2), np.float32)
    assert_same_value(compiled(value)[0], np.split(value, 3)[1])
    g1, (y,) = _graph(TensorMeta((6,), np.float32))
    g1.set_outputs(g1.add_op(F(np.split), (y, 1)))
    assert "(t0,) = np.split(i0, 1)" in compile_numpy(g1).source


def test_inplace_operator_mutates_the_input_like_eager():
    g, (x,) = _graph(TensorMeta((3,), np.float64))
    y = g.add_op(O("imul"), (x, 2))
    g.set_outputs([y])
    value = np.arange(3.0)
    (out,) = compile_numpy(g)(value)
    assert out is value and value.tolist() == [0.0, 2.0, 4.0]


def test_dead_intermediates_are_freed_before_the_graph_ends():
    g, (x,) = _graph(TensorMeta((1000,), np.float64))
    a = g.add_op(O("mul"), (x, 2.0))
    b = g.add_op(O("add"), (a, 1.0))
    c = g.add_op(M("sum"), (b,))
    g.set_outputs([c])
    source = compile_numpy(g).source
    assert source.index("del t0") < source.index("t2 =") and source.index("del t1") < source.index("return")


def test_compiled_graph_is_reusable_and_its_source_shows_in_tracebacks():
    g, (x, y) = _graph(TensorMeta((2,), np.int64), TensorMeta((2,), np.int64))
    g.set_outputs([g.add_op(O("floordiv"), (x, y))])
    compiled = compile_numpy(g)
    for k in range(3):
        assert_same_value(compiled(np.array([7, 8]) + k, np.array([2, 3]))[0], (np.array([7, 8]) + k) // [2, 3])
    g2, (a,) = _graph(TensorMeta((2,), np.int64))
    g2.set_outputs([g2.add_op(O("getitem"), (a, a))])
    import traceback
    with pytest.raises(IndexError) as info:
        compile_numpy(g2)(np.array([5, 0]))
    assert "t0 = i0[i0]" in "".join(traceback.format_tb(info.tb))


def test_graph_name_that_is_not_an_identifier_still_compiles():
    g, (x,) = _graph(TensorMeta((2,), np.float32), name="my fn<locals>.f")
    g.set_outputs([x])
    assert compile_numpy(g).source.startswith("def my_fn_locals__f(i0):")


@pytest.mark.parametrize("name", ["np", "operator", "abs", "c0", "t1", "i0", "class"])
def test_graph_name_never_shadows_a_name_the_generated_code_uses(name):
    g, (x,) = _graph(TensorMeta((2,), np.float32), name=name)
    g.set_outputs([g.add_op(O("abs"), (g.add_op(F(np.exp), (g.add_op(O("add"), (x, 1j)),)),))])
    value = sample((2,), np.float32)
    assert_same_value(compile_numpy(g)(value)[0], abs(np.exp(value + 1j)))


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.complex64, np.bool_], ids=lambda d: np.dtype(d).name)
def test_a_longer_program_matches_eager_bitwise(dtype):
    def program(x, w, s):
        h = x @ w
        h = np.where(h > 0, h, h * 0.5) if dtype != np.bool_ else h
        h = h - h.mean(axis=0, keepdims=True) if dtype != np.bool_ else h
        h = np.concatenate([h, h[:, ::-1]], axis=1)
        return h.T.reshape(-1, 2)[1:, 0] * s, np.sum(h, dtype=np.float64)

    x, w, s = sample((4, 3), dtype), sample((3, 5), dtype, seed=1), sample((), dtype, scalar=True)
    g = StatementIR("program")
    xi, wi, si = (g.add_input(TensorMeta.of(v)) for v in (x, w, s))
    h = g.add_op(O("matmul"), (xi, wi))
    if dtype != np.bool_:
        h = g.add_op(F(np.where), (g.add_op(O("gt"), (h, 0)), h, g.add_op(O("mul"), (h, 0.5))))
        h = g.add_op(O("sub"), (h, g.add_op(M("mean"), (h,), {"axis": 0, "keepdims": True})))
    h = g.add_op(F(np.concatenate), ([h, g.add_op(O("getitem"), (h, (slice(None), slice(None, None, -1))))],),
                 {"axis": 1})
    r = g.add_op(M("reshape"), (g.add_op(A("T"), (h,)), -1, 2))
    out1 = g.add_op(O("mul"), (g.add_op(O("getitem"), (r, (slice(1, None), 0))), si))
    out2 = g.add_op(F(np.sum), (h,), {"dtype": np.float64})
    g.set_outputs([out1, out2])
    with np.errstate(all="ignore"):
        traced = compile_numpy(g)(x, w, s)
        eager = program(x, w, s)
    for a, b, sym in zip(traced, eager, g.outputs):
        assert_same_value(a, b)
        assert sym.meta == TensorMeta.of(b)


def test_constant_wrapping_helper_keeps_numpy_scalars_as_constants():
    assert_matches_eager(O("mul"), sample((3,), np.float32), Const(np.float64(2)))
