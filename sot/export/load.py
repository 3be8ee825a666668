"""`load(path, device)`: an exported .onnx file as a checked callable.

Only ONNX protobuf and JSON metadata are read; nothing in the file is run as
Python (no pickle).  A model written by something else than sot loads too:
its signature is then taken from the graph's input types (``dim_param`` and
unknown dims are dynamic, without bounds).
"""
from __future__ import annotations

import json
import os

import numpy as np

from .external_data import inline_external_data
from .spec import (FORMAT_KEY, OUTPUTS_KEY, SIGNATURE_KEY, Dim, ResolvedInput,
                   parse_signature)

__all__ = ["load", "LoadedModel"]


class ModelLoadError(ValueError):
    """The file is missing, not an ONNX model, or corrupt."""


def _read(path: str):
    import onnx
    from google.protobuf.message import DecodeError
    if not os.path.exists(path) and not path.lower().endswith(".onnx") and os.path.exists(path + ".onnx"):
        path += ".onnx"
    if not os.path.exists(path):
        raise FileNotFoundError(f"no model file at {path!r}")
    if os.path.isdir(path):
        raise ModelLoadError(f"{path!r} is a directory, not an .onnx model file")
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        raise ModelLoadError(f"{path!r} is empty, not an ONNX model")
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as e:
        raise ModelLoadError(f"{path!r} is not an ONNX model (it does not parse as one: {e})") from None
    if not model.HasField("graph") or model.ir_version <= 0 or not model.opset_import:
        raise ModelLoadError(f"{path!r} is not an ONNX model (no graph, IR version or opset)")
    # onnxruntime given bytes would look for external weights in the working directory
    if inline_external_data(model, path, lambda message: ModelLoadError(f"{path!r}: {message}")):
        try:
            data = model.SerializeToString()
        except ValueError as e:   # protobuf's 2 GiB limit
            raise ModelLoadError(f"{path!r}: its weights are too large to load ({e})") from None
    try:
        onnx.checker.check_model(model)
    except Exception as e:  # noqa: BLE001
        raise ModelLoadError(f"{path!r} is a corrupt or invalid ONNX model: {e}") from None
    return path, data, model


def _signature_from_graph(model) -> list:
    from onnx import helper
    inits = {i.name for i in model.graph.initializer}
    out = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        dtype = helper.tensor_dtype_to_np_dtype(tt.elem_type)
        dims = []
        for j, d in enumerate(tt.shape.dim):
            if d.HasField("dim_value"):
                dims.append(Dim(size=d.dim_value))
            else:
                dims.append(Dim(param=d.dim_param or f"{vi.name}_dim{j}", min=0))
        out.append(ResolvedInput(vi.name, np.dtype(dtype), tuple(dims)))
    return out


