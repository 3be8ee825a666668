"""Cost of a call through the frame-evaluation hook.

    python benchmarks/bench_hook.py [--number N] [--repeat R]

Prints the median time per call of a small function

  plain         no hook installed
  hook-idle     hook installed (another thread has a callback), none here
  skipped       hook installed, callback set, the code marked skipped
  hit-original  cache hit whose replacement is None (original frame runs)
  hit-replaced  cache hit running a replacement code object

in two settings. "C caller" calls the function from C (``map``), so every
call goes through the interpreter's eval-frame function in all rows and the
difference is the hook's own cost. "Python caller" calls it from a Python
loop: on CPython 3.11+ the interpreter inlines Python-to-Python calls only
while no PEP 523 function is installed, so there every row but "plain" also
pays for the lost inlining, whatever the hook does ("hook-idle" shows that
part alone).
"""
import argparse
import collections
import os
import statistics
import sys
import threading
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from sot import _hook as hook  # noqa: E402


def target(x):
    return x + 1


def target_uniform(x):  # the replacement: already in uniform-argument form
    return x + 1


def guard(g, x):
    return True


def callback(info):
    return None


class OtherThread:
    """A thread that holds a callback (so the hook stays installed) until
    released."""

    def __init__(self):
        self.ready, self.done = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        self.ready.wait()

    def run(self):
        with hook.callback_set(callback):
            self.ready.set()
            self.done.wait()

    def stop(self):
        self.done.set()
        self.thread.join()


def configure(name, code):
    """Put the hook in the state of row `name` (hook installed unless plain)."""
    hook.set_callback(None)
    hook.unskip_code(code)
    hook.clear_cache(code)
    if name in ("plain", "hook-idle"):
        return
    hook.set_callback(callback)
    if name == "skipped":
        hook.skip_code(code)
    elif name == "hit-original":
        hook.set_cache(code, [(guard, None)])
    elif name == "hit-replaced":
        hook.set_cache(code, [(guard, target_uniform.__code__)])


ROWS = ("plain", "hook-idle", "skipped", "hit-original", "hit-replaced")


def run_rows(number, repeat):
    """Median ns per call for each row and caller; the rows are interleaved
    round by round so that drift of the machine affects all alike."""
    env = {"collections": collections, "target": target, "xs": list(range(number))}
    callers = ("collections.deque(map(target, xs), maxlen=0)", "for x in xs: target(x)")
    samples = {(name, c): [] for name in ROWS for c in callers}
    code = target.__code__
    try:
        for _ in range(repeat):
            for name in ROWS:
                configure(name, code)
                other = OtherThread() if name == "hook-idle" else None
                for c in callers:
                    samples[name, c].append(timeit.timeit(c, globals=env, number=1))
                if other is not None:
                    other.stop()
    finally:
        configure("plain", code)
    return [(name, *(statistics.median(samples[name, c]) / number * 1e9 for c in callers))
            for name in ROWS]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=200_000, help="calls per timing")
    parser.add_argument("--repeat", type=int, default=15, help="timings per row (median)")
    args = parser.parse_args()
    rows = run_rows(args.number, args.repeat)
    base_c, base_py = rows[0][1], rows[0][2]
    print(f"Python {sys.version.split()[0]}: median ns per call "
          f"({args.repeat} x {args.number} calls)")
    print(f"{'path':<14}{'C caller':>12}{'vs plain':>10}{'Py caller':>12}{'vs plain':>10}")
    for name, c_ns, py_ns in rows:
        print(f"{name:<14}{c_ns:>12.1f}{c_ns / base_c - 1:>+10.1%}"
              f"{py_ns:>12.1f}{py_ns / base_py - 1:>+10.1%}")


if __name__ == "__main__":
    main()
