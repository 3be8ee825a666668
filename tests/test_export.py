"""sot.save / sot.load: a function traced as one graph, deployed as an .onnx file."""
import os
import sys

import numpy as np
import pytest

import sot
from difftest import run_plain_onnxruntime
from ort_tolerance import assert_ort_close

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import workloads as W  # noqa: E402

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

WIDTH = 64


def f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.fixture(scope="module")
def mlp():
    return W.MLP(layers=6, width=WIDTH, seed=1)


@pytest.fixture(scope="module")
def mlp_file(mlp, tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "mlp.onnx"
    written = sot.save(mlp, path, input_spec=[sot.InputSpec([None, WIDTH], "float32", "x")])
    assert written == str(path)
    return written


# ---------------------------------------------------------------------------
# the deployment flow

@pytest.mark.parametrize("batch", [1, 7, 64])
def test_mlp_saved_and_loaded_matches_eager(mlp, mlp_file, batch):
    run = sot.load(mlp_file)
    x = f32(batch, WIDTH, seed=batch)
    y = run(x)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32 and y.shape == (batch, WIDTH)
    assert_ort_close(y, mlp(x))


def test_saved_file_is_plain_onnx_with_symbolic_batch_and_weights(mlp, mlp_file):
    model = onnx.load(mlp_file)
    onnx.checker.check_model(model, full_check=True)
    (inp,) = model.graph.input
    assert inp.name == "x"
    dims = inp.type.tensor_type.shape.dim
    assert dims[0].dim_param == "x_dim0" and dims[1].dim_value == WIDTH
    (out,) = model.graph.output
    assert out.type.tensor_type.shape.dim[0].dim_param == "x_dim0"
    names = {i.name for i in model.graph.initializer}
    assert {"self.layers[0].w", "self.layers[5].b"} <= names
    w = onnx.numpy_helper.to_array(next(i for i in model.graph.initializer if i.name == "self.layers[2].w"))
    np.testing.assert_array_equal(w, mlp.layers[2].w)
    assert not any(n.op_type == "Reshape" for n in model.graph.node)


def test_plain_onnxruntime_without_sot_gives_the_same_outputs(mlp, mlp_file, tmp_path):
    x = f32(7, WIDTH, seed=3)
    y = run_plain_onnxruntime(mlp_file, "x", x, tmp_path)
    assert_ort_close(y, mlp(x))
    np.testing.assert_array_equal(y, sot.load(mlp_file)(x))


def test_side_effect_is_refused_and_one_graph_is_never_run(tmp_path):
    calls = []

    def f(x):
        calls.append(1)  # a side effect: not one graph
        return x * 2

    with pytest.raises(sot.ExportError, match="append|side-effect|list"):
        sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([3])])
    assert calls == []   # simulated, never run

    def h(x):
        return x * 2

    ran = []
    sys.setprofile(lambda frame, event, arg: ran.append(1) if frame.f_code is h.__code__ else None)
    try:
        sot.save(h, tmp_path / "h", input_spec=[sot.InputSpec([3])])
    finally:
        sys.setprofile(None)
    assert ran == []   # simulated, never run
    scale = np.float32(3)

    def g(x, y):
        return x * scale + y, x - y

    with pytest.raises(sot.ExportError, match="one name"):
        sot.save(g, tmp_path / "g", input_spec=[sot.InputSpec([None]), sot.InputSpec([None])])
    path = sot.save(g, tmp_path / "g", input_spec=[sot.InputSpec(["n"]), sot.InputSpec(["n"])])
    run = sot.load(path)
    a, b = f32(5, seed=1), f32(5, seed=2)
    out = run(a, b)
    assert isinstance(out, tuple) and len(out) == 2
    assert_ort_close(out[0], a * scale + b)
    assert_ort_close(out[1], a - b)
    assert_ort_close(run(y=b, x=a)[1], a - b)


def test_plain_function_with_closure_weights_and_scalar_output(tmp_path):
    w = f32(4, 3, seed=5)

    def make():
        def f(x):
            return (x @ w).sum()
        return f

    f = make()
    path = sot.save(f, tmp_path / "sum.onnx", input_spec=[sot.InputSpec([(1, 8), 4], "float32", "x")])
    run = sot.load(path)
    x = f32(6, 4)
    y = run(x)
    assert type(y) is type(f(x)) and y.dtype == np.float32
    assert_ort_close(y, f(x))


