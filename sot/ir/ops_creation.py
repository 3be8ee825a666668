"""Array creation from constants: zeros, ones, full, arange, linspace,
logspace, geomspace, eye, identity, tri, and zeros_like, ones_like, full_like.

``np.empty``/``empty_like`` are deliberately absent: their contents are
uninitialised memory, which no compiled graph can reproduce.  Creation ops
whose extent would depend on traced values (``np.arange(n)`` with a traced
``n``) are not captured.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import UnsupportedOp
from .registry import (Op, bind, broadcast, call_quietly, const_int, const_shape, meta_of_probe,
                       probe_shape, register, shape_of, substitute)
from .statement_ir import Symbol


def _replace(args, kwargs, key, position, value):
    args, kwargs = list(args), dict(kwargs)
    if len(args) > position:
        args[position] = value
    else:
        kwargs[key] = value
    return tuple(args), kwargs


def _checked_shape(value):
    shape = const_shape(value)
    if any(d < 0 for d in shape):
        raise UnsupportedOp(f"negative dimensions in {shape}")
    return shape


def _filled_infer(params, allowed):
    def infer(op, args, kwargs):
        bound = bind(op.name, params, args, kwargs, allowed)
        if "shape" not in bound:
            raise UnsupportedOp(f"{op.name}: no shape given")
        shape = _checked_shape(bound["shape"])
        if "fill_value" in bound:
            fill = shape_of(bound["fill_value"])
            if broadcast(fill, shape) != shape:
                raise UnsupportedOp(f"full: fill value of shape {fill} does not fit {shape}")
        pargs, pkwargs = _replace(args, kwargs, "shape", 0, probe_shape(shape))
        result = call_quietly(op, substitute(pargs), substitute(pkwargs))
        return meta_of_probe(op, result, shape)
    return infer


register(Op("zeros", "function", np.zeros,
            _filled_infer(("shape", "dtype", "order"), {"shape", "dtype", "order"})))
register(Op("ones", "function", np.ones,
            _filled_infer(("shape", "dtype", "order"), {"shape", "dtype", "order"})))
register(Op("full", "function", np.full,
            _filled_infer(("shape", "fill_value", "dtype", "order"),
                          {"shape", "fill_value", "dtype", "order"})))


def _like_infer(params):
    def infer(op, args, kwargs):
        bound = bind(op.name, params, args, kwargs, set(params))
        proto = shape_of(bound["a"])
        if bound.get("shape") is not None:
            shape = _checked_shape(bound["shape"])
            pos = params.index("shape")
            args, kwargs = _replace(args, kwargs, "shape", pos, probe_shape(shape))
        else:
            shape = tuple(proto)
        if "fill_value" in bound:
            fill = shape_of(bound["fill_value"])
            if broadcast(fill, shape) != shape:
                raise UnsupportedOp(f"full_like: fill value of shape {fill} does not fit {shape}")
        result = call_quietly(op, substitute(args), substitute(kwargs))
        return meta_of_probe(op, result, shape)
    return infer


register(Op("zeros_like", "function", np.zeros_like,
            _like_infer(("a", "dtype", "order", "subok", "shape"))))
register(Op("ones_like", "function", np.ones_like,
            _like_infer(("a", "dtype", "order", "subok", "shape"))))
register(Op("full_like", "function", np.full_like,
            _like_infer(("a", "fill_value", "dtype", "order", "subok", "shape"))))


def _const_real(value, what):
    if isinstance(value, Symbol):
        raise UnsupportedOp(f"{what} is a traced value (data-dependent extent)")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise UnsupportedOp(f"{what} must be a real number, got {value!r}")
    if isinstance(value, int) and not -2**63 <= value < 2**63:
        raise UnsupportedOp(f"{what} does not fit in int64")
    if not math.isfinite(value):
        raise UnsupportedOp(f"{what} is not finite")
    return value


def _arange_infer(op, args, kwargs):
    bound = bind("arange", ("start", "stop", "step", "dtype"), args, kwargs,
                 {"start", "stop", "step", "dtype"})
    if bound.get("stop") is None:
        # arange(stop): the only bound is the stop
        if "start" not in bound:
            raise UnsupportedOp("arange: no stop given")
        start, stop, step = 0, bound["start"], bound.get("step", 1)
    else:
        start, stop, step = bound.get("start", 0), bound["stop"], bound.get("step", 1)
    start, stop = _const_real(start, "start"), _const_real(stop, "stop")
    step = _const_real(step if step is not None else 1, "step")
    if step == 0:
        raise UnsupportedOp("arange: step is zero")
    with np.errstate(all="ignore"):
        value = (stop - start) / step
    if not math.isfinite(value):
        raise UnsupportedOp("arange: length is not finite")
    length = max(0, math.ceil(value))
    # the probe keeps each argument's type (which fixes the dtype), not its value
    pargs = tuple(type(a)(1) if not isinstance(a, (str, np.dtype, type)) and a is not None else a
                  for a in args)
    pkwargs = {k: (type(v)(1) if k in ("start", "stop", "step") and v is not None else v)
               for k, v in kwargs.items()}
    result = call_quietly(op, pargs, pkwargs)
    return meta_of_probe(op, result, (length,))


register(Op("arange", "function", np.arange, _arange_infer))


def _spaced_infer(params):
    """linspace / logspace / geomspace: ``num`` points between constant ends."""
    def infer(op, args, kwargs):
        bound = bind(op.name, params, args, kwargs, set(params))
        if "start" not in bound or "stop" not in bound:
            raise UnsupportedOp(f"{op.name}: start and stop are needed")
        ends = []
        for k in ("start", "stop", "base"):
            # a traced end is a NumPy scalar or an array (x.min(), rows of x): not a Python number
            value = bound.get(k)
            if isinstance(value, Symbol) and value.meta.is_python:
                raise UnsupportedOp(f"{op.name}: {k} must be a NumPy value")
            if k in bound and shape_of(value) != ():
                if k == "base":
                    raise UnsupportedOp(f"{op.name}: {k} must be a scalar")
                ends.append(shape_of(value))
        # array ends: the samples run along a new axis (num at `axis` of their broadcast shape)
        base = broadcast(*ends) if ends else ()
        axis = const_int(bound.get("axis", 0), "axis")
        if not -len(base) - 1 <= axis <= len(base):
            raise UnsupportedOp(f"{op.name}: axis out of bounds (NumPy raises)")
        axis %= len(base) + 1
        retstep = bound.get("retstep", False)
        if type(retstep) is not bool:
            raise UnsupportedOp(f"{op.name}: retstep must be a constant bool")
        num = const_int(bound.get("num", 50), "num")
        if num < 0:
            raise UnsupportedOp(f"{op.name}: negative num")
        # a probe of min(num, 2) points takes the same branch as num (no step below 2)
        pargs, pkwargs = _replace(args, kwargs, "num", 2, min(num, 2))
        result = call_quietly(op, substitute(pargs), substitute(pkwargs))
        shape = base[:axis] + (num,) + base[axis:]
        if retstep:   # (samples, step): the step a NumPy scalar, or of the ends' shape
            return meta_of_probe(op, result[0], shape), meta_of_probe(op, result[1], base)
        return meta_of_probe(op, result, shape)
    return infer


register(Op("linspace", "function", np.linspace,
            _spaced_infer(("start", "stop", "num", "endpoint", "retstep", "dtype", "axis"))))
register(Op("logspace", "function", np.logspace,
            _spaced_infer(("start", "stop", "num", "endpoint", "base", "dtype", "axis"))))
register(Op("geomspace", "function", np.geomspace,
            _spaced_infer(("start", "stop", "num", "endpoint", "dtype", "axis"))))


def _eye_like_infer(name, params):
    """np.eye / np.tri: an N x M result (M defaults to N), k a constant int."""
    def infer(op, args, kwargs):
        bound = bind(name, params, args, kwargs, set(params) | {"like"})
        n = const_int(bound.get("N"), "N")
        m = n if bound.get("M") is None else const_int(bound["M"], "M")
        const_int(bound.get("k", 0), "k")
        if n < 0 or m < 0:
            raise UnsupportedOp(f"{name}: negative dimensions")
        if bound.get("like") is not None:
            raise UnsupportedOp(f"{name}: like= is not captured")
        pargs, pkwargs = _replace(args, kwargs, "N", 0, min(n, 1))
        if bound.get("M") is not None:
            pargs, pkwargs = _replace(pargs, pkwargs, "M", 1, min(m, 1))
        result = call_quietly(op, pargs, pkwargs)
        return meta_of_probe(op, result, (n, m))
    return infer


def _identity_infer(op, args, kwargs):
    bound = bind("identity", ("n", "dtype"), args, kwargs, {"n", "dtype", "like"}, kwonly=("like",))
    if bound.get("like") is not None:
        raise UnsupportedOp("identity: like= is not captured")
    n = const_int(bound.get("n"), "n")
    if n < 0:
        raise UnsupportedOp("identity: negative dimensions")
    pargs, pkwargs = _replace(args, kwargs, "n", 0, min(n, 1))
    return meta_of_probe(op, call_quietly(op, pargs, pkwargs), (n, n))


register(Op("identity", "function", np.identity, _identity_infer))
register(Op("eye", "function", np.eye, _eye_like_infer("eye", ("N", "M", "k", "dtype", "order"))))
register(Op("tri", "function", np.tri, _eye_like_infer("tri", ("N", "M", "k", "dtype"))))
