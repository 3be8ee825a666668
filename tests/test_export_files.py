"""sot.load / sot.save and the files around a model: external weights are read
from the model's folder only, every onnxruntime load failure is a
ModelLoadError naming the file, and saved files get the umask's mode."""
import os
import stat

import numpy as np
import pytest

import sot
from ort_tolerance import assert_ort_close
from sot.export import ModelLoadError

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

W = np.arange(12, dtype=np.float32).reshape(3, 4) / 7


def _model(location=None, offset=None):
    """y = x @ W with W an initializer, stored in ``location`` when given."""
    init = numpy_helper.from_array(W, "w")
    if location is not None:
        init.ClearField("raw_data")
        init.data_location = TensorProto.EXTERNAL
        for key, value in (("location", location), ("offset", offset), ("length", str(W.nbytes))):
            if value is not None:
                e = init.external_data.add()
                e.key, e.value = key, str(value)
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "mm",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])], [init])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _write(path, model):
    path.write_bytes(model.SerializeToString())
    return path


X = np.ones((2, 3), np.float32)


def test_external_weights_beside_the_model_load_from_any_working_directory(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    (folder / "weights").mkdir(parents=True)
    (folder / "weights" / "w.bin").write_bytes(b"\0" * 8 + W.tobytes())
    path = _write(folder / "m.onnx", _model("weights/w.bin", offset=8))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # a decoy with the same relative name in the working directory must not be read
    (elsewhere / "weights").mkdir()
    (elsewhere / "weights" / "w.bin").write_bytes(b"\0" * 8 + (W * 0).tobytes())
    monkeypatch.chdir(elsewhere)
    run = sot.load(path)
    assert_ort_close(run(X), X @ W)
    monkeypatch.chdir(tmp_path)
    assert_ort_close(sot.load(os.path.relpath(path))(X), X @ W)


def test_saved_model_converted_to_external_data_loads(tmp_path, monkeypatch):
    from onnx.external_data_helper import convert_model_to_external_data

    def f(x):
        return np.tanh(x @ WEIGHT)

    global WEIGHT
    WEIGHT = np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32)
    path = sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([None, 8], "float32", "x")])
    model = onnx.load(path)
    convert_model_to_external_data(model, all_tensors_to_one_file=True, location="f.weights",
                                   size_threshold=0)
    onnx.save(model, path)
    assert (tmp_path / "f.weights").exists()
    monkeypatch.chdir(tmp_path.parent)
    x = np.random.default_rng(1).standard_normal((5, 8)).astype(np.float32)
    assert_ort_close(sot.load(path)(x), f(x))


@pytest.mark.parametrize("where", ["parent", "absolute", "symlink", "missing", "outside-bounds"])
def test_external_data_outside_the_model_folder_is_refused(tmp_path, monkeypatch, where):
    folder = tmp_path / "models"
    folder.mkdir()
    secret = tmp_path / "secret.bin"
    secret.write_bytes(W.tobytes())
    location = {"parent": "../secret.bin", "absolute": str(secret), "symlink": "link.bin",
                "missing": "nothing.bin", "outside-bounds": "small.bin"}[where]
    if where == "symlink":
        os.symlink(secret, folder / "link.bin")
    if where == "outside-bounds":
        (folder / "small.bin").write_bytes(b"\0" * 4)
    path = _write(folder / "m.onnx", _model(location))
    monkeypatch.chdir(folder)   # "../secret.bin" exists from here: still refused
    with pytest.raises(ModelLoadError, match="m.onnx"):
        sot.load(path)


def test_onnxruntime_failures_become_model_load_error(tmp_path):
    # passes onnx's checker, but onnxruntime has no kernel for it (its Fail / NotImplemented
    # exceptions are not RuntimeError)
    g = helper.make_graph([helper.make_node("NoSuchOp", ["x"], ["y"], domain="com.example")], "bad",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid("com.example", 1)])
    model.ir_version = 8
    path = _write(tmp_path / "bad.onnx", model)
    with pytest.raises(ModelLoadError, match="bad.onnx"):
        sot.load(path)


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_save_creates_files_with_the_umask_mode(tmp_path, mask):
    old = os.umask(mask)
    try:
        path = sot.save(lambda x: x * 2, tmp_path / f"m{mask:o}", input_spec=[sot.InputSpec([2])])
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == [os.path.basename(path)]
