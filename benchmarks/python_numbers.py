"""Python numbers read from array data in otherwise capturable code: a
training step's ``loss = float(np.mean(...))`` logged to a list, a
normalisation by ``float(x.mean())`` and ``x.std().item()``, a gradient
norm, metrics, an early-stopping branch.  Each snippet is checked against
eager with tests/difftest.check and measured with sot.explain
(min_graph_size=0): graph breaks and graphs.

    PYTHONPATH=$PWD python benchmarks/python_numbers.py

Exit status 1 when a snippet differs from eager.
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import sot  # noqa: E402
from difftest import check  # noqa: E402

rng = np.random.default_rng(0)
X = rng.standard_normal((64, 8))
T = rng.standard_normal(64)
W = np.zeros(8)


def train_step(w, x, t, hist, lr):
    y = x @ w
    loss = float(np.mean((y - t) ** 2))
    g = 2 * x.T @ (y - t) / len(x)
    hist.append(loss)
    return w - lr * g, loss


def normalize(x):
    m = float(x.mean())
    s = x.std().item()
    return (x - m) / (s + 1e-8), m, s


def clipped_step(w, g, m, v, hist):
    gnorm = float(np.sqrt(np.sum(g * g)))
    g = g / (gnorm + 1e-12)
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    hist.append(gnorm)
    return w - 0.01 * m / (np.sqrt(v) + 1e-8), m, v


def log_metrics(y, t, log):
    mse = float(np.mean((y - t) ** 2))
    mae = float(np.mean(np.abs(y - t)))
    acc = float(np.mean((y > 0) == (t > 0)))
    log.append((mse, mae, acc))
    return mse + mae


def early_stop(w, x, t, best):
    loss = float(np.mean((x @ w - t) ** 2))
    if loss < best:     # Python needs the value: a break here
        best = loss
    return best, w * 0.99


def train_loop(w, x, t, lr, steps):
    hist = []
    for _ in range(steps):
        y = x @ w
        loss = float(np.mean((y - t) ** 2))
        w = w - lr * (2 * x.T @ (y - t) / len(x))
        hist.append(loss)
    return w, hist


def count_and_mean(x):
    n = int((x > 0).sum())
    return x[x > 0].sum() / n, n


CASES = [
    (train_step, (W, X, T, [], 0.01)),
    (normalize, (X,)),
    (clipped_step, (W + 1, X[0], W, W, [])),
    (log_metrics, (X[:, 0], T, [])),
    (early_stop, (W + 0.1, X, T, 10.0)),
    (train_loop, (W, X, T, 0.01, 3)),
    (count_and_mean, (X,)),
]


def main() -> int:
    breaks = graphs = differ = 0
    for fn, args in CASES:
        try:
            check(fn, args, tuple(a * 2 if isinstance(a, np.ndarray) else a for a in args), calls=2)
        except AssertionError as e:
            differ += 1
            print(f"{fn.__name__}: DIFFERS: {e}")
        report = sot.explain(sot.to_static(fn, min_graph_size=0), *args)
        breaks += len(report.breaks)
        graphs += report.graph_count
        print(f"{fn.__name__:14s} breaks={len(report.breaks)} graphs={report.graph_count}")
    print(f"total: {breaks} breaks, {graphs} graphs, {differ} differ ({len(CASES)} snippets)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
