"""Products: matmul (``@``, ``@=``), dot, inner, outer, tensordot, einsum;
and diagonal, trace."""

from __future__ import annotations

import math
import operator

import numpy as np

from .errors import UnsupportedOp
from .registry import (Op, bind, broadcast, const_axes, const_int, meta_of_probe, probe_shape, register,
                       run_probe, shape_of, simple_op)
from .statement_ir import Symbol


def _operand_probe(value):
    """A constant operand (``[1., 2., 3.]``) probed like an array operand: an
    array of its dtype with every dim at most 1.  Core dims must agree with
    the probes of the traced operands, which are shrunk the same way."""
    if isinstance(value, (list, tuple)) and not isinstance(value, Symbol):
        shape_of(value)  # refuses sequences holding traced values
        array = np.asarray(value)
        if array.dtype.kind in "biufc":
            return np.ones(probe_shape(array.shape), array.dtype)
    return value


def operand_op(name: str, kind: str, target, shape_rule, first: int = 0, count: int | None = 2) -> Op:
    """``simple_op`` for ops with core dims, whose positional operands
    ``args[first:first + count]`` (all from ``first`` when count is None)
    may be constant sequences (see _operand_probe)."""

    def infer(op, args, kwargs):
        end = len(args) if count is None else first + count
        probed = args[:first] + tuple(_operand_probe(a) for a in args[first:end]) + args[end:]
        return meta_of_probe(op, run_probe(op, probed, kwargs), shape_rule(args, kwargs))

    return register(Op(name, kind, target, infer))

_UFUNC_KWARGS = frozenset({"dtype", "casting"})


def _core_mismatch(name, a, b):
    raise UnsupportedOp(f"{name}: core dimensions of {a} and {b} do not match")


def matmul_shape(a, b) -> tuple[int, ...]:
    if len(a) == 0 or len(b) == 0:
        raise UnsupportedOp("matmul: 0-d operand")
    a2 = (1,) + tuple(a) if len(a) == 1 else tuple(a)
    b2 = tuple(b) + (1,) if len(b) == 1 else tuple(b)
    if a2[-1] != b2[-2]:
        _core_mismatch("matmul", a, b)
    shape = broadcast(a2[:-2], b2[:-2]) + (a2[-2], b2[-1])
    if len(b) == 1:
        shape = shape[:-1]
    if len(a) == 1:
        shape = shape[:-2] + shape[-1:] if len(b) != 1 else shape[:-1]
    return shape


def _matmul_function_shape(args, kwargs):
    if len(args) != 2:
        raise UnsupportedOp("matmul: expects two operands")
    for k, v in kwargs.items():
        if k not in _UFUNC_KWARGS and not (k == "out" and v is None):
            raise UnsupportedOp(f"matmul: keyword {k}= not captured")
    return matmul_shape(shape_of(args[0]), shape_of(args[1]))


def _matmul_operator_shape(args, kwargs):
    return matmul_shape(shape_of(args[0]), shape_of(args[1]))


def _imatmul_shape(args, kwargs):
    shape = matmul_shape(shape_of(args[0]), shape_of(args[1]))
    if shape != tuple(shape_of(args[0])):
        raise UnsupportedOp(f"@=: result shape {shape} differs from the target's")
    return shape


operand_op("matmul", "function", np.matmul, _matmul_function_shape)
operand_op("matmul", "operator", operator.matmul, _matmul_operator_shape)
simple_op("imatmul", "operator", operator.imatmul, _imatmul_shape)


def dot_shape(a, b):
    if len(a) == 0:
        return tuple(b)
    if len(b) == 0:
        return tuple(a)
    k = b[0] if len(b) == 1 else b[-2]
    if a[-1] != k:
        _core_mismatch("dot", a, b)
    return tuple(a[:-1]) + tuple(b[:-2]) + tuple(b[-1:] if len(b) >= 2 else ())


def _dot_shape(args, kwargs):
    bound = bind("dot", ("a", "b", "out"), args, kwargs, {"a", "b"})
    if "b" not in bound:
        raise UnsupportedOp("dot: expects two operands")
    return dot_shape(shape_of(bound["a"]), shape_of(bound["b"]))


operand_op("dot", "function", np.dot, _dot_shape)
operand_op("dot", "method", "dot", _dot_shape)


def _inner_shape(args, kwargs):
    if len(args) != 2 or kwargs:
        raise UnsupportedOp("inner: expects exactly two operands")
    a, b = shape_of(args[0]), shape_of(args[1])
    if len(a) == 0:
        return tuple(b)
    if len(b) == 0:
        return tuple(a)
    if a[-1] != b[-1]:
        _core_mismatch("inner", a, b)
    return tuple(a[:-1]) + tuple(b[:-1])


operand_op("inner", "function", np.inner, _inner_shape)


def _outer_shape(args, kwargs):
    bound = bind("outer", ("a", "b", "out"), args, kwargs, {"a", "b"})
    if "b" not in bound:
        raise UnsupportedOp("outer: expects two operands")
    return (math.prod(shape_of(bound["a"])), math.prod(shape_of(bound["b"])))


simple_op("outer", "function", np.outer, _outer_shape)


