"""What a new input shape costs a symbolic graph: the full re-inference of
the graph (symbolic_shapes.check_sizes) against the compiled size check
(backends/size_check), on the GPT-2 forward graph (12 layers; the width does
not change the number of ops, so a small one keeps memory low), and how
many of the lengths of a decode loop each one checked.

    python benchmarks/new_shape.py [--layers 12] [--lengths 40]

(with the do-no-harm governor off: SOT_DO_NO_HARM=0, unless set)
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

# the check of each new shape is measured here, not whether translating pays
# (the do-no-harm governor would run a tiny model natively after a few calls)
os.environ.setdefault("SOT_DO_NO_HARM", "0")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gpt2 import GPT2, generate  # noqa: E402

import sot  # noqa: E402
import sot.runner  # noqa: E402
from sot.backends.size_check import compile_size_check  # noqa: E402
from sot.backends.symbolic_shapes import check_sizes  # noqa: E402
from sot.ir.meta import TensorMeta  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--lengths", type=int, default=40)
    args = parser.parse_args(argv)
    model = GPT2(layers=args.layers, d=64, heads=4, vocab=256, ctx=1024)
    seen = []
    real = sot.runner.compile_graph

    def spy(graph, *a, **k):
        compiled = real(graph, *a, **k)
        seen.append((graph, compiled))
        return compiled
    sot.runner.compile_graph = spy
    try:
        static = sot.to_static(model.forward, backend="onnxruntime")
        generate(static, np.arange(10), args.lengths)
    finally:
        sot.runner.compile_graph = real   # the spy holds what it saw
    [(graph, compiled)] = [(g, c) for g, c in seen if g.is_symbolic]
    report = compiled.size_check_report()
    print(f"GPT-2 forward, {args.layers} layers: {len(graph)} ops; load average {os.getloadavg()[0]:.1f}")
    print(f"decode loop over {args.lengths} lengths: {report['full_checks']} full check(s), "
          f"{report['compiled_checks']} by the compiled check; translations {sot.translation_count(static)}")
    base = [np.zeros(s.meta.shape, s.meta.dtype) for s in graph.inputs]
    t0 = time.perf_counter()
    check = compile_size_check(graph, [TensorMeta.of(v) for v in base])
    compile_s = time.perf_counter() - t0

    def at(n):
        return [np.zeros((n,) + v.shape[1:], v.dtype) if s.meta.symbolic_axes else v
                for s, v in zip(graph.inputs, base)]
    full, fast = [], []
    for n in range(200, 215):
        inputs = at(n)
        t0 = time.perf_counter()
        a = check_sizes(graph, inputs)
        full.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        b = check(inputs)
        fast.append(time.perf_counter() - t0)
        assert a == b
    del inputs
    print(f"per new shape: full check {statistics.median(full) * 1e3:.2f} ms, compiled check "
          f"{statistics.median(fast) * 1e6:.1f} us (medians of 15); compiling the check once "
          f"{compile_s * 1e3:.1f} ms; load average {os.getloadavg()[0]:.1f}")


def memory(layers: int, width: int) -> None:
    """Entries and the bytes they hold after a decode loop with freeze=True on onnxruntime."""
    import gc
    import weakref

    from sot.backends.memory import held_bytes
    from sot.guards import cache
    sot.reset()
    model = GPT2(layers=layers, d=width, heads=8, vocab=4096, ctx=1024)

    def forward(ids):
        return model.forward(ids)
    static = sot.to_static(forward, backend="onnxruntime", freeze=True)
    static(np.arange(10))
    [first] = cache.entries(forward.__code__)
    first_held = held_bytes(first.compiled[0])["total"]
    first_ref = weakref.ref(first.compiled[0])
    del first
    generate(static, np.arange(11), 30)
    gc.collect()
    live = cache.entries(forward.__code__)
    held = sum(held_bytes(c)["total"] for e in live for c in e.compiled)
    print(f"freeze=True, {layers} layers of width {width}: the first length's entry held "
          f"{first_held / 1e6:.1f} MB; after 31 more lengths {len(live)} live entr{'y' if len(live) == 1 else 'ies'} "
          f"holding {held / 1e6:.1f} MB, {cache.replaced_count(forward.__code__)} replaced, "
          f"the replaced entry's graph {'freed' if first_ref() is None else 'STILL ALIVE'}")


if __name__ == "__main__":
    main()
    memory(12, 256)
