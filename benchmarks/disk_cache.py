"""First call of the 42x512 MLP on onnxruntime in a fresh process, with an
empty and with a warm cache directory (sot/backends/disk_cache.py):

    python benchmarks/disk_cache.py [--runs 7]

Each run is a new Python process that decorates the MLP with
``cache_dir=...`` and times its first call: once with onnx and onnxruntime
imported by that call (what a fresh worker pays) and once with them imported
beforehand (the translation alone). Prints the median of the runs (wall
time, and CPU time of the process, steadier on a shared machine), the
ratio warm / empty, and onnxruntime's own part: session creation with
optimisation (empty) or from the cached optimised model (warm).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[2])
import numpy as np
if sys.argv[3] == "preimport":
    import onnx, onnxruntime
import sot
from workloads import MLP
x = np.random.default_rng(0).standard_normal((1, 512)).astype(np.float32)
f = sot.to_static(MLP(layers=42, width=512), backend="onnxruntime", cache_dir=sys.argv[1])
t, c = time.perf_counter(), time.process_time()
report = sot.explain(f, x)
wall, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"first_call": wall, "first_call_cpu": cpu, **report.disk_cache}))
"""


def first_call(directory: str, mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, directory, HERE, mode], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.splitlines()[-1])


def measure(mode: str, runs: int):
    """Runs alternate which of the two goes first, after an untimed one, so
    that neither profits more from the files the other brought into the
    page cache."""
    empty, warm = [], []
    with tempfile.TemporaryDirectory() as warm_dir:
        first_call(warm_dir, mode)   # fills warm_dir
        for i in range(runs):
            with tempfile.TemporaryDirectory() as empty_dir:
                for which in (("empty", "warm") if i % 2 == 0 else ("warm", "empty")):
                    if which == "empty":
                        r = first_call(empty_dir, mode)
                        assert r["misses"] >= 1 and r["hits"] == 0, r
                        empty.append(r)
                    else:
                        r = first_call(warm_dir, mode)
                        assert r["hits"] >= 1 and r["misses"] == 0, r
                        warm.append(r)
    return empty, warm


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    med = statistics.median
    print(f"MLP 42x512, batch 1, onnxruntime; first call in a fresh process, median of {args.runs} runs")
    print(f"{'':44s} {'empty dir':>10s} {'warm dir':>10s} {'warm/empty':>10s}")
    for mode, label in (("import", "first call (imports onnx, onnxruntime)"),
                        ("preimport", "first call (onnx, onnxruntime imported)")):
        empty, warm = measure(mode, args.runs)
        for key, clock in (("first_call", "wall"), ("first_call_cpu", "CPU")):
            e, w = med(r[key] for r in empty), med(r[key] for r in warm)
            print(f"{label + ', ' + clock:44s} {e * 1e3:8.1f} ms {w * 1e3:8.1f} ms {w / e:10.2f}")
        e_ort = med(r["optimise_seconds"] for r in empty)
        w_ort = med(r["load_seconds"] for r in warm)
        print(f"{'  of which onnxruntime session creation':44s} {e_ort * 1e3:8.1f} ms {w_ort * 1e3:8.1f} ms "
              f"{w_ort / e_ort:10.2f}")


if __name__ == "__main__":
    main()
