"""Elementwise ops: ufuncs, Python operators, round, clip, where, isclose,
nan_to_num, real/imag, and the triangle masks tril/triu.

Shape: the broadcast of the operands' shapes (for in-place operators on an
ndarray, which cannot grow, that broadcast must equal the target's shape).
"""

from __future__ import annotations

import operator

import numpy as np

from .errors import UnsupportedOp
from .registry import (Op, bind, broadcast, call_quietly, const_int, meta_of_probe, register,
                       run_probe, shape_of, simple_op, substitute)
from .statement_ir import Symbol

_UFUNC_KWARGS = frozenset({"dtype", "casting"})


def _ufunc_infer(op, args, kwargs):
    ufunc = op.target
    if len(args) != ufunc.nin:
        raise UnsupportedOp(f"{op.name}: expects {ufunc.nin} operands (no positional out=), got {len(args)}")
    for k in kwargs:
        if k not in _UFUNC_KWARGS and not (k == "out" and kwargs[k] is None):
            raise UnsupportedOp(f"{op.name}: keyword {k}= not captured")
    result = run_probe(op, args, kwargs)
    return meta_of_probe(op, result, broadcast(*map(shape_of, args)))


def _elementwise_ufuncs():
    # vars(), not dir()+getattr(): getattr would import numpy's lazy
    # submodules (testing, f2py, ...) and cost ~100 ms at `import sot`.
    for name, fn in sorted(vars(np).items()):
        if (name.startswith("_") or not isinstance(fn, np.ufunc) or fn.nout != 1
                or fn.signature is not None or fn.nin not in (1, 2)):
            continue
        yield name, fn


_seen: set[int] = set()
for _name, _fn in _elementwise_ufuncs():
    if id(_fn) in _seen:  # aliases (np.abs is np.absolute): one Op, the ufunc's own name
        continue
    _seen.add(id(_fn))
    register(Op(_fn.__name__, "function", _fn, _ufunc_infer))


# ----------------------------------------------------------------------------
# Python operators

BINARY_OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                    "and_", "or_", "xor", "lshift", "rshift")
COMPARE_OPERATORS = ("lt", "le", "eq", "ne", "gt", "ge")
UNARY_OPERATORS = ("neg", "pos", "invert", "abs")
INPLACE_OPERATORS = ("iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow",
                     "iand", "ior", "ixor", "ilshift", "irshift")


def _operator_infer(op, args, kwargs):
    if kwargs:
        raise UnsupportedOp("operators take no keyword arguments")
    result = run_probe(op, args, kwargs)
    shape = broadcast(*map(shape_of, args))
    return meta_of_probe(op, result, shape)


def _inplace_infer(op, args, kwargs):
    meta = _operator_infer(op, args, kwargs)
    target = args[0]
    if isinstance(target, Symbol) and not target.meta.is_scalar and meta.shape != target.meta.shape:
        raise UnsupportedOp(f"{op.name}: result shape {meta.shape} does not fit the "
                            f"in-place target's shape {target.meta.shape}")
    return meta


def _power_infer(base_infer):
    """``x ** p`` for ndarray ``x``: some NumPy versions (2.2) take a fast path
    (square, sqrt, reciprocal…) when ``p`` is a 0-d array of value 2, 0.5, -1…,
    so the result dtype can depend on the value of a traced exponent.  Probe the
    special values; where the dtype or type differs, the op is not captured."""

    def infer(op, args, kwargs):
        exponent = args[1] if len(args) == 2 else None
        traced_0d = isinstance(exponent, Symbol) and exponent.meta.shape == ()
        try:
            meta = base_infer(op, args, kwargs)
        except UnsupportedOp:
            if traced_0d:  # may still succeed eagerly for a special exponent value
                raise UnsupportedOp(f"{op.name}: result dtype depends on the value of the traced exponent") from None
            raise
        if traced_0d:
            for value in (2, -1, 0, 0.5, 1, -0.5):
                with np.errstate(all="ignore"):
                    special = np.array(value).astype(exponent.meta.dtype)
                if exponent.meta.is_scalar:
                    special = special[()]
                probe_args = (substitute(args[0]), special)
                try:
                    result = call_quietly(op, probe_args, {})
                except UnsupportedOp:
                    continue  # raises for this value (and so eagerly): not a dtype question
                if (isinstance(result, np.generic) != meta.is_scalar
                        or getattr(result, "dtype", None) != meta.dtype):
                    raise UnsupportedOp(f"{op.name}: result dtype depends on the value of the traced exponent")
        return meta

    return infer