def test_to_static_decorated_function_and_bound_method(tmp_path):
    @sot.to_static
    def f(x):
        return np.tanh(x) * 0.5

    path = sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([None, 2], "float64")])
    x = np.linspace(-1, 1, 6).reshape(3, 2)
    assert_ort_close(sot.load(path)(x), f(x))

    class Scale:
        def __init__(self):
            self.k = np.arange(3, dtype=np.float32)

        def apply(self, x):
            return x * self.k

    s = Scale()
    path = sot.save(s.apply, tmp_path / "m", input_spec=[sot.InputSpec(["n", 3])])
    assert_ort_close(sot.load(path)(f32(4, 3)), s.apply(f32(4, 3)))


# ---------------------------------------------------------------------------
# not one graph

def test_data_dependent_branch_names_the_line(tmp_path):
    def f(x):
        y = x * 2
        if y.sum() > 0:  # the data-dependent line
            return y
        return -y

    with pytest.raises(sot.ExportError) as info:
        sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([None, 4])])
    text = str(info.value)
    line = f.__code__.co_firstlineno + 2
    assert f"{__file__}:{line}" in text
    assert "data-dependent" in text and "y.sum() > 0" in text
    assert "np.where" in text   # how to remove it
    assert not os.path.exists(tmp_path / "f.onnx")


def test_the_first_break_is_named_and_the_function_is_never_run(capsys, tmp_path):
    def f(x):
        print("one")
        y = x + 1
        print("two")
        return y

    with pytest.raises(sot.ExportError) as info:
        sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([2])])
    text = str(info.value)
    first = f.__code__.co_firstlineno
    assert f"{__file__}:{first + 1}" in text, text
    assert "sot.explain" in text   # where every break is listed
    assert capsys.readouterr().out == ""   # nothing of f ran


def test_returning_a_python_value_is_refused(tmp_path):
    def f(x):
        return x * 2, x.shape[0]

    with pytest.raises(sot.ExportError, match="return an array"):
        sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([3])])


def test_baked_batch_size_is_refused_with_its_line(tmp_path):
    def f(x):
        total = x[0]
        for i in range(1, x.shape[0]):   # one addition per row: the graph depends on the size
            total = total + x[i]
        return total

    with pytest.raises(sot.ExportError) as info:
        sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([None, 4], name="x")])
    text = str(info.value)
    assert "x_dim0" in text and "baked" in text
    assert f"{__file__}:{f.__code__.co_firstlineno + 3}" in text
    assert not os.path.exists(tmp_path / "f.onnx")

    def g(x):
        return x.mean(axis=0)

    path = sot.save(g, tmp_path / "g", input_spec=[sot.InputSpec([None, 4], name="x")])
    for n in (1, 5, 9):
        x = f32(n, 4)
        assert_ort_close(sot.load(path)(x), g(x))


def test_sizes_computed_from_the_batch_are_computed_by_the_model(tmp_path):
    def f(x):
        n = x.shape[0]
        return x.sum(axis=0) / n, x.reshape(n, 2, -1)[: n // 2 + 1] * x.shape[-1] ** 0.5, np.zeros((n, 3))

    path = sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([None, 4], name="x")])
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    assert "Shape" in {n.op_type for n in model.graph.node}    # one model for every size
    dims = [[d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim] for o in model.graph.output]
    assert dims == [[4], ["output_1_dim0", 2, 2], ["x_dim0", 3]]
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    run = sot.load(path)
    for n in (1, 2, 5, 9):
        x = f32(n, 4, seed=n)
        for got, plain, want in zip(run(x), session.run(None, {"x": x}), f(x)):
            assert got.dtype == want.dtype and got.shape == want.shape == plain.shape
            assert_ort_close(got, want)
            np.testing.assert_array_equal(plain, got)


@pytest.mark.parametrize("how", ["minus_one", "shape_of_input"])
def test_reshape_with_the_batch_size_is_generalized(tmp_path, how):
    if how == "minus_one":
        def f(x):
            return x.reshape(-1, 2, 2).sum(axis=1)
    else:
        def f(x):
            n = x.shape[0]
            return x.reshape(n, 2, 2).sum(axis=1)

    path = sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([None, 4], name="x")])
    run = sot.load(path)
    for n in (1, 2, 5, 33):
        x = f32(n, 4)
        assert_ort_close(run(x), f(x))


