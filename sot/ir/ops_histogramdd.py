"""``np.histogramdd(sample, bins, range, density, weights)``: the histogram of
N points in D dims and its D edge arrays, returned as ``(hist, [edges...])``.

The graph op is ``histogramdd_flat``, NumPy's call with its result flattened
to ``(hist, *edges)`` (an op's outputs are one flat tuple); the executor
(``numpy_forms``) rebuilds NumPy's tuple and list.  Shapes come from the
constant bins (an int, or one int per dim), dtypes from NumPy on a probe.
The edges without ``range`` come from the data's min and max when the graph
runs (a non-finite one raises ValueError there, as eagerly).  NumPy backend
only (no ONNX lowering).
"""

from __future__ import annotations

import numpy as np

from .errors import UnsupportedOp
from .registry import Op, bind, call_quietly, const_int, meta_of_probe, register, shape_of, substitute
from .statement_ir import Symbol

__all__ = ["HISTOGRAMDD", "histogramdd_flat"]

_PARAMS = ("sample", "bins", "range", "density", "weights")


def histogramdd_flat(sample, bins=10, range=None, density=None, weights=None):
    """``np.histogramdd`` with its edges list spread into the result tuple."""
    hist, edges = np.histogramdd(sample, bins, range, density, weights)
    return (hist, *edges)


def _bins(bins, dims: int) -> list:
    counts = [const_int(b, "histogramdd: bins") for b in (bins if isinstance(bins, (list, tuple)) else [bins] * dims)]
    if len(counts) != dims or any(n < 1 for n in counts):
        raise UnsupportedOp("histogramdd: bins must be one positive int, or one per dim (NumPy raises)")
    return counts


def _infer(op, args, kwargs):
    b = bind("histogramdd", _PARAMS, args, kwargs, set(_PARAMS))
    sample = b.get("sample")
    if not isinstance(sample, Symbol) or sample.meta.is_python or sample.meta.ndim != 2:
        raise UnsupportedOp("histogramdd: the sample must be a traced (N, D) array")
    n, dims = shape_of(sample)
    counts = _bins(b.get("bins", 10), dims)
    rng = b.get("range")
    if rng is not None and (not isinstance(rng, (list, tuple)) or len(rng) != dims or any(
            r is not None and shape_of(r) != (2,) for r in rng) or isinstance(rng, Symbol)):
        raise UnsupportedOp("histogramdd: range must be constant pairs, one per dim")
    weights = b.get("weights")
    if weights is not None and (not isinstance(weights, Symbol) or shape_of(weights) != (n,)):
        raise UnsupportedOp("histogramdd: weights must be a traced array of one value per point")
    if isinstance(b.get("density"), Symbol):
        raise UnsupportedOp("histogramdd: density must be constant")
    probe = substitute(dict(b))   # one point in D dims: NumPy's dtypes
    probe["sample"] = np.ones((1, dims), sample.meta.dtype)
    if weights is not None:
        probe["weights"] = np.ones(1, weights.meta.dtype)
    result = call_quietly(op, (), probe)
    return tuple(meta_of_probe(op, r, s) for r, s in zip(result, [tuple(counts)] + [(c + 1,) for c in counts]))


HISTOGRAMDD = register(Op("histogramdd", "function", histogramdd_flat, _infer))
