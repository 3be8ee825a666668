"""Which statements cannot raise at run time, whatever their inputs' values.

Inference checks shapes and dtypes, so most captured ops cannot fail when
the graph runs; some still raise for some *values*: an integer-array index
out of bounds (``x[idx]``, ``np.add.at``, ``np.put``), a singular matrix
(``np.linalg.inv``), an integer to a negative power, a boolean assignment
whose counts differ, anything on object arrays.  Under a floating-point
state that is not plain (``np.errstate(all="raise")`` around the call), any
float op may raise too: that is the caller's to check (fp_state).

``cannot_raise(st)`` is a whitelist: True only for statements known not to
raise under a plain floating-point state; anything else (a new op included)
counts as "may raise".

A Python int meeting a float (``lr * step``, ``w * self.t`` with a float
array) raises OverflowError only past 2**1023: given ``int_bits`` (bounds
on the int symbols computed from int inputs that the runner keeps within
``INPUT_BITS`` bits, rerunning natively otherwise), it cannot raise.  The runner asks it for the statements after a
graph's first write into memory from outside: an error there cannot be
rerun natively, and the side effects that eager made before it are
replayed only after the graph (sot/runner.py).
"""
from __future__ import annotations

import numpy as np

from .statement_ir import Statement, symbols_in

__all__ = ["cannot_raise", "int_bits", "INPUT_BITS"]

_NUMERIC = frozenset("biufc")

# operators and their in-place forms (ops_write names them "inplace_" + name)
_OPERATORS = frozenset((
    "add", "sub", "mul", "truediv", "floordiv", "mod", "neg", "pos", "abs", "invert", "and_", "or_", "xor",
    "lshift", "rshift", "eq", "ne", "lt", "le", "gt", "ge", "matmul", "pow"))
_POWERS = frozenset(("pow", "power"))   # integers to a negative power raise ValueError
_METHODS = frozenset((
    "all", "any", "argmax", "argmin", "argsort", "astype", "clip", "conj", "conjugate", "copy", "cumprod",
    "cumsum", "diagonal", "dot", "flatten", "max", "mean", "min", "prod", "ravel", "reshape", "round",
    "squeeze", "std", "sum", "swapaxes", "trace", "transpose", "var", "view", "fill", "sort", "T", "mT",
    "real", "imag"))
_FUNCTIONS = frozenset((
    "where", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "reshape", "transpose",
    "swapaxes", "moveaxis", "expand_dims", "squeeze", "broadcast_to", "atleast_1d", "atleast_2d",
    "atleast_3d", "ravel", "copy", "asarray", "array", "ascontiguousarray", "zeros", "ones", "empty", "full",
    "zeros_like", "ones_like", "empty_like", "full_like", "arange", "linspace", "eye", "identity", "sum",
    "mean", "prod", "max", "min", "amax", "amin", "std", "var", "cumsum", "cumprod", "dot", "vdot", "inner",
    "outer", "tensordot", "einsum", "clip", "copyto", "tril", "triu", "flip", "fliplr", "flipud", "roll",
    "tile", "sort", "argsort", "argmax", "argmin", "all", "any", "diff", "trace", "diagonal", "average",
    "nansum", "nanmean", "nanmax", "nanmin", "round", "around", "isclose", "allclose", "array_equal"))
_UFUNC_METHODS = frozenset(("reduce", "accumulate", "outer"))


#: ``x op= y`` recorded as a new value (a target the graph made itself): named as operator names it
_INPLACE_NAMES = {"i" + name.rstrip("_"): name for name in _OPERATORS}


def _name(st: Statement) -> str:
    """The operator's name, its in-place forms (``inplace_mul``, ``imul``) as ``mul``."""
    name = st.op.name
    if name.startswith("inplace_"):
        return name[len("inplace_"):]
    return _INPLACE_NAMES.get(name, name) if st.op.kind == "operator" else name


_COMPARISONS = frozenset(("eq", "ne", "lt", "le", "gt", "ge"))
_EXACT = frozenset(("add", "sub", "mul", "neg", "pos", "abs", "and_", "or_", "xor"))


#: int graph inputs the runner keeps within ±2**INPUT_BITS (a native rerun otherwise)
INPUT_BITS = 1000
_FLOAT_BITS = 1023   # an int of fewer bits converts to a float without OverflowError
#: operators on float arrays and Python numbers that only warn (divide by zero, overflow)
_FLOAT_ARRAY_OPS = frozenset(("add", "sub", "mul", "truediv", "floordiv", "mod", "pow")) | _COMPARISONS


