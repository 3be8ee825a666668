"""Peer-suite summary: how many of the peer-style cases (tests/peer_cases/,
NumPy rewrites of the kinds of functions TorchDynamo's, Paddle SOT's, JAX's
and numba's test suites run) match eager, and how many of those still break
the graph or fall back.

    python benchmarks/peer_breaks.py        # the table
    python benchmarks/peer_breaks.py -v     # also each break's first reason

Each case runs eagerly and through `sot.explain` (min_graph_size=0). A case
"differs" when its result (value, type, dtype, shape, exception) is not
eager's: a defect. "breaks" counts cases with at least one graph break or
fallback: a missed capture, not a defect. "native" counts cases that
recorded no graph and met no break (nothing to compile: the frame runs as
plain Python, so the case does not exercise the tracer's output).
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import copy
import io
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import sot  # noqa: E402
from difftest import assert_same  # noqa: E402
from peer_cases import load_all  # noqa: E402


def _outcome(fn, args):
    """(result or exception, stdout, warnings shown) of one call."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = ("ok", fn(*args))
        except Exception as e:  # compared, not swallowed
            result = ("raised", (type(e), str(e)))
    return result, out.getvalue(), [(w.category, str(w.message), w.filename, w.lineno) for w in seen]


def _same(a, b) -> bool:
    try:
        assert_same(a, b)
        return True
    except AssertionError:
        return False


def measure(cases=None):
    """{group: [cases, differ, breaks, native]}, [(group, name, why)] of
    differing cases, [(group, name, reason)] of breaking ones, over `cases`
    ((group, fn, args, ort) tuples; default: every peer case)."""
    per = collections.OrderedDict()
    differ, breaks = [], []
    for group, fn, args, _ort in load_all() if cases is None else cases:
        sot.reset()
        eager = _outcome(fn, copy.deepcopy(args))
        holder = {}

        def traced(*a):
            holder["report"] = sot.explain(sot.to_static(fn, min_graph_size=0), *a)
            return holder["report"].result
        try:
            got = _outcome(traced, copy.deepcopy(args))
        except Exception as e:  # noqa: BLE001 - a crash of the tracer itself
            got = (("crashed", repr(e)), "", [])
        counts = per.setdefault(group, [0, 0, 0, 0])
        counts[0] += 1
        report = holder.get("report")
        if not _same(eager, got):
            counts[1] += 1
            differ.append((group, fn.__name__, f"eager {eager[0]!r:.120} traced {got[0]!r:.120}"))
        if report is not None and (report.breaks or report.fallbacks):
            counts[2] += 1
            first = (report.breaks or report.fallbacks)[0]
            breaks.append((group, fn.__name__, str(first).splitlines()[0]))
        elif report is not None and report.graph_count == 0:
            counts[3] += 1
    return per, differ, breaks


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    per, differ, breaks = measure()
    print(f"{'group':<14}{'cases':>6}{'differ':>8}{'breaks':>8}{'native':>8}")
    for group, (n, d, b, p) in per.items():
        print(f"{group:<14}{n:>6}{d:>8}{b:>8}{p:>8}")
    n, d, b, p = (sum(c[i] for c in per.values()) for i in range(4))
    print(f"{'total':<14}{n:>6}{d:>8}{b:>8}{p:>8}")
    for group, name, why in differ:
        print(f"  DIFFERS {group}/{name}: {why}")
    if args.verbose:
        for group, name, why in breaks:
            print(f"  break {group}/{name}: {why}")


if __name__ == "__main__":
    main()
