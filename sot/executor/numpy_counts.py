"""NumPy calls that count the data into a Python number: ``np.count_nonzero(a)``
(no axis: a Python int before NumPy 2.3), ``np.array_equal``, ``np.array_equiv`` and
``np.allclose`` (Python bools).

Each is the length of a selection, ``np.flatnonzero`` of the elements that
count (the nonzeros; the mismatches), a data-dependent size
(``sot.ir.unbacked``): a Python int in the graph, compared with 0 for the
bools.  The answer stays in the graph until Python reads it (a branch on it
breaks there, ``int()`` of it too), and a function that only returns it or
computes with it runs whole.  The forms NumPy answers from shapes alone
(``array_equal`` of two shapes) are decided at trace time from static
shapes; a symbolic shape that could go either way leaves the call native.
"""
from __future__ import annotations

import numpy as np

from ..ir import registry
from ..ir.ops_numerical import SCALAR_COUNT
from .variables import ConstVariable, TensorVariable, Variable

__all__ = ["count_form"]

_MISSING = object()


def _const(v, default=_MISSING):
    """The constant value of an argument Variable (``default`` if absent), or _MISSING."""
    if v is None:
        return default
    return v.value if isinstance(v, ConstVariable) else _MISSING


def _bind(params, args, kwargs) -> dict | None:
    """Arguments by parameter name (Variables), or None for another form."""
    if len(args) > len(params) or set(kwargs) - set(params):
        return None
    bound = dict(zip(params, args))
    if any(k in bound for k in kwargs):
        return None
    bound.update(kwargs)
    return bound


def _array(v) -> bool:
    return isinstance(v, TensorVariable) and not v.meta.is_python


def _number(v) -> bool:
    return isinstance(v, ConstVariable) and type(v.value) in (bool, int, float)


def _count(graph, a: Variable) -> Variable:
    """``np.count_nonzero(a)``: the length of ``np.flatnonzero(a)``."""
    flat = graph.call_op(registry.lookup_function(np.flatnonzero), [a])
    return graph.dim(flat, 0)


def _none_counted(graph, mismatch: Variable) -> Variable:
    """``not mismatch.any()`` as a Python bool: no element of ``mismatch`` counts."""
    return graph.call_op(registry.lookup_operator("eq"), [_count(graph, mismatch), ConstVariable(0)])


def _static_shape(graph, v: TensorVariable):
    """The shape of ``v`` when no dim of it is symbolic (read statically), else None."""
    if v.meta.symbolic_axes:
        return None
    graph.ir.note_static_read(v.symbol, range(v.meta.ndim))
    return v.meta.shape


def _same_shape(graph, a: TensorVariable, b: TensorVariable):
    """True/False when the shapes of ``a`` and ``b`` are equal on every call, None when unknown."""
    ma, mb = a.meta, b.meta
    if ma.shape == mb.shape and (ma.shadow or ma.shape) == (mb.shadow or mb.shape):
        if ma.symbolic_axes or mb.symbolic_axes:
            return True   # the same symbolic sizes: equal whatever they are
    sa, sb = _static_shape(graph, a), _static_shape(graph, b)
    if sa is None or sb is None:
        return None
    return sa == sb


def _fn(name):
    return registry.lookup_function(getattr(np, name))


def _call(graph, name, args, kwargs=None):
    return graph.call_op(_fn(name), args, kwargs or {})


def _count_nonzero(graph, args, kwargs):
    b = _bind(("a", "axis", "keepdims"), args, kwargs)
    if b is None or len(args) > 1 or not _array(b.get("a")):
        return None
    if SCALAR_COUNT or _const(b.get("axis"), None) is not None or _const(b.get("keepdims"), False) is not False:
        return None   # a registered op: an array, or NumPy's own integer (NumPy >= 2.3)
    return _count(graph, b["a"])


def _mismatch(graph, a1, a2, equal_nan) -> Variable:
    """The elements where ``a1`` and ``a2`` differ, as ``array_equal`` decides."""
    equal = _call(graph, "equal", [a1, a2])
    if equal_nan and any(v.meta.dtype.kind in "fc" for v in (a1, a2)):
        # NumPy: (a1 == a2) | (isnan(a1) & isnan(a2)), and its all-NaN fast path agrees
        both_nan = _call(graph, "logical_and", [_call(graph, "isnan", [a1]), _call(graph, "isnan", [a2])])
        equal = _call(graph, "logical_or", [equal, both_nan])
    return _call(graph, "logical_not", [equal])


def _array_equal(graph, args, kwargs):
    b = _bind(("a1", "a2", "equal_nan"), args, kwargs)
    if b is None or not _array(b.get("a1")) or not _array(b.get("a2")):
        return None
    equal_nan = _const(b.get("equal_nan"), False)
    if type(equal_nan) is not bool:
        return None
    same = _same_shape(graph, b["a1"], b["a2"])
    if same is None:
        return None
    if not same:
        return ConstVariable(False)
    return _none_counted(graph, _mismatch(graph, b["a1"], b["a2"], equal_nan))


def _array_equiv(graph, args, kwargs):
    b = _bind(("a1", "a2"), args, kwargs)
    if b is None or not _array(b.get("a1")) or not _array(b.get("a2")):
        return None
    a1, a2 = b["a1"], b["a2"]
    if not _same_shape(graph, a1, a2):
        sa, sb = _static_shape(graph, a1), _static_shape(graph, a2)
        if sa is None or sb is None:
            return None
        try:
            np.broadcast_shapes(sa, sb)
        except ValueError:
            return ConstVariable(False)
    return _none_counted(graph, _mismatch(graph, a1, a2, False))


def _allclose(graph, args, kwargs):
    b = _bind(("a", "b", "rtol", "atol", "equal_nan"), args, kwargs)
    operands = (b or {}).get("a"), (b or {}).get("b")
    if b is None or not any(_array(v) for v in operands) or not all(_array(v) or _number(v) for v in operands):
        return None
    # NumPy: all(isclose(a, b, ...)), a Python number kept as it is (a weak scalar)
    close = graph.call_op(_fn("isclose"), list(args), kwargs)
    return _none_counted(graph, _call(graph, "logical_not", [close]))


_FORMS = {np.count_nonzero: _count_nonzero, np.array_equal: _array_equal, np.array_equiv: _array_equiv,
          np.allclose: _allclose}


def count_form(graph, fn, args, kwargs) -> Variable | None:
    """The graph form of a counting call ``fn(*args, **kwargs)``, or None."""
    # by identity, as the other NumPy call tables: `fn` may be a callable object
    # that is unhashable (a Polynomial) or whose __eq__ says yes to anything
    form = next((f for key, f in _FORMS.items() if key is fn), None)
    return form(graph, list(args), dict(kwargs)) if form is not None else None
