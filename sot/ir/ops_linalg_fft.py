"""np.linalg and np.fft: run by the NumPy backend inside the graph (the
onnxruntime backend leaves them in a NumPy segment).

Only functions whose result dtype and shape follow from the operands'
dtypes and shapes: not ``eig``/``eigvals`` (real or complex by the data);
``lstsq``, whose residuals' length depends on the rank, is in
``ops_data_dependent``.  ``eigh``,
``svd``, ``qr`` and ``slogdet`` are multi-output ops whose named-tuple type
the simulator rebuilds (``NAMED_RESULTS``).
Singular matrices raise LinAlgError from the graph, as eagerly.
"""

from __future__ import annotations

import numpy as np

from .errors import UnsupportedOp
from .registry import Op, bind, broadcast, const_axes, const_int, meta_of_probe, register, run_probe, shape_of

_la = np.linalg


def _square(name, shape):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise UnsupportedOp(f"{name}: needs square matrices in the last two dims, got {shape}")
    return shape


def _op(name, target, params, allowed, shape_rule, kwonly=()):
    def infer(op, args, kwargs):
        b = bind(name, params, args, kwargs, allowed, kwonly)
        if params[0] not in b:
            raise UnsupportedOp(f"{name}: expects an operand")
        shape = shape_rule(b)
        return meta_of_probe(op, run_probe(op, args, kwargs), shape)
    return register(Op(name, "function", target, infer))


_op("inv", _la.inv, ("a",), {"a"}, lambda b: _square("inv", shape_of(b["a"])))
_op("cholesky", _la.cholesky, ("a", "upper"), {"a", "upper"}, lambda b: _square("cholesky", shape_of(b["a"])),
    kwonly=("upper",))
_op("det", _la.det, ("a",), {"a"}, lambda b: _square("det", shape_of(b["a"]))[:-2])
_op("eigvalsh", _la.eigvalsh, ("a", "UPLO"), {"a", "UPLO"}, lambda b: _square("eigvalsh", shape_of(b["a"]))[:-1])


def _matrix_power_shape(b):
    const_int(b.get("n"), "n")
    return _square("matrix_power", shape_of(b["a"]))


_op("matrix_power", _la.matrix_power, ("a", "n"), {"a", "n"}, _matrix_power_shape)


def _pinv_shape(b):
    shape = shape_of(b["a"])
    if len(shape) < 2:
        raise UnsupportedOp("pinv: needs at least 2 dims")
    return shape[:-2] + (shape[-1], shape[-2])


_op("pinv", _la.pinv, ("a", "rcond", "hermitian"), {"a", "rcond", "hermitian"}, _pinv_shape, kwonly=("rtol",))


def _solve_shape(b):
    a, x = _square("solve", shape_of(b["a"])), shape_of(b["b"])
    if len(x) == 1:  # NumPy 2: b is a vector only when it is 1-d
        if len(a) != 2 or x[0] != a[-1]:
            raise UnsupportedOp("solve: a vector b must match a 2-d a")
        return x
    if len(x) < 2 or x[-2] != a[-1]:
        raise UnsupportedOp("solve: b does not match a")
    return broadcast(a[:-2], x[:-2]) + x[-2:]


_op("solve", _la.solve, ("a", "b"), {"a", "b"}, _solve_shape)


def _norm_shape(b):
    shape = shape_of(b["x"])
    axis, keepdims, ord_ = b.get("axis"), b.get("keepdims", False), b.get("ord")
    if type(keepdims) is not bool:
        raise UnsupportedOp("norm: keepdims must be a bool")
    if axis is None:
        if ord_ is not None and len(shape) not in (1, 2):
            raise UnsupportedOp("norm: ord= needs a 1-d or 2-d operand")
        axes = tuple(range(len(shape)))
    else:
        axes = const_axes(axis, len(shape))
        if len(axes) > 2:
            raise UnsupportedOp("norm: more than two axes")
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


_op("norm", _la.norm, ("x", "ord", "axis", "keepdims"), {"x", "ord", "axis", "keepdims"}, _norm_shape)


# ----------------------------------------------------------------------------
# fft

