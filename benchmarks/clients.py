"""Client programs (benchmarks/client_programs.py) eager vs decorated, in one process.

    python benchmarks/clients.py             # benchmark sizes
    python benchmarks/clients.py --quick     # the test sizes, for CI
    python benchmarks/clients.py -v          # also every graph break's reason
    python benchmarks/clients.py --set 2     # the second set (client_programs2.py)
    python benchmarks/clients.py --set 3     # the third set (client_programs3.py)
    python benchmarks/clients.py --set 4     # the fourth set (client_programs4.py)
    python benchmarks/clients.py --set 5     # the fifth set (client_programs5.py)

Each row is one program: its functions decorated with ``sot.to_static`` as a
user decorates them (backend numpy, backend auto) against the same program
undecorated. The three are timed round-robin, call by call in a rotating
order, on fresh inputs each call (made outside the timed region), after
warm-up calls that let translation and the do-no-harm governor settle;
the best time of each counts.
Ratios are decorated / eager: LOWER IS BETTER. ``same`` says whether the
numpy backend's results (and what the program did to its arguments) are
bitwise eager's and their stdout eager's, ``close`` whether the auto
backend's are within float tolerance of eager's; ``breaks`` counts graph breaks and fallbacks over those
first calls, ``native`` the fallbacks among them (frames run natively as a
whole), ``graphs`` the graphs compiled, ``1st`` is the first decorated
call (numpy backend, translation included) / eager's first call: what a
program run once pays.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import io
import importlib.util
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)  # client_programs2 imports client_programs

import sot  # noqa: E402
from difftest import assert_same  # noqa: E402
from sot import translate  # noqa: E402
from sot.explain import ExplainReport  # noqa: E402


SETS = {"1": "client_programs", "2": "client_programs2", "3": "client_programs3", "4": "client_programs4",
        "5": "client_programs5"}


def load_programs(tag: str, module_name: str = "client_programs"):
    """``module_name`` loaded afresh as module ``tag``: code objects of its
    own, so that translations for one backend are not shared with another
    (the cache lives on the code object)."""
    spec = importlib.util.spec_from_file_location(f"{module_name}_{tag}", os.path.join(HERE, f"{module_name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass looks its module up there
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


def run_capturing(main, args):
    """``main(*args)`` and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = main(*args)
    return result, out.getvalue()


def same(eager_main, static_main, inputs, n, seeds=(0, 1), first=None) -> bool:
    """Results, arguments and stdout bitwise eager's; ``first`` (a list)
    gets the seconds of the first call of each, translation included."""
    for seed in seeds:
        a = inputs(n, seed)
        b = copy.deepcopy(a)
        try:
            t0 = time.perf_counter()
            e, e_out = run_capturing(eager_main, a)
            t1 = time.perf_counter()
            t, t_out = run_capturing(static_main, b)
            if first is not None and not first:
                first += [t1 - t0, time.perf_counter() - t1]
            assert_same(comparable(e), comparable(t), bitwise=True)
            assert_same(comparable(a), comparable(b), "arguments", bitwise=True)
            assert e_out == t_out, f"stdout {e_out!r} != {t_out!r}"
        except AssertionError as e:
            print(f"  MISMATCH: {e}", file=sys.stderr)
            return False
    return True


def assert_close(eager, traced, path="result", rtol=1e-5, atol=1e-7):
    """Same structure, dtypes and shapes; float arrays within tolerance (a
    backend other than NumPy runs other kernels)."""
    if isinstance(eager, np.ndarray) and eager.dtype.names and isinstance(traced, np.ndarray):
        # a structured array: field by field (== of records is False where a field is NaN)
        assert eager.dtype == traced.dtype and eager.shape == traced.shape, f"{path}: {eager.dtype} vs {traced.dtype}"
        for name in eager.dtype.names:
            assert_close(eager[name], traced[name], f"{path}[{name!r}]", rtol, atol)
    elif isinstance(eager, (np.ndarray, np.generic)) and np.asarray(eager).dtype.kind in "fc":
        assert type(eager) is type(traced) and eager.dtype == traced.dtype, f"{path}: {eager.dtype} vs {traced}"
        assert np.shape(eager) == np.shape(traced), f"{path}: shape {np.shape(eager)} != {np.shape(traced)}"
        assert np.allclose(eager, traced, rtol=rtol, atol=atol, equal_nan=True), f"{path}: values differ"
    elif isinstance(eager, float) and isinstance(traced, float):
        assert math.isclose(eager, traced, rel_tol=rtol, abs_tol=atol) or eager != eager, f"{path}: {eager} != {traced}"
    elif isinstance(eager, (list, tuple)) and type(eager) is type(traced) and len(eager) == len(traced):
        for i, (x, y) in enumerate(zip(eager, traced)):
            assert_close(x, y, f"{path}[{i}]", rtol, atol)
    elif isinstance(eager, dict) and type(traced) is dict and list(eager) == list(traced):
        for k in eager:
            assert_close(eager[k], traced[k], f"{path}[{k!r}]", rtol, atol)
    else:
        assert_same(eager, traced, path)