def test_branch_on_shape_is_refused(tmp_path):
    def f(x):
        if x.shape[0] > 2:
            return x * 2
        return x + 1

    with pytest.raises(sot.ExportError, match="baked"):
        sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([None])])
    # within bounds that keep one branch, it is one graph
    path = sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([(3, 100)])])
    assert_ort_close(sot.load(path)(f32(10)), f(f32(10)))

    def g(x, y):
        if x.shape[0] > 50:   # seen only at the upper bound
            return x * 2, y
        return x + 1, y

    spec = [sot.InputSpec([(1, 100)], name="x"), sot.InputSpec([None], name="y")]
    with pytest.raises(sot.ExportError, match="baked"):
        sot.save(g, tmp_path / "g", input_spec=spec)
    spec = [sot.InputSpec([(1, 50)], name="x"), sot.InputSpec([None], name="y")]
    model = onnx.load(sot.save(g, tmp_path / "g", input_spec=spec))
    assert [o.type.tensor_type.shape.dim[0].dim_param for o in model.graph.output] == ["x_dim0", "y_dim0"]


# ---------------------------------------------------------------------------
# a loaded model checks its inputs

@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    def f(x, ids):
        return x * 2, ids + 1

    path = tmp_path_factory.mktemp("checked") / "m"
    written = sot.save(f, path, input_spec=[sot.InputSpec([(1, 16), 4], "float32", "x"),
                                            sot.InputSpec([None], "int64", "ids")])
    return sot.load(written)


def test_loaded_model_accepts_good_inputs(checked):
    x, ids = f32(3, 4), np.arange(5)
    a, b = checked(x, ids)
    assert_ort_close(a, x * 2)
    assert b.dtype == np.int64 and b.dtype.type is np.int64
    np.testing.assert_array_equal(b, ids + 1)
    assert "x: float32[x_dim0, 4] with 1 <= x_dim0 <= 16" in checked.signature()
    assert [s.name for s in checked.input_spec] == ["x", "ids"]


@pytest.mark.parametrize("args, error, words", [
    ((np.zeros((3, 4), np.float64), np.arange(5)), TypeError, ["'x'", "float64", "float32[x_dim0, 4]"]),
    ((np.zeros((3, 4, 1), np.float32), np.arange(5)), ValueError, ["'x'", "3 dimension", "float32[x_dim0, 4]"]),
    ((np.zeros((3, 5), np.float32), np.arange(5)), ValueError, ["'x'", "dimension 1 is 5", "float32[x_dim0, 4]"]),
    ((np.zeros((17, 4), np.float32), np.arange(5)), ValueError, ["'x'", "17", "1 <= x_dim0 <= 16"]),
    ((np.zeros((0, 4), np.float32), np.arange(5)), ValueError, ["'x'", "bounds"]),
    ((np.zeros((3, 4), np.float32),), TypeError, ["2 input", "ids: int64[ids_dim0]"]),
    ((np.zeros((3, 4), np.float32), np.arange(5), np.arange(5)), TypeError, ["2 input"]),
    ((np.zeros((3, 4), np.float32), np.arange(5, dtype=np.int32)), TypeError, ["'ids'", "int32", "int64"]),
    ((np.zeros((3, 4), np.float32), [1, 2]), TypeError, ["'ids'", "NumPy array"]),
])
def test_loaded_model_refuses_bad_inputs(checked, args, error, words):
    with pytest.raises(error) as info:
        checked(*args)
    for w in words:
        assert w in str(info.value), str(info.value)


def test_shared_dimension_name_is_checked(tmp_path):
    def f(x, y):
        return x + y

    spec = [sot.InputSpec(["batch", 2], name="x"), sot.InputSpec(["batch", 2], name="y")]
    run = sot.load(sot.save(f, tmp_path / "f", input_spec=spec))
    assert_ort_close(run(f32(3, 2), f32(3, 2, seed=1)), f32(3, 2) + f32(3, 2, seed=1))
    with pytest.raises(ValueError, match="'y'.*batch.*3 in input 'x'"):
        run(f32(3, 2), f32(4, 2))


# ---------------------------------------------------------------------------
# files

@pytest.mark.parametrize("name, written", [
    ("model", "model.onnx"),
    ("model.v1.2", "model.v1.2.onnx"),
    ("my model.ONNX", "my model.ONNX"),
    ("modèle ñ 模型", "modèle ñ 模型.onnx"),
])
def test_odd_paths(tmp_path, name, written):
    def f(x):
        return x - 1

    sub = tmp_path / "a dir.with dots"
    sub.mkdir()
    path = sot.save(f, sub / name, input_spec=[sot.InputSpec([2])])
    assert path == str(sub / written) and os.path.isfile(path)
    assert sorted(os.listdir(sub)) == [written]
    np.testing.assert_allclose(sot.load(path)(np.ones(2, np.float32)), [0, 0])
    np.testing.assert_allclose(sot.load(str(sub / name))(np.ones(2, np.float32)), [0, 0])


