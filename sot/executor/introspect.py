"""Introspection is free: NumPy calls whose answer depends only on what the
guards already fix (type, dtype, shape; strides where guarded) are computed
at trace time and never become graph ops.

``numpy_call(graph, fn, args, kwargs)`` answers ``np.isscalar``,
``np.shape``, ``np.size``, ``np.ndim``, ``np.iscomplexobj``/``isrealobj``,
``np.issubdtype``, ``np.isdtype``, ``np.result_type``, ``np.promote_types``,
``np.can_cast`` (or returns None: not introspection); ``class_call`` answers ``np.dtype``,
``np.finfo`` and ``np.iinfo`` of constant dtypes; ``layout_attr`` answers
``.strides`` and ``.flags`` of an input array (guarding its strides).
"""
from __future__ import annotations

import numpy as np

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.guard import ValueGuard
from ..guards.tracker import AttrTracker
from .variables import (
    BuiltinVariable, ClassVariable, ConstVariable, ListVariable, SymScalarVariable, TensorVariable,
    TupleVariable, Variable,
)

#: Python types that stand for dtypes as arguments (``astype(int)``, ``dtype=bool``)
PYTHON_DTYPES = (bool, int, float, complex)

_FLAG_NAMES = frozenset({"c_contiguous", "f_contiguous", "contiguous", "fortran", "forc", "fnc"})
_FLAG_KEYS = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
              "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous",
              "FORC": "forc", "FNC": "fnc"}


def dtype_constant(v: Variable):
    """The constant a Variable stands for as a dtype-like argument, or a
    sentinel when it is not a constant."""
    if isinstance(v, ConstVariable):
        return v.value
    if isinstance(v, (BuiltinVariable, ClassVariable)) and v.value in PYTHON_DTYPES:
        return v.value
    return _NOT_CONST


_NOT_CONST = object()


def _stand_in(v: Variable):
    """A value NumPy's introspection answers identically on, or _NOT_CONST."""
    if isinstance(v, TensorVariable):
        meta = v.meta
        if meta.is_scalar:
            return meta.dtype.type(0)
        return np.empty((0,) * meta.ndim, meta.dtype)  # same type, dtype and ndim
    if isinstance(v, SymScalarVariable):
        return v.meta.type(v.meta.hint)
    c = dtype_constant(v)
    if c is not _NOT_CONST:
        return c
    return _const_tree(v)  # a sequence holding arrays is answered from its data


def _shape(graph, v):
    if isinstance(v, TensorVariable):
        return TupleVariable([graph.dim(v, i) for i in range(v.meta.ndim)])
    return None


def _computed(fn, args, kwargs, value_of) -> Variable | None:
    """``fn`` of the values ``value_of`` gives the arguments, at trace time;
    None when one has none.  Where eager raises, the call runs natively."""
    values = [value_of(a) for a in args]
    kw = {k: value_of(v) for k, v in kwargs.items()}
    if any(v is _NOT_CONST for v in values + list(kw.values())):
        return None
    try:
        return ConstVariable(fn(*values, **kw))
    except Exception as e:  # eager raises the same error when it runs natively
        raise FallbackError(UNSUPPORTED_OBJECT, f"np.{fn.__name__}: {type(e).__name__}: {e}") from None


def _by_kind(fn):
    """An introspection function answered on stand-ins (dtype, type and ndim
    are all it reads)."""
    return lambda graph, args, kwargs: _computed(fn, args, kwargs, _stand_in)


def _np_shape(graph, args, kwargs):
    if len(args) == 1 and not kwargs and isinstance(args[0], TensorVariable):
        return _shape(graph, args[0])
    return _on_constants(np.shape, args, kwargs)


def _np_ndim(graph, args, kwargs):
    if len(args) == 1 and not kwargs and isinstance(args[0], TensorVariable):
        return ConstVariable(args[0].meta.ndim)
    return _on_constants(np.ndim, args, kwargs)


def _np_size(graph, args, kwargs):
    from . import dispatch
    if len(args) == 1 and not kwargs and isinstance(args[0], TensorVariable):
        return dispatch.getattr_(_Exec(graph), args[0], "size")
    if len(args) == 2 and not kwargs and isinstance(args[0], TensorVariable) \
            and isinstance(args[1], ConstVariable) and type(args[1].value) is int:
        axis = args[1].value
        if -args[0].meta.ndim <= axis < args[0].meta.ndim:
            return graph.dim(args[0], axis % args[0].meta.ndim)
        return None
    return _on_constants(np.size, args, kwargs)


class _Exec:
    def __init__(self, graph):
        self.graph = graph


def _on_constants(fn, args, kwargs):
    """``fn`` of Python constants (nested tuples/lists of numbers)."""
    return _computed(fn, args, kwargs, _const_tree)


def _const_tree(v):
    if isinstance(v, ConstVariable):
        return v.value
    if isinstance(v, (TupleVariable, ListVariable)):
        items = [_const_tree(i) for i in v.items]
        if any(i is _NOT_CONST for i in items):
            return _NOT_CONST
        return tuple(items) if isinstance(v, TupleVariable) else items
    return _NOT_CONST


