"""External weight files of a model being loaded, read from the model's folder only.

onnxruntime given the model as bytes resolves a tensor's external ``location``
against the working directory, and onnx's own helper follows whatever path
the file names.  A model is data from somewhere else, so here a location must
be a plain relative path inside the model file's folder (no absolute path, no
``..``, no symlink leading out); its bytes are read from there and put inline.
"""
from __future__ import annotations

import os

__all__ = ["inline_external_data"]


def _tensors(graph):
    """Every TensorProto of a graph: initializers and attribute tensors, also in subgraphs."""
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield sparse.values
        yield sparse.indices
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("t"):
                yield attr.t
            yield from attr.tensors
            if attr.HasField("g"):
                yield from _tensors(attr.g)
            for g in attr.graphs:
                yield from _tensors(g)


def _resolve(location: str, folder: str, error) -> str:
    parts = location.replace("\\", "/").split("/")
    if (not location or os.path.isabs(location) or location.startswith(("/", "\\"))
            or os.path.splitdrive(location)[0] or ".." in parts or "\x00" in location):
        raise error(f"external data location {location!r} is not a relative path inside the model's folder")
    full = os.path.join(folder, *[p for p in parts if p not in ("", ".")])
    real_folder = os.path.realpath(folder)
    real = os.path.realpath(full)
    if os.path.commonpath([real, real_folder]) != real_folder:
        raise error(f"external data location {location!r} leads outside the model's folder")
    if not os.path.isfile(real):
        raise error(f"external data file {location!r} is missing next to the model")
    return real


def inline_external_data(model, model_path: str, error) -> bool:
    """Read every external tensor of ``model`` from the folder of
    ``model_path`` into ``raw_data``; ``error(message)`` builds the exception
    raised for a bad location.  Returns whether anything was external."""
    from onnx import TensorProto
    folder = os.path.dirname(os.path.abspath(model_path))
    found = False
    for tensor in _tensors(model.graph):
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        found = True
        info = {e.key: e.value for e in tensor.external_data}
        real = _resolve(info.get("location", ""), folder, error)
        try:
            offset = int(info.get("offset") or 0)
            length = int(info["length"]) if info.get("length") else None
        except ValueError:
            raise error(f"external data of {tensor.name!r} has a malformed offset or length") from None
        size = os.path.getsize(real)
        if offset < 0 or offset > size or (length is not None and (length < 0 or offset + length > size)):
            raise error(f"external data of {tensor.name!r} lies outside its file {info['location']!r}")
        with open(real, "rb") as f:
            f.seek(offset)
            tensor.raw_data = f.read() if length is None else f.read(length)
        tensor.data_location = TensorProto.DEFAULT
        del tensor.external_data[:]
    return found
