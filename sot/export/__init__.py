"""Deployment: a function traced as one graph, saved as an ONNX file.

    sot.save(model, "mlp.onnx", input_spec=[sot.InputSpec([None, 512], "float32", "x")])
    run = sot.load("mlp.onnx")
    y = run(x)

The file is a plain ONNX model (any onnxruntime can run it); the input
signature and its bounds are also stored as JSON in ``metadata_props``.
"""
from .spec import ExportError, InputSpec
from .save import export_model, save
from .load import LoadedModel, ModelLoadError, load

__all__ = ["InputSpec", "ExportError", "save", "load", "export_model", "LoadedModel", "ModelLoadError"]