NUMPY_INTROSPECTION = {
    np.isscalar: _by_kind(np.isscalar),
    np.iscomplexobj: _by_kind(np.iscomplexobj),
    np.isrealobj: _by_kind(np.isrealobj),
    np.issubdtype: _by_kind(np.issubdtype),
    np.result_type: _by_kind(np.result_type),
    np.promote_types: _by_kind(np.promote_types),
    np.can_cast: _by_kind(np.can_cast),
    np.isdtype: _by_kind(np.isdtype),
    np.shape: _np_shape,
    np.ndim: _np_ndim,
    np.size: _np_size,
    np.iterable: _by_kind(np.iterable),   # an array is iterable unless 0-d
    # pure functions of Python constants (an int, shapes)
    np.broadcast_shapes: lambda graph, args, kwargs: _on_constants(np.broadcast_shapes, args, kwargs),
    np.binary_repr: lambda graph, args, kwargs: _on_constants(np.binary_repr, args, kwargs),
    np.base_repr: lambda graph, args, kwargs: _on_constants(np.base_repr, args, kwargs),
}
_BY_ID = {id(fn): fn for fn in NUMPY_INTROSPECTION}


def numpy_call(graph, fn, args, kwargs) -> Variable | None:
    """The answer of introspection function ``fn`` at trace time, or None."""
    if _BY_ID.get(id(fn)) is not fn:
        return None
    return NUMPY_INTROSPECTION[fn](graph, list(args), dict(kwargs))


_CLASSES = (np.dtype, np.finfo, np.iinfo)


def class_call(cls, args, kwargs) -> Variable | None:
    """``np.dtype(x)``, ``np.finfo(x)``, ``np.iinfo(x)`` of constant dtype-likes."""
    if not any(cls is c for c in _CLASSES):
        return None
    return _computed(cls, args, kwargs, dtype_constant)


#: attributes of constants computed at trace time (all immutable values)
CONST_ATTRS = {
    np.finfo: frozenset({"eps", "epsneg", "max", "min", "tiny", "smallest_normal", "smallest_subnormal",
                         "resolution", "bits", "precision", "dtype", "iexp", "machep", "maxexp", "minexp",
                         "negep", "nexp", "nmant"}),
    np.iinfo: frozenset({"min", "max", "bits", "dtype", "kind"}),
    np.dtype: frozenset({"itemsize", "kind", "name", "char", "type", "num", "str", "byteorder",
                         "alignment", "isbuiltin", "isnative", "ndim", "shape", "base"}),
}


def const_attr(value, name: str) -> Variable | None:
    attrs = CONST_ATTRS.get(type(value))
    if attrs is None and isinstance(value, np.dtype):
        attrs = CONST_ATTRS[np.dtype]
    if attrs is None or name not in attrs:
        return None
    return ConstVariable(getattr(value, name))


# -- layout: strides and flags --------------------------------------------------

class FlagsVariable(Variable):
    """``x.flags`` of an input whose strides are guarded: the layout flags
    (contiguity) are read; the object itself never leaves the trace."""

    def __init__(self, flags):
        super().__init__(None)
        self.flags = flags

    def attr(self, name: str) -> Variable:
        if name not in _FLAG_NAMES:
            raise FallbackError(UNSUPPORTED_OBJECT, f"flags.{name} is not fixed by the guards")
        return ConstVariable(bool(getattr(self.flags, name)))

    def item(self, key: Variable) -> Variable:
        name = _FLAG_KEYS.get(key.value) if isinstance(key, ConstVariable) and type(key.value) is str else None
        if name is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"flags[{key.describe()}] is not fixed by the guards")
        return self.attr(name)

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return "flags of an array"


def layout_attr(graph, obj: TensorVariable, name: str) -> Variable | None:
    """``.strides`` / ``.flags`` of an unchanged input array (its strides
    become a guard); None for other names.  Arrays the graph computed have
    strides only the run decides: not captured."""
    if name not in ("strides", "flags"):
        return None
    strides = getattr(obj, "input_strides", None)
    if strides is None or not obj.is_unchanged_input() or obj.meta.is_scalar:
        raise FallbackError(UNSUPPORTED_OBJECT, f".{name} of {obj.describe()} is known only when it runs")
    from . import dispatch
    # contiguity of given strides depends on every size: symbolic dims become static
    dispatch.concrete(f".{name}", *(graph.dim(obj, a) for a in obj.meta.symbolic_axes))
    graph.add_guard(ValueGuard(AttrTracker(obj.tracker, "strides"), strides))
    if name == "strides":
        return ConstVariable(strides)
    meta = obj.meta
    # the flags NumPy computes from this shape and these strides (no data is read)
    fake = np.lib.stride_tricks.as_strided(np.empty(1, meta.dtype), meta.shape, strides)
    return FlagsVariable(fake.flags)


_UFUNC_CONST_ATTRS = frozenset({"nin", "nout", "nargs", "ntypes", "identity", "signature", "__name__"})


def ufunc_attr(ufunc, name: str) -> Variable | None:
    """``np.add.reduce`` (a graph op when called) or a constant attribute
    (``nin``, ``identity``…) of a ufunc; None for anything else."""
    from ..ir.ops_ufunc_methods import lookup_ufunc_method
    from .variables import NumpyCallableVariable
    if name in _UFUNC_CONST_ATTRS:
        value = getattr(ufunc, name)
        return ConstVariable(value)
    op = lookup_ufunc_method(ufunc, name)
    if op is None:
        return None
    # no tracker: each read makes a new bound method, so nothing to guard
    return NumpyCallableVariable(op.target, op)


def scalar_of_constants(scalar_type, args, kwargs) -> Variable | None:
    """``np.float32(1e-5)``: a NumPy scalar of Python numbers, made at trace
    time (immutable, like the constant it is)."""
    if kwargs or len(args) != 1 or not isinstance(args[0], ConstVariable) \
            or type(args[0].value) not in (bool, int, float, complex):
        return None
    from .._quiet import strictly
    try:
        with strictly():   # np.float16(1e5) warns of overflow on every eager call
            value = scalar_type(args[0].value)
    except Exception:
        return None  # eager's error or warning comes from the native call (OverflowError…)
    return ConstVariable(value) if isinstance(value, np.generic) else None
