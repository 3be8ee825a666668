"""Eager NumPy vs sot's backends (NumPy, onnxruntime, auto), side by side in one process.

    python benchmarks/run.py            # full sizes
    python benchmarks/run.py --quick    # small sizes, for CI

Prints a legend, then one table: the eager median and, for each backend, its
median and its ratio to eager (lower is better), what auto chose, the first-call time of the
NumPy backend (translation + compile + run), graphs and fallbacks.  The
four are timed round-robin, repeat by repeat (in a rotating order), so
that a change in the load of the machine falls on all of them alike.  It
also prints the translation time of gelu on 8x8 and on 4096x4096, which
must be about equal: tracing never reads array data (the large one also
plans buffers for its intermediates, a fraction of a millisecond).

With matplotlib (``pip install '.[bench]'``) it also draws the ratios as
a bar chart, ``benchmarks/ratios.png`` (``--chart PATH`` to put it
elsewhere, ``--chart ''`` for none).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import threading
import time
import types
from dataclasses import dataclass

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
    """(name, function, arguments, to_static options) of each row."""
    rng = np.random.default_rng(0)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    n = 256 if quick else 4096
    rows = 128 if quick else 4096
    mlp = W.MLP(layers=42, width=64 if quick else 512)
    yield "tiny (x*y+1).sum() (8,)", W.tiny, (f32(8), f32(8)), {}
    yield f"gelu-tanh {n}x{n}", W.gelu_tanh, (f32(n, n),), {}
    yield f"gelu x*x*x {n}x{n}", W.gelu_cube, (f32(n, n),), {}
    yield f"softmax {rows}x1024", W.softmax, (f32(rows, 1024),), {}
    yield f"layernorm {2 * rows}x1024", W.layernorm, (f32(2 * rows, 1024), f32(1024), f32(1024)), {}
    width = mlp.layers[0].w.shape[0]
    yield f"MLP 42x{width} batch 1", mlp, (f32(1, width),), {}
    yield f"MLP 42x{width} batch 64", mlp, (f32(64, width),), {}
    # the weights as constants (to_static(freeze=True)): onnxruntime pre-packs them
    yield f"MLP 42x{width} batch 1, freeze", mlp, (f32(1, width),), {"freeze": True}
    yield f"MLP 42x{width} batch 64, freeze", mlp, (f32(64, width),), {"freeze": True}
    seq = 128 if quick else 1024
    qkv = (f32(8, seq, 64), f32(8, seq, 64), f32(8, seq, 64))
    yield f"attention 8x{seq}x64 (f64 scores)", W.attention, qkv, {}
    yield f"attention 8x{seq}x64 float32", W.attention_f32, qkv, {}
    b = 64 if quick else 1024
    yield f"branch on x.sum(), true {b}", W.branch, (np.abs(f32(b, b)),), {}
    yield f"branch on x.sum(), false {b}", W.branch, (-np.abs(f32(b, b)),), {}
    yield f"print in the middle {b}", W.with_print, (f32(b, b),), {}
    yield "10,000 Python helpers", W.many_helpers, (f32(8),), {}
    g = 256 if quick else 2048
    yield f"heat 4 steps in place {g}x{g}", W.heat_steps, (f32(g, g), f32(g - 2, g - 2)), {}
    yield f"fill 16 rows of {n}", W.fill_rows, (f32(16, n),), {}
    yield f"RK4 step in place {rows}x256", W.rk4_step, (f32(rows, 256), f32(256, 256) / 16), {}
    gpt, n_head = W.gpt2_params(n_embd=64 if quick else 256, n_layer=2 if quick else 6)
    tokens = [int(t) for t in rng.integers(0, 256, size=16 if quick else 48)]
    yield f"GPT-2 (picoGPT) {len(gpt['blocks'])} layers, {len(tokens)} tokens", \
        lambda ids: W.gpt2(ids, **gpt, n_head=n_head), (tokens,), {}


#: pause before each timed block of calls that take a millisecond or more:
#: OpenBLAS's threads spin for about 0.1 s after a matmul, and on 2 cores
#: they slow whatever runs next (onnxruntime's pool, NumPy's own threads)
SETTLE_SECONDS = 0.15


#: seconds each timed block of calls lasts, about
BLOCK_SECONDS = 0.05


def side_by_side(fns, args, repeat, settle=0.0):
    """Medians of each fn's time per call, timed in turn within each repeat.
    The order rotates from repeat to repeat: what ran just before a function
    matters (caches hold the last one's arrays), and no function should
    always follow the same one.  Each block is as many calls of its function
    as fill BLOCK_SECONDS, so that the first call after a switch (cold
    caches, sleeping pool threads) weighs alike for a fast function and a
    slow one.  ``settle``: seconds of pause before each block, so that
    threads left spinning by the previous one are idle."""
    inners = []
    for fn in fns:
        fn(*args)  # warm-up (and, for traced, translation)
        probe = median_time(fn, args, 1, 1)
        inners.append(max(1, min(2000, int(BLOCK_SECONDS / max(probe, 1e-7)))))
    times = [[] for _ in fns]
    for r in range(repeat):
        order = list(enumerate(fns))
        for k, fn in order[r % len(fns):] + order[:r % len(fns)]:
            if settle:
                time.sleep(settle)
            inner = inners[k]
            t0 = time.perf_counter()
            for _ in range(inner):
                fn(*args)
            times[k].append((time.perf_counter() - t0) / inner)
    return [statistics.median(t) for t in times]


def own_code(fn):
    """``fn`` with a code object of its own.  The translation cache lives on
    the code object and does not (yet) tell backends apart, so the same
    function made static for two backends would share the first one's graph."""
    if isinstance(fn, types.FunctionType):
        return types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
    call = type(fn).__call__
    return types.MethodType(own_code(call), fn)


def auto_choice(before: set) -> str:
    """What the auto graphs compiled since ``before`` (ids of earlier ones)
    chose: 'ort', 'np', or both."""
    from sot.backends.onnx import auto as onnx_auto
    chosen = {g.chosen for g in onnx_auto.recent() if id(g) not in before and g.chosen}
    short = {"numpy": "np", "onnxruntime": "ort"}
    return "+".join(sorted(short[c] for c in chosen)) or "-"


CHART = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ratios.png")


LEGEND = """\
Each row: one workload, run eagerly (plain NumPy) and decorated with
sot.to_static on each of sot's backends. Times are medians per call.
  eager       plain NumPy, no sot
  sot:numpy   sot, backend="numpy" (generated NumPy code)
  sot:ort     sot, backend="onnxruntime"
  sot:auto    sot, backend="auto" (times both, keeps the faster)
  ratio       the column before it / eager: LOWER IS BETTER, < 1.00 is faster than eager
  chose       what auto kept (np = NumPy, ort = onnxruntime)
  first call  sot:numpy's first call: translation + compile + run
  graphs      graphs sot captured
  breaks      graph breaks and frames that run natively (see sot.explain)
"""

#: seconds between "still measuring" notes on stderr while a row runs
PROGRESS_SECONDS = 10.0


class progress:
    """``with progress(name):`` notes on stderr, every PROGRESS_SECONDS, that
    the row is still being measured (the full-size rows take up to a minute)."""

    def __init__(self, name: str):
        self.name = name
        self.done = threading.Event()

    def _tick(self):
        started = time.perf_counter()
        while not self.done.wait(PROGRESS_SECONDS):
            print(f"  ... still measuring {self.name.strip()} ({time.perf_counter() - started:.0f} s)",
                  file=sys.stderr, flush=True)

    def __enter__(self):
        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (under a minute)")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--only", default=None, metavar="TEXT", help="only the workloads whose name contains TEXT")
    parser.add_argument("--chart", default=CHART, metavar="PATH",
                        help="bar chart of the ratios, a PNG (needs matplotlib); '' for none")
    args = parser.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 7)

    print(LEGEND)
    header = (f"{'workload':<34} {'eager':>10} {'sot:numpy':>10} {'ratio':>6} {'sot:ort':>10} {'ratio':>6} "
              f"{'sot:auto':>10} {'ratio':>6} {'chose':>5} {'first call':>10} {'graphs':>6} {'breaks':>6}")
    print(header)
    print("-" * len(header), flush=True)
    rows = []
    started = time.perf_counter()
    for name, fn, fargs, options in workloads(args.quick):
        if args.only and args.only not in name:
            continue
        with progress(name), contextlib.redirect_stdout(io.StringIO()):  # workloads that print stay quiet
            row = measure(fn, fargs, repeat, options, auto_seconds=1.0 if args.quick else 3.0)
        rows.append((name, row))
        print(f"{name:<34} " + row.format(), flush=True)
    print(f"({len(rows)} rows in {time.perf_counter() - started:.0f} s; ratio = time / eager, lower is better)")

    print()
    for shape in ((8, 8), (4096, 4096)):
        x = np.ones(shape, np.float32)
        sot.reset()
        report = sot.explain(W.gelu_tanh, x)
        print(f"translation time of gelu-tanh on {shape[0]}x{shape[1]}: {report.translate_seconds * 1e3:.2f} ms"
              " (about equal: tracing never reads array data)")

    if args.chart:
        print()
        print(write_chart(rows, args.chart, "quick sizes" if args.quick else "full sizes"))