def test_missing_corrupt_and_foreign_files(tmp_path, mlp_file):
    with pytest.raises(FileNotFoundError, match="no model file"):
        sot.load(tmp_path / "nothing.onnx")
    (tmp_path / "text.onnx").write_text("hello, I am not a model\n")
    with pytest.raises(ValueError, match="not an ONNX model"):
        sot.load(tmp_path / "text.onnx")
    (tmp_path / "empty.onnx").write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        sot.load(tmp_path / "empty.onnx")
    import pickle
    (tmp_path / "pickle.onnx").write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(ValueError, match="ONNX"):
        sot.load(tmp_path / "pickle.onnx")
    data = open(mlp_file, "rb").read()
    (tmp_path / "cut.onnx").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="ONNX"):
        sot.load(tmp_path / "cut.onnx")
    with pytest.raises(ValueError, match="directory"):
        sot.load(tmp_path)


def test_foreign_onnx_model_loads_with_its_graph_signature(tmp_path):
    from onnx import TensorProto, helper
    g = helper.make_graph([helper.make_node("Relu", ["a"], ["b"])], "relu",
                          [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n", 3])],
                          [helper.make_tensor_value_info("b", TensorProto.FLOAT, ["n", 3])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(tmp_path / "relu.onnx"))
    run = sot.load(tmp_path / "relu.onnx")
    np.testing.assert_array_equal(run(np.array([[-1, 0, 2]], np.float32)), [[0, 0, 2]])
    with pytest.raises(ValueError, match="'a'"):
        run(np.zeros((1, 4), np.float32))


def test_input_spec_validation():
    with pytest.raises(TypeError):
        sot.InputSpec(3)
    with pytest.raises(ValueError):
        sot.InputSpec([-2])
    with pytest.raises(ValueError):
        sot.InputSpec([(5, 2)])
    with pytest.raises(TypeError):
        sot.InputSpec([2], "object")
    s = sot.InputSpec.from_array(np.zeros((2, 3), np.int32), "a")
    assert s == sot.InputSpec([2, 3], "int32", "a")
    with pytest.raises(sot.ExportError, match="2 array argument"):
        sot.save(lambda a, b: a + b, "unused", input_spec=[s])


def test_two_dynamic_dims_views_and_returned_input(tmp_path):
    def f(x):
        return [np.tanh(x).sum(axis=1, keepdims=True), x.T, x]

    path = sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([None, None], name="x")])
    model = onnx.load(path)
    dims = [[d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim] for o in model.graph.output]
    assert dims == [["x_dim0", 1], ["x_dim1", "x_dim0"], ["x_dim0", "x_dim1"]]
    run = sot.load(path)
    for shape in [(1, 1), (2, 7), (9, 4)]:
        x = f32(*shape)
        out, ref = run(x), f(x)
        assert type(out) is list and len(out) == 3
        for a, b in zip(out, ref):
            assert_ort_close(a, b)
        assert out[2] is not x   # a fresh array: the file cannot return the caller's object


def test_in_place_update_of_an_argument_is_refused(tmp_path):
    def f(x):
        x += 1
        return x * 2

    with pytest.raises(sot.ExportError, match="in-place"):
        sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([3])])


def test_dtypes_unused_argument_and_array_default(tmp_path):
    table = np.arange(4, dtype=np.int64)

    def f(mask, ids, unused, offset=table):
        return np.where(mask, ids + offset, 0), ids.astype(np.float64)

    spec = [sot.InputSpec([4], "bool", "mask"), sot.InputSpec([4], "int32", "ids"),
            sot.InputSpec([(1, 3)], "float32", "unused")]
    run = sot.load(sot.save(f, tmp_path / "f", input_spec=spec))
    mask, ids = np.array([True, False, True, True]), np.arange(4, dtype=np.int32)
    out = run(mask, ids, np.zeros(2, np.float32))
    ref = f(mask, ids, None)
    for a, b in zip(out, ref):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="'unused'"):
        run(mask, ids, np.zeros(4, np.float32))


