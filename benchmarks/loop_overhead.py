"""Per-iteration cost of a loop body function (sot/breaks/loop_body.py) at small sizes.

    PYTHONPATH=. SOT_DO_NO_HARM=0 python benchmarks/loop_overhead.py
    PYTHONPATH=. python benchmarks/loop_overhead.py

A loop whose body graph-breaks runs natively with its body a translated
function of its own, called once per iteration. On tiny arrays what is
left is the machinery per call: the hook, the guards, the graph calls, the
resume function, the tuple the body returns. For each function: eager's and the
decorated function's warm time per iteration (NumPy backend, default
options; the difference of 64 and 1 iterations, best of several runs).
SOT_DO_NO_HARM=0 measures the translated form itself (otherwise the
governor runs the function natively where translated is not faster).
"""
from __future__ import annotations

import os
import time

import numpy as np

import sot

X = np.arange(4, dtype=np.float64)


def print_each_step(x, n):
    y = x * 1
    for i in range(n):
        y = np.tanh(y * 0.5 + i)
        print(end="")                 # output: a graph break
        y = np.exp(-y) * y - 1
    return y


def data_dependent_each_step(x, n):
    y = x * 1
    for i in range(n):
        y = y * 0.5 + i
        if float(y[0]) > 1e9:          # read into Python: a graph break
            y = y * 0
    return y


def carried_each_step(x, n):
    y = x * 1
    for i in range(n):
        if i:
            y = np.tanh(y + prev)
        print(end="")
        prev = np.exp(-y) * 0.5
    return y


CASES = [print_each_step, data_dependent_each_step, carried_each_step]


def _best(fn, args, reps=200):
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter_ns()
        fn(*args)
        best = min(best, time.perf_counter_ns() - t)
    return best / 1e3


def per_iteration(fn, static, short=1, long=64):
    """(eager, decorated) µs per iteration: the time of `long` iterations less
    that of `short`, over the iterations in between (the call's fixed costs cancel)."""
    for _ in range(12):
        static(X, long)
        fn(X, long)
    out = []
    for f in (fn, static):
        t_short = min(_best(f, (X, short)) for _ in range(3))
        t_long = min(_best(f, (X, long)) for _ in range(3))
        out.append((t_long - t_short) / (long - short))
    return out


def main():
    governed = os.environ.get("SOT_DO_NO_HARM", "1") != "0"
    print(f"governor {'on' if governed else 'off (SOT_DO_NO_HARM=0): the translated form itself'}")
    print(f"{'function':26} {'eager us/iter':>14} {'sot us/iter':>12} {'extra us/iter':>14}")
    for fn in CASES:
        sot.reset()
        eager, traced = per_iteration(fn, sot.to_static(fn))
        print(f"{fn.__name__:26} {eager:14.2f} {traced:12.2f} {traced - eager:14.2f}")


if __name__ == "__main__":
    main()
