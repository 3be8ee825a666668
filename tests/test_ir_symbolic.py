"""Symbolic dims in the IR: two-world inference, shape values as graph
values, SpecializeDims, the NumPy backend and per-shape concretization."""
import numpy as np
import pytest

from sot.backends import compile_numpy
from sot.backends.symbolic_shapes import concretize
from sot.ir import (ScalarMeta, SpecializeDims, StatementIR, TensorMeta, UnsupportedOp, lookup_function,
                    lookup_method, lookup_operator)
from sot.ir.symbolic import SHADOW_OFFSET

op = lookup_operator
method = lookup_method
fn = lookup_function


def _graph(shape=(7, 4, 8), axes=(0,)):
    ir = StatementIR("g")
    x = ir.add_input(TensorMeta(shape, np.float32), "x", symbolic=[(a, f"x{a}") for a in axes])
    return ir, x


def test_input_meta_and_dims():
    ir, x = _graph()
    assert x.meta.shape == (7, 4, 8)
    assert x.meta.symbolic_axes == (0,)
    assert x.meta.shadow == (7 + SHADOW_OFFSET, 4, 8)
    assert str(x.meta) == "f32[?, 4, 8]"
    assert ir.is_symbolic
    assert ir.add_dim(x, 1) == 4 and ir.add_dim(x, -1) == 8   # static dims stay constants
    n = ir.add_dim(x, 0)
    assert n.meta == ScalarMeta(int, 7, 7 + SHADOW_OFFSET)
    assert ir.deps(n) == {"x0"}


@pytest.mark.parametrize("size", [0, 1])
def test_sizes_0_and_1_are_never_symbolic(size):
    with pytest.raises(ValueError):
        _graph((size, 3))


def test_static_meta_is_unchanged():
    meta = TensorMeta((3, 4), np.float32, shadow=(3, 4))
    assert meta.shadow is None and meta.symbolic_axes == () and meta == TensorMeta((3, 4), np.float32)


def _shape_arithmetic_graph():
    ir, x = _graph()
    n = ir.add_dim(x, 0)
    y = ir.add_op(method("reshape"), (x, n, -1))                       # x.reshape(x.shape[0], -1)
    half = ir.add_op(op("floordiv"), (n, 2))
    z = ir.add_op(op("getitem"), (y, slice(None, half)))                # y[: n // 2]
    scale = ir.add_op(op("pow"), (n, 0.5))                              # n ** 0.5 (a Python float)
    w = ir.add_op(op("truediv"), (z, scale))
    zeros = ir.add_op(fn(np.zeros), ((n, 4),))                          # np.zeros((n, 4))
    total = ir.add_op(method("sum"), (x,), {"axis": 0})
    flat = ir.add_op(method("reshape"), (x, -1, 4))
    ir.set_outputs([y, z, w, zeros, total, half, scale, flat])
    return ir