_FFT_PARAMS = ("a", "n", "axis", "norm", "out")
_FFTN_PARAMS = ("a", "s", "axes", "norm", "out")


def _fft_infer(op, args, kwargs):
    b = bind(op.name, _FFT_PARAMS, args, kwargs, {"a", "n", "axis", "norm"})
    shape = list(shape_of(b["a"]))
    if not shape:
        raise UnsupportedOp(f"{op.name}: 0-d operand")
    (axis,) = const_axes(b.get("axis", -1), len(shape))
    m = shape[axis]
    n = b.get("n")
    if op.name in ("irfft", "hfft"):
        n = 2 * (m - 1) if n is None else const_int(n, "n")
    else:
        n = m if n is None else const_int(n, "n")
    if n < 1:
        raise UnsupportedOp(f"{op.name}: invalid number of data points {n}")
    shape[axis] = n // 2 + 1 if op.name in ("rfft", "ihfft") else n
    probe = dict(b, n=2 if op.name in ("irfft", "hfft") else 1)  # a valid size for the probe's axis
    return meta_of_probe(op, run_probe(op, (), probe), shape)


for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    register(Op(_name, "function", getattr(np.fft, _name), _fft_infer))


def _fftn_axes(op, args, kwargs):
    """(bound arguments, the operand's shape as a list, the transformed axes,
    the output sizes ``s`` along them or None)."""
    b = bind(op.name, _FFTN_PARAMS, args, kwargs, {"a", "s", "axes", "norm"})
    shape = list(shape_of(b["a"]))
    default = (-2, -1) if op.name.endswith("2") else None
    axes = b.get("axes", default)
    sizes = b.get("s")
    if sizes is not None:
        # s without axes is deprecated for fftn (NumPy warns); -1 ("the input's size") is NumPy 2's
        if axes is None or not isinstance(sizes, (tuple, list)) or len(sizes) != len(axes):
            raise UnsupportedOp(f"{op.name}: s= needs axes= of its length")
        sizes = [const_int(n, "s") for n in sizes]
        if any(n < 1 for n in sizes):
            raise UnsupportedOp(f"{op.name}: s= sizes must be positive")
    axes = tuple(range(len(shape))) if axes is None else const_axes(axes, len(shape))
    if len(set(axes)) != len(axes):
        raise UnsupportedOp(f"{op.name}: repeated axes")
    return b, shape, axes, sizes


def _fftn_infer(op, args, kwargs):
    b, shape, axes, sizes = _fftn_axes(op, args, kwargs)
    if sizes is None and any(shape[a] < 1 for a in axes):
        raise UnsupportedOp(f"{op.name}: an empty axis")
    for a, n in zip(axes, sizes or ()):
        shape[a] = n
    if op.name.startswith("rfft") and axes:
        shape[axes[-1]] = shape[axes[-1]] // 2 + 1
    if sizes is not None:   # the probe pads or crops to sizes it can take
        args, kwargs = (), dict(b, axes=axes, s=[1] * len(axes))
    return meta_of_probe(op, run_probe(op, args, kwargs), shape)


for _name in ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn"):
    register(Op(_name, "function", getattr(np.fft, _name), _fftn_infer))


def _irfftn_infer(op, args, kwargs):
    """irfft2/irfftn: the last transformed axis becomes ``s[-1]``, or 2 * (m - 1) without ``s``."""
    b, shape, axes, sizes = _fftn_axes(op, args, kwargs)
    if sizes is not None and axes:
        for a, n in zip(axes, sizes):
            shape[a] = n
    else:
        if not axes or any(shape[a] < 1 for a in axes) or shape[axes[-1]] < 2:
            raise UnsupportedOp(f"{op.name}: an empty or too short axis (NumPy raises)")
        shape[axes[-1]] = 2 * (shape[axes[-1]] - 1)
    probe = dict(b, axes=axes, s=[1] * (len(axes) - 1) + [2])   # sizes the probe's axes can take
    return meta_of_probe(op, run_probe(op, (), probe), shape)


for _name in ("irfft2", "irfftn"):
    register(Op(_name, "function", getattr(np.fft, _name), _irfftn_infer))