@dataclass
class Row:
    """One workload's medians (seconds) and counts."""

    eager: float
    numpy: float
    ort: float
    auto: float
    chose: str
    first: float
    graphs: int
    breaks: int

    def ratios(self) -> dict[str, float]:
        return {"numpy": self.numpy / self.eager, "onnxruntime": self.ort / self.eager,
                "auto": self.auto / self.eager}

    def format(self) -> str:
        r = self.ratios()
        return (f"{_fmt(self.eager):>10} {_fmt(self.numpy):>10} {r['numpy']:>6.2f} {_fmt(self.ort):>10} "
                f"{r['onnxruntime']:>6.2f} {_fmt(self.auto):>10} {r['auto']:>6.2f} {self.chose:>5} "
                f"{_fmt(self.first):>10} {self.graphs:>6} {self.breaks:>6}")


def write_chart(rows, path: str, title: str) -> str:
    """Draw each backend's ratio to eager per workload into ``path``; returns
    what to tell the user (where the chart is, or how to get one)."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # a file, never a window
        import matplotlib.pyplot as plt
    except ImportError:
        return ("no chart: matplotlib is not installed "
                "(python -m pip install matplotlib, then run again)")
    names = [name for name, _ in rows]
    backends = ("numpy", "onnxruntime", "auto")
    labels = {b: f"sot ({b} backend)" for b in backends}   # not to be read as eager NumPy
    height = 0.8 / len(backends)
    fig, ax = plt.subplots(figsize=(9, 0.27 * len(rows) * len(backends) + 1.5))
    for k, backend in enumerate(backends):
        positions = [i + (k - (len(backends) - 1) / 2) * height for i in range(len(rows))]
        bars = ax.barh(positions, [row.ratios()[backend] for _, row in rows], height, label=labels[backend])
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=2)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)), names)
    ax.invert_yaxis()
    ax.set_xlabel("time with sot / time of eager NumPy (log scale; lower is better, "
                  "left of the line is faster than eager)")
    ax.set_title(f"sot's backends vs eager NumPy (= 1.0), {title}")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"chart of the ratios: {path}"


def measure(fn, fargs, repeat, options=None, auto_seconds: float = 3.0) -> Row:
    """One table row: all backends timed side by side; ``options`` are
    to_static's keyword arguments for all three; ``auto_seconds``: at most
    this long for auto's first check of its choice."""
    from sot.backends.onnx import auto as onnx_auto
    options = options or {}
    sot.reset()
    report = sot.explain(fn, *fargs)
    static = sot.to_static(fn, **options)
    t0 = time.perf_counter()
    static(*fargs)
    first = time.perf_counter() - t0
    sot.reset()
    t0 = time.perf_counter()
    static(*fargs)
    first = time.perf_counter() - t0
    on_ort = sot.to_static(own_code(fn), backend="onnxruntime", **options)
    on_auto = sot.to_static(own_code(fn), backend="auto", **options)
    before = {id(g) for g in onnx_auto.recent()}
    warm_calls = 2 * (1 + onnx_auto.TRIALS) + 1
    for i in range(WARMUP_MAX):   # auto measures (a small segment times its threads first), then chooses
        on_auto(*fargs)
        if i + 1 >= warm_calls and all(g.chosen for g in onnx_auto.recent() if id(g) not in before):
            break
    # ... and checks its choice later (a graph's first calls can mislead):
    # its steady state is after the first check, when that comes within auto_seconds
    deadline = time.perf_counter() + auto_seconds
    while time.perf_counter() < deadline and any(
            g.awaiting_first_check for g in onnx_auto.recent() if id(g) not in before):
        on_auto(*fargs)
    for _ in range(warm_calls):   # as many for onnxruntime alone (a fresh session's first runs are slower)
        on_ort(*fargs)
    for f in (static, on_ort, on_auto):
        warm_until_settled(f, fargs)
    probe = median_time(fn, fargs, 1, 1)
    settle = SETTLE_SECONDS if probe >= 1e-3 else 0.0
    eager, traced, ort, auto = side_by_side([fn, static, on_ort, on_auto], fargs, repeat, settle)
    chose = auto_choice(before)   # before the reset, which frees the auto graphs it reads
    sot.reset()   # frozen arrays writeable again, for the rows that do not freeze them
    return Row(eager, traced, ort, auto, chose, first, report.graph_count, len(report.breaks))


