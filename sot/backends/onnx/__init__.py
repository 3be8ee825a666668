"""The onnxruntime backend: a StatementIR lowered to ONNX and run by onnxruntime.

``lowering`` plans a graph into ONNX and NumPy segments and lowers statements
(rules in ``lowering_*``, patterns in ``fusion``) with ``builder``;
``session`` runs the segments at static sizes, ``symbolic`` with symbolic
dims; ``writes``/``lowering_writes`` handle writes into arrays, ``buffers``
results written into arrays of ours, ``checked`` eager's errors where
onnxruntime fails; ``auto`` times this backend against NumPy.  onnx and
onnxruntime are imported only when a graph is compiled.
"""
