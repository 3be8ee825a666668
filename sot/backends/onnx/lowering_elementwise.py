"""Lowering of elementwise statements (ufuncs, Python operators, where, clip)
to ONNX, with NumPy's semantics.

Every ufunc-like statement goes through the same three steps:

1. NumPy's own type resolution (``ufunc.resolve_dtypes``, Python scalars
   weak as in NEP 50) gives the loop's input and output dtypes: the dtypes
   NumPy computes in;
2. each operand is converted to its loop dtype (a ``Cast`` for a Symbol, an
   exact conversion for a constant);
3. a rule from ``UFUNC_RULES`` builds the loop in ONNX, emulating NumPy where
   ONNX differs (integer division by zero, Python's sign rule of ``%``, NaN in
   ``fmax``, bool ``+`` as ``or``…), and the result is cast to the
   statement's dtype (only in-place operators differ: ``f32 += f64``).

A ufunc without a rule, or a loop a rule cannot do exactly, raises
``NotLowered`` with the reason.
"""

from __future__ import annotations

import math

import numpy as np

from sot.ir.registry import bind
from sot.ir.statement_ir import Symbol

from .builder import (BOOL, F32, FLOATS, INTS, MODULAR, SIGNED, UNSIGNED, WIDER,
                      GraphBuilder, NotLowered)

__all__ = ["OPERATOR_UFUNCS", "UFUNC_RULES", "lower_ufunc_statement", "lower_where", "lower_clip"]

#: Python operator name -> the ufunc NumPy runs for it
OPERATOR_UFUNCS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
    "and_": np.bitwise_and, "or_": np.bitwise_or, "xor": np.bitwise_xor,
    "lshift": np.left_shift, "rshift": np.right_shift,
    "lt": np.less, "le": np.less_equal, "eq": np.equal, "ne": np.not_equal,
    "gt": np.greater, "ge": np.greater_equal,
    "neg": np.negative, "pos": np.positive, "invert": np.invert, "abs": np.absolute,
}
OPERATOR_UFUNCS.update({"i" + k.rstrip("_"): v for k, v in list(OPERATOR_UFUNCS.items())
                        if k in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_",
                                 "or_", "xor", "lshift", "rshift")})


def _weak(v):
    """What ``resolve_dtypes`` takes for an operand (a Python number of the
    graph, computed from symbolic dims, is weak like a constant)."""
    if isinstance(v, Symbol):
        if v.meta.is_python:
            return np.dtype(bool) if v.meta.type is bool else v.meta.type
        return v.meta.dtype
    if type(v) is bool:
        return np.dtype(bool)
    if type(v) in (int, float):
        return type(v)
    if type(v) is complex:
        raise NotLowered("complex constant")
    if isinstance(v, np.generic):
        return v.dtype
    raise NotLowered(f"operand {v!r} of type {type(v).__name__} is not lowered")


def resolve_loop(ufunc, operands):
    """(input dtypes, output dtype) of the loop NumPy picks."""
    try:
        dtypes = ufunc.resolve_dtypes(tuple(_weak(v) for v in operands) + (None,))
    except (TypeError, ValueError, OverflowError) as e:
        raise NotLowered(f"{ufunc.__name__}: no loop ({e})") from None
    ins, out = dtypes[:-1], dtypes[-1]
    for d in dtypes:
        if d.kind not in "biuf":
            raise NotLowered(f"{ufunc.__name__}: {d} loop has no ONNX lowering")
    return ins, out


# ----------------------------------------------------------------------------
# rules: fn(builder, [onnx values already in the loop dtypes], in_dtypes, out_dtype) -> value

def _binary(op_type, bool_op=None):
    def rule(b, xs, ins, out):
        if ins[0] == BOOL and bool_op:
            return b.node(bool_op, xs, BOOL)
        widen = MODULAR if op_type in ("Add", "Sub", "Mul") else WIDER
        return b.apply(op_type, xs, ins[0], widen=widen)
    return rule


def _float_unary(op_type):
    def rule(b, xs, ins, out):
        if ins[0] not in FLOATS:
            raise NotLowered(f"{op_type} of {ins[0]}")
        return b.apply(op_type, xs, ins[0])
    return rule


