"""GPT-2 in NumPy (benchmarks/gpt2.py, random float32 weights): the forward
pass and greedy decoding, eager vs sot's backends, side by side in one process.

    python benchmarks/decode.py            # GPT-2 small: 12 layers, width 768, vocabulary 50257
    python benchmarks/decode.py --medium   # 12 layers, width 256, vocabulary 8192
    python benchmarks/decode.py --quick    # 2 layers, width 128, vocabulary 1000

Rows: the forward pass at 8 / 64 / 256 tokens (8 / 32 / 64 under
--quick); generating 20 tokens from a 10-token prompt, the whole sequence
run every step (lengths 10..29) and with a KV cache (a list of per-layer keys and
values that the forward returns one position longer, gpt2.py); "new lengths": generating 20 tokens from
prompts of lengths never seen before (each timed run starts 20 tokens
further), which is what a new shape costs on each backend.  Each backend
is warmed up first (translations, auto's trials, and until the do-no-harm
governor of each function has decided: its first window runs eager calls,
and a row would otherwise time them as the backend's; and past any check
of auto or of a governor that would fall into the row's timed calls: a
re-check's NumPy or eager calls weigh a third of a 3-call median, where
over a run they cost a twentieth or less; and then as many calls again of
the form it settled on, so that auto's onnxruntime session, which its trials
shared with NumPy, is as warm as the onnxruntime backend's; at most
run.WARMUP_MAX calls); eager, numpy,
onnxruntime and auto (each with freeze=True, the weights held as
constants: ``--no-freeze`` for inputs) are timed round-robin (run.side_by_side).
The load average is printed with the table: the machine is shared.
Each row is the median of 7 calls per backend (5 for new lengths;
``--repeat``). ``--pairs N`` adds, under each row, the median ratio auto /
onnxruntime over N interleaved pairs of calls.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import run as R  # noqa: E402
from gpt2 import GPT2, generate, generate_cached  # noqa: E402

import sot  # noqa: E402

BACKENDS = ("numpy", "onnxruntime", "auto")


def _wrapped(model, cached: bool):
    """A fresh function (its own code: its own translation cache) around the model."""
    if cached:
        def forward_cached(ids, past):
            return model.forward_cached(ids, past)
        return R.own_code(forward_cached)

    def forward(ids):
        return model.forward(ids)
    return R.own_code(forward)


def paired_ratio(a, b, pairs: int):
    """Median and quartiles of b's time / a's over ``pairs`` calls of each,
    interleaved (a b, b a, ...) with a pause before each call (run.SETTLE_SECONDS):
    a change in load falls on both calls of a pair."""
    ratios = []
    for p in range(pairs):
        t = {}
        for f in ((a, b) if p % 2 == 0 else (b, a)):
            time.sleep(R.SETTLE_SECONDS)
            t0 = time.perf_counter()
            f()
            t[f] = time.perf_counter() - t0
        ratios.append(t[b] / t[a])
    q = statistics.quantiles(ratios) if len(ratios) > 1 else ratios * 3
    return statistics.median(ratios), (q[0], q[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--medium", action="store_true",
                        help="12 layers of width 256, vocabulary 8192 (GPT-2 small needs ~3 GB with all backends)")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--no-freeze", action="store_true", help="the weights as graph inputs")
    parser.add_argument("--pairs", type=int, default=0, metavar="N",
                        help="after each row, N interleaved onnxruntime/auto pairs: the median of auto/onnxruntime")
    args = parser.parse_args(argv)
    from sot.backends.onnx import auto as onnx_auto
    # every GPT-2 row takes longer than a timed block (run.BLOCK_SECONDS), so each
    # block is one call and a row is the median of `repeat` calls per backend:
    # 3 cannot tell 10 % on this shared machine; a new-lengths call takes seconds
    repeat = args.repeat or 7
    layers, d, heads, vocab = ((2, 128, 4, 1000) if args.quick else (12, 256, 8, 8192) if args.medium
                               else (12, 768, 12, 50257))
    model = GPT2(layers=layers, d=d, heads=heads, vocab=vocab, ctx=1024)
    options = {} if args.no_freeze else {"freeze": True}
    forward = {"eager": model.forward}
    cached = {"eager": model.forward_cached}
    for b in BACKENDS:
        forward[b] = sot.to_static(_wrapped(model, False), backend=b, **options)
        cached[b] = sot.to_static(_wrapped(model, True), backend=b, **options)
    rng = np.random.default_rng(1)
    lengths = (8, 32, 64) if args.quick else (8, 64, 256)
    prompt = rng.integers(0, vocab, 10)

    table = []
    for n in lengths:
        ids = rng.integers(0, vocab, n)
        table.append((f"forward {n} tokens", {k: (lambda f=f, ids=ids: f(ids)) for k, f in forward.items()}))
    table.append(("generate 20 from 10", {k: (lambda f=f: generate(f, prompt, 20)) for k, f in forward.items()}))
    table.append(("generate 20 from 10, KV cache",
                  {k: (lambda f=f: generate_cached(f, prompt, 20)) for k, f in cached.items()}))
    fresh = {k: [30] for k in forward}

    def new_lengths(f, k):
        start = fresh[k][0]
        fresh[k][0] += 20
        return generate(f, rng.integers(0, vocab, start), 20)
    table.append(("generate 20, new lengths", {k: (lambda f=f, k=k: new_lengths(f, k)) for k, f in forward.items()}))

    header = f"{'row':<32} {'eager':>10}" + "".join(f" {b:>11} {'ratio':>6}" for b in BACKENDS) + f" {'auto chose':>10}"
    print(f"GPT-2 {layers} layers, width {d}, vocabulary {vocab}, float32, "
          f"{'freeze=True' if options else 'weights as inputs'}; load average {os.getloadavg()[0]:.1f}")
    print(header)
    print("-" * len(header))
    for name, fns in table:
        before = {id(g) for g in onnx_auto.recent()}
        order = ["eager", *BACKENDS]
        statics = cached if "KV cache" in name else forward
        for k in order:                      # warm-up: translations, auto's trials, the governor's window
            least = 1 if name.endswith("new lengths") else 2 if k == "eager" else 2 * (1 + onnx_auto.TRIALS) + 1
            ahead = repeat + 2   # the calls side_by_side makes next, about
            settled = 0          # calls since it settled: the form it kept warms up as a fixed backend's did
            for i in range(R.WARMUP_MAX):
                # (its own governor: another backend's, not called yet, is still measuring)
                t0 = time.perf_counter()
                done = R.warm_call(fns[k], [statics[k]] if k != "eager" else [], ahead)
                ahead = (repeat + 2) * max(1, int(R.BLOCK_SECONDS / max(time.perf_counter() - t0, 1e-7)))
                settled = settled + 1 if done else 0
                if name.endswith("new lengths") and i + 1 >= least:
                    break
                if i + 1 >= least and settled >= least:
                    break
        times = R.side_by_side([fns[k] for k in order], (), min(repeat, 5) if name.endswith("new lengths")
                               else repeat, R.SETTLE_SECONDS)
        eager = times[0]
        cells = "".join(f" {R._fmt(t):>11} {t / eager:>6.2f}" for t in times[1:])
        print(f"{name:<32} {R._fmt(eager):>10}{cells} {R.auto_choice(before):>10}", flush=True)
        if args.pairs:
            ratio, spread = paired_ratio(fns["onnxruntime"], fns["auto"], args.pairs)
            print(f"{'':<32} auto / onnxruntime, {args.pairs} interleaved pairs: median {ratio:.3f} "
                  f"(quartiles {spread[0]:.3f} .. {spread[1]:.3f})", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    counts = {b: (sot.translation_count(forward[b]), sot.translation_count(cached[b])) for b in BACKENDS}
    print("translations (forward, KV cache): " + ", ".join(f"{b} {c[0]}, {c[1]}" for b, c in counts.items()))
    # the do-no-harm governor may have run a function natively for a while: a row near 1.0 says so here
    for b in BACKENDS:
        for label, f in (("forward", forward[b]), ("KV cache", cached[b])):
            gov = getattr(f, "__sot_governor__", None)
            if gov is not None and any(c != "translated" for c, _ in gov.history):
                print(f"do-no-harm, {b} {label}: " + "; ".join(f"{c} ({why})" for c, why in gov.history))


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"({time.perf_counter() - t0:.0f} s)")