def _shift_infer(op, args, kwargs):
    b = bind(op.name, ("x", "axes"), args, kwargs, {"x", "axes"})
    shape = shape_of(b["x"])
    if b.get("axes") is not None:
        const_axes(b["axes"], len(shape))
    return meta_of_probe(op, run_probe(op, args, kwargs), shape)


for _name in ("fftshift", "ifftshift"):
    register(Op(_name, "function", getattr(np.fft, _name), _shift_infer))


def _freq_infer(op, args, kwargs):
    b = bind(op.name, ("n", "d", "device"), args, kwargs, {"n", "d"})
    n = const_int(b["n"], "n")
    if n < 1:
        raise UnsupportedOp(f"{op.name}: n must be positive")
    d = b.get("d", 1.0)
    if isinstance(d, (list, tuple)) or not isinstance(d, (int, float, np.generic)) or d == 0:
        raise UnsupportedOp(f"{op.name}: d must be a nonzero number")
    result = run_probe(op, (), dict(b, n=1))
    return meta_of_probe(op, result, (n // 2 + 1 if op.name == "rfftfreq" else n,))


for _name in ("fftfreq", "rfftfreq"):
    register(Op(_name, "function", getattr(np.fft, _name), _freq_infer))


# ----------------------------------------------------------------------------
# decompositions with named-tuple results (eigh, svd, qr, slogdet): several
# outputs; the simulator rebuilds the named tuple (NAMED_RESULTS)

#: op name -> the named-tuple class NumPy returns (several outputs only)
NAMED_RESULTS = {
    "eigh": type(_la.eigh(np.eye(1))),
    "svd": type(_la.svd(np.eye(1))),
    "qr": type(_la.qr(np.eye(1))),
    "slogdet": type(_la.slogdet(np.eye(1))),
}


def _matrix(name, shape):
    if len(shape) < 2:
        raise UnsupportedOp(f"{name}: needs at least 2 dims")
    return shape[:-2], shape[-2], shape[-1]


def _eigh_shapes(b):
    shape = _square("eigh", shape_of(b["a"]))
    return (shape[:-1], shape)


def _svd_shapes(b):
    batch, m, n = _matrix("svd", shape_of(b["a"]))
    k = min(m, n)
    if not b.get("compute_uv", True):
        return batch + (k,)
    if b.get("full_matrices", True):
        return (batch + (m, m), batch + (k,), batch + (n, n))
    return (batch + (m, k), batch + (k,), batch + (k, n))


def _qr_shapes(b):
    batch, m, n = _matrix("qr", shape_of(b["a"]))
    k = min(m, n)
    mode = b.get("mode", "reduced")
    if mode == "reduced":
        return (batch + (m, k), batch + (k, n))
    if mode == "complete":
        return (batch + (m, m), batch + (m, n))
    if mode == "r":
        return batch + (k, n)
    raise UnsupportedOp(f"qr: mode {mode!r}")


def _slogdet_shapes(b):
    shape = _square("slogdet", shape_of(b["a"]))[:-2]
    return (shape, shape)


def _named_op(name, params, allowed, shapes, kwonly=()):
    def infer(op, args, kwargs):
        b = bind(name, params, args, kwargs, allowed, kwonly)
        if "a" not in b:
            raise UnsupportedOp(f"{name}: expects an operand")
        out = shapes(b)
        result = run_probe(op, args, kwargs)
        if isinstance(out[0], tuple):   # several outputs
            if not isinstance(result, tuple) or len(result) != len(out):
                raise UnsupportedOp(f"{name}: unexpected result")
            return tuple(meta_of_probe(op, r, s) for r, s in zip(result, out))
        return meta_of_probe(op, result, out)
    return register(Op(name, "function", getattr(_la, name), infer))


_named_op("eigh", ("a", "UPLO"), {"a", "UPLO"}, _eigh_shapes)
_named_op("svd", ("a", "full_matrices", "compute_uv", "hermitian"),
          {"a", "full_matrices", "compute_uv", "hermitian"}, _svd_shapes)
_named_op("qr", ("a", "mode"), {"a", "mode"}, _qr_shapes)
_named_op("slogdet", ("a",), {"a"}, _slogdet_shapes)
