"""device='gpu' never runs on the CPU silently: onnxruntime-gpu lists the
CUDA provider even when the CUDA libraries are missing, and its session then
falls back to the CPU. Simulated here on the CPU build by making onnxruntime
list the CUDA provider it cannot start."""
import numpy as np
import pytest

import sot
from sot.backends import gpu_check

ort = pytest.importorskip("onnxruntime")
pytestmark = [pytest.mark.skipif(gpu_check.CUDA in ort.get_available_providers(),
                                 reason="a real CUDA provider is present"),
              pytest.mark.filterwarnings("ignore:Specified provider 'CUDAExecutionProvider'")]


@pytest.fixture
def cuda_listed_but_unusable(monkeypatch):
    listed = ort.get_available_providers()
    monkeypatch.setattr(ort, "get_available_providers", lambda: [gpu_check.CUDA] + listed)
    gpu_check._probe.cache_clear()
    yield
    gpu_check._probe.cache_clear()


def test_decorating_for_the_gpu_fails_at_once_naming_the_providers_it_got(cuda_listed_but_unusable):
    with pytest.raises(RuntimeError) as e:
        sot.to_static(lambda x: x * 2, backend="onnxruntime", device="gpu")
    message = str(e.value)
    assert "would run on the CPU" in message and "providers it got: CPUExecutionProvider" in message
    assert "device='cpu'" in message and "onnxruntime-gpu" in message


def test_a_session_that_fell_back_to_the_cpu_raises(cuda_listed_but_unusable):
    from sot.backends.onnx.session import _session
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    model = helper.make_model(helper.make_graph([helper.make_node("Neg", ["x"], ["y"])], "g", [x],
                                                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]),
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with pytest.raises(RuntimeError, match="would run on the CPU"):
        _session(model, [gpu_check.CUDA, "CPUExecutionProvider"])
    _session(model, ["CPUExecutionProvider"])       # the CPU is fine when it is what was asked


def test_loading_an_onnx_file_for_the_gpu_raises_too(cuda_listed_but_unusable, tmp_path):
    path = sot.save(lambda x: x * 2, tmp_path / "f", input_spec=[sot.InputSpec([3])])
    assert sot.load(path)(np.ones(3, np.float32)).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="would run on the CPU"):
        sot.load(path, device="gpu")