def _eager(x):
    n = x.shape[0]
    y = x.reshape(n, -1)
    z = y[: n // 2]
    return (y, z, z / n ** 0.5, np.zeros((n, 4)), x.sum(axis=0), n // 2, n ** 0.5, x.reshape(-1, 4))


def test_shape_arithmetic_metas():
    ir = _shape_arithmetic_graph()
    metas = [str(s.meta) for s in ir.outputs]
    assert metas == ["f32[?, 32]", "f32[?, 32]", "f32[?, 32]", "f64[?, 4]", "f32[4, 8]", "int", "float",
                     "f32[?, 4]"]
    assert all(s.meta.is_python or s.meta.shadow is None or ir.deps(s) == {"x0"} for s in ir.outputs)


@pytest.mark.parametrize("batch", [2, 3, 7, 8, 33])
def test_numpy_backend_runs_every_size_bitwise(batch):
    compiled = compile_numpy(_shape_arithmetic_graph())
    assert "i0.shape[0]" in compiled.source
    x = np.random.default_rng(batch).random((batch, 4, 8)).astype(np.float32)
    for got, want in zip(compiled(x), _eager(x)):
        assert type(got) is type(want)
        if isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
        else:
            assert got == want


@pytest.mark.parametrize("batch", [2, 5, 9])
def test_concretize_gives_the_static_graph(batch):
    ir = _shape_arithmetic_graph()
    x = np.ones((batch, 4, 8), np.float32)
    static, plan = concretize(ir, [x])
    assert not static.is_symbolic
    assert all(s.meta.shadow is None for s in static.outputs)
    assert [s.meta.shape for s in static.outputs][:2] == [(batch, 32), (batch // 2, 32)]
    assert plan[5] == ("const", batch // 2) and plan[6] == ("const", batch ** 0.5)
    results = compile_numpy(static)(x)
    for (kind, k), want in zip(plan, _eager(x)):
        got = results[k] if kind == "out" else k
        assert np.array_equal(got, want) if isinstance(want, np.ndarray) else got == want


def test_relying_on_the_traced_size_specialises():
    ir, x = _graph((7, 4))
    other = ir.add_input(TensorMeta((7, 4), np.float32))
    with pytest.raises(SpecializeDims) as e:
        ir.add_op(op("add"), (x, other))        # s0 must equal 7
    assert e.value.dims == {"x0"}
    assert len(ir) == 0                         # nothing recorded


def test_only_the_dim_an_op_relies_on_specialises():
    # x (s0, s1) @ w (4, 4): the contraction needs s1 == 4; the batch s0 stays symbolic
    ir, x = _graph((7, 4), axes=(0, 1))
    w = ir.add_input(TensorMeta((4, 4), np.float32))
    with pytest.raises(SpecializeDims) as e:
        ir.add_op(op("matmul"), (x, w))
    assert e.value.dims == {"x1"}
    # where no one dim suffices, all of them
    ir, x = _graph((7, 4), axes=(0, 1))
    other = ir.add_input(TensorMeta((7, 4), np.float32))
    with pytest.raises(SpecializeDims) as e:
        ir.add_op(op("add"), (x, other))
    assert e.value.dims == {"x0", "x1"}


def test_divisibility_at_the_traced_size_only_specialises():
    ir, x = _graph((8, 3))
    with pytest.raises(SpecializeDims):
        ir.add_op(method("reshape"), (x, 2, -1))    # 8 * 3 is even, not every s0 * 3
    assert ir.add_op(method("reshape"), (x, -1)).meta.symbolic_axes == (0,)


def test_symbolic_dims_of_equal_size_are_one_dim():
    # duck sizing: two symbolic dims can only meet in an op when their traced
    # sizes are equal, and then they are one dim; the caller guards the tie
    # (DimEqualGuard)
    ir = StatementIR("g")
    a = ir.add_input(TensorMeta((5, 3), np.float32), symbolic=[(0, "a0")])
    b = ir.add_input(TensorMeta((5, 3), np.float32), symbolic=[(0, "b0")])
    assert str(ir.add_op(op("add"), (a, b)).meta) == "f32[?, 3]"
    assert ir.dim_ties == [("b0", "a0")]


def test_broadcasting_against_a_symbolic_dim_keeps_it():
    ir, x = _graph((6, 4))
    row = ir.add_input(TensorMeta((1, 4), np.float32))
    y = ir.add_op(op("mul"), (x, row))
    assert str(y.meta) == "f32[?, 4]"
    w = ir.add_input(TensorMeta((4, 5), np.float32))
    assert str(ir.add_op(op("matmul"), (y, w)).meta) == "f32[?, 5]"
    assert str(ir.add_op(method("sum"), (y,)).meta) == "f32"


def test_unsupported_ops_are_still_unsupported():
    ir, x = _graph((6, 4))
    n = ir.add_dim(x, 0)
    with pytest.raises(UnsupportedOp):
        ir.add_op(method("reshape"), (x, n, 5))     # 6 * 4 is not 6 * 5 at the traced size either
    with pytest.raises(UnsupportedOp):
        ir.add_op(op("add"), (n, "a"))


def test_python_comparison_is_a_graph_value():
    ir, x = _graph((12, 4))
    n = ir.add_dim(x, 0)
    big = ir.add_op(op("gt"), (n, 10))
    assert big.meta == ScalarMeta(bool, True, True) and ir.deps(big) == {"x0"}


def test_slices_with_symbolic_bounds_print_and_check():
    ir, x = _graph((6, 4))
    n = ir.add_dim(x, 0)
    m = ir.add_op(op("sub"), (n, 1))
    y = ir.add_op(op("getitem"), (x, (slice(1, m), slice(None, None, -1))))
    ir.set_outputs([y])
    assert "getitem(i0, (1:t1, ::-1))" in str(ir)
    c = compile_numpy(ir)
    a = np.arange(40.0, dtype=np.float32).reshape(10, 4)
    assert np.array_equal(c(a)[0], a[1:9, ::-1])


def test_each_input_dim_has_its_own_source():
    ir = StatementIR("g")
    x = ir.add_input(TensorMeta((5, 3), np.float32), symbolic=[(0, "a"), (1, "b")])
    assert ir.deps(ir.add_dim(x, 1)) == {"b"} and ir.deps(ir.add_dim(x, -2)) == {"a"}
    y = ir.add_op(method("sum"), (x,), {"axis": 1})
    assert ir.deps(ir.add_dim(y, 0)) == {"a", "b"}   # derived dims: every source of the operands
