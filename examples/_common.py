"""What every example does at the end: time eager vs traced, show explain.

Each example is a complete program: ``python examples/<name>.py`` runs it
at its full size, ``--small`` (or SOT_EXAMPLES_SMALL=1 in the environment)
at a size that takes a second or two, as the tests do.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

import sot


def small() -> bool:
    """Whether to run at the small size (--small or SOT_EXAMPLES_SMALL=1)."""
    return "--small" in sys.argv[1:] or os.environ.get("SOT_EXAMPLES_SMALL") == "1"


def best_time(fn, args, repeat: int = 5) -> float:
    """The fastest of ``repeat`` calls, in seconds (the first call is not counted)."""
    fn(*args)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def compare(title: str, fn, args, backends=("numpy", "onnxruntime"), check=None, **options):
    """Run ``fn`` eagerly and under sot on each backend: check that the
    results agree, print the times and what sot made of it (explain)."""
    expected = fn(*args)
    repeat = 2 if small() else 5
    eager = best_time(fn, args, repeat)
    print(f"== {title}")
    print(f"   {'eager NumPy':<27} {eager * 1e3:9.2f} ms per call")
    for backend in backends:
        static = sot.to_static(fn, backend=backend, **options)
        t0 = time.perf_counter()
        got = static(*args)
        first = time.perf_counter() - t0
        (check or _agree)(got, expected, backend)
        traced = best_time(static, args, repeat)
        label = f"sot ({backend} backend)"
        print(f"   {label:<27} {traced * 1e3:9.2f} ms per call  "
              f"(speed-up {eager / traced:5.2f}x; first call {first * 1e3:.0f} ms, with translation)")
        sot.reset()       # the translation cache belongs to the code: the next backend starts afresh
    print()
    print(sot.explain(sot.to_static(fn, backend=backends[-1], **options), *args))
    print()


def _agree(got, expected, backend):
    if backend == "numpy":          # the reference backend is bitwise equal to eager
        np.testing.assert_array_equal(got, expected)
    else:                           # onnxruntime's float32 kernels round differently
        assert got.dtype == expected.dtype and got.shape == expected.shape
        scale = max(1.0, float(np.max(np.abs(expected))))
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3 * scale)