def test_device_argument(mlp_file):
    with pytest.raises(ValueError, match="device"):
        sot.load(mlp_file, device="tpu")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        with pytest.raises(RuntimeError, match="onnxruntime-gpu"):
            sot.load(mlp_file, device="gpu")


W_TIED = np.eye(3, dtype=np.float32) * 2


class Tied:
    def __init__(self):
        self.a = W_TIED
        self.b = W_TIED

    def __call__(self, x):
        return x @ self.a @ self.b + W_TIED.sum(axis=0)


def test_an_array_reached_twice_is_one_initializer(tmp_path):
    m = Tied()
    path = sot.save(m, tmp_path / "tied", input_spec=[sot.InputSpec([None, 3])])
    model = onnx.load(path)
    weights = [i.name for i in model.graph.initializer if list(i.dims) == [3, 3]]
    assert weights == ["self.a"]
    x = f32(2, 3)
    assert_ort_close(sot.load(path)(x), m(x))


def _layernorm(x):
    return W.layernorm(x, LN_W, LN_B)


LN_W, LN_B = f32(16, seed=7), f32(16, seed=8)


@pytest.mark.parametrize("fn", [W.gelu_tanh, W.softmax, _layernorm], ids=lambda f: f.__name__)
@pytest.mark.parametrize("fuse", [True, False])
def test_workloads_with_fused_ops(tmp_path, fn, fuse):
    path = sot.save(fn, tmp_path / "f", input_spec=[sot.InputSpec([None, 16], name="x")], fuse=fuse)
    domains = {n.domain for n in onnx.load(path).graph.node}
    if not fuse:
        assert domains <= {""}
    run = sot.load(path)
    for n in (1, 5):
        x = f32(n, 16, seed=n)
        assert_ort_close(run(x), fn(x))


def test_attention_with_shared_batch_and_length(tmp_path):
    spec = [sot.InputSpec(["batch", "length", 8], name=n) for n in ("q", "k", "v")]
    model = onnx.load(sot.save(W.attention, tmp_path / "attn", input_spec=spec))
    assert [d.dim_param or d.dim_value for d in model.graph.output[0].type.tensor_type.shape.dim] == \
        ["batch", "length", 8]
    run = sot.load(tmp_path / "attn.onnx")
    for b, t in [(1, 1), (2, 5), (3, 9)]:
        q, k, v = (f32(b, t, 8, seed=s) for s in range(3))
        assert_ort_close(run(q, k, v), W.attention(q, k, v), inputs=(q, k, v))
    with pytest.raises(ValueError, match="'k'.*length"):
        run(f32(2, 5, 8), f32(2, 4, 8), f32(2, 5, 8))


class Scaled:
    def __init__(self):
        self.scale = np.float32(0.5)   # a NumPy scalar: an initializer
        self.shift = 2.0               # a Python number: a constant in the graph

    def __call__(self, x):
        return x * self.scale + self.shift


def test_numpy_scalar_weight_and_python_number(tmp_path):
    m = Scaled()
    path = sot.save(m, tmp_path / "s", input_spec=[sot.InputSpec([None], name="x")])
    assert "self.scale" in {i.name for i in onnx.load(path).graph.initializer}
    x = f32(4)
    assert_ort_close(sot.load(path)(x), m(x))


def test_corrupt_signature_metadata_is_a_clear_error(tmp_path, mlp_file):
    model = onnx.load(mlp_file)
    for p in model.metadata_props:
        if p.key == "sot.input_spec":
            p.value = "[{\"name\": \"x\", \"dtype\": \"<f4\", \"shape\": [\"__import__('os')\"]}]"
    onnx.save(model, str(tmp_path / "bad.onnx"))
    with pytest.raises(ValueError, match="metadata is corrupt"):
        sot.load(tmp_path / "bad.onnx")


def test_example_arrays_stand_for_their_own_shape_and_dtype(tmp_path):
    def f(x, ids):
        return x[ids] * 2

    x, ids = f32(4, 3), np.array([2, 0], np.int64)
    path = sot.save(f, tmp_path / "f", input_spec=[x, ids])
    run = sot.load(path)
    assert_ort_close(run(x, ids), f(x, ids))
    with pytest.raises(ValueError, match="expected"):
        run(f32(5, 3), ids)   # static, as the example was
    with pytest.raises(TypeError, match="InputSpec or example arrays"):
        sot.save(f, tmp_path / "g", input_spec=[[1.0, 2.0], ids])
