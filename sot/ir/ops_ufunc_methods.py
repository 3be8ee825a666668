"""The methods of every binary ufunc: ``reduce``, ``accumulate``, ``outer``
and ``reduceat`` (``np.add.reduce``, ``np.subtract.outer``…), derived from
NumPy's own ufunc list so each ufunc gets all four at once.

An Op's target is the bound method (``np.add.reduce``), called as a
function; ``lookup_ufunc_method(ufunc, name)`` finds it (a fresh bound
method is made on every attribute read, so identity lookup cannot).
Writes (``ufunc.at``) are not modelled here.
"""

from __future__ import annotations

import numpy as np

from .errors import UnsupportedOp
from .registry import Op, bind, const_axes, const_int, meta_of_probe, register, run_probe, shape_of
from .statement_ir import Symbol

METHODS = ("reduce", "accumulate", "outer", "reduceat")

_BY_UFUNC: dict[tuple[int, str], tuple[np.ufunc, Op]] = {}


def lookup_ufunc_method(ufunc, name: str) -> Op | None:
    entry = _BY_UFUNC.get((id(ufunc), name))
    if entry is None or entry[0] is not ufunc:
        return None
    return entry[1]


def _reduced(shape, axes, keepdims):
    if axes is None:
        axes = tuple(range(len(shape)))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduce_infer(op, args, kwargs):
    b = bind(op.name, ("array", "axis", "dtype", "out", "keepdims", "initial"), args, kwargs,
             {"array", "axis", "dtype", "keepdims", "initial"}, kwonly=("where",))
    if "array" not in b:
        raise UnsupportedOp(f"{op.name}: expects an operand")
    shape = shape_of(b["array"])
    keepdims = b.get("keepdims", False)
    if type(keepdims) is not bool:
        raise UnsupportedOp(f"{op.name}: keepdims must be a bool")
    result = run_probe(op, args, kwargs)
    if not shape:  # NumPy takes axis 0 (or None, or ()) on a 0-d operand
        return meta_of_probe(op, result, ())
    axes = const_axes(b.get("axis", 0), len(shape))
    return meta_of_probe(op, result, _reduced(shape, axes, keepdims))


def _accumulate_infer(op, args, kwargs):
    b = bind(op.name, ("array", "axis", "dtype", "out"), args, kwargs, {"array", "axis", "dtype"})
    if "array" not in b:
        raise UnsupportedOp(f"{op.name}: expects an operand")
    shape = shape_of(b["array"])
    if b.get("axis", 0) is not None:
        const_axes(b.get("axis", 0), len(shape))
    result = run_probe(op, args, kwargs)
    return meta_of_probe(op, result, shape)


def _outer_infer(op, args, kwargs):
    if len(args) != 2:
        raise UnsupportedOp(f"{op.name}: expects two operands")
    for k, v in kwargs.items():
        if k not in ("dtype", "casting") and not (k == "out" and v is None):
            raise UnsupportedOp(f"{op.name}: keyword {k}= not captured")
    result = run_probe(op, args, kwargs)
    return meta_of_probe(op, result, tuple(shape_of(args[0])) + tuple(shape_of(args[1])))


def _reduceat_infer(op, args, kwargs):
    b = bind(op.name, ("array", "indices", "axis", "dtype", "out"), args, kwargs,
             {"array", "indices", "axis", "dtype"})
    if "indices" not in b:
        raise UnsupportedOp(f"{op.name}: expects an operand and indices")
    shape = shape_of(b["array"])
    (axis,) = const_axes(b.get("axis", 0), len(shape)) or (None,)
    if axis is None:
        raise UnsupportedOp(f"{op.name}: axis=None")
    indices = b["indices"]
    if isinstance(indices, Symbol) and not indices.meta.is_python and indices.meta.ndim == 1:
        return _reduceat_traced(op, b, shape, axis, indices)
    if isinstance(indices, Symbol) or not isinstance(indices, (list, tuple)):
        indices = [indices]
    idx = [const_int(i, "indices") for i in indices]
    n = shape[axis]
    if any(not 0 <= i < n for i in idx):  # eager raises IndexError
        raise UnsupportedOp(f"{op.name}: an index is out of bounds for size {n}")
    # the probe's axis has size <= 1: index 0 stands for every index
    pargs = dict(b, indices=[0] * len(idx) if isinstance(b["indices"], (list, tuple)) else 0)
    result = run_probe(op, (), pargs)
    out = list(shape)
    out[axis] = len(idx) if isinstance(b["indices"], (list, tuple)) else 1
    return meta_of_probe(op, result, out)


def _reduceat_traced(op, b, shape, axis, indices: Symbol):
    """Indices from a traced 1-d array: one result per index (NumPy reads
    them when the graph runs: one out of bounds raises IndexError there)."""
    if not np.can_cast(indices.meta.dtype, np.intp, "safe"):
        raise UnsupportedOp(f"{op.name}: indices of dtype {indices.meta.dtype} (NumPy raises TypeError)")
    k = shape_of(indices)[0]
    result = run_probe(op, (), dict(b, indices=np.zeros(min(k, 1), np.intp)))
    out = list(shape)
    out[axis] = k
    return meta_of_probe(op, result, out)


_INFER = {"reduce": _reduce_infer, "accumulate": _accumulate_infer, "outer": _outer_infer,
          "reduceat": _reduceat_infer}


def _binary_ufuncs():
    seen = set()
    for name, fn in sorted(vars(np).items()):
        if name.startswith("_") or not isinstance(fn, np.ufunc) or id(fn) in seen:
            continue
        if fn.nin == 2 and fn.nout == 1 and fn.signature is None:
            seen.add(id(fn))
            yield fn


for _ufunc in _binary_ufuncs():
    for _method in METHODS:
        _op = register(Op(f"{_ufunc.__name__}.{_method}", "function", getattr(_ufunc, _method), _INFER[_method]))
        _BY_UFUNC[(id(_ufunc), _method)] = (_ufunc, _op)
