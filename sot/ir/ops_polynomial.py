"""Polynomials as coefficient vectors (``np.polyadd``, ``polysub``,
``polymul``, ``polyder``, ``polyint``, ``polyfit``, ``vander``, ``poly`` of
real roots) and the functions whose result has their operand's shape (``np.isneginf``,
``isposinf``, ``iscomplex``, ``isreal``, ``i0``, ``sort_complex``,
``unwrap``), plus ``ndarray.argpartition``.

Same contract as every ``ops_*`` module: the shape from a rule in pure
Python over the operands' shapes and the constant arguments, dtype and
Python type from NumPy on probes.  Not here: ``polydiv`` and ``roots``
(their lengths and dtypes depend on the values), ``poly`` of complex roots
or of a matrix (its dtype does), ``poly1d`` objects.
They run on the NumPy backend (no ONNX lowering).
"""

from __future__ import annotations

import numpy as np

from .errors import UnsupportedOp
from .registry import Op, bind, const_axes, const_int, lookup_function, register, shape_of, simple_op
from .statement_ir import Symbol


def _coefficients(value, name: str) -> int:
    """The length of a coefficient vector (0-d operands are read as length 1)."""
    shape = shape_of(value)
    if len(shape) > 1:
        raise UnsupportedOp(f"{name}: coefficients must be 1-d")
    return shape[0] if shape else 1


def _add_shape(name):
    def rule(args, kwargs):
        b = bind(name, ("a1", "a2"), args, kwargs, {"a1", "a2"})
        if "a1" not in b or "a2" not in b:
            raise UnsupportedOp(f"{name}: needs two operands (NumPy raises)")
        return (max(_coefficients(b["a1"], name), _coefficients(b["a2"], name)),)
    return rule


def _polymul_shape(args, kwargs):
    b = bind("polymul", ("a1", "a2"), args, kwargs, {"a1", "a2"})
    if "a1" not in b or "a2" not in b:
        raise UnsupportedOp("polymul: needs two operands (NumPy raises)")
    n, m = _coefficients(b["a1"], "polymul"), _coefficients(b["a2"], "polymul")
    if n == 0 or m == 0:
        raise UnsupportedOp("polymul: an empty operand (NumPy raises)")
    return (n + m - 1,)


def _order(b, name) -> int:
    m = const_int(b.get("m", 1), "m")
    if m < 0:
        raise UnsupportedOp(f"{name}: negative order (NumPy raises)")
    return m


def _polyder_shape(args, kwargs):
    b = bind("polyder", ("p", "m"), args, kwargs, {"p", "m"})
    if "p" not in b or len(shape_of(b["p"])) != 1:
        raise UnsupportedOp("polyder: needs 1-d coefficients")
    return (max(shape_of(b["p"])[0] - _order(b, "polyder"), 0),)


def _polyint_shape(args, kwargs):
    b = bind("polyint", ("p", "m", "k"), args, kwargs, {"p", "m", "k"})
    if "p" not in b or len(shape_of(b["p"])) != 1:
        raise UnsupportedOp("polyint: needs 1-d coefficients")
    m = _order(b, "polyint")
    k = b.get("k")
    if k is not None and shape_of(k) not in ((), (m,)):
        raise UnsupportedOp("polyint: k must be a scalar or have m values")
    return (shape_of(b["p"])[0] + m,)


def _polyfit_shape(args, kwargs):
    b = bind("polyfit", ("x", "y", "deg", "rcond", "full", "w", "cov"), args, kwargs, {"x", "y", "deg", "rcond"})
    if any(p not in b for p in ("x", "y", "deg")):
        raise UnsupportedOp("polyfit: needs x, y and deg (NumPy raises)")
    deg = const_int(b["deg"], "deg")
    x, y = shape_of(b["x"]), shape_of(b["y"])
    if deg < 0 or len(x) != 1 or len(y) not in (1, 2) or x[0] != y[0] or x[0] == 0:
        raise UnsupportedOp("polyfit: invalid deg or shapes (NumPy raises)")
    return (deg + 1,) + tuple(y[1:])


