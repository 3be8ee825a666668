"""Code with many unavoidable graph breaks: decorated steady state vs eager.

    python benchmarks/bench_breaks.py            # full sizes
    python benchmarks/bench_breaks.py --quick    # small sizes, for CI

k-nearest-neighbour predict (a Python loop over queries, a data-dependent
vote in a dict) and a pure-Python Game of Life on lists: translating them
buys nothing, and the do-no-harm governor (sot/governor.py) must find that
out over the first calls and run them natively.  For each backend the table
shows eager's median, the decorated median (steady state: after the
measurement window, re-checks included; the best of `--repeat` blocks of
calls, timed in turn) and their ratio, which must stay
<= 1.1, the governor's choice (what ``sot.explain`` shows), and, for
reference, the decorated median with the governor off (SOT_DO_NO_HARM=0).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import BLOCK_SECONDS, median_time, own_code  # noqa: E402

import sot  # noqa: E402

BACKENDS = ("numpy", "onnxruntime", "auto")


def knn_predict(train, labels, queries, k=5):
    out = []
    for q in queries:
        d = ((train - q) ** 2).sum(axis=1)
        nearest = np.argsort(d)[:k]
        votes = {}
        for i in nearest:
            label = int(labels[i])
            votes[label] = votes.get(label, 0) + 1
        out.append(max(votes, key=votes.get))
    return np.array(out)


def life_step(board):
    n, m = len(board), len(board[0])
    new = [[0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            alive = sum(board[(i + di) % n][(j + dj) % m]
                        for di in (-1, 0, 1) for dj in (-1, 0, 1) if di or dj)
            new[i][j] = 1 if alive == 3 or (alive == 2 and board[i][j]) else 0
    return new


def workloads(quick: bool):
    rng = np.random.default_rng(0)
    n_train, n_q = (200, 16) if quick else (2000, 64)
    train = rng.standard_normal((n_train, 16))
    labels = rng.integers(0, 4, n_train)
    queries = rng.standard_normal((n_q, 16))
    yield f"knn_predict {n_train}x16, {n_q} queries", knn_predict, (train, labels, queries)
    size = 12 if quick else 32
    board = [[int(v) for v in row] for row in rng.integers(0, 2, (size, size))]
    yield f"life_step {size}x{size} lists", life_step, (board,)


def best_side_by_side(fns, args, repeat):
    """The best (timeit's advice on a loaded machine: the least disturbed)
    time per call of each fn, over `repeat` blocks timed in turn, in a
    rotating order (as run.side_by_side, which takes medians)."""
    inners = []
    for fn in fns:
        fn(*args)
        inners.append(max(1, min(2000, int(BLOCK_SECONDS / max(median_time(fn, args, 1, 1), 1e-7)))))
    best = [float("inf")] * len(fns)
    for r in range(repeat):
        order = list(enumerate(fns))
        for k, fn in order[r % len(fns):] + order[:r % len(fns)]:
            t0 = time.perf_counter()
            for _ in range(inners[k]):
                fn(*args)
            best[k] = min(best[k], (time.perf_counter() - t0) / inners[k])
    return best


def decorated(fn, backend, governor: bool):
    old = os.environ.get("SOT_DO_NO_HARM")
    os.environ["SOT_DO_NO_HARM"] = "1" if governor else "0"
    try:
        return sot.to_static(own_code(fn), backend=backend)
    finally:
        if old is None:
            del os.environ["SOT_DO_NO_HARM"]
        else:
            os.environ["SOT_DO_NO_HARM"] = old


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=15)
    opts = parser.parse_args(argv)
    print(f"{'workload':34} {'backend':12} {'eager':>10} {'sot':>10} {'ratio':>6} {'gov. off':>10} {'ratio':>6}  choice")
    worst = 0.0
    for name, fn, args in workloads(opts.quick):
        for backend in BACKENDS:
            on, off = decorated(fn, backend, True), decorated(fn, backend, False)
            for _ in range(40):  # past the measurement window
                on(*args)
            eager_t, on_t, off_t = best_side_by_side([fn, on, off], args, opts.repeat)
            choice = sot.explain(on, *args).governor
            worst = max(worst, on_t / eager_t)
            print(f"{name:34} {backend:12} {eager_t * 1e3:8.3f}ms {on_t * 1e3:8.3f}ms {on_t / eager_t:6.2f}"
                  f" {off_t * 1e3:8.3f}ms {off_t / eager_t:6.2f}  {choice}")
    print(f"worst decorated/eager ratio: {worst:.2f} (promise: <= 1.1)")


if __name__ == "__main__":
    main()
