"""Eager NumPy vs sot (NumPy backend), side by side in one process.

    python benchmarks/run.py            # full sizes
    python benchmarks/run.py --quick    # small sizes, for CI

Prints one table: eager and traced medians, their ratio (traced / eager, lower
is better), the first-call time (translation + compile + run), graphs and
fallbacks. It also prints the translation time of gelu on 8x8 and on
4096x4096, which must be about equal: tracing never reads array data.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402

import sot  # noqa: E402


def median_time(fn, args, repeat, inner):
    fn(*args)  # warm-up (and, for traced, translation)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn(*args)
        times.append((time.perf_counter() - t0) / inner)
    return statistics.median(times)


def workloads(quick: bool):
    rng = np.random.default_rng(0)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    n = 256 if quick else 4096
    rows = 128 if quick else 4096
    mlp = W.MLP(layers=42, width=64 if quick else 512)
    yield "tiny (x*y+1).sum() (8,)", W.tiny, (f32(8), f32(8))
    yield f"gelu-tanh {n}x{n}", W.gelu_tanh, (f32(n, n),)
    yield f"gelu x*x*x {n}x{n}", W.gelu_cube, (f32(n, n),)
    yield f"softmax {rows}x1024", W.softmax, (f32(rows, 1024),)
    yield f"layernorm {2 * rows}x1024", W.layernorm, (f32(2 * rows, 1024), f32(1024), f32(1024))
    width = mlp.layers[0].w.shape[0]
    yield f"MLP 42x{width} batch 1", mlp, (f32(1, width),)
    yield f"MLP 42x{width} batch 64", mlp, (f32(64, width),)
    seq = 128 if quick else 1024
    yield f"attention 8x{seq}x64", W.attention, (f32(8, seq, 64), f32(8, seq, 64), f32(8, seq, 64))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (under a minute)")
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args(argv)
    repeat = args.repeat or (5 if args.quick else 7)

    header = f"{'workload':<28} {'eager':>11} {'numpy':>11} {'ratio':>7} {'first call':>11} {'graphs':>6} {'fallbacks':>9}"
    print(header)
    print("-" * len(header))
    for name, fn, fargs in workloads(args.quick):
        sot.reset()
        report = sot.explain(fn, *fargs)
        static = sot.to_static(fn)
        t0 = time.perf_counter()
        static(*fargs)
        first = time.perf_counter() - t0
        sot.reset()
        t0 = time.perf_counter()
        static(*fargs)
        first = time.perf_counter() - t0
        probe = median_time(fn, fargs, 1, 1)
        inner = max(1, min(2000, int(0.05 / max(probe, 1e-7))))
        eager = median_time(fn, fargs, repeat, inner)
        traced = median_time(static, fargs, repeat, inner)
        print(f"{name:<28} {_fmt(eager):>11} {_fmt(traced):>11} {traced / eager:>7.2f} {_fmt(first):>11} "
              f"{report.graph_count:>6} {len(report.breaks):>9}")

    print()
    for shape in ((8, 8), (4096, 4096)):
        x = np.ones(shape, np.float32)
        sot.reset()
        report = sot.explain(W.gelu_tanh, x)
        print(f"translation time of gelu-tanh on {shape[0]}x{shape[1]}: {report.translate_seconds * 1e3:.2f} ms")


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e3:.2f} ms"


if __name__ == "__main__":
    main()