simple_op("polyadd", "function", np.polyadd, _add_shape("polyadd"))
simple_op("polysub", "function", np.polysub, _add_shape("polysub"))
simple_op("polymul", "function", np.polymul, _polymul_shape)
simple_op("polyder", "function", np.polyder, _polyder_shape)
simple_op("polyint", "function", np.polyint, _polyint_shape)
simple_op("polyfit", "function", np.polyfit, _polyfit_shape)


def _vander_shape(args, kwargs):
    b = bind("vander", ("x", "N", "increasing"), args, kwargs, {"x", "N", "increasing"})
    x = shape_of(b.get("x"))
    if len(x) != 1:
        raise UnsupportedOp("vander: x must be 1-d (NumPy raises)")
    n = b.get("N")
    n = x[0] if n is None else const_int(n, "N")
    if n < 0:
        raise UnsupportedOp("vander: negative N (NumPy raises)")
    return (x[0], n)


simple_op("vander", "function", np.vander, _vander_shape)


def _poly_shape(args, kwargs):
    """``np.poly`` of real roots: n roots give n + 1 real coefficients.  Complex
    roots (real coefficients when they pair up) and a matrix (its eigenvalues)
    give a dtype that depends on the values: not captured."""
    b = bind("poly", ("seq_of_zeros",), args, kwargs, {"seq_of_zeros"})
    z = b.get("seq_of_zeros")
    if not isinstance(z, Symbol) or z.meta.is_python or z.meta.ndim > 1 or z.meta.dtype.kind not in "biuf":
        raise UnsupportedOp("poly: only a traced 1-d array of real roots is captured")
    shape = shape_of(z)
    n = shape[0] if shape else 1
    if n == 0:
        raise UnsupportedOp("poly: no roots (NumPy returns the Python float 1.0)")
    return (n + 1,)


simple_op("poly", "function", np.poly, _poly_shape)


# -- same shape as the operand -----------------------------------------------------------

def _same_shape(name, params, allowed=None):
    def rule(args, kwargs):
        b = bind(name, params, args, kwargs, set(params) if allowed is None else allowed)
        if params[0] not in b:
            raise UnsupportedOp(f"{name}: expects an operand")
        return shape_of(b[params[0]])
    return rule


for _name in ("isneginf", "isposinf"):   # no out= (a write)
    simple_op(_name, "function", getattr(np, _name), _same_shape(_name, ("x", "out"), {"x"}))
for _name in ("iscomplex", "isreal", "i0"):
    simple_op(_name, "function", getattr(np, _name), _same_shape(_name, ("x",)))


def _sort_complex_shape(args, kwargs):
    shape = _same_shape("sort_complex", ("a",))(args, kwargs)
    if not shape:
        raise UnsupportedOp("sort_complex: 0-d operand (NumPy raises)")
    return shape


simple_op("sort_complex", "function", np.sort_complex, _sort_complex_shape)


def _unwrap_shape(args, kwargs):
    b = bind("unwrap", ("p", "discont", "axis"), args, kwargs, {"p", "discont", "axis", "period"}, ("period",))
    shape = shape_of(b.get("p"))
    if not shape:
        raise UnsupportedOp("unwrap: 0-d operand (NumPy raises)")
    const_axes(b.get("axis", -1), len(shape))
    for k in ("discont", "period"):
        if k in b and shape_of(b[k]) != ():
            raise UnsupportedOp(f"unwrap: {k} must be a scalar")
    return shape


simple_op("unwrap", "function", np.unwrap, _unwrap_shape)

# x.argpartition(kth, axis=-1, kind=, order=) is np.argpartition(x, ...): the function's inference
_ARGPARTITION = lookup_function(np.argpartition)
register(Op("argpartition", "method", "argpartition", lambda op, args, kwargs: _ARGPARTITION.infer(args, kwargs)))
