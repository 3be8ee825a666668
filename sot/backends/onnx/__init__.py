"""The onnxruntime backend: a StatementIR lowered to ONNX and run by onnxruntime.

``lowering`` plans a graph into ONNX and NumPy segments and lowers statements
by the table of rules (``rules``; the rules in ``lowering_*``, patterns in
``fusion``) with ``builder``; ``model`` (``to_model``) gives a whole graph
as one ONNX model (``sot.save``);
``session`` runs the segments at static sizes, ``symbolic`` with symbolic
dims; ``writes``/``lowering_writes`` handle writes into arrays, ``buffers``
results written into arrays of ours, ``checked`` eager's errors where
onnxruntime fails; ``auto`` times this backend against NumPy.  onnx and
onnxruntime are imported only when a graph is compiled.
"""


def to_model(ir, dim_names=None, *, fuse=True, outputs=None):
    """``ir`` as one ONNX model: see ``model.to_model`` (imported only when
    called, as onnx is)."""
    from .model import to_model as build
    return build(ir, dim_names, fuse=fuse, outputs=outputs)
