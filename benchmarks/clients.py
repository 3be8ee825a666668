"""Client programs (benchmarks/client_programs.py) eager vs decorated, in one process.

    python benchmarks/clients.py             # benchmark sizes
    python benchmarks/clients.py --quick     # the test sizes, for CI
    python benchmarks/clients.py -v          # also every graph break's reason

Each row is one program: its functions decorated with ``sot.to_static`` as a
user decorates them (backend numpy, backend auto) against the same program
undecorated. The three are timed round-robin, call by call in a rotating
order, on fresh inputs each call (made outside the timed region), after
warm-up calls that let translation and the do-no-harm governor settle;
the best time of each counts.
Ratios are decorated / eager: LOWER IS BETTER. ``same`` says whether the
numpy backend's results (and what the program did to its arguments) are
bitwise eager's; ``breaks`` counts graph breaks and fallbacks over those
first calls, ``graphs`` the graphs compiled.
"""
from __future__ import annotations

import argparse
import copy
import importlib.util
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import sot  # noqa: E402
from difftest import assert_same  # noqa: E402
from sot import translate  # noqa: E402
from sot.explain import ExplainReport  # noqa: E402


def load_programs(tag: str):
    """client_programs loaded afresh as module ``tag``: code objects of its
    own, so that translations for one backend are not shared with another
    (the cache lives on the code object)."""
    spec = importlib.util.spec_from_file_location(f"client_programs_{tag}", os.path.join(HERE, "client_programs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PROGRAMS


def comparable(value):
    """``value`` with each Generator replaced by its state (random-number
    consumption is compared, not the object)."""
    if isinstance(value, np.random.Generator):
        return ("Generator", value.bit_generator.state)
    if isinstance(value, (list, tuple)):
        return type(value)(comparable(v) for v in value)
    return value


def same(eager_main, static_main, inputs, n, seeds=(0, 1)) -> bool:
    for seed in seeds:
        a = inputs(n, seed)
        b = copy.deepcopy(a)
        try:
            assert_same(comparable(eager_main(*a)), comparable(static_main(*b)), bitwise=True)
            assert_same(comparable(a), comparable(b), "arguments", bitwise=True)
        except AssertionError as e:
            print(f"  MISMATCH: {e}", file=sys.stderr)
            return False
    return True


def measure(mains, inputs, n, warmup, repeat):
    """Best seconds per call of each of ``mains`` on fresh inputs of size
    ``n`` (seed 0; the warm-up calls use other seeds too), timed in rotating order."""
    for main in mains:
        for i in range(warmup):
            main(*inputs(n, i))
    times = [[] for _ in mains]
    for r in range(repeat):
        order = list(range(len(mains)))
        order = order[r % len(mains):] + order[:r % len(mains)]
        for k in order:
            args = inputs(n, 0)  # the same work every call (k-means' iterations depend on the data)
            t0 = time.perf_counter()
            mains[k](*args)
            times[k].append(time.perf_counter() - t0)
    # the best of each: on a loaded machine (2 cores shared by many) a call is
    # often descheduled, which the median of a ~1 ms program does not hide
    return [min(t) for t in times]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small test sizes")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--warmup", type=int, default=12, help="untimed calls first (translation, governor)")
    parser.add_argument("--only", default=None, metavar="TEXT", help="only the programs whose name contains TEXT")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each graph break's reason")
    args = parser.parse_args(argv)
    repeat = args.repeat or (15 if args.quick else 31)
    eager_programs = load_programs("eager")
    variants = {"numpy": load_programs("numpy"), "auto": load_programs("auto")}
    identity = lambda f: f  # noqa: E731

    print(f"{'program':<13}{'size':>8}{'eager':>11}{'numpy':>11}{'ratio':>7}{'auto':>11}{'ratio':>7}"
          f"{'same':>6}{'breaks':>7}{'graphs':>7}")
    for name, (build, inputs, sizes, bench) in eager_programs.items():
        if args.only and args.only not in name:
            continue
        n = sizes[-1] if args.quick else bench
        eager = build(identity)
        statics = {b: progs[name][0](lambda f, b=b: sot.to_static(f, backend=b)) for b, progs in variants.items()}
        report = ExplainReport()
        translate._recorders.append(report.entries)
        try:  # the first calls translate: their breaks are recorded
            ok = same(eager, statics["numpy"], inputs, n)
        finally:
            translate._recorders.remove(report.entries)
        t_eager, t_np, t_auto = measure([eager, statics["numpy"], statics["auto"]], inputs, n,
                                        args.warmup, repeat)
        print(f"{name:<13}{n:>8}{t_eager * 1e3:>9.3f}ms{t_np * 1e3:>9.3f}ms{t_np / t_eager:>7.2f}"
              f"{t_auto * 1e3:>9.3f}ms{t_auto / t_eager:>7.2f}{'yes' if ok else 'NO':>6}"
              f"{len(report.breaks):>7}{report.graph_count:>7}", flush=True)
        if args.verbose:
            for reason in report.breaks:
                print("      " + str(reason).splitlines()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
