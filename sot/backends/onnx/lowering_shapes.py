"""Sizes in the ONNX lowering, for graphs with symbolic dims.

A StatementIR may have symbolic dims (``sot.ir.symbolic``): its values hold
for every size of them.  It is lowered to one ONNX model for all sizes: a
size the lowering needs (a reshape target, an Expand or ConstantOfShape
shape, split points, a slice bound) is a **Dim**:

* an ``int`` where the size is static (the model holds it as a constant, as
  for a static graph, whose models are unchanged);
* else the name of a 1-element int64 tensor the model computes: a ``Shape``
  slice of a value whose runtime shape the IR meta describes (``dims_of``),
  or a Python number of the graph (``x.shape[0] // 2``) lowered below.

Python numbers computed from symbolic dims (``ScalarMeta``: the ``dim`` op,
``n * 2``, ``n / 3``, ``d ** 0.5``, ``n == 7``) are 0-d int64, float64 or
bool values, computed with Python's semantics: the int64 and float64 loops
of NumPy match Python's for every value the compiled graph lets through
(``symbolic_shapes.check_sizes`` sends sizes where a Python number leaves
±2**53, or where Python raises, to NumPy).

A statement touching symbolic dims whose rule has not been made size
independent raises ``NotSymbolic`` (the graph is then compiled per shape).
"""

from __future__ import annotations

import numpy as np

from sot.ir.statement_ir import Symbol

from .builder import BOOL, F64, I64, GraphBuilder, NotLowered, NotSymbolic, meta_dtype

__all__ = ["is_symbolic", "statement_is_symbolic", "dim", "dims_of", "shape_of", "product",
           "dim_arith", "scalar_dim", "as_scalar", "set_dims", "lower_dim", "lower_python_operator",
           "INT64_MAX", "INT64_MIN"]

INT64_MAX = 2 ** 63 - 1
INT64_MIN = -(2 ** 63)


def is_symbolic(meta) -> bool:
    """A Python number of the graph, or an array with a symbolic dim."""
    return meta.is_python or bool(meta.symbolic_axes)


def statement_is_symbolic(st) -> bool:
    return any(is_symbolic(s.meta) for s in st.symbols_used()) or \
        any(is_symbolic(s.meta) for s in st.outputs)


# ----------------------------------------------------------------------------
# Dims

def dim(b: GraphBuilder, x: str, axis: int) -> str:
    """Dim ``axis`` of the ONNX value ``x``, as a 1-element int64 tensor."""
    key = ("dim", x, axis)
    name = b.memo.get(key)
    if name is None:
        name = b.memo[key] = b.node("Shape", [x], I64, (1,), start=axis, end=axis + 1)
    return name


def dims_of(b: GraphBuilder, x: str, meta) -> list:
    """The runtime dims of ``x``, an ONNX value holding an IR value of ``meta``."""
    known = b.dims.get(x)
    if known is not None:
        return list(known)
    if meta.is_python:
        return []
    sym = meta.symbolic_axes
    if not sym:
        return list(meta.shape)
    return [dim(b, x, i) if i in sym else d for i, d in enumerate(meta.shape)]


def set_dims(b: GraphBuilder, x: str, dims) -> str:
    """Record the exact runtime dims of ``x`` (only where some is symbolic)."""
    dims = tuple(dims)
    if not all(isinstance(d, int) for d in dims):
        b.dims[x] = dims
    return x


def _static(dims) -> bool:
    return all(isinstance(d, int) for d in dims)


def shape_of(b: GraphBuilder, dims) -> str:
    """A 1-D int64 shape tensor of ``dims``."""
    dims = tuple(dims)
    if _static(dims):
        return b.ints(dims)
    key = ("shape", dims)
    name = b.memo.get(key)
    if name is None:
        pieces, run = [], []
        for d in dims:
            if isinstance(d, int):
                run.append(d)
                continue
            if run:
                pieces.append(b.ints(run))
                run = []
            pieces.append(d)
        if run:
            pieces.append(b.ints(run))
        name = pieces[0] if len(pieces) == 1 else b.node("Concat", pieces, I64, (len(dims),), axis=0)
        b.memo[key] = name
    return name


