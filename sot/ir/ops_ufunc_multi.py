"""Ufuncs with two outputs: ``np.divmod``, ``np.modf``, ``np.frexp``.

One statement with two outputs (``t1, t2 = np.divmod(i0, 3.0)``), each of
the broadcast shape with the dtype NumPy gives it (probed; ``frexp``'s
exponent is ``int32``).  NumPy returns them as a tuple
(``numpy_forms.named_result``).  With ``out=`` the call is captured as this
statement and a copy into each out array (``sot.executor.writes``).  No
ONNX lowering: they run on NumPy.
"""
from __future__ import annotations

import numpy as np

from .errors import UnsupportedOp
from .registry import Op, broadcast, meta_of_probe, register, run_probe, shape_of

__all__ = ["MULTI_OUTPUT_UFUNCS"]

MULTI_OUTPUT_UFUNCS = (np.divmod, np.modf, np.frexp)


def _infer(op, args, kwargs):
    ufunc = op.target
    if len(args) != ufunc.nin:
        raise UnsupportedOp(f"{op.name}: expects {ufunc.nin} operand(s) (out= is a write), got {len(args)}")
    if any(k != "out" or v is not None for k, v in kwargs.items()):
        raise UnsupportedOp(f"{op.name}: keyword {sorted(kwargs)[0]}= not captured")
    results = run_probe(op, args, kwargs)
    shape = broadcast(*map(shape_of, args))
    return tuple(meta_of_probe(op, r, shape) for r in results)


for _fn in MULTI_OUTPUT_UFUNCS:
    register(Op(_fn.__name__, "function", _fn, _infer))
