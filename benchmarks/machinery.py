"""The cost of sot's own machinery (issue 8's figures), in one run:

    python benchmarks/machinery.py

import time over numpy, warm-call overhead on a tiny graph, first-call
translation of the 42x512 MLP, and 10,000 natively called Python helpers.
"""
import os
import subprocess
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402

import sot  # noqa: E402


def best(fn, *args, number):
    return min(timeit.repeat(lambda: fn(*args), number=number, repeat=7)) / number


def import_ms() -> float:
    code = ("import time; t0 = time.perf_counter(); import numpy; t1 = time.perf_counter(); "
            "import sot; print((time.perf_counter() - t1) * 1e3)")
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=True).stdout) for _ in range(7)]
    return min(runs)


def main():
    print(f"import sot over numpy: {import_ms():.1f} ms (min of 7)")
    x, y = np.ones(8, np.float32), np.ones(8, np.float32)
    tiny = sot.to_static(W.tiny)
    tiny(x, y)
    e, t = best(W.tiny, x, y, number=20000), best(tiny, x, y, number=20000)
    print(f"tiny (x*y+1).sum() on (8,): eager {e * 1e6:.2f} us, traced {t * 1e6:.2f} us, ratio {t / e:.2f}")
    mlp = W.MLP(layers=42, width=512)
    report = sot.explain(sot.to_static(mlp), np.random.rand(1, 512).astype(np.float32))
    print(f"MLP 42x512 first call: translation {report.translate_seconds * 1e3:.1f} ms, {report.op_count} ops")
    print("  " + ", ".join(f"{p} {t * 1e3:.1f} ms" for p, t in report.phase_seconds.items()))
    xs = np.ones(8, np.float32)
    helpers = sot.to_static(W.many_helpers)
    helpers(xs)
    helpers(xs)
    e, t = best(W.many_helpers, xs, number=20), best(helpers, xs, number=20)
    print(f"10,000 Python helpers: eager {e * 1e3:.2f} ms, traced {t * 1e3:.2f} ms, ratio {t / e:.2f}")


if __name__ == "__main__":
    main()
