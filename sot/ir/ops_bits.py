"""Bit packing: ``np.packbits`` (integers or bools, eight to a ``uint8``) and
``np.unpackbits`` (``uint8``, eight bits each, ``count`` of them kept).

Same contract as every ``ops_*`` module: the shape from a rule in pure
Python over the operand's shape and the constant arguments (valid for
symbolic dims), dtype and Python type from NumPy on a probe.  They run on
the NumPy backend (ONNX has no bit packing: ``sot.save`` refuses them).
"""

from __future__ import annotations

import math

import numpy as np

from .errors import UnsupportedOp
from .registry import bind, const_axes, const_int, shape_of, simple_op
from .statement_ir import Symbol


def _operand(b, name, kinds):
    a = b.get("a")
    if not isinstance(a, Symbol) or a.meta.is_python:
        raise UnsupportedOp(f"{name}: the operand is not a traced array")
    if a.meta.dtype.kind not in kinds:
        raise UnsupportedOp(f"{name}: operand of dtype {a.meta.dtype} (NumPy raises TypeError)")
    if b.get("bitorder", "big") not in ("big", "little"):
        raise UnsupportedOp(f"{name}: bitorder must be 'big' or 'little' (NumPy raises)")
    return shape_of(a)


def _along(shape, axis, size):
    """``shape`` with the packed axis (None: the flattened operand) resized by ``size(n)``."""
    if axis is None:
        return (size(math.prod(shape)),)
    (ax,) = const_axes(axis, len(shape))
    return tuple(size(d) if i == ax else d for i, d in enumerate(shape))


def _packbits_shape(args, kwargs):
    b = bind("packbits", ("a", "axis", "bitorder"), args, kwargs, {"a", "axis", "bitorder"})
    return _along(_operand(b, "packbits", "biu"), b.get("axis"), lambda n: -(-n // 8))


def _unpackbits_shape(args, kwargs):
    b = bind("unpackbits", ("a", "axis", "count", "bitorder"), args, kwargs, {"a", "axis", "count", "bitorder"})
    shape = _operand(b, "unpackbits", "u")
    if b["a"].meta.dtype != np.uint8:
        raise UnsupportedOp("unpackbits: the operand must be uint8 (NumPy raises TypeError)")
    count = b.get("count")
    count = None if count is None else const_int(count, "count")

    def size(n):
        bits = 8 * n
        if count is None:
            return bits
        if count < 0 and bits + count < 0:
            raise UnsupportedOp("unpackbits: -count larger than the number of bits (NumPy raises)")
        return count if count >= 0 else bits + count
    return _along(shape, b.get("axis"), size)


simple_op("packbits", "function", np.packbits, _packbits_shape)
simple_op("unpackbits", "function", np.unpackbits, _unpackbits_shape)