def _tensordot_shape(args, kwargs):
    bound = bind("tensordot", ("a", "b", "axes"), args, kwargs, {"a", "b", "axes"})
    if "b" not in bound:
        raise UnsupportedOp("tensordot: expects two operands")
    a, b = shape_of(bound["a"]), shape_of(bound["b"])
    axes = bound.get("axes", 2)
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise UnsupportedOp("tensordot: axes must be a pair")
        axes_a, axes_b = axes
        axes_a = [const_int(x, "axes") for x in axes_a] if isinstance(axes_a, (tuple, list)) else [const_int(axes_a, "axes")]
        axes_b = [const_int(x, "axes") for x in axes_b] if isinstance(axes_b, (tuple, list)) else [const_int(axes_b, "axes")]
    else:
        n = const_int(axes, "axes")
        if n < 0 or n > len(a) or n > len(b):
            raise UnsupportedOp("tensordot: too many summed axes")
        axes_a = list(range(len(a) - n, len(a)))
        axes_b = list(range(n))
    if len(axes_a) != len(axes_b):
        raise UnsupportedOp("tensordot: axes lists differ in length")
    axes_a = [x % len(a) if -len(a) <= x < len(a) else None for x in axes_a]
    axes_b = [x % len(b) if -len(b) <= x < len(b) else None for x in axes_b]
    if None in axes_a or None in axes_b:
        raise UnsupportedOp("tensordot: axis out of bounds")
    for i, j in zip(axes_a, axes_b):
        if a[i] != b[j]:
            raise UnsupportedOp(f"tensordot: shape mismatch on summed axes {i} and {j}")
    return (tuple(d for i, d in enumerate(a) if i not in axes_a)
            + tuple(d for j, d in enumerate(b) if j not in axes_b))


operand_op("tensordot", "function", np.tensordot, _tensordot_shape)


def einsum_shape(subscripts: str, shapes) -> tuple[int, ...]:
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        lhs, out = spec.split("->", 1)
    else:
        lhs, out = spec, None
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise UnsupportedOp("einsum: operand count does not match the subscripts")
    sizes: dict[str, tuple[int, ...]] = {}
    counts: dict[str, int] = {}
    ellipsis_shapes = []
    for term, shape in zip(terms, shapes):
        if term.count("...") > 1:
            raise UnsupportedOp("einsum: more than one ellipsis in a term")
        letters = term.replace("...", "")
        if not all(c.isalpha() for c in letters):
            raise UnsupportedOp(f"einsum: bad subscripts {subscripts!r}")
        n_ell = len(shape) - len(letters)
        if n_ell < 0 or (n_ell > 0 and "..." not in term):
            raise UnsupportedOp("einsum: subscripts do not match the operand's ndim")
        if "..." in term:
            pos = term.index("...")
            before = len(term[:pos])
            ellipsis_shapes.append(tuple(shape[before:before + n_ell]))
            dims = list(shape[:before]) + list(shape[before + n_ell:])
        else:
            dims = list(shape)
        local: dict[str, int] = {}
        for c, d in zip(letters, dims):
            if local.setdefault(c, d) != d:
                raise UnsupportedOp(f"einsum: repeated label {c!r} on dimensions {local[c]} and {d}")
            sizes.setdefault(c, ())
            sizes[c] = broadcast(sizes[c], (d,))
            counts[c] = counts.get(c, 0) + 1
    ell = broadcast(*ellipsis_shapes) if ellipsis_shapes else ()
    if out is None:
        out_letters = "".join(sorted(c for c, n in counts.items() if n == 1))
        return tuple(ell) + tuple(sizes[c][0] for c in out_letters)
    result: list[int] = []
    pieces = out.split("...")
    if len(pieces) > 2:
        raise UnsupportedOp("einsum: more than one ellipsis in the output")
    for i, piece in enumerate(pieces):
        if i == 1:
            result.extend(ell)
        for c in piece:
            if c not in sizes:
                raise UnsupportedOp(f"einsum: output label {c!r} not among the inputs")
            result.append(sizes[c][0])
    return tuple(result)


def _einsum_shape(args, kwargs):
    for k, v in kwargs.items():
        if k not in ("dtype", "casting", "optimize", "order") and not (k == "out" and v is None):
            raise UnsupportedOp(f"einsum: keyword {k}= not captured")
    if not args or not isinstance(args[0], str):
        raise UnsupportedOp("einsum: only the subscripts-string form is captured")
    return einsum_shape(args[0], [shape_of(a) for a in args[1:]])


operand_op("einsum", "function", np.einsum, _einsum_shape, first=1, count=None)


def diagonal_shape(shape, offset, axis1, axis2) -> tuple[int, ...]:
    d1, d2 = shape[axis1], shape[axis2]
    length = min(d1, d2 - offset) if offset >= 0 else min(d1 + offset, d2)
    return tuple(d for i, d in enumerate(shape) if i not in (axis1, axis2)) + (max(0, length),)


def _diagonal_axes(name, bound):
    shape = shape_of(bound["a"])
    if len(shape) < 2:
        raise UnsupportedOp(f"{name}: needs at least 2 dimensions")
    (a1,), (a2,) = const_axes(bound.get("axis1", 0), len(shape)), const_axes(bound.get("axis2", 1), len(shape))
    if a1 == a2:
        raise UnsupportedOp(f"{name}: axis1 and axis2 cannot be the same")
    return shape, const_int(bound.get("offset", 0), "offset"), a1, a2


def _diagonal_shape(args, kwargs):
    bound = bind("diagonal", ("a", "offset", "axis1", "axis2"), args, kwargs, {"a", "offset", "axis1", "axis2"})
    return diagonal_shape(*_diagonal_axes("diagonal", bound))


def _trace_shape(args, kwargs):
    bound = bind("trace", ("a", "offset", "axis1", "axis2", "dtype", "out"), args, kwargs,
                 {"a", "offset", "axis1", "axis2", "dtype"})
    return diagonal_shape(*_diagonal_axes("trace", bound))[:-1]


simple_op("diagonal", "function", np.diagonal, _diagonal_shape)
simple_op("diagonal", "method", "diagonal", _diagonal_shape)
simple_op("trace", "function", np.trace, _trace_shape)
simple_op("trace", "method", "trace", _trace_shape)