#: warm-up calls at most while waiting for the choices (governor, auto) to be made
WARMUP_MAX = 60


def warm_call(call, statics, ahead: int = 0) -> bool:
    """``call()`` once; True when it timed no auto graph's backends, the
    do-no-harm governors of ``statics`` (to_static callables) have decided
    (a governor's window runs eager calls, which a timed block would count as
    the backend's), and neither an auto graph this call reached nor a
    governor re-checks its choice within the next ``ahead`` calls like it
    (the calls a row times next).  A check runs the other form (NumPy calls
    of auto's check, eager calls of the governor's): over a run it costs a
    twentieth of the time or less, but falling into a row's 3 timed calls it
    weighs a third.  An auto graph no call reaches any more (an entry
    replaced by a more general one) does not count."""
    from sot import governor
    from sot.backends import measuring_calls
    from sot.backends.onnx import auto as onnx_auto
    before = measuring_calls[0]
    countdowns = [getattr(f, "__sot_countdown__", 0) for f in statics]
    calls = {id(g): g.calls_until_final for g in onnx_auto.recent()}
    call()
    if measuring_calls[0] != before:
        return False
    for f, was in zip(statics, countdowns):
        if getattr(f, "__sot_mode__", governor.TRANSLATED) == governor.MEASURE:
            return False
        per_call = was - f.__sot_countdown__   # its calls in one call (none: the re-check began)
        if per_call > 0 and f.__sot_countdown__ <= per_call * ahead:
            return False
    for g in onnx_auto.recent():
        per_call = g.calls_until_final - calls.get(id(g), 0)
        left = g.calls_to_check
        if per_call and left is not None and left <= per_call * ahead:
            return False
    return True


def warm_until_settled(static, fargs=(), ahead: int = 0) -> None:
    """Call ``static`` until ``warm_call`` says so (at most WARMUP_MAX calls)."""
    for _ in range(WARMUP_MAX):
        if warm_call(lambda: static(*fargs), [static], ahead):
            return


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e3:.2f} ms"


if __name__ == "__main__":
    main()