for _name in BINARY_OPERATORS + COMPARE_OPERATORS + UNARY_OPERATORS:
    _infer = _power_infer(_operator_infer) if _name == "pow" else _operator_infer
    register(Op(_name, "operator", getattr(operator, _name), _infer))
for _name in INPLACE_OPERATORS:
    _infer = _power_infer(_inplace_infer) if _name == "ipow" else _inplace_infer
    register(Op(_name, "operator", getattr(operator, _name), _infer))


# ----------------------------------------------------------------------------
# round, clip, where, conj

def _round_shape(params):
    def rule(args, kwargs):
        bound = bind("round", params, args, kwargs, {"a", "decimals"})
        return shape_of(bound["a"])
    return rule


simple_op("round", "function", np.round, _round_shape(("a", "decimals", "out")))
if np.around is not np.round:
    simple_op("around", "function", np.around, _round_shape(("a", "decimals", "out")))
simple_op("round", "method", "round", _round_shape(("a", "decimals", "out")))


def _clip_shape(params):
    def rule(args, kwargs):
        bound = bind("clip", params, args, kwargs,
                     {"a", "a_min", "a_max", "min", "max", "dtype", "casting"},
                     kwonly=("min", "max", "dtype", "casting"))
        operands = [bound[k] for k in ("a", "a_min", "a_max", "min", "max") if k in bound]
        return broadcast(*map(shape_of, operands))
    return rule


simple_op("clip", "function", np.clip, _clip_shape(("a", "a_min", "a_max", "out")))
simple_op("clip", "method", "clip", _clip_shape(("a", "min", "max", "out")))


def _where_shape(args, kwargs):
    if len(args) != 3 or kwargs:
        raise UnsupportedOp("where: only the three-argument form is captured "
                            "(one argument gives a data-dependent shape)")
    return broadcast(*map(shape_of, args))


simple_op("where", "function", np.where, _where_shape)


def _same_shape_no_args(args, kwargs):
    if len(args) != 1 or kwargs:
        raise UnsupportedOp("takes no arguments")
    return shape_of(args[0])


simple_op("conj", "method", "conj", _same_shape_no_args)
simple_op("conjugate", "method", "conjugate", _same_shape_no_args)


def _isclose_shape(args, kwargs):
    bound = bind("isclose", ("a", "b", "rtol", "atol", "equal_nan"), args, kwargs,
                 {"a", "b", "rtol", "atol", "equal_nan"})
    if "b" not in bound:
        raise UnsupportedOp("isclose: expects two operands")
    for k in ("rtol", "atol"):
        if isinstance(bound.get(k), Symbol):
            raise UnsupportedOp(f"isclose: traced {k}")
    return broadcast(shape_of(bound["a"]), shape_of(bound["b"]))


simple_op("isclose", "function", np.isclose, _isclose_shape)


def _nan_to_num_shape(args, kwargs):
    bound = bind("nan_to_num", ("x", "copy", "nan", "posinf", "neginf"), args, kwargs,
                 {"x", "copy", "nan", "posinf", "neginf"})
    if bound.get("copy", True) is not True:
        raise UnsupportedOp("nan_to_num: copy=False writes into its input")
    return shape_of(bound["x"])


simple_op("nan_to_num", "function", np.nan_to_num, _nan_to_num_shape)


def _one_operand_shape(name):
    def rule(args, kwargs):
        if len(args) != 1 or kwargs:
            raise UnsupportedOp(f"{name}: takes one operand")
        return shape_of(args[0])
    return rule


simple_op("real", "function", np.real, _one_operand_shape("real"))
simple_op("imag", "function", np.imag, _one_operand_shape("imag"))


def _triangle_shape(name):
    def rule(args, kwargs):
        bound = bind(name, ("m", "k"), args, kwargs, {"m", "k"})
        const_int(bound.get("k", 0), "k")
        shape = shape_of(bound["m"])
        return (shape[0], shape[0]) if len(shape) == 1 else shape  # a vector becomes a matrix
    return rule


simple_op("tril", "function", np.tril, _triangle_shape("tril"))
simple_op("triu", "function", np.triu, _triangle_shape("triu"))
