"""Loops whose body breaks the graph: the body as a function of its own vs the whole loop native.

    PYTHONPATH=. python benchmarks/loop_bodies.py

For each function: the graphs and graph ops explain reports (every
translation of every code, loop body functions included) and the fallbacks,
with body functions (sot/breaks/loop_body.py) and with the whole loop run
natively (what sot did before), and the warm time per call of eager and
both forms (NumPy backend, best of several calls).
"""
from __future__ import annotations

import contextlib
import io
import time

import numpy as np

import sot
from sot.breaks import loop_body

X = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
W = np.random.default_rng(1).standard_normal((64, 64)).astype(np.float32) / 8


def data_dependent_step(x):
    y = np.tanh(x) * 2
    for i in range(8):
        y = np.maximum(y @ W, 0) + 0.1
        if float(y.mean()) > 1.0:     # read into Python: a graph break in each iteration
            y = y / 2
        y = np.exp(-y) * y + i
    return y.sum()


def layers_with_logging(x, log):
    h = x * 1
    for k, w in enumerate([W, W.T, W]):
        h = np.tanh(h @ w + 0.5)
        log.append(k)                 # a side effect on an argument: a break
        h = h / (1 + np.abs(h))
    return h


def while_until_small(x):
    y = x * 1
    n = 0
    while float(np.abs(y).max()) > 0.25:
        y = y * 0.5 - 0.01
        n += 1
    return y, n


def name_bound_in_the_loop(x, n):
    for i in range(n):
        z = np.sqrt(np.abs(x) + i)
        last = z * 2 + 1
        if float(z.min()) < 0:
            break
    return last


CASES = [(data_dependent_step, (X,)), (layers_with_logging, (X, [])), (while_until_small, (X,)),
         (name_bound_in_the_loop, (X, 4))]


def _explain(fn, args):
    with contextlib.redirect_stdout(io.StringIO()):
        report = sot.explain(sot.to_static(fn, min_graph_size=0), *args)
    ops = sum(n for e in report.entries for n, _backend, _src in e.graphs)
    return report.graph_count, ops, len(report.fallbacks)


def _best(fn, args, repeat=20):
    fn(*args)
    fn(*args)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best * 1e6


def main():
    real_plan = loop_body.plan
    print(f"{'function':24} {'body fn: graphs/ops/fallbacks':>30} {'whole loop: graphs/ops/fb':>27} "
          f"{'eager us':>9} {'body fn us':>11} {'whole us':>9}")
    for fn, args in CASES:
        sot.reset()
        with_body = _explain(fn, args)
        t_body = _best(sot.to_static(fn, min_graph_size=0), args)
        sot.reset()
        loop_body.plan = lambda *a, **k: "off (benchmark)"
        try:
            whole = _explain(fn, args)
            t_whole = _best(sot.to_static(fn, min_graph_size=0), args)
        finally:
            loop_body.plan = real_plan
        t_eager = _best(fn, args)
        print(f"{fn.__name__:24} {'%d / %d / %d' % with_body:>30} {'%d / %d / %d' % whole:>27} "
              f"{t_eager:9.1f} {t_body:11.1f} {t_whole:9.1f}")


if __name__ == "__main__":
    main()
