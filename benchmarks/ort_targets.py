"""The onnxruntime speed targets, measured as benchmarks/run.py measures them,
on a shared machine: a row is kept only if other processes used little CPU
while it was measured (Linux: /proc/stat), else it is measured again.

    python benchmarks/ort_targets.py                 # every target row
    python benchmarks/ort_targets.py softmax MLP     # rows whose name has a word

Prints run.py's row, the CPU other processes used meanwhile (in cores) and
the target on the 'ort' ratio (traced on onnxruntime / eager NumPy).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

#: workload name prefix -> the most the 'ort' ratio may be
TARGETS = {
    "gelu-tanh": 0.01,
    "gelu x*x*x": 0.3,
    "softmax": 0.08,
    "layernorm": 0.1,
    "MLP 42x512 batch 1": 0.7,
    "MLP 42x512 batch 64": 0.5,
    "attention": 0.3,
}


def _busy_ticks() -> int:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v) - v[3] - v[4]   # all but idle and iowait


def _own_ticks() -> int:
    with open("/proc/self/stat") as f:
        v = f.read().rsplit(")", 1)[1].split()
    return int(v[11]) + int(v[12])   # utime + stime, all threads


def others_during(fn):
    """fn's result and the cores other processes kept busy meanwhile."""
    hz = os.sysconf("SC_CLK_TCK")
    b0, m0, t0 = _busy_ticks(), _own_ticks(), time.perf_counter()
    result = fn()
    b1, m1, t1 = _busy_ticks(), _own_ticks(), time.perf_counter()
    return result, ((b1 - b0) - (m1 - m0)) / hz / (t1 - t0)


def target_of(name: str):
    return next((t for prefix, t in TARGETS.items() if name.startswith(prefix)), None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="words of the rows to measure")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--max-others", type=float, default=0.1, help="cores others may use")
    parser.add_argument("--tries", type=int, default=10)
    args = parser.parse_args(argv)
    for name, fn, fargs, options in run.workloads(False):
        target = target_of(name)
        if target is None or (args.only and not any(w in name for w in args.only)):
            continue
        for _ in range(args.tries):
            while others_during(lambda: time.sleep(1.0))[1] >= args.max_others:
                pass   # wait for a quiet second
            with contextlib.redirect_stdout(io.StringIO()):
                row, others = others_during(lambda: run.measure(fn, fargs, args.repeat, options))
            if others < args.max_others:
                break
        verdict = "met" if row.ratios()["onnxruntime"] <= target else "MISSED"
        print(f"{name:<34} {row.format()}  others {others:4.2f}  target {target:<5} {verdict}", flush=True)


if __name__ == "__main__":
    main()
