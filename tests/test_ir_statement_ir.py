"""StatementIR: symbols, statements, printing, constants, and inference that
never touches data (a graph over an unallocatable array)."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

import sot.ir
from sot.ir import (StatementIR, Symbol, TensorMeta, UnsupportedOp, all_ops, lookup_attribute,
                    lookup_function, lookup_method, lookup_operator)
from sot.ir import statement_ir
from test_ir_oracle import F, M, O, A


def test_tensor_meta_of_array_scalar_and_0d():
    assert TensorMeta.of(np.zeros((2, 3), np.float32)) == TensorMeta((2, 3), np.dtype("float32"), False)
    assert TensorMeta.of(np.float32(1)) == TensorMeta((), np.float32, True)
    assert TensorMeta.of(np.array(1.0)) == TensorMeta((), np.float64, False)
    meta = TensorMeta((2, 3, 4), np.int8)
    assert (meta.ndim, meta.size) == (3, 24)
    with pytest.raises(TypeError):
        TensorMeta.of(1.0)
    with pytest.raises(ValueError):
        TensorMeta((2,), np.float32, True)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_tensor_meta_of_an_ndarray_subclass_is_refused():
    with pytest.raises(TypeError):
        TensorMeta.of(np.asmatrix(np.eye(2)))
    with pytest.raises(TypeError):
        TensorMeta.of(np.ma.masked_array([1.0]))


def test_tensor_meta_is_frozen_and_hashable():
    meta = TensorMeta([2, 3], "f4")
    assert meta.shape == (2, 3) and meta.dtype == np.float32
    assert hash(meta) == hash(TensorMeta((2, 3), np.float32))
    with pytest.raises(AttributeError):
        meta.shape = (1,)


def _softmax_graph():
    g = StatementIR("softmax")
    x = g.add_input(TensorMeta((4, 8), np.float32), hint="x")
    m = g.add_op(M("max"), (x, -1), {"keepdims": True})
    e = g.add_op(F(np.exp), (g.add_op(O("sub"), (x, m)),))
    s = g.add_op(M("sum"), (e,), {"axis": -1, "keepdims": True})
    y = g.add_op(O("truediv"), (e, s))
    g.set_outputs([y])
    return g, x, y


def test_symbols_are_named_i_for_inputs_and_t_for_results():
    g, x, y = _softmax_graph()
    assert x.name == "i0" and [st.outputs[0].name for st in g.statements] == ["t0", "t1", "t2", "t3", "t4"]
    assert g.inputs == (x,) and g.outputs == (y,) and len(g) == 5
    assert g.hint(x) == "x"


def test_listing_shows_each_statement_with_shape_and_dtype():
    g, _, _ = _softmax_graph()
    text = str(g)
    assert text.splitlines() == [
        "graph softmax(i0: f32[4, 8] (x)):",
        "    t0: f32[4, 1] = i0.max(-1, keepdims=True)",
        "    t1: f32[4, 8] = sub(i0, t0)",
        "    t2: f32[4, 8] = np.exp(t1)",
        "    t3: f32[4, 1] = t2.sum(axis=-1, keepdims=True)",
        "    t4: f32[4, 8] = truediv(t2, t3)",
        "    return (t4,)",
    ]


def test_listing_distinguishes_numpy_scalars_from_0d_arrays_and_shows_attributes_and_indexing():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((8, 16), np.float32))
    a = g.add_op(O("mul"), (x, 0.5))
    b = g.add_op(A("T"), (a,))
    c = g.add_op(F(np.sum), (b,))
    d = g.add_op(O("getitem"), (x, (0, slice(None, None, -1), None)))
    parts = g.add_op(F(np.split), (x, 2))
    g.set_outputs([c, d, *parts])
    lines = str(g).splitlines()
    assert lines[1] == "    t0: f32[8, 16] = mul(i0, 0.5)"
    assert lines[2] == "    t1: f32[16, 8] = t0.T"
    assert lines[3] == "    t2: f32 = np.sum(t1)"
    assert lines[4] == "    t3: f32[16, 1] = getitem(i0, (0, ::-1, None))"
    assert lines[5] == "    [t4: f32[4, 16], t5: f32[4, 16]] = np.split(i0, 2)"
    assert lines[6] == "    return (t2, t3, t4, t5)"


def test_module_docstring_names_every_statement_kind_and_operator():
    doc = statement_ir.__doc__
    for kind in ("operator", "function", "method", "attribute"):
        assert f"``{kind}``" in doc
    operator_names = {op.name for op in all_ops() if op.kind == "operator"}
    for name in operator_names:
        assert re.search(rf"\b{name}\b", doc) or name.startswith("i"), name
    assert "getitem" in doc and "iadd" in doc


def test_add_op_rejects_unsupported_and_records_nothing():
    g = StatementIR("g")
    x = g.add_input(TensorMeta((3,), np.int32))
    with pytest.raises(UnsupportedOp) as info:
        g.add_op(O("iadd"), (x, 1.5))
    assert "iadd" in info.value.reason
    assert len(g) == 0
    assert g.add_op(O("iadd"), (x, 1)).name == "t0"


@pytest.mark.parametrize("constant", [object(), np.zeros(3), [1, object()], {1: 2}, np.dtype("U3"),
                                      __import__("collections").namedtuple("P", "a b")(0, 1),
                                      np.str_("a"), np.datetime64(1, "s"), slice(0, 1.5), b"x",
                                      np.dtype(object), np.object_])
def test_add_op_rejects_constants_it_cannot_hold(constant):
    g = StatementIR("g")
    x = g.add_input(TensorMeta((3,), np.float32))
    with pytest.raises(UnsupportedOp):
        g.add_op(O("add"), (x, constant))


@pytest.mark.parametrize("dtype", [object, "U4", "S2", "datetime64[s]", "timedelta64[ms]", "V8"])
def test_inputs_of_object_string_and_datetime_dtypes_are_unsupported(dtype):
    with pytest.raises(UnsupportedOp):
        StatementIR("g").add_input(TensorMeta((3,), np.dtype(dtype)))


def test_set_outputs_accepts_inputs_and_repeats_but_only_symbols():
    g, x, y = _softmax_graph()
    g.set_outputs([y, x, y])
    assert g.outputs == (y, x, y)
    with pytest.raises(TypeError):
        g.set_outputs([y, 1.0])


def test_lookups_return_none_for_unknown_and_non_numpy_callables():
    assert lookup_function(np.empty) is None
    assert lookup_function(len) is None
    assert lookup_function(np.random.rand) is None
    assert lookup_method("fill") is None and lookup_method("tolist") is None
    assert lookup_attribute("shape") is None and lookup_attribute("dtype") is None
    assert lookup_attribute("ndim") is None and lookup_attribute("size") is None
    assert lookup_operator("contains") is None


def test_lookup_function_is_by_identity_and_aliases_share_an_op():
    assert lookup_function(np.abs) is lookup_function(np.absolute)
    assert lookup_function(np.divide) is lookup_function(np.true_divide)
    assert lookup_function(np.mod) is lookup_function(np.remainder)
    assert lookup_function(np.tanh).target is np.tanh and lookup_function(np.tanh).kind == "function"


REQUIRED_METHODS = "sum mean prod max min argmax argmin var std any all cumsum cumprod reshape transpose " \
                   "swapaxes squeeze ravel flatten copy astype dot round clip".split()
REQUIRED_FUNCTIONS = [np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.argmax, np.argmin,
                      np.var, np.std, np.any, np.all, np.cumsum, np.cumprod, np.matmul, np.dot, np.einsum,
                      np.tensordot, np.inner, np.outer, np.reshape, np.transpose, np.swapaxes, np.moveaxis,
                      np.expand_dims, np.squeeze, np.ravel, np.broadcast_to, np.copy, np.concatenate, np.stack,
                      np.hstack, np.vstack, np.split, np.where, np.clip, np.round, np.around, np.zeros, np.ones,
                      np.full, np.arange, np.linspace, np.eye, np.zeros_like, np.ones_like, np.full_like]


@pytest.mark.parametrize("name", REQUIRED_METHODS)
def test_required_method_is_registered(name):
    assert lookup_method(name).kind == "method" and lookup_method(name).target == name


@pytest.mark.parametrize("fn", REQUIRED_FUNCTIONS, ids=lambda f: f.__name__)
def test_required_function_is_registered(fn):
    assert lookup_function(fn).target is fn


def test_required_attributes_are_registered():
    for name in ["T", "real", "imag"] + (["mT"] if hasattr(np.ndarray, "mT") else []):
        assert lookup_attribute(name).kind == "attribute"


def test_sot_ir_exports_the_public_interface():
    for name in ["StatementIR", "Symbol", "Statement", "TensorMeta", "UnsupportedOp", "Op",
                 "lookup_function", "lookup_method", "lookup_attribute", "lookup_operator"]:
        assert hasattr(sot.ir, name)


def test_sot_ir_and_the_numpy_backend_import_no_bytecode_onnx_or_simulator():
    import ast
    import pathlib
    import sot.backends.numpy.backend as backend
    files = list(pathlib.Path(sot.ir.__file__).parent.glob("*.py")) + [pathlib.Path(backend.__file__)]
    forbidden = ("bytecode", "onnx", "onnxruntime", "sot.executor", "sot.guards", "sot.breaks")
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for name in names:
                assert not name.startswith(forbidden), f"{path.name} imports {name}"


# ----------------------------------------------------------------------------
# inference never touches data

HUGE = (2**40, 2**40)


def test_inference_on_an_unallocatable_array_never_touches_data():
    g = StatementIR("huge")
    x = g.add_input(TensorMeta(HUGE, np.float64), hint="x")
    v = g.add_input(TensorMeta((2**40,), np.float32), hint="v")
    start = time.perf_counter()
    y = g.add_op(O("mul"), (x, 0.5))
    assert y.meta == TensorMeta(HUGE, np.float64)
    assert g.add_op(O("add"), (y, v)).meta == TensorMeta(HUGE, np.float64)
    assert g.add_op(O("iadd"), (y, 1)).meta == TensorMeta(HUGE, np.float64)
    assert g.add_op(F(np.tanh), (y,)).meta.shape == HUGE
    assert g.add_op(M("sum"), (y,), {"axis": -1, "keepdims": True}).meta == TensorMeta((2**40, 1), np.float64)
    assert g.add_op(F(np.sum), (y,)).meta == TensorMeta((), np.float64, True)
    assert g.add_op(M("argmax"), (y, 0)).meta == TensorMeta((2**40,), np.intp)
    assert g.add_op(F(np.cumsum), (v,)).meta.shape == (2**40,)
    assert g.add_op(A("T"), (y,)).meta.shape == HUGE
    assert g.add_op(O("matmul"), (y, y)).meta.shape == HUGE
    assert g.add_op(O("matmul"), (y, v)).meta == TensorMeta((2**40,), np.float64)
    assert g.add_op(F(np.einsum), ("ij,j->i", y, v)).meta.shape == (2**40,)
    assert g.add_op(M("reshape"), (y, 2**20, -1)).meta.shape == (2**20, 2**60)
    assert g.add_op(F(np.expand_dims), (y, 1)).meta.shape == (2**40, 1, 2**40)
    assert g.add_op(O("getitem"), (y, (slice(None, None, -2), 3))).meta.shape == (2**39,)
    assert g.add_op(O("getitem"), (y, (0, 0))).meta == TensorMeta((), np.float64, True)
    assert g.add_op(O("getitem"), (y, ([0, 1], None))).meta.shape == (2, 1, 2**40)
    assert g.add_op(F(np.concatenate), ([y, y],)).meta.shape == (2**41, 2**40)
    assert g.add_op(F(np.split), (y, 4))[3].meta.shape == (2**38, 2**40)
    assert g.add_op(F(np.zeros_like), (y,)).meta.shape == HUGE
    assert g.add_op(F(np.broadcast_to), (v, HUGE)).meta.shape == HUGE
    assert g.add_op(M("astype"), (y, np.float16)).meta == TensorMeta(HUGE, np.float16)
    assert g.add_op(F(np.where), (g.add_op(O("gt"), (y, 0)), y, v)).meta.shape == HUGE
    assert time.perf_counter() - start < 1.0
    assert "f64[1099511627776, 1099511627776]" in str(g)
