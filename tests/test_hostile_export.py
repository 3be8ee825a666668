"""sot.save / sot.load with hostile paths and damaged files: a clear error
naming the user's path, never a file written somewhere unexpected."""
from __future__ import annotations

import os

import numpy as np
import pytest

import sot


def _f(x):
    return np.tanh(x) * 2 + 1


SPEC = [sot.InputSpec([None, 3], "float32", "x")]


@pytest.mark.parametrize("name", ["", "out" + os.sep])
def test_save_without_a_file_name_is_an_error(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="needs a file name"):
        sot.save(_f, name, input_spec=SPEC)
    assert os.listdir(tmp_path) == []   # not a hidden ".onnx"


def test_save_into_a_missing_directory_names_the_path(tmp_path):
    target = tmp_path / "no" / "such" / "m.onnx"
    with pytest.raises(FileNotFoundError, match=f"cannot write '{target}'"):
        sot.save(_f, target, input_spec=SPEC)


def test_save_over_a_directory_names_the_path(tmp_path):
    (tmp_path / "m.onnx").mkdir()
    with pytest.raises(IsADirectoryError, match="cannot write '.*m.onnx'"):
        sot.save(_f, tmp_path / "m.onnx", input_spec=SPEC)
    assert [p for p in os.listdir(tmp_path) if p.endswith(".tmp")] == []   # the temporary file is gone


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty"])
def test_damaged_model_file_is_a_load_error(tmp_path, damage):
    path = sot.save(_f, tmp_path / "m.onnx", input_spec=SPEC)
    data = open(path, "rb").read()
    data = {"truncated": data[: len(data) // 2], "garbage": b"\x00\xff" * 100, "empty": b""}[damage]
    open(path, "wb").write(data)
    with pytest.raises(ValueError, match="m.onnx"):
        sot.load(path)(np.ones((2, 3), np.float32))


def test_unusual_file_names_round_trip(tmp_path):
    x = np.ones((2, 3), np.float32)
    for name in ["with\nnewline", "ünïcode ✓", "spaces and 'quotes'"]:
        path = sot.save(_f, tmp_path / name, input_spec=SPEC)
        assert path.endswith(".onnx")
        np.testing.assert_allclose(sot.load(os.fsencode(path))(x), _f(x), rtol=1e-5)