def _compare(op_type, negate=False):
    def rule(b, xs, ins, out):
        if ins[0] != ins[1]:
            raise NotLowered(f"comparison of {ins[0]} with {ins[1]} (mixed-sign integers)")
        compute = b.compute_dtype(op_type, ins[0])
        r = b.node(op_type, [b.cast(x, compute) for x in xs], BOOL)
        return b.node("Not", [r], BOOL) if negate else r
    return rule


def _true_divide(b, xs, ins, out):
    if ins[0] not in FLOATS:
        raise NotLowered(f"true_divide loop of {ins[0]}")
    return b.apply("Div", xs, ins[0])


def _zero(b, dtype):
    return b.const(np.zeros((), dtype))


def _one(b, dtype):
    return b.const(np.ones((), dtype))


def _eq_const(b, x, value):
    return b.node("Equal", [x, b.const(np.asarray(value, b.dtype[x]))], BOOL)


def _int_floor_divide(b, xs, ins, out):
    """NumPy: floor division, 0 for a zero divisor, MIN // -1 wraps to MIN."""
    dtype = ins[0]
    a, d = xs
    zero = _zero(b, dtype)
    is_zero = _eq_const(b, d, 0)
    if dtype in UNSIGNED:
        safe = b.where(is_zero, _one(b, dtype), d)
        q = b.apply("Div", [a, safe], dtype)
        return b.where(is_zero, zero, q)
    is_m1 = _eq_const(b, d, -1)
    special = b.node("Or", [is_zero, is_m1], BOOL)
    safe = b.where(special, _one(b, dtype), d)
    q = b.apply("Div", [a, safe], dtype)          # truncates toward zero
    r = b.apply("Sub", [a, b.apply("Mul", [q, safe], dtype, widen=MODULAR)], dtype, widen=MODULAR)
    r_nonzero = b.node("Not", [_eq_const(b, r, 0)], BOOL)
    signs_differ = b.node("Xor", [b.apply_less(r, zero), b.apply_less(safe, zero)], BOOL)
    adjust = b.node("And", [r_nonzero, signs_differ], BOOL)
    q = b.where(adjust, b.apply("Sub", [q, _one(b, dtype)], dtype, widen=MODULAR), q)
    neg_a = b.apply("Sub", [zero, a], dtype, widen=MODULAR)   # wraps for MIN, as NumPy
    q = b.where(is_m1, neg_a, q)
    return b.where(is_zero, zero, q)


def _int_remainder(b, xs, ins, out):
    """NumPy: the sign of the divisor (ONNX Mod fmod=0), 0 for a zero divisor
    (and for MIN % -1, where C would trap)."""
    dtype = ins[0]
    a, d = xs
    zero = _zero(b, dtype)
    special = _eq_const(b, d, 0)
    if dtype in SIGNED:
        special = b.node("Or", [special, _eq_const(b, d, -1)], BOOL)
    safe = b.where(special, _one(b, dtype), d)
    r = b.apply("Mod", [a, safe], dtype)
    return b.where(special, zero, r)


def _float_remainder_parts(b, a, d, dtype):
    """npy_divmod: (mod, div) with Python's sign rule, before the floor."""
    compute = b.compute_dtype("Sub", dtype)
    a, d = b.cast(a, compute), b.cast(d, compute)
    zero = _zero(b, compute)
    mod = b.node("Mod", [a, d], compute, fmod=1)
    div = b.node("Div", [b.node("Sub", [a, mod], compute), d], compute)
    mod_nonzero = b.node("Not", [b.node("Equal", [mod, zero], BOOL)], BOOL)
    differ = b.node("Xor", [b.node("Less", [d, zero], BOOL), b.node("Less", [mod, zero], BOOL)], BOOL)
    fix = b.node("And", [mod_nonzero, differ], BOOL)
    mod_fixed = b.where(fix, b.node("Add", [mod, d], compute), mod)
    div_fixed = b.where(fix, b.node("Sub", [div, _one(b, compute)], compute), div)
    signed_zero = b.where(b.node("Less", [d, zero], BOOL), b.const(np.asarray(-0.0, compute)),
                                   zero)
    mod_final = b.where(mod_nonzero, mod_fixed, signed_zero)
    return a, d, mod_final, div_fixed, compute