def int_bits(ir, inputs) -> dict:
    """Bounds on the bit length of the int Python-number symbols computed by
    +, -, *, unary ops and int constants from the int inputs named in
    `inputs` (each taken within INPUT_BITS bits)."""
    bits = dict.fromkeys(inputs, INPUT_BITS)
    for st in ir.statements:
        out = st.outputs[0] if len(st.outputs) == 1 else None
        if st.op.kind != "operator" or st.kwargs or out is None or not out.meta.is_python or out.meta.type is not int:
            continue
        args = [bits.get(a.name) if hasattr(a, "meta") else
                (int(a).bit_length() if type(a) in (int, bool) else None) for a in st.args]
        if None in args:
            continue
        name = _name(st)
        if name in ("add", "sub") and len(args) == 2:
            bits[out.name] = max(args) + 1
        elif name == "mul" and len(args) == 2:
            bits[out.name] = sum(args)
        elif name in ("neg", "pos", "abs") and len(args) == 1:
            bits[out.name] = args[0]
    return bits


def _float_safe(symbols, consts, bits) -> bool:
    """The numbers convert to floats without OverflowError."""
    return all(s.meta.type is not int or bits.get(s.name, _FLOAT_BITS) < _FLOAT_BITS for s in symbols) and all(
        type(a) in (float, bool) or (type(a) is int and a.bit_length() < _FLOAT_BITS) for a in consts)


def _numbers_cannot_raise(st: Statement, name: str, numbers: list, bits) -> bool:
    """A statement on Python numbers (graph inputs or values computed from
    them): comparisons, and int-only +, -, *, bit ops (exact big ints), //
    and % by a nonzero constant, or +, -, * with a float on ints small
    enough for a float cannot raise; a division or power by zero, a
    negative shift, an int too large for a float or for an array's dtype
    can. With arrays: +, -, *, /, //, %, ** and comparisons of float arrays
    with floats and such ints only warn."""
    if st.op.kind != "operator" or st.kwargs:
        return False
    consts = [a for a in st.args if not hasattr(a, "meta")]
    arrays = [s for s in symbols_in(st.args) + list(st.outputs) if not s.meta.is_python]
    if arrays:
        kinds = "f" if name in ("mod", "floordiv") else "fc"
        return name in _FLOAT_ARRAY_OPS and all(s.meta.dtype.kind in kinds for s in arrays) and \
            all(type(a) in (int, float, bool) for a in consts) and _float_safe(numbers, consts, bits)
    if name in _COMPARISONS:
        return True
    if name in ("mod", "floordiv") and {s.meta.type for s in numbers} <= {int, bool} and \
            len(st.args) == 2 and type(st.args[1]) is int and st.args[1] != 0:
        return True     # ints by a nonzero int constant: exact
    if name not in _EXACT:
        return False
    symbol_kinds = {s.meta.type for s in numbers}
    const_kinds = {type(a) for a in consts}
    if symbol_kinds | const_kinds <= {int, bool}:
        return True
    return name not in ("and_", "or_", "xor") and const_kinds <= {float, int, bool} and \
        all(abs(a) < 2 ** 53 for a in consts if type(a) is int) and _float_safe(numbers, (), bits)


def cannot_raise(st: Statement, bits=None) -> bool:
    """True when ``st`` cannot raise for any values of its inputs (see module
    doc); ``bits``: `int_bits` of the graph, where the runner bounds its int inputs."""
    symbols = symbols_in((st.args, st.kwargs)) + list(st.outputs)
    numbers = [s for s in symbols if s.meta.is_python]
    if numbers:
        return _numbers_cannot_raise(st, _name(st), numbers, bits or {})
    dtypes = [s.meta.dtype for s in symbols]
    if any(d.kind not in _NUMERIC for d in dtypes):
        return False     # object, string, datetime arrays: their values decide
    op, name = st.op, _name(st)
    if name in _POWERS or getattr(op.target, "__name__", None) in _POWERS:
        return all(d.kind in "fc" for d in dtypes)
    if op.kind == "operator":
        if name in ("getitem", "setitem"):
            return not symbols_in(st.args[1])   # no array (or number input) in the index
        return name in _OPERATORS
    if op.kind in ("method", "attribute"):
        return isinstance(op.target, str) and op.target in _METHODS
    target = op.target
    if isinstance(target, np.ufunc):
        return True
    owner = getattr(target, "__self__", None)
    if isinstance(owner, np.ufunc):
        return getattr(target, "__name__", "") in _UFUNC_METHODS
    return name in _FUNCTIONS and getattr(np, name, None) is target
