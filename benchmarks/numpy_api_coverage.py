"""How much of NumPy's API sot captures as one graph, in the style of numba's
NumPy reference tests: small pure-NumPy functions, each called on a few
argument sets, eagerly and under ``sot.to_static`` (NumPy backend).

    PYTHONPATH=$PWD python benchmarks/numpy_api_coverage.py [-v]

For every call whose eager run returns a value it checks that the decorated
call agrees (value, type, dtype, shape) and counts the call as *captured*
when its translation had no graph break and no fallback.  It prints the
share per family and in total, and with ``-v`` the reason of each miss.
Wrong answers are listed and make the exit status 1.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import sot  # noqa: E402
from difftest import assert_same  # noqa: E402

rng = np.random.default_rng(0)
F = rng.standard_normal((4, 5))
F32 = F.astype(np.float32)
V = rng.standard_normal(6)
I = rng.integers(-5, 5, (3, 4))
IV = np.array([3, 1, 2, 1, 0, 4])
B = F > 0
C = F + 1j * F[::-1]
SPD = F.T @ F + np.eye(5)
SQ = F[:4, :4] + 4 * np.eye(4)
NONC = F.T          # non-contiguous
ZERO_D = np.array(2.5)
EMPTY = np.zeros((0, 3))
NANS = np.where(F > 1, np.nan, F)
T3 = rng.standard_normal((2, 3, 3))

# family -> list of (function, argument sets)
FAMILIES: dict[str, list] = {}


def case(family, *arg_sets):
    def deco(fn):
        FAMILIES.setdefault(family, []).append((fn, arg_sets))
        return fn
    return deco


ARR = [(F,), (F32,), (I,), (NONC,), (ZERO_D,), (EMPTY,)]

# -- introspection ---------------------------------------------------------------
@case("introspection", *ARR)
def isscalar_(a): return np.isscalar(a), np.isscalar(1.0), a + 1
@case("introspection", *ARR)
def shape_(a): return np.shape(a), np.size(a), np.ndim(a), a * 2
@case("introspection", *ARR, (C,))
def complexobj_(a): return np.iscomplexobj(a), np.isrealobj(a), a - 1
@case("introspection", *ARR, (B,))
def issubdtype_(a): return np.issubdtype(a.dtype, np.floating), np.issubdtype(a.dtype, np.integer), a.copy()
@case("introspection", *ARR)
def dtype_(a): return np.dtype(np.float32), np.dtype("int64"), np.dtype(a.dtype), a.astype(np.dtype("f8"))
@case("introspection", *ARR)
def astype_int(a): return a.astype(int)
@case("introspection", *ARR)
def astype_float(a): return a.astype(float) + a.astype("float32")
@case("introspection", *ARR)
def astype_bool(a): return a.astype(bool), a.astype(complex)
@case("introspection", (3,), (0,))
def zeros_bool(n): return np.zeros(n, dtype=bool), np.ones((n, 2), dtype=int), np.full(n, 1, dtype=float)
@case("introspection", *ARR)
def strides_(a): return a.strides, a + 0
@case("introspection", *ARR)
def flags_(a): return a.flags.c_contiguous, a.flags["F_CONTIGUOUS"], a * 1
@case("introspection", (F,), (F32,))
def finfo_(a): return np.finfo(float).eps * a, np.finfo(a.dtype).eps + a, np.finfo(np.float32).max
@case("introspection", (I,), (I.astype(np.int8),))
def iinfo_(a): return np.iinfo(a.dtype).max - a, np.iinfo(np.int32).min


# -- ufuncs and their methods ----------------------------------------------------
@case("ufunc", (F,), (I,), (NONC,), (EMPTY,))
def ufunc_reduce(a): return np.add.reduce(a), np.multiply.reduce(a, axis=1), np.maximum.reduce(a, axis=0)
@case("ufunc", (F,), (I,), (NONC,), (EMPTY,))
def ufunc_accumulate(a): return np.add.accumulate(a), np.multiply.accumulate(a, axis=1)
@case("ufunc", (V, V[:3]), (IV, IV[::2]))
def ufunc_outer(a, b): return np.subtract.outer(a, b), np.multiply.outer(a, b)
@case("ufunc", (V,), (IV,))
def ufunc_reduceat(a): return np.add.reduceat(a, [0, 2, 4])
@case("ufunc", (F,), (I,), (C,))
def ufunc_misc(a): return np.sign(a), np.square(a), np.conjugate(a), np.absolute(a)


# -- array construction ------------------------------------------------------------
@case("creation", *ARR)
def asarray_(a): return np.asarray(a), np.asarray(a, dtype=np.float32), np.array(a) * 2
@case("creation", (1.5, 2.0), (3, 4))
def array_list(p, q): return np.array([p, q]), np.array([[p, q], [q, p]]), np.asarray([p, 1.0])
@case("creation", (F, F), (V, V))
def array_of_arrays(a, b): return np.array([a, b]), np.stack([a, b])
@case("creation", (F,), (NONC,), (I,))
def contiguous_(a): return np.ascontiguousarray(a), np.asfortranarray(a)
@case("creation", (F,), (I,))
def view_(a): return a.view(), a.view(np.uint8 if a.dtype.itemsize == 1 else a.dtype)
@case("creation", (3,), (4,))
def tri_(n): return np.tri(n), np.tri(n, 5, 1, dtype=int), np.tril_indices(n), np.triu_indices(n, 1)
@case("creation", ((2, 3),), ((3, 1),))
def indices_(s): return np.indices(s)
@case("creation", (3,), (5,))
def mgrid_(n): return np.mgrid[0:n, 0:2], np.ogrid[0:n, 0:2]
@case("creation", (V, V[:3]), (IV, IV))
def meshgrid_(a, b): return np.meshgrid(a, b), np.meshgrid(a, b, indexing="ij")
@case("creation", (F,), (V,), (SQ,))
def diag_(a): return np.diag(a), np.diag(a, 1)
@case("creation", (V, V), (IV, IV))
def c_r_(a, b): return np.c_[a, b], np.r_[a, b]
@case("creation", (V, F), (ZERO_D, V))
def atleast_(a, b): return np.atleast_2d(a, b), np.atleast_3d(a)
@case("creation", (F,), (I,), (V,))
def pad_(a): return np.pad(a, 1), np.pad(a, ((1, 2),) * a.ndim, mode="edge")


# -- math ----------------------------------------------------------------------------
@case("math", (F,), (C,), (I,))
def angle_(a): return np.angle(a), np.angle(a, deg=True)
@case("math", (F,), (F32,), (I,))
def sinc_(a): return np.sinc(a)
@case("math", (F,), (I,), (NONC,))
def ptp_(a): return np.ptp(a), np.ptp(a, axis=0)
@case("math", (NANS,), (F,), (F32,))
def nanred_(a): return np.nansum(a), np.nanmean(a, axis=0), np.nanmax(a), np.nanmin(a, axis=1), np.nanstd(a)
@case("math", (NANS,), (F,), (I,))
def nancum_(a): return np.nancumsum(a), np.nancumprod(a, axis=1), np.nanprod(a)
@case("math", (NANS,), (F,))
def nanarg_(a): return np.nanargmax(a, axis=0), np.nanargmin(a), np.nanvar(a, axis=1)
@case("math", (V, V), (F, F))
def interp_(x, y): return np.interp(x, np.sort(y.ravel()), np.arange(y.size, dtype=float))
@case("math", (F,), (V,), (I,))
def quantile_(a): return np.percentile(a, 30), np.quantile(a, [0.1, 0.9]), np.median(a), np.median(a, axis=0)
@case("math", (V,), (F,))
def histogram_(a): return np.histogram(a, bins=4, range=(-2.0, 2.0)), np.histogram(a, bins=[-1.0, 0.0, 1.0])


# -- sorting and searching ------------------------------------------------------------
@case("sorting", (F,), (I,), (NONC,), (EMPTY,))
def sort_(a): return np.sort(a), np.argsort(a, axis=0, kind="stable"), np.sort(a, axis=None)
@case("sorting", (F,), (I,))
def partition_(a): return np.partition(a, 1), np.argpartition(a, 2, axis=1)
@case("sorting", (np.sort(V), V), (np.sort(IV), IV))
def searchsorted_(s, v): return np.searchsorted(s, v), np.searchsorted(s, v, side="right")
@case("sorting", (F,), (I,))
def take_along_(a): return np.take_along_axis(a, np.argsort(a, axis=1), axis=1)


# -- statistics / signal ----------------------------------------------------------------
@case("statistics", (F,), (I,))
def cov_(a): return np.cov(a), np.corrcoef(a)
@case("statistics", (V, V[:3]), (IV, IV[:2]))
def convolve_(a, b): return np.convolve(a, b), np.correlate(a, b), np.convolve(a, b, mode="same")


# -- linear algebra ---------------------------------------------------------------------
@case("linalg", (SQ,), (SPD,), (F,))
def norm_(a): return np.linalg.norm(a), np.linalg.norm(a, axis=0), np.linalg.norm(a, "fro")
@case("linalg", (SQ,), (SPD,), (T3,))
def inv_(a): return np.linalg.inv(a), np.linalg.det(a)
@case("linalg", (SQ, V[:4]), (SPD, V[:5]))
def solve_(a, b): return np.linalg.solve(a, b)
@case("linalg", (SPD,))
def eigh_(a): return np.linalg.eigh(a), np.linalg.cholesky(a), np.linalg.eigvalsh(a)
@case("linalg", (F,), (SQ,))
def svd_(a): return np.linalg.svd(a), np.linalg.qr(a), np.linalg.pinv(a)
@case("linalg", (F, V[:4]), (SPD, V[:5]))
def lstsq_(a, b): return np.linalg.lstsq(a, b, rcond=None)
@case("linalg", (SQ,), (SQ.astype(np.float32),))
def matrix_power_(a): return np.linalg.matrix_power(a, 3), np.linalg.matrix_power(a, 0)
@case("linalg", (T3,), (np.ones((2, 4, 3)),))
def dot_list(a): return np.dot(a, [1.0, 2.0, 3.0]), a @ [1.0, 2.0, 3.0]


# -- fft -------------------------------------------------------------------------------
@case("fft", (V,), (F,), (F32,))
def fft_(a): return np.fft.fft(a), np.fft.ifft(a), np.fft.rfft(a), np.fft.fftfreq(8)
@case("fft", (F,), (C,))
def fft2_(a): return np.fft.fft2(a), np.fft.ifftn(a), np.fft.fftshift(a), np.fft.irfft(a)


# -- windows / stride tricks --------------------------------------------------------------
@case("windows", (V,), (F,))
def sliding_(a): return np.lib.stride_tricks.sliding_window_view(a, 2, axis=-1).sum(-1)
@case("windows", (F,), (I,))
def reshape_sum(a): return a.reshape(a.shape[0], -1).sum(-1)


# -- data-dependent sizes (sot/ir/unbacked.py) ----------------------------------------------
DD = [(F,), (F32,), (I,), (NONC,), (EMPTY,), (-np.abs(F) - 1,)]
@case("data-dependent", *DD)
def nonzero_(a): return np.nonzero(a > 0), a.nonzero()[0] * 2, np.flatnonzero(a) + 1, np.argwhere(a > 0)
@case("data-dependent", *DD)
def mask_(a): return a[a > 0] * 2, a[a > 0].sum(), a[a[:, 0] > 0].mean(axis=0) if a.ndim == 2 else a
@case("data-dependent", *DD)
def unique_(a): return np.unique(a), np.unique(a, return_index=True, return_inverse=True, return_counts=True)
@case("data-dependent", *DD)
def compress_(a): return np.compress(a[:, 0] > 0, a, axis=0), a.ravel().compress(a.ravel() > 0), np.extract(a > 0, a)
@case("data-dependent", (IV,), (np.array([], dtype=np.int64),), (np.array([2, 0, 7], dtype=np.uint8),))
def bincount_(x): return np.bincount(x), np.bincount(x, minlength=3) * 2, np.bincount(x, np.ones(x.size) / 2)
@case("data-dependent", (V,), (-np.abs(V),))
def after_mask(a):
    s = a[a > 0]
    return (s - s.mean()) / (s.std() + 1), np.sort(s), np.cumsum(s), s @ s, a[np.nonzero(a > 0)]


# -- index-space loops, flat reads, put_along_axis -------------------------------------------
@case("loops", (F,), (I,), (NONC,), (ZERO_D,), (EMPTY,))
def ndenumerate_(a): return [(i, v * 2) for i, v in np.ndenumerate(a)]
@case("loops", (F,), (I,), (NONC,), (ZERO_D,))
def ndindex_(a): return sum(a[i] * k for k, i in enumerate(np.ndindex(a.shape))), list(np.ndindex(2, 2))
@case("loops", (F,), (I,), (NONC,))
def flat_(a): return a.flat[3], a.flat[1:4], a.flat[[0, 2]], [v + 1 for v in a.flat]
@case("loops", (F, np.argsort(F, axis=1)[:, :2]), (NONC, np.argsort(NONC, axis=1)[:, :1]))
def put_along_(a, i):
    b = a.copy()
    np.put_along_axis(b, i, 0.0, axis=1)
    return b


def measure(verbose: bool):
    results = {}
    wrong = []
    for family, cases in FAMILIES.items():
        ok = total = 0
        for fn, arg_sets in cases:
            sot.reset()
            static = sot.to_static(fn)
            for args in arg_sets:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    try:
                        eager = fn(*args)
                    except Exception:
                        continue  # only calls that return a value count
                    total += 1
                    try:
                        report = sot.explain(static, *args)
                        traced = report.result
                        assert_same(eager, traced)
                    except Exception as e:  # a wrong answer or a crash: report it
                        wrong.append(f"{family}/{fn.__name__}{_shapes(args)}: {type(e).__name__}: {e}")
                        continue
                captured = not report.breaks
                ok += captured
                if verbose and not captured:
                    print(f"  miss {family}/{fn.__name__}{_shapes(args)}: {report.breaks[0].message if report.breaks else ''}")
        results[family] = (ok, total)
    return results, wrong


def _shapes(args):
    return "(" + ", ".join(f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else repr(a) for a in args) + ")"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-v", "--verbose", action="store_true")
    opts = parser.parse_args()
    results, wrong = measure(opts.verbose)
    ok = sum(o for o, _ in results.values())
    total = sum(t for _, t in results.values())
    print(f"{'family':<14} captured")
    for family, (o, t) in results.items():
        print(f"{family:<14} {o:>3}/{t:<3} {100 * o / max(t, 1):5.1f} %")
    print(f"{'total':<14} {ok:>3}/{total:<3} {100 * ok / max(total, 1):5.1f} %  (calls captured as one graph)")
    for w in wrong:
        print("WRONG", w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