def _float_remainder(b, xs, ins, out):
    a, d, mod, _div, compute = _float_remainder_parts(b, *xs, ins[0])
    return b.cast(mod, ins[0])


def _float_floor_divide(b, xs, ins, out):
    a, d, _mod, div, compute = _float_remainder_parts(b, *xs, ins[0])
    zero = _zero(b, compute)
    floor = b.node("Floor", [div], compute)
    half = b.const(np.asarray(0.5, compute))
    snapped = b.where(b.node("Greater", [b.node("Sub", [div, floor], compute), half], BOOL),
                      b.node("Add", [floor, _one(b, compute)], compute), floor)
    quotient = b.node("Div", [a, d], compute)
    # div == 0: copysign(0, a / b)
    q_neg = b.node("Less", [quotient, zero], BOOL)
    signed_zero = b.where(q_neg, b.const(np.asarray(-0.0, compute)), zero)
    div_zero = b.node("Equal", [div, zero], BOOL)
    result = b.where(div_zero, signed_zero, snapped)
    d_zero = b.node("Equal", [d, zero], BOOL)
    result = b.where(d_zero, quotient, result)
    return b.cast(result, ins[0])


def _floor_divide(b, xs, ins, out):
    if ins[0] == BOOL or ins[0] != ins[1]:
        raise NotLowered(f"floor_divide loop {ins}")
    return (_float_floor_divide if ins[0] in FLOATS else _int_floor_divide)(b, xs, ins, out)


def _fmod(b, xs, ins, out):
    """C fmod: the sign of the dividend; NumPy gives 0 for an integer zero
    divisor (and for MIN fmod -1, where C would trap)."""
    dtype = ins[0]
    if dtype == BOOL or ins[0] != ins[1]:
        raise NotLowered(f"fmod loop {ins}")
    a, d = xs
    if dtype in FLOATS:
        return b.node("Mod", [a, d], dtype, fmod=1)     # fmod's result is exact in any precision
    special = _eq_const(b, d, 0)
    if dtype in SIGNED:
        special = b.node("Or", [special, _eq_const(b, d, -1)], BOOL)
    safe = b.where(special, _one(b, dtype), d)
    return b.where(special, _zero(b, dtype), b.apply("Mod", [a, safe], dtype, fmod=1))


def _remainder(b, xs, ins, out):
    if ins[0] == BOOL or ins[0] != ins[1]:
        raise NotLowered(f"remainder loop {ins}")
    return (_float_remainder if ins[0] in FLOATS else _int_remainder)(b, xs, ins, out)


def _maxmin(op_type, bool_op, ignore_nan=False):
    def rule(b, xs, ins, out):
        dtype = ins[0]
        if dtype == BOOL:
            return b.node(bool_op, xs, BOOL)
        r = b.extremum(op_type, xs[0], xs[1], dtype)   # ONNX Max/Min propagate NaN, as np.maximum
        if ignore_nan and dtype in FLOATS:
            x, y = xs
            r = b.where(b.apply_isnan(y), x, b.where(b.apply_isnan(x), y, r))
        return r
    return rule


def _bitwise(op_type, bool_op):
    def rule(b, xs, ins, out):
        if ins[0] == BOOL:
            return b.node(bool_op, xs, BOOL)
        if ins[0] not in INTS:
            raise NotLowered(f"{op_type} of {ins[0]}")
        return b.apply(op_type, xs, ins[0])
    return rule


def _invert(b, xs, ins, out):
    if ins[0] == BOOL:
        return b.node("Not", xs, BOOL)
    if ins[0] not in INTS:
        raise NotLowered(f"invert of {ins[0]}")
    return b.apply("BitwiseNot", xs, ins[0])


def _negative(b, xs, ins, out):
    dtype = ins[0]
    if dtype in UNSIGNED:
        return b.apply("Sub", [_zero(b, dtype), xs[0]], dtype, widen=MODULAR)
    if dtype in SIGNED:  # -MIN wraps
        return b.apply("Sub", [_zero(b, dtype), xs[0]], dtype, widen=MODULAR)
    if dtype in FLOATS:
        return b.apply("Neg", xs, dtype)
    raise NotLowered(f"negative of {dtype}")


