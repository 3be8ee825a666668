"""The one NumPy op registry: what the IR can capture and how it infers.

An ``Op`` says how the operation is invoked (``kind``), what it invokes
(``target``) and how its result is inferred (``infer``).  The four kinds:

==============  ===========================  ==================================
kind            target                       invoked as
==============  ===========================  ==================================
``operator``    a function of ``operator``    ``target(*args)`` (``x + y``)
``function``    a ``numpy`` callable          ``target(*args, **kwargs)``
``method``      a method name (str)           ``args[0].target(*args[1:], **kw)``
``attribute``   an attribute name (str)       ``args[0].target``
==============  ===========================  ==================================

Inference (``Op.infer(args, kwargs)``) returns a ``TensorMeta`` (or a tuple
of them for multi-result ops such as ``split``) or raises ``UnsupportedOp``.
It never touches array data and its cost does not depend on array sizes:

* the **shape** comes from a rule per op family (broadcasting, reduction
  axes, matmul, indexing, …), written in the ``ops_*`` modules;
* the **dtype**, the **Python type** (NumPy scalar vs ndarray) and the
  validity of the arguments come from NumPy itself: the op is run on *probe*
  stand-ins (``probe_value``) — arrays of the same dtype and ndim whose every
  dimension is ``min(d, 1)``, so at most one element, or NumPy scalars for
  NumPy scalars — with the real constants.  Where NumPy raises on the probe,
  eager NumPy raises too, and the op is not captured.

Shape rules check what the probe cannot see (a dimension of 3 against one of
4 both probe as 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .._quiet import quietly
from .errors import BroadcastError, UnsupportedOp
from .meta import TensorMeta, dtype_is_supported
from .statement_ir import Symbol, map_symbols

__all__ = [
    "Op", "lookup_function", "lookup_method", "lookup_attribute", "lookup_operator",
    "all_ops", "register", "probe_value", "run_probe", "meta_of_probe",
]

OP_KINDS = ("operator", "function", "method", "attribute")


@dataclass(frozen=True, eq=False)
class Op:
    """A capturable operation (see the module docstring)."""

    name: str
    kind: str
    target: Any
    infer_fn: Callable[["Op", tuple, dict], Any]

    def __post_init__(self):
        if self.kind not in OP_KINDS:
            raise ValueError(f"unknown op kind {self.kind!r}")

    def infer(self, args: tuple, kwargs: dict):
        """TensorMeta(s) of ``self(*args, **kwargs)``, or UnsupportedOp."""
        return self.infer_fn(self, tuple(args), dict(kwargs))

    @property
    def aliases(self) -> bool:
        """Whether the result may share memory with an argument, or be one:
        views (``x.T``, ``x[1:]``, ``reshape``…) and ops that return their
        operand (in-place operators, ``astype(copy=False)``, ``diff(n=0)``)."""
        return (self.kind, self.name) in ALIASING_OPS

    @property
    def reads_sequence(self) -> bool:
        """Whether NumPy reads the first argument as any sequence of its items
        (``np.stack(window)`` of a deque as of a list; ``np.block`` does not)."""
        return (self.kind, self.name) in SEQUENCE_READING_OPS

    def call(self, args, kwargs):
        """Apply the op to concrete values, exactly as generated code does."""
        if self.kind == "operator":
            if kwargs:
                raise TypeError("operators take no keyword arguments")
            return self.target(*args)
        if self.kind == "function":
            return self.target(*args, **kwargs)
        if self.kind == "method":
            return getattr(args[0], self.target)(*args[1:], **kwargs)
        if len(args) != 1 or kwargs:
            raise TypeError("an attribute takes exactly one argument")
        return getattr(args[0], self.target)

    def __repr__(self) -> str:
        return f"Op({self.kind} {self.name})"


# ----------------------------------------------------------------------------
# tables

#: (kind, name) of the ops whose result may alias an argument (see Op.aliases)
ALIASING_OPS = frozenset(
    [("operator", n) for n in ("getitem", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod",
                               "ipow", "imatmul", "iand", "ior", "ixor", "ilshift", "irshift")]
    + [("attribute", n) for n in ("T", "mT", "real", "imag")]
    + [("method", n) for n in ("reshape", "transpose", "swapaxes", "squeeze", "ravel", "astype",
                               "diagonal", "conj", "conjugate", "round")]
    # NumPy 2.2 returns an integer array itself from round(x) / x.round()
    + [("function", n) for n in ("round", "around")]
    + [("function", n) for n in ("reshape", "transpose", "swapaxes", "moveaxis", "expand_dims",
                                 "squeeze", "ravel", "broadcast_to", "astype", "diagonal", "real",
                                 "imag", "split", "array_split", "hsplit", "vsplit", "dsplit",
                                 "flip", "fliplr", "flipud", "atleast_1d", "atleast_2d",
                                 "atleast_3d", "diff", "einsum", "rot90", "matrix_transpose",
                                 "linalg_diagonal", "rollaxis", "unstack", "broadcast_arrays",
                                 # np.histogram(x, bins=edges) returns the edges array itself
                                 "histogram", "histogram2d")]
    # conversions return their operand when it already fits; diag of a 2-d array is a view
    + [("function", n) for n in ("asarray", "asarray_chkfinite", "ascontiguousarray", "asfortranarray", "diag",
                                 "sliding_window_view")]
    # np.float32(x) of a float32 array is x; fftn over no axes (a 0-d operand) returns it
    + [("function", n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                 "uint64", "float16", "float32", "float64", "complex64", "complex128",
                                 "fftn", "ifftn")]
    + [("method", "view")]
)

#: (kind, name) of the ops whose first argument NumPy reads as a plain
#: sequence (see Op.reads_sequence)
SEQUENCE_READING_OPS = frozenset(("function", n) for n in (
    "stack", "concatenate", "hstack", "vstack", "dstack", "column_stack", "array", "asarray"))

_FUNCTIONS: dict[int, tuple[Any, Op]] = {}
_METHODS: dict[str, Op] = {}
_ATTRIBUTES: dict[str, Op] = {}
_OPERATORS: dict[str, Op] = {}


def statement_aliases(op: Op, args) -> bool:
    """``op.aliases`` for these arguments: indexing with an index array or
    list (advanced indexing) always copies, whatever else the index holds."""
    if not op.aliases:
        return False
    if op.kind == "operator" and op.name == "getitem" and len(args) == 2:
        items = args[1] if type(args[1]) is tuple else (args[1],)
        # an ndarray index (0-d too) is advanced; a NumPy scalar index is basic
        return not any(isinstance(i, list) or (isinstance(i, Symbol) and not i.meta.is_scalar) for i in items)
    return True


def register(op: Op) -> Op:
    if op.kind == "function":
        _FUNCTIONS[id(op.target)] = (op.target, op)
    elif op.kind == "method":
        _METHODS[op.target] = op
    elif op.kind == "attribute":
        _ATTRIBUTES[op.target] = op
    else:
        _OPERATORS[op.name] = op
    return op


def lookup_function(fn) -> Op | None:
    """The Op for a NumPy callable (``np.add``, ``np.sum``…), by identity."""
    entry = _FUNCTIONS.get(id(fn))
    if entry is None or entry[0] is not fn:
        return None
    return entry[1]


def lookup_method(name: str) -> Op | None:
    """The Op for an ndarray/np.generic method; the array is the first arg."""
    return _METHODS.get(name)


def lookup_attribute(name: str) -> Op | None:
    """The Op for an array-valued attribute (``T``, ``mT``, ``real``, ``imag``)."""
    return _ATTRIBUTES.get(name)


def lookup_operator(name: str) -> Op | None:
    """The Op for a Python operator by its ``operator`` module name (``add``,
    ``iadd``, ``neg``, ``lt``, ``getitem``…)."""
    return _OPERATORS.get(name)


def all_ops() -> list[Op]:
    """Every registered Op (functions, methods, attributes, operators)."""
    return ([op for _, op in _FUNCTIONS.values()] + list(_METHODS.values())
            + list(_ATTRIBUTES.values()) + list(_OPERATORS.values()))


# ----------------------------------------------------------------------------
# probing: NumPy as the dtype/type oracle

def probe_shape(shape) -> tuple[int, ...]:
    return tuple(min(int(d), 1) for d in shape)


def probe_value(meta: TensorMeta):
    """A stand-in of at most one element with ``meta``'s dtype, ndim and type
    (a Python number graph value: its trace-time value, still a Python number)."""
    if meta.is_python:
        return meta.hint
    if meta.is_scalar:
        return meta.dtype.type(1)
    return np.ones(probe_shape(meta.shape), meta.dtype)


def substitute(tree, fn=lambda s: probe_value(s.meta)):
    """``tree`` with every Symbol replaced by ``fn(symbol)`` (probes by
    default).  Slices are kept as they are: a slice's bounds are constants
    here, or Python numbers of a symbolic graph that the indexing rules read
    themselves."""
    return map_symbols(tree, fn, slices=False)


def run_probe(op: Op, args, kwargs):
    """Run ``op`` on probes (Symbols replaced by ``probe_value``)."""
    pargs = substitute(args)
    pkwargs = substitute(kwargs)
    return call_quietly(op, pargs, pkwargs)


def call_quietly(op: Op, args, kwargs):
    try:
        with quietly():
            return op.call(args, kwargs)
    except Exception as e:  # eager NumPy would raise on these arguments
        raise UnsupportedOp(f"{op.name}: NumPy raises {type(e).__name__}: {e}") from None


def meta_of_probe(op: Op, result, shape) -> TensorMeta:
    """The meta of a result: its shape from the rule, dtype/type from the probe."""
    shape = tuple(int(d) for d in shape)
    if isinstance(result, np.generic):
        if shape != ():
            raise UnsupportedOp(f"{op.name}: internal shape mismatch (scalar vs {shape})")
        meta = TensorMeta((), result.dtype, True)
    elif type(result) is np.ndarray:
        if result.ndim != len(shape):
            raise UnsupportedOp(f"{op.name}: internal ndim mismatch ({result.ndim} vs {shape})")
        meta = TensorMeta(shape, result.dtype, False)
    else:
        raise UnsupportedOp(f"{op.name}: result of type {type(result).__name__} is not an array")
    if not dtype_is_supported(meta.dtype):
        raise UnsupportedOp(f"{op.name}: result dtype {meta.dtype} is not supported")
    return meta


# ----------------------------------------------------------------------------
# helpers shared by the ops_* modules

def shape_of(value) -> tuple[int, ...]:
    """The shape of an operand: a Symbol's meta, or NumPy's view of a constant."""
    if isinstance(value, Symbol):
        return value.meta.shape
    if _contains_symbol(value):
        raise UnsupportedOp("a sequence of traced values as an implicit array is not captured")
    return np.shape(value)


def _contains_symbol(value) -> bool:
    if isinstance(value, Symbol):
        return True
    if isinstance(value, (tuple, list)):
        return any(_contains_symbol(v) for v in value)
    return False


def const_int(value, what: str) -> int:
    if isinstance(value, Symbol):
        raise UnsupportedOp(f"{what} is a traced value (data-dependent)")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise UnsupportedOp(f"{what} must be an int, got {value!r}")
    return int(value)


def const_axes(axis, ndim: int, what: str = "axis") -> tuple[int, ...] | None:
    """Normalized axes of an ``axis=`` argument (None stays None)."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        axes = tuple(const_int(a, what) for a in axis)
    else:
        axes = (const_int(axis, what),)
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise UnsupportedOp(f"{what} {a} out of bounds for ndim {ndim}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise UnsupportedOp(f"repeated {what}")
    return tuple(out)


def const_shape(value, what: str = "shape") -> tuple[int, ...]:
    if isinstance(value, (tuple, list)):
        return tuple(const_int(d, what) for d in value)
    return (const_int(value, what),)


def broadcast(*shapes) -> tuple[int, ...]:
    """NumPy's broadcasting rule, in pure Python (no limit on the total size,
    unlike ``np.broadcast_shapes``)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        dims = {int(s[i]) for s in shapes if len(s) >= -i} - {1}
        if len(dims) > 1:
            raise BroadcastError(f"shapes {[tuple(s) for s in shapes]} do not broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def bind(op_name: str, params: tuple[str, ...], args: tuple, kwargs: dict,
         allowed: frozenset | set, kwonly: tuple[str, ...] = ()) -> dict:
    """Bind positional args to ``params`` and check keyword names.

    Names outside ``allowed`` may appear only as ``out=None``; anything else
    (``out=`` an array, ``where=``, ``initial=``, unknown names) is not captured.
    """
    if len(args) > len(params):
        raise UnsupportedOp(f"{op_name}: too many positional arguments")
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k in bound:
            raise UnsupportedOp(f"{op_name}: {k} given twice")
        if k not in params and k not in kwonly:
            raise UnsupportedOp(f"{op_name}: keyword {k}= not captured")
        bound[k] = v
    for k, v in bound.items():
        if k not in allowed and not (k == "out" and v is None):
            raise UnsupportedOp(f"{op_name}: argument {k}= not captured")
    return bound


def simple_op(name: str, kind: str, target, shape_rule) -> Op:
    """An Op inferred as ``shape_rule(args, kwargs)`` + a probe run."""

    def infer(op, args, kwargs):
        result = run_probe(op, args, kwargs)
        return meta_of_probe(op, result, shape_rule(args, kwargs))

    return register(Op(name, kind, target, infer))


def _dim(a, axis):
    return a.shape[axis]


#: ``a.shape[axis]`` of a symbolic dim (StatementIR.add_dim); not looked up
#: by name, so the simulator never records it for user code
DIM_OP = Op("dim", "operator", _dim, lambda op, args, kwargs: _no_infer())


def _no_infer():
    raise UnsupportedOp("dim is recorded by StatementIR.add_dim")


def _load_families():
    from . import (ops_creation, ops_elementwise, ops_indexing,  # noqa: F401
                   ops_linalg, ops_reduction, ops_shape, ops_ufunc_methods, ops_api, ops_linalg_fft,
                   ops_ufunc_multi, ops_data_dependent, ops_numerical, ops_combine, ops_linalg_api,
                   ops_edit, ops_polynomial, ops_bits, ops_histogramdd)
