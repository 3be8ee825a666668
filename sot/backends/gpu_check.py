"""Is device='gpu' really on the GPU?

onnxruntime-gpu lists CUDAExecutionProvider among its available providers
even when the CUDA libraries it loads at session creation (libcudart,
libcublas, cuDNN) are missing or of the wrong version; the session then
silently runs on the CPU. So a session asked for CUDA is checked for the
providers it actually got, and device='gpu' is probed once when a function
is decorated, to fail at once with what to do.
"""
from __future__ import annotations

import functools

CUDA = "CUDAExecutionProvider"


def fell_back_message(got) -> str:
    from .onnx.session import GPU_HELP
    import onnxruntime as ort
    return (f"device='gpu': onnxruntime {ort.__version__} lists {CUDA} but could not start it, so the "
            f"session would run on the CPU (providers it got: {', '.join(got) or 'none'}). The CUDA "
            "libraries onnxruntime-gpu loads (CUDA runtime, cuBLAS, cuDNN of the versions its release "
            "notes name) were not found or do not match; onnxruntime says which when a session is "
            "created with log_severity_level=0. Install them (e.g. `pip install "
            "onnxruntime-gpu[cuda,cudnn]`), or use device='cpu'. " + GPU_HELP)


def check_session(session, providers) -> None:
    """Raise RuntimeError when ``providers`` asked for CUDA and ``session`` did not get it."""
    if CUDA in providers and CUDA not in session.get_providers():
        raise RuntimeError(fell_back_message(session.get_providers()))


@functools.lru_cache(maxsize=None)
def _probe() -> tuple:
    """The providers a one-node CUDA session gets (once per process)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe", [x],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=[CUDA, "CPUExecutionProvider"])
    return tuple(session.get_providers())


def check_gpu() -> None:
    """Raise RuntimeError unless a CUDA session really starts on this machine."""
    got = _probe()
    if CUDA not in got:
        raise RuntimeError(fell_back_message(got))