def _identity(b, xs, ins, out):
    return b.node("Identity", xs, ins[0])


def _absolute(b, xs, ins, out):
    if ins[0] in UNSIGNED or ins[0] == BOOL:
        return b.node("Identity", xs, ins[0])
    return b.apply("Abs", xs, ins[0])


def _sign(b, xs, ins, out):
    dtype = ins[0]
    if dtype == BOOL:
        raise NotLowered("sign of bool")
    if dtype in INTS:   # (x > 0) - (x < 0): onnxruntime 1.23's int64 Sign is wrong in [2**31, 2**32)
        zero = _zero(b, dtype)
        pos = b.cast(b.apply_compare("Greater", xs[0], zero), dtype)
        if dtype in UNSIGNED:
            return pos
        neg = b.cast(b.apply_less(xs[0], zero), dtype)
        return b.apply("Sub", [pos, neg], dtype, widen=MODULAR)
    r = b.apply("Sign", xs, dtype)
    # np.sign(nan) is nan
    return b.where(b.apply_isnan(xs[0]), xs[0], r)


def _square(b, xs, ins, out):
    if ins[0] == BOOL:
        return b.node("And", [xs[0], xs[0]], BOOL)
    return b.apply("Mul", [xs[0], xs[0]], ins[0], widen=MODULAR)


def _reciprocal(b, xs, ins, out):
    if ins[0] not in FLOATS:
        raise NotLowered("integer reciprocal")
    return b.apply("Div", [_one(b, ins[0]), xs[0]], ins[0])


def _rounding(op_type):
    def rule(b, xs, ins, out):
        if ins[0] in INTS or ins[0] == BOOL:
            return b.node("Identity", xs, ins[0])
        return b.apply(op_type, xs, ins[0])
    return rule


def _trunc(b, xs, ins, out):
    if ins[0] not in FLOATS:
        return b.node("Identity", xs, ins[0])
    x = xs[0]
    neg = b.node("Less", [x, _zero(b, ins[0])], BOOL)
    return b.where(neg, b.apply("Ceil", [x], ins[0]), b.apply("Floor", [x], ins[0]))


def _isnan(b, xs, ins, out):
    if ins[0] not in FLOATS:
        return b.node("Not", [b.node("Equal", [xs[0], xs[0]], BOOL)], BOOL)
    return b.apply_isnan(xs[0])


def _isinf(b, xs, ins, out):
    if ins[0] not in FLOATS:
        return b.node("Not", [b.node("Equal", [xs[0], xs[0]], BOOL)], BOOL)
    x = xs[0] if ins[0] != np.float16 else b.cast(xs[0], F32)
    return b.node("IsInf", [x], BOOL)


def _isfinite(b, xs, ins, out):
    if ins[0] not in FLOATS:
        return b.node("Equal", [xs[0], xs[0]], BOOL)
    x = xs[0] if ins[0] != np.float16 else b.cast(xs[0], F32)
    bad = b.node("Or", [b.node("IsInf", [x], BOOL), b.node("IsNaN", [x], BOOL)], BOOL)
    return b.node("Not", [bad], BOOL)


def _truthy(b, x, dtype):
    if dtype == BOOL:
        return x
    return b.node("Not", [b.node("Equal", [x, _zero(b, dtype)], BOOL)], BOOL)


def _logical(bool_op):
    def rule(b, xs, ins, out):
        ys = [_truthy(b, x, d) for x, d in zip(xs, ins)]
        return b.node(bool_op, ys, BOOL)
    return rule


def _log_base(base):
    def rule(b, xs, ins, out):
        if ins[0] not in FLOATS:
            raise NotLowered("log of an integer loop")
        compute = b.compute_dtype("Log", ins[0])
        ln = b.node("Log", [b.cast(xs[0], compute)], compute)
        return b.cast(b.node("Div", [ln, b.const(np.asarray(math.log(base), compute))], compute), ins[0])
    return rule


def _exp2(b, xs, ins, out):
    if ins[0] not in FLOATS:
        raise NotLowered("exp2 of an integer loop")
    return b.apply("Pow", [b.const(np.asarray(2, ins[0])), xs[0]], ins[0])