def close(eager_main, static_main, inputs, n, seeds=(0, 1)) -> bool:
    """The auto backend's results within float tolerance of eager's (stdout
    is not compared: printed floats may differ in the last digit)."""
    for seed in seeds:
        a = inputs(n, seed)
        b = copy.deepcopy(a)
        try:
            e, t = run_capturing(eager_main, a)[0], run_capturing(static_main, b)[0]
            assert_close(comparable(e), comparable(t))
            assert_close(comparable(a), comparable(b), "arguments")
        except AssertionError as e:
            print(f"  NOT CLOSE: {e}", file=sys.stderr)
            return False
    return True


def measure(mains, inputs, n, warmup, repeat):
    """Best seconds per call of each of ``mains`` on fresh inputs of size
    ``n`` (seed 0; the warm-up calls use other seeds too), timed in rotating order."""
    for main in mains:
        for i in range(warmup):
            run_capturing(main, inputs(n, i))
    times = [[] for _ in mains]
    for r in range(repeat):
        order = list(range(len(mains)))
        order = order[r % len(mains):] + order[:r % len(mains)]
        for k in order:
            args = inputs(n, 0)  # the same work every call (k-means' iterations depend on the data)
            with contextlib.redirect_stdout(io.StringIO()):
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
    parser.add_argument("--set", choices=sorted(SETS), default="1", help="which file of programs")
    args = parser.parse_args(argv)
    repeat = args.repeat or (15 if args.quick else 31)
    module_name = SETS[args.set]
    eager_programs = load_programs("eager", module_name)
    variants = {"numpy": load_programs("numpy", module_name), "auto": load_programs("auto", module_name)}
    identity = lambda f: f  # noqa: E731

    print(f"{'program':<13}{'size':>8}{'eager':>11}{'numpy':>11}{'ratio':>7}{'auto':>11}{'ratio':>7}"
          f"{'same':>6}{'close':>6}{'breaks':>7}{'native':>7}{'graphs':>7}{'1st':>7}")
    for name, (build, inputs, sizes, bench) in eager_programs.items():
        if args.only and args.only not in name:
            continue
        n = sizes[-1] if args.quick else bench
        eager = build(identity)
        statics = {b: progs[name][0](lambda f, b=b: sot.to_static(f, backend=b)) for b, progs in variants.items()}
        report = ExplainReport()
        translate._recorders.append(report.entries)
        try:  # the first calls translate: their breaks are recorded
            first = []
            ok = same(eager, statics["numpy"], inputs, n, first=first)
        finally:
            translate._recorders.remove(report.entries)
        ok_auto = close(eager, statics["auto"], inputs, n)
        t_eager, t_np, t_auto = measure([eager, statics["numpy"], statics["auto"]], inputs, n,
                                        args.warmup, repeat)
        print(f"{name:<13}{n:>8}{t_eager * 1e3:>9.3f}ms{t_np * 1e3:>9.3f}ms{t_np / t_eager:>7.2f}"
              f"{t_auto * 1e3:>9.3f}ms{t_auto / t_eager:>7.2f}{'yes' if ok else 'NO':>6}{'yes' if ok_auto else 'NO':>6}"
              f"{len(report.breaks):>7}{len(report.fallbacks):>7}{report.graph_count:>7}"
              f"{first[1] / first[0]:>7.1f}", flush=True)
        if args.verbose:
            for reason in report.breaks:
                print("      " + str(reason).splitlines()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