_INT_OPS = {"Add": lambda x, y: x + y, "Sub": lambda x, y: x - y, "Mul": lambda x, y: x * y,
            "Div": lambda x, y: x // y, "Mod": lambda x, y: x % y}


def dim_arith(b: GraphBuilder, op_type: str, x, y):
    """``x op y`` on Dims (Add, Sub, Mul; Div and Mod of non-negative
    values, where truncation is Python's floor)."""
    if isinstance(x, int) and isinstance(y, int):
        return _INT_OPS[op_type](x, y)
    if op_type == "Mul" and (x == 1 or y == 1):
        return y if x == 1 else x
    if op_type in ("Add", "Sub") and y == 0:
        return x
    key = (op_type, x, y)
    name = b.memo.get(key)
    if name is None:
        xs = [b.ints([v]) if isinstance(v, int) else v for v in (x, y)]
        name = b.memo[key] = b.node(op_type, xs, I64, (1,))
    return name


def product(b: GraphBuilder, dims):
    """The product of Dims (an int when all are static)."""
    out = 1
    for d in [d for d in dims if isinstance(d, int)] + [d for d in dims if not isinstance(d, int)]:
        out = dim_arith(b, "Mul", out, d)
    return out


def scalar_dim(b: GraphBuilder, v):
    """A size given as an argument: an int constant, or a Python int of the
    graph (a Symbol), as a Dim."""
    if isinstance(v, Symbol):
        if not (v.meta.is_python and v.meta.type is int):
            raise NotSymbolic(f"{v.name}: a size that is not a Python int of the graph")
        key = ("as_dim", v.name)
        name = b.memo.get(key)
        if name is None:
            name = b.memo[key] = b.node("Reshape", [b.value(v), b.ints([1])], I64, (1,))
        return name
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise NotSymbolic(f"size {v!r} is not an int")
    return int(v)


def as_scalar(b: GraphBuilder, d) -> str:
    """A Dim as a 0-d int64 value."""
    if isinstance(d, int):
        return b.const(np.asarray(d, np.int64))
    return b.node("Reshape", [d, b.ints([])], I64, ())


# ----------------------------------------------------------------------------
# helpers of the array rules

def _out(st):
    return st.outputs[0].meta


def _symbol_operand(v, what):
    if not isinstance(v, Symbol):
        raise NotLowered(f"{what} is a constant array")
    return v


def _reshape(b: GraphBuilder, x: str, shape) -> str:
    """``x`` reshaped to Dims ``shape`` (nothing when it has them already)."""
    shape = tuple(shape)
    if all(isinstance(d, int) for d in shape):
        if b.shape.get(x) == shape and x not in b.dims:
            return x
        return b.node("Reshape", [x, b.ints(shape)], b.dtype[x], shape)
    if b.dims.get(x) == shape:
        return x
    return set_dims(b, b.node("Reshape", [x, shape_of(b, shape)], b.dtype[x]), shape)


def _same_dims(b: GraphBuilder, x: str, meta, out) -> list:
    """The dims of ``out``, the result of adding or dropping 1s in the shape
    of ``x`` (of IR meta ``meta``): static dims from ``out``, symbolic ones
    those of ``x`` in order."""
    if not out.symbolic_axes:
        return list(out.shape)
    src = [d for i, d in enumerate(dims_of(b, x, meta)) if i in meta.symbolic_axes]
    if len(src) != len(out.symbolic_axes):
        raise NotSymbolic("the result's symbolic dims are not its operand's")
    it = iter(src)
    return [next(it) if i in out.symbolic_axes else d for i, d in enumerate(out.shape)]


def _static_dims(dims) -> bool:
    return all(isinstance(d, int) for d in dims)


def _annotation(dims):
    """A node's shape note: only static shapes are noted."""
    return tuple(dims) if _static_dims(dims) else None


def _tensor(array):
    from onnx import numpy_helper
    return numpy_helper.from_array(np.ascontiguousarray(array).reshape(1))



# ----------------------------------------------------------------------------
# Python numbers of the graph

def lower_dim(b: GraphBuilder, st) -> list[str]:
    """``x.shape[axis]`` of a symbolic dim: a 0-d int64."""
    x, axis = st.args
    return [as_scalar(b, dim(b, b.value(x), axis % x.meta.ndim))]


_PY_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power",
    "and_": "bitwise_and", "or_": "bitwise_or", "xor": "bitwise_xor",
    "lt": "less", "le": "less_equal", "eq": "equal", "ne": "not_equal", "gt": "greater",
    "ge": "greater_equal",
}
_PY_UNARY = {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}


def _python_type(v):
    if isinstance(v, Symbol):
        return v.meta.type if v.meta.is_python else None
    if type(v) in (bool, int, float):
        return type(v)
    return None


def lower_python_operator(b: GraphBuilder, st) -> list[str]:
    """A Python operator on Python numbers, with Python's result: computed in
    int64 when the operands are ints (or bools made ints), in float64 when
    one is a float (ints convert exactly below 2**53), in bool for ``& | ^``
    of bools."""
    from .lowering_elementwise import UFUNC_RULES, _power
    out = st.outputs[0].meta
    name = st.op.name.lstrip("i") if st.op.name.startswith("i") and st.op.name != "invert" else st.op.name
    name = {"and": "and_", "or": "or_"}.get(name, name)
    types = [_python_type(v) for v in st.args]
    if None in types or st.kwargs:
        raise NotSymbolic(f"{st.op.name} of shape values with a non-number operand")
    if name in _PY_UNARY and len(st.args) == 1:
        ufunc = _PY_UNARY[name]
    elif name in _PY_BINARY and len(st.args) == 2:
        ufunc = _PY_BINARY[name]
    else:
        raise NotSymbolic(f"Python operator {st.op.name} on shape values is not lowered")
    if float in types or out.type is float:
        compute = F64
    elif out.type is bool and name in ("and_", "or_", "xor", "invert") and set(types) == {bool}:
        compute = BOOL
    else:
        compute = I64
    if ufunc == "invert" and compute == BOOL:
        return [b.node("Not", [b.operand(st.args[0], BOOL)], BOOL)]
    xs = [b.operand(v, compute) for v in st.args]
    ins = (compute,) * len(xs)
    if ufunc == "power":
        e = st.args[1]
        if compute == I64 and (isinstance(e, Symbol) or e < 0):
            raise NotSymbolic("an integer power of a shape value by a traced or negative exponent")
        r = _power(b, xs, ins, compute, exponent=None if isinstance(e, Symbol) else e)
    else:
        r = UFUNC_RULES[ufunc](b, xs, ins, compute)
    return [b.cast(r, meta_dtype(out))]