def _power(b, xs, ins, out, exponent=None):
    dtype = ins[0]
    if ins[0] != ins[1]:
        raise NotLowered(f"power loop {ins}")
    if exponent is not None and not isinstance(exponent, Symbol):
        e = np.asarray(exponent)
        if e.shape == () and dtype in INTS + (BOOL,) and e.dtype.kind in "iub":
            n = int(e)
            if n < 0:
                raise NotLowered("integer power with a negative exponent (NumPy raises)")
            if n > 64:
                raise NotLowered("integer power with a large exponent")
            return _int_power_by_squaring(b, xs[0], n, dtype)
        if e.shape == () and dtype in FLOATS and float(e) == 2.0:
            return b.apply("Mul", [xs[0], xs[0]], dtype)
    if dtype not in FLOATS:
        raise NotLowered("integer power with a traced or array exponent (NumPy raises on "
                         "negative values; onnxruntime computes in double)")
    return b.apply("Pow", xs, dtype)


def _int_power_by_squaring(b, x, n, dtype):
    if dtype == BOOL:
        raise NotLowered("power of bools")
    result = None
    base = x
    while n:
        if n & 1:
            result = base if result is None else b.apply("Mul", [result, base], dtype, widen=MODULAR)
        n >>= 1
        if n:
            base = b.apply("Mul", [base, base], dtype, widen=MODULAR)
    if result is None:
        return b.node("Expand", [_one(b, dtype), b.node("Shape", [x], np.int64)], dtype)
    return result


def _bitshift(b, a, s, udtype, direction):
    """BitShift in ``udtype``, through a wider unsigned type where onnxruntime
    lacks the kernel (zero-extended, then truncated: exact for shifts < bits)."""
    compute = b.compute_dtype("BitShift", udtype, {np.dtype("uint16"): (np.dtype("uint32"),)})
    r = b.node("BitShift", [b.cast(a, compute), b.cast(s, compute)], compute, direction=direction)
    return b.cast(r, udtype)


def _shift(direction):
    def rule(b, xs, ins, out):
        dtype = ins[0]
        if ins[0] != ins[1] or dtype not in INTS:
            raise NotLowered(f"shift loop {ins}")
        bits = dtype.itemsize * 8
        udtype = np.dtype(f"uint{bits}")
        a, s = xs
        # NumPy: a shift by a negative amount or by >= bits gives 0 (or -1 for a
        # negative value shifted right)
        s_u = b.cast(s, udtype)                       # negative amounts become huge
        too_far = b.node("Not", [b.node("Less", [s_u, b.const(np.asarray(bits, udtype))], BOOL)], BOOL)
        s_safe = b.where(too_far, _zero(b, udtype), s_u)
        a_u = b.cast(a, udtype)
        if direction == "LEFT" or dtype in UNSIGNED:
            shifted = b.cast(_bitshift(b, a_u, s_safe, udtype, direction), dtype)
            return b.where(too_far, _zero(b, dtype), shifted)
        negative = b.node("Less", [a, _zero(b, dtype)], BOOL)
        flipped = b.node("BitwiseNot", [a_u], udtype)
        src = b.where(negative, flipped, a_u)
        shifted = _bitshift(b, src, s_safe, udtype, "RIGHT")
        shifted = b.where(negative, b.node("BitwiseNot", [shifted], udtype), shifted)
        fill = b.where(negative, b.const(np.asarray(-1, dtype)), _zero(b, dtype))
        return b.where(too_far, fill, b.cast(shifted, dtype))
    return rule


