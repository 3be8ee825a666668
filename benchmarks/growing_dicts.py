"""Step functions given a dict whose keys grow or change on every call
(sot/executor/dict_data.py, str_data.py), or a new str used in str
operations and as a key of dict reads (str_runtime.py,
dict_runtime_reads.py): how many translations, and the time per call
against eager.

    python benchmarks/growing_dicts.py
    SOT_DO_NO_HARM=0 python benchmarks/growing_dicts.py   # the translated calls, never the governor's native ones

For each function: translations after 50 calls and after 250; the first 50
calls in total (translating included); the median of the next 200.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

import sot


def stats_by_step(stats, step, x):          # stats[step] = v, step an int argument
    y = np.tanh(x) * 2.0
    stats[step] = 0.5
    stats["last"] = step
    return y + 1.0


def counter_and_flag(cache, w, x):          # `in`, .get, a counter
    h = x @ w
    if "scale" in cache:
        h = h * cache["scale"]
    cache["n"] = cache.get("n", 0) + 1
    return np.maximum(h, 0.0)


def decode_cache(kv, t, x):                 # a decode loop's per-step entries, len() read
    q = np.tanh(x)
    kv[t] = 1.0
    return q * len(kv)


def tagged(history, name, x):               # a new str key on every call
    history[name] = 1.0
    return x * 3.0


def tagged_used(history, name, x):         # the new str used: a method, an f-string, len()
    key = name.lower().strip()
    history[f"{key}/loss"] = 1.0
    return x * len(name)


def vocab_lookup(vocab, tok, x):            # d.get(<new str>): the value an index
    j = vocab.get(tok)
    if j is not None:
        x = x * 2.0
        x[0, j] += 1.0
    return x


def scale_by_name(scales, name, x):         # d[<new str>]: a float read when the call runs
    return np.tanh(x) * scales[name]


def _per_call(f, args_of, first, n):
    times = []
    for i in range(first, first + n):
        args = args_of(i)
        t0 = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t0)
    return times


def main():
    x, w = np.ones((16, 16)), np.ones((16, 16)) * 0.1
    cases = [(stats_by_step, dict, lambda d: lambda i: (d, i, x)),
             (counter_and_flag, lambda: {"scale": 2.0}, lambda d: lambda i: (d, w, x)),
             (decode_cache, dict, lambda d: lambda i: (d, i, x)),
             (tagged, dict, lambda d: lambda i: (d, "run%d" % i, x)),
             (tagged_used, dict, lambda d: lambda i: (d, " Run%d " % i, x)),
             (vocab_lookup, lambda: {"w%d" % k: k % 16 for k in range(300)},
              lambda d: lambda i: (d, "w%d" % (i % 320), x.copy())),
             (scale_by_name, lambda: {"layer%d" % k: 1.0 + k / 300 for k in range(300)},
              lambda d: lambda i: (d, "layer%d" % i, x))]
    for fn, fresh, args in cases:
        static = sot.to_static(fn)
        eager_args, traced_args = args(fresh()), args(fresh())
        e1, t1 = _per_call(fn, eager_args, 0, 50), _per_call(static, traced_args, 0, 50)
        after50 = sot.translation_count(static)
        e2, t2 = _per_call(fn, eager_args, 50, 200), _per_call(static, traced_args, 50, 200)
        me, mt = statistics.median(e2), statistics.median(t2)
        print(f"{fn.__name__:17s} translations {after50:2d} after 50 calls, {sot.translation_count(static):2d} "
              f"after 250 | first 50: eager {sum(e1) * 1e3:6.2f} ms, decorated {sum(t1) * 1e3:7.2f} ms | "
              f"next 200, median: eager {me * 1e6:5.1f} us, decorated {mt * 1e6:5.1f} us (x{mt / me:.2f})")


if __name__ == "__main__":
    main()
