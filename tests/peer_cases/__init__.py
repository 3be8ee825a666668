"""Peer-suite cases: small functions in the spirit of the language and
library tests of TorchDynamo (`test/dynamo`), Paddle SOT (`test/sot`), JAX's
jit tests and numba's tests, rewritten by us for NumPy (no code is taken
from them). Each case is run eagerly and under `sot.to_static` and must
behave the same: tests/test_peer_suite.py checks it, and
benchmarks/peer_breaks.py counts the ones that still break the graph.

A case module registers functions with `@case(*args, ort=False)`: `args` is
one argument set (default: the float32 matrix X); `ort=True` also runs it on
the onnxruntime backend (compared with a tolerance).
"""
from __future__ import annotations

import numpy as np

X = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1.25
Y = np.linspace(-2, 2, 12).reshape(3, 4)            # float64
I = np.arange(12, dtype=np.int64).reshape(3, 4) - 4
V = np.array([3.0, -1.5, 0.25, 8.0], dtype=np.float32)

CASES: list = []   # (module short name, fn, args, ort)


def case(*args, ort=False):
    def register(fn):
        group = fn.__module__.rsplit(".", 1)[-1]
        CASES.append((group, fn, args if args else (X,), ort))
        return fn
    return register


def load_all() -> list:
    from . import lang, builtins_std, numpy_ops, objects, stdlib, mutation, corners, peer3, peer4, peer5  # noqa: F401  (registration)
    return CASES