UFUNC_RULES = {
    "add": _binary("Add", "Or"), "subtract": _binary("Sub"), "multiply": _binary("Mul", "And"),
    "true_divide": _true_divide, "divide": _true_divide,
    "floor_divide": _floor_divide, "remainder": _remainder, "mod": _remainder, "fmod": _fmod,
    "power": _power, "float_power": _power,
    "maximum": _maxmin("Max", "Or"), "minimum": _maxmin("Min", "And"),
    "fmax": _maxmin("Max", "Or", ignore_nan=True), "fmin": _maxmin("Min", "And", ignore_nan=True),
    "less": _compare("Less"), "less_equal": _compare("LessOrEqual"), "equal": _compare("Equal"),
    "not_equal": _compare("Equal", negate=True), "greater": _compare("Greater"),
    "greater_equal": _compare("GreaterOrEqual"),
    "bitwise_and": _bitwise("BitwiseAnd", "And"), "bitwise_or": _bitwise("BitwiseOr", "Or"),
    "bitwise_xor": _bitwise("BitwiseXor", "Xor"), "invert": _invert, "bitwise_not": _invert,
    "left_shift": _shift("LEFT"), "right_shift": _shift("RIGHT"),
    "logical_and": _logical("And"), "logical_or": _logical("Or"), "logical_xor": _logical("Xor"),
    "logical_not": lambda b, xs, ins, out: b.node("Not", [_truthy(b, xs[0], ins[0])], BOOL),
    "negative": _negative, "positive": _identity, "absolute": _absolute, "fabs": _absolute,
    "sign": _sign, "square": _square, "reciprocal": _reciprocal,
    "sqrt": _float_unary("Sqrt"), "exp": _float_unary("Exp"), "log": _float_unary("Log"),
    "exp2": _exp2, "log2": _log_base(2), "log10": _log_base(10),
    "sin": _float_unary("Sin"), "cos": _float_unary("Cos"), "tan": _float_unary("Tan"),
    "arcsin": _float_unary("Asin"), "arccos": _float_unary("Acos"), "arctan": _float_unary("Atan"),
    "sinh": _float_unary("Sinh"), "cosh": _float_unary("Cosh"), "tanh": _float_unary("Tanh"),
    "arcsinh": _float_unary("Asinh"), "arccosh": _float_unary("Acosh"),
    "arctanh": _float_unary("Atanh"),
    "floor": _rounding("Floor"), "ceil": _rounding("Ceil"), "rint": _rounding("Round"),
    "trunc": _trunc, "isnan": _isnan, "isinf": _isinf, "isfinite": _isfinite,
}
#: why a ufunc NumPy has is not lowered (for explain)
NOT_LOWERED_WHY = {
    "expm1": "ONNX has no expm1; exp(x) - 1 loses all precision near 0",
    "log1p": "ONNX has no log1p; log(1 + x) loses all precision near 0",
    "arctan2": "ONNX has no atan2",
    "hypot": "sqrt(x*x + y*y) overflows where hypot does not",
    "cbrt": "ONNX has no cbrt (Pow(x, 1/3) is NaN for negative x)",
    "logaddexp": "log(exp(x) + exp(y)) overflows where logaddexp does not",
    "logaddexp2": "overflows where logaddexp2 does not",
}


def lower_ufunc(b: GraphBuilder, ufunc, operands, out_dtype) -> str:
    name = ufunc.__name__
    rule = UFUNC_RULES.get(name)
    if rule is None:
        raise NotLowered(NOT_LOWERED_WHY.get(name, f"no ONNX lowering for np.{name}"))
    ins, loop_out = resolve_loop(ufunc, operands)
    for v, d in zip(operands, ins):
        if isinstance(v, Symbol) and v.meta.is_python:
            _check_python_operand(v, d)
    xs = [b.operand(v, d) for v, d in zip(operands, ins)]
    if rule is _power:
        r = _power(b, xs, ins, loop_out, exponent=operands[1])
    else:
        r = rule(b, xs, ins, loop_out)
    if b.dtype[r] != loop_out:
        r = b.cast(r, loop_out)
    return b.cast(r, out_dtype)   # only in-place operators cast (f32 += f64)


def _check_python_operand(v, dtype) -> None:
    """A Python number of the graph converts to the loop dtype as NumPy
    converts it only where that is exact for every value: NumPy raises for
    an int out of a narrow integer type's range, and rounds a float to
    float16 in one step (a cast through float32 would round twice)."""
    from .builder import F16, I64, NotSymbolic
    if v.meta.type is bool:
        return
    if v.meta.type is int and dtype in (I64,) + FLOATS and dtype != F16:
        return
    if v.meta.type is float and dtype in FLOATS and dtype != F16:
        return
    raise NotSymbolic(f"a Python {v.meta.type.__name__} computed from shapes, in a {dtype} loop")