class LoadedModel:
    """An exported model: call it with the arrays of its inputs, in order
    (or by name).  ``input_spec`` is the saved signature, ``session`` the
    onnxruntime InferenceSession."""

    def __init__(self, path: str, device: str = "cpu"):
        from sot.backends.gpu_check import check_session
        from sot.backends.onnx.session import providers_for
        import onnxruntime as ort
        path, data, model = _read(os.fspath(path))
        self.path = path
        props = {p.key: p.value for p in model.metadata_props}
        try:
            self.inputs = parse_signature(props[SIGNATURE_KEY]) if SIGNATURE_KEY in props else \
                _signature_from_graph(model)
            outputs = json.loads(props[OUTPUTS_KEY]) if OUTPUTS_KEY in props else {}
            if not isinstance(outputs, dict):
                raise ValueError("output description is not an object")
        except (ValueError, TypeError, KeyError) as e:
            raise ModelLoadError(f"{path!r}: its sot signature metadata is corrupt: {e}") from None
        self.format = props.get(FORMAT_KEY)
        graph_inputs = [vi.name for vi in model.graph.input
                        if vi.name not in {i.name for i in model.graph.initializer}]
        if [i.name for i in self.inputs] != graph_inputs:
            raise ModelLoadError(f"{path!r}: its saved signature ({[i.name for i in self.inputs]}) does not "
                                 f"match the graph's inputs ({graph_inputs})")
        from sot.backends.onnx.builder import ALL
        for i in self.inputs:
            if i.dtype not in ALL:
                raise ModelLoadError(f"{path!r}: input {i.name!r} has dtype {i.dtype}, not supported")
        self.output_names = [vi.name for vi in model.graph.output]
        self._kind = outputs.get("kind", "tuple" if len(self.output_names) != 1 else "single")
        self._scalar = outputs.get("scalar") or [False] * len(self.output_names)
        if self._kind not in ("single", "tuple", "list") or len(self._scalar) != len(self.output_names):
            raise ModelLoadError(f"{path!r}: its sot output metadata is corrupt")
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        providers = providers_for(device)   # a missing CUDA provider is not the file's fault
        try:
            self.session = ort.InferenceSession(data, options, providers=providers)
        except Exception as e:  # noqa: BLE001 -- onnxruntime's Fail, InvalidGraph... are plain Exceptions
            raise ModelLoadError(f"onnxruntime cannot load {path!r}: {e}") from None
        check_session(self.session, providers)  # RuntimeError: the GPU, not the file
        self.device = device
        from onnx import helper
        self._dtypes = [np.dtype(helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type))
                        for o in model.graph.output]
        self.graph = model.graph.name

    # -- the signature -------------------------------------------------------

    @property
    def input_spec(self) -> list:
        from .spec import InputSpec
        specs = []
        for i in self.inputs:
            shape = [d.size if not d.dynamic else (d.param, d.min, d.max) for d in i.dims]
            specs.append(InputSpec(shape, i.dtype, i.name))
        return specs

    def signature(self) -> str:
        return "(" + ", ".join(i.text() for i in self.inputs) + ")"

    def _check(self, args, kwargs) -> list:
        n = len(self.inputs)
        if kwargs:
            by_name = {i.name: k for k, i in enumerate(self.inputs)}
            values = list(args) + [None] * (n - len(args)) if len(args) <= n else list(args)
            for key, v in kwargs.items():
                if key not in by_name:
                    raise TypeError(f"model {self.graph} has no input named {key!r}; its inputs are "
                                    f"{self.signature()}")
                if by_name[key] < len(args):
                    raise TypeError(f"input {key!r} given twice (by position and by name)")
                values[by_name[key]] = v
            missing = [self.inputs[k].name for k, v in enumerate(values[:n]) if v is None]
            if missing or len(values) != n:
                raise TypeError(f"model {self.graph} takes {n} input(s) {self.signature()}, missing "
                                f"{', '.join(repr(m) for m in missing)}")
            args = values
        if len(args) != n:
            raise TypeError(f"model {self.graph} takes {n} input(s) {self.signature()}, got {len(args)}")
        feed = []
        sizes: dict = {}
        for k, (spec, value) in enumerate(zip(self.inputs, args)):
            expected = f"expected {spec.text()}"
            if not isinstance(value, np.ndarray):
                if isinstance(value, np.generic):
                    value = np.asarray(value)
                else:
                    raise TypeError(f"input {spec.name!r} (argument {k}) must be a NumPy array, got "
                                    f"{type(value).__name__}; {expected}")
            if value.dtype != spec.dtype:
                raise TypeError(f"input {spec.name!r} has dtype {value.dtype}, {expected} "
                                f"(convert with .astype(np.{spec.dtype}))")
            if value.ndim != len(spec.dims):
                raise ValueError(f"input {spec.name!r} has {value.ndim} dimension(s) (shape {value.shape}), "
                                 f"{expected} ({len(spec.dims)} dimension(s))")
            for j, (size, d) in enumerate(zip(value.shape, spec.dims)):
                if not d.dynamic:
                    if size != d.size:
                        raise ValueError(f"input {spec.name!r} has shape {value.shape}: dimension {j} is "
                                         f"{size}, {expected}")
                    continue
                if size < d.min or (d.max is not None and size > d.max):
                    raise ValueError(f"input {spec.name!r} has shape {value.shape}: dimension {j} "
                                     f"({d.param}) is {size}, outside its bounds; {expected}")
                other = sizes.get(d.param)
                if other is not None and other[0] != size:
                    raise ValueError(f"input {spec.name!r} has shape {value.shape}: dimension {j} "
                                     f"({d.param}) is {size}, but {d.param} is {other[0]} in input "
                                     f"{other[1]!r}; {expected}")
                sizes[d.param] = (size, spec.name)
            if not value.flags.c_contiguous:
                value = np.ascontiguousarray(value)
            feed.append(value)
        return feed

    def __call__(self, *args, **kwargs):
        feed = self._check(args, kwargs)
        results = self.session.run(self.output_names, {i.name: v for i, v in zip(self.inputs, feed)})
        results = [_as_numpy(r, dtype, scalar) for r, dtype, scalar in zip(results, self._dtypes, self._scalar)]
        if self._kind == "single":
            return results[0]
        return tuple(results) if self._kind == "tuple" else list(results)

    def __repr__(self) -> str:
        return f"<sot.LoadedModel {self.graph}{self.signature()} from {self.path!r} on {self.device}>"


def _as_numpy(value, dtype, scalar: bool):
    """onnxruntime gives int64 as C long long: view it as NumPy's int64."""
    if isinstance(value, np.ndarray) and value.dtype.type is not dtype.type and value.dtype == dtype:
        value = value.view(dtype)
    return value[()] if scalar else value


def load(path: str | os.PathLike, device: str = "cpu") -> LoadedModel:
    """Load an .onnx file written by sot.save (or any ONNX model) as a
    callable that checks its inputs against the saved signature and runs
    with onnxruntime on ``device`` ("cpu" or "gpu")."""
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return LoadedModel(os.fspath(path), device)