_UFUNC_KWARGS = ("dtype", "casting", "out")


def lower_ufunc_statement(b: GraphBuilder, st) -> list[str]:
    op = st.op
    ufunc = op.target if op.kind == "function" else OPERATOR_UFUNCS.get(op.name)
    if not isinstance(ufunc, np.ufunc):
        raise NotLowered(f"{op.name} is not a ufunc")
    for k, v in st.kwargs.items():
        if k == "out" and v is None:
            continue
        if k == "casting":
            continue  # the probe already checked it; it does not change the loop
        raise NotLowered(f"{op.name}: keyword {k}= is not lowered")
    out = st.outputs[0]
    return [lower_ufunc(b, ufunc, st.args, out.meta.dtype)]


def lower_where(b: GraphBuilder, st) -> list[str]:
    cond, x, y = st.args
    out = st.outputs[0].meta.dtype
    c = b.operand(cond, BOOL) if isinstance(cond, Symbol) else b.const(np.asarray(cond, bool))
    return [b.where(c, b.operand(x, out), b.operand(y, out))]


def lower_clip(b: GraphBuilder, st) -> list[str]:
    params = ("a", "a_min", "a_max", "out") if st.op.kind == "function" else ("a", "min", "max", "out")
    bound = bind("clip", params, st.args, st.kwargs,
                 {"a", "a_min", "a_max", "min", "max", "dtype", "casting"},
                 kwonly=("min", "max", "dtype", "casting"))
    if "dtype" in bound:
        raise NotLowered("clip: dtype= is not lowered")
    lo = bound.get("a_min", bound.get("min"))
    hi = bound.get("a_max", bound.get("max"))
    operands = [bound["a"]] + [v for v in (lo, hi) if v is not None]
    dtype = st.outputs[0].meta.dtype
    if dtype == BOOL:
        raise NotLowered("clip of bools")
    r = b.operand(bound["a"], dtype)
    if lo is not None:
        r = b.extremum("Max", r, b.operand(lo, dtype), dtype)
    if hi is not None:
        r = b.extremum("Min", r, b.operand(hi, dtype), dtype)
    if lo is None and hi is None:
        r = b.node("Identity", [r], dtype)
    return [r]



def lower_round(b: GraphBuilder, st) -> list[str]:
    bound = bind("round", ("a", "decimals", "out"), st.args, st.kwargs, {"a", "decimals"})
    a = bound["a"]
    if bound.get("decimals", 0) != 0 or not isinstance(a, Symbol):
        raise NotLowered("round with decimals != 0 (NumPy scales by 10**decimals in its own way)")
    out = st.outputs[0].meta.dtype
    x = b.operand(a, out)
    if out in FLOATS:
        return [b.apply("Round", [x], out)]     # half to even, as np.rint
    return [b.node("Identity", [x], out)]


def lower_nan_to_num(b: GraphBuilder, st) -> list[str]:
    bound = bind("nan_to_num", ("x", "copy", "nan", "posinf", "neginf"), st.args, st.kwargs,
                 {"x", "copy", "nan", "posinf", "neginf"})
    a = bound["x"]
    dtype = st.outputs[0].meta.dtype
    if not isinstance(a, Symbol) or any(isinstance(bound.get(k), Symbol) for k in ("nan", "posinf", "neginf")):
        raise NotLowered("nan_to_num of a constant or with traced replacements")
    x = b.operand(a, dtype)
    if dtype not in FLOATS:
        return [b.node("Identity", [x], dtype)]
    info = np.finfo(dtype)

    def value(key, default):
        v = bound.get(key)
        v = default if v is None else v
        with np.errstate(all="ignore"):
            return b.const(np.asarray(v).astype(dtype))
    inf = b.const(np.asarray(np.inf, dtype))
    r = b.where(b.node("Equal", [x, inf], BOOL), value("posinf", info.max), x)
    r = b.where(b.node("Equal", [x, b.node("Neg", [inf], dtype)], BOOL), value("neginf", info.min), r)
    return [b.where(b.apply_isnan(x), value("nan", 0.0), r)]
