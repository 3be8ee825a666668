"""Small realistic NumPy programs (signal processing, statistics, image ops,
sparse-ish indexing, linear algebra, sorting and sets), each checked against
eager with tests/difftest.check (values, types, dtypes, shapes, effects) and
measured with sot.explain (min_graph_size=0): captured whole, or the first
reasons it breaks.

    PYTHONPATH=$PWD python benchmarks/numpy_programs.py [-v] [NAME ...]

Exit status 1 when a program differs from eager.

Programs that break, and why that is the right answer for now:

* where_chain: ``np.piecewise`` calls its functions on ``x[cond]`` only when
  that selection is non-empty (a branch on data) and writes the results back
  through the masks;
* pads: ``np.pad(mode="empty")`` leaves the pad uninitialised, as
  ``np.empty`` does (captured only where a program writes what it allocates);
* sets: ``np.in1d`` is no longer in ``numpy.__dict__`` (NumPy 2 deprecated
  it; the module ``__getattr__`` that answers ``hasattr`` is not simulated).
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import sot  # noqa: E402
from difftest import check  # noqa: E402

progs = {}


def prog(*args):
    def deco(f):
        assert f.__name__ not in progs, f.__name__
        progs[f.__name__] = (f, args)
        return f
    return deco


# -- batch 1 --------------------------------------------------------------------------------

rng = np.random.default_rng(0)
sig = rng.standard_normal(256)
img = rng.random((32, 32))
idx = rng.integers(0, 10, 50)
vals = rng.standard_normal(50)
X = rng.standard_normal((40, 5))
y = rng.standard_normal(40)
mask = rng.random(40) > 0.5

@prog(sig)
def moving_average(x):
    k = np.ones(5) / 5
    sm = np.convolve(x, k, mode="same")
    peaks = np.flatnonzero((sm[1:-1] > sm[:-2]) & (sm[1:-1] > sm[2:])) + 1
    return sm, peaks

@prog(sig)
def spectrum(x):
    w = np.hanning(x.size)
    X = np.fft.rfft(x * w)
    p = np.abs(X) ** 2
    f = np.fft.rfftfreq(x.size, d=0.01)
    return f[np.argmax(p)], 10 * np.log10(p + 1e-12)

@prog(img)
def sobel(im):
    p = np.pad(im, 1, mode="edge")
    gx = p[1:-1, 2:] - p[1:-1, :-2]
    gy = p[2:, 1:-1] - p[:-2, 1:-1]
    mag = np.hypot(gx, gy)
    thr = np.percentile(mag, 90)
    return mag > thr, np.count_nonzero(mag > thr)

@prog(idx, vals)
def scatter(i, v):
    out = np.zeros(10)
    np.add.at(out, i, v)
    counts = np.bincount(i, minlength=10)
    order = np.lexsort((v, i))
    return out, counts, order

@prog(X, y)
def ols(X, y):
    Xc = X - X.mean(axis=0)
    beta, *_ = np.linalg.lstsq(Xc, y, rcond=None)
    resid = y - Xc @ beta
    s2 = resid @ resid / (X.shape[0] - X.shape[1])
    cov = s2 * np.linalg.inv(Xc.T @ Xc)
    return beta, np.sqrt(np.diag(cov))

@prog(X, mask)
def masked_stats(X, m):
    n = np.count_nonzero(m)
    mu = X[m].sum(axis=0) / n
    return mu, n

@prog(X)
def standardize(X):
    mu = X.mean(0); sd = X.std(0, ddof=1)
    Z = (X - mu) / sd
    C = np.corrcoef(Z, rowvar=False)
    w, v = np.linalg.eigh(C)
    return Z, w[::-1], v[:, ::-1]

@prog(sig)
def rank_transform(x):
    r = np.empty_like(x)
    r[np.argsort(x)] = np.arange(x.size)
    q = np.quantile(x, [0.25, 0.5, 0.75])
    return r, q, np.searchsorted(np.sort(x), q)

@prog(img)
def topk(im):
    flat = im.ravel()
    k = np.argpartition(flat, -5)[-5:]
    k = k[np.argsort(flat[k])[::-1]]
    return np.unravel_index(k, im.shape)

@prog(X)
def pairwise(X):
    d = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    nn = d.argmin(1)
    return nn, np.take_along_axis(d, nn[:, None], 1)

@prog(X)
def einsum_ops(X):
    G = np.einsum("ij,ik->jk", X, X, optimize=True)
    t = np.einsum("ii", G)
    return G / t, np.linalg.norm(G, "fro"), np.linalg.slogdet(G)

@prog(sig)
def allclose_check(x):
    y = np.fft.irfft(np.fft.rfft(x), n=x.size)
    ok = np.allclose(x, y)
    return y, ok

@prog(sig)
def array_eq(x):
    y = np.sort(x)
    return np.array_equal(y, np.sort(y)), y

@prog(idx)
def repeat_arr(i):
    r = np.repeat(np.arange(i.size), i)
    return r

@prog(sig)
def divmod_arr(x):
    q, r = divmod(x * 10, 3)
    return q, r

@prog(sig)
def rev(x):
    return [v for v in reversed(x[:4])]

@prog(img)
def pad_modes(im):
    return np.pad(im, ((2, 2), (1, 1)), mode="reflect"), np.pad(im, 3, mode="linear_ramp"), np.pad(im, 2, mode="mean")

@prog(X)
def linalg_misc(X):
    A = X.T @ X
    L = np.linalg.cholesky(A)
    q, r = np.linalg.qr(X)
    u, s, vt = np.linalg.svd(X, full_matrices=False)
    return L, r, s, np.linalg.matrix_rank(X), np.linalg.cond(A), np.linalg.det(A), np.linalg.pinv(X), np.linalg.solve(A, X[:5].T)

@prog(sig)
def hist_stats(x):
    h, e = np.histogram(x, bins=10)
    c = 0.5 * (e[1:] + e[:-1])
    return h, c, np.average(c, weights=h), np.median(x), np.ptp(x), np.cumsum(h) / h.sum()

@prog(img)
def image_ops(im):
    r = np.rot90(im); f = np.flipud(im)
    cl = np.clip(im * 1.2, 0, 1)
    u8 = (cl * 255).astype(np.uint8)
    hist = np.bincount(u8.ravel(), minlength=256)
    cdf = hist.cumsum(); cdf = cdf / cdf[-1]
    eq = np.interp(u8.ravel(), np.arange(256), cdf).reshape(im.shape)
    return r, f, eq

@prog(sig)
def windows(x):
    from numpy.lib.stride_tricks import sliding_window_view
    w = sliding_window_view(x, 8)[::4]
    return w.mean(1), w.std(1)

@prog(X)
def put_along(X):
    Y = X.copy()
    i = np.argmax(Y, axis=1)[:, None]
    np.put_along_axis(Y, i, 0.0, axis=1)
    return Y, np.partition(X, 2, axis=0)[:3]

@prog(sig)
def insert_arr(x):
    return np.insert(x, np.array([1, 3]), np.array([9.0, 8.0])), np.delete(x, [0, 2])

@prog(sig)
def nan_stats(x):
    y = x.copy(); y[::7] = np.nan
    return np.nanmean(y), np.nanstd(y), np.nanargmax(y), np.isnan(y).sum(), np.nan_to_num(y)

@prog(sig)
def digitize(x):
    b = np.linspace(-3, 3, 7)
    d = np.digitize(x, b)
    return d, np.bincount(d, weights=x, minlength=8)


# -- batch 2 --------------------------------------------------------------------------------

rng = np.random.default_rng(1)
X = rng.standard_normal((30, 4)); y = (X[:, 0] > 0).astype(int)
img = rng.random((16, 16))
pts = rng.random((20, 2))
ts = np.cumsum(rng.standard_normal(100))
labels = rng.integers(0, 4, 30)

@prog(X, y)
def logistic_step(X, y):
    w = np.zeros(X.shape[1])
    for _ in range(5):
        p = 1 / (1 + np.exp(-X @ w))
        w -= 0.1 * X.T @ (p - y) / len(y)
    return w, np.mean((p > 0.5) == y)

@prog(X, labels)
def kmeans_step(X, lab):
    C = np.stack([X[lab == k].mean(0) for k in range(4)])
    d = ((X[:, None] - C[None]) ** 2).sum(-1)
    new = d.argmin(1)
    changed = np.count_nonzero(new != lab)
    return C, new, changed

@prog(X, labels)
def groupby_mean(X, lab):
    s = np.zeros((4, X.shape[1]))
    np.add.at(s, lab, X)
    n = np.bincount(lab, minlength=4)
    return s / np.maximum(n, 1)[:, None]

@prog(img)
def blur(im):
    k = np.array([1., 2., 1.]); k /= k.sum()
    p = np.pad(im, 1, mode="reflect")
    h = k[0] * p[:, :-2] + k[1] * p[:, 1:-1] + k[2] * p[:, 2:]
    v = k[0] * h[:-2] + k[1] * h[1:-1] + k[2] * h[2:]
    return v

@prog(pts)
def convex_like(p):
    c = p.mean(0)
    ang = np.arctan2(p[:, 1] - c[1], p[:, 0] - c[0])
    order = np.argsort(ang)
    q = p[order]
    area = 0.5 * np.abs(np.dot(q[:, 0], np.roll(q[:, 1], 1)) - np.dot(q[:, 1], np.roll(q[:, 0], 1)))
    return q, area

@prog(ts)
def rolling(ts):
    w = 5
    c = np.cumsum(np.insert(ts, 0, 0.0))
    ma = (c[w:] - c[:-w]) / w
    z = (ts - ts.mean()) / ts.std()
    out = np.abs(z) > 2
    return ma, np.where(out)[0], np.diff(np.sign(np.diff(ts)))

@prog(ts)
def ar_fit(ts):
    p = 3
    Xl = np.column_stack([ts[p - k - 1:len(ts) - k - 1] for k in range(p)])
    coef, res, rank, sv = np.linalg.lstsq(Xl, ts[p:], rcond=None)
    return coef, rank

@prog(X)
def pca(X):
    Xc = X - X.mean(0)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    ev = S ** 2 / (len(X) - 1)
    ratio = ev / ev.sum()
    k = np.searchsorted(np.cumsum(ratio), 0.9) + 1
    return Xc @ Vt[:2].T, ratio, k

@prog(img)
def threshold_otsu(im):
    h, e = np.histogram(im, bins=32, range=(0, 1))
    c = (e[:-1] + e[1:]) / 2
    w0 = np.cumsum(h); w1 = w0[-1] - w0
    m0 = np.cumsum(h * c) / np.maximum(w0, 1)
    m1 = (np.sum(h * c) - np.cumsum(h * c)) / np.maximum(w1, 1)
    var = w0 * w1 * (m0 - m1) ** 2
    return c[np.argmax(var)]

@prog(ts)
def quantile_bins(ts):
    edges = np.quantile(ts, np.linspace(0, 1, 5))
    idx = np.clip(np.searchsorted(edges, ts, side="right") - 1, 0, 3)
    return idx, np.bincount(idx, minlength=4)

@prog(X)
def cov_stuff(X):
    C = np.cov(X, rowvar=False)
    ic = np.linalg.inv(C)
    m = X.mean(0)
    d = np.einsum("ij,jk,ik->i", X - m, ic, X - m)
    return np.sqrt(d), np.linalg.eigvalsh(C), np.trace(C), np.diag(C)

@prog(img)
def img_misc(im):
    t = np.tile(im[:2, :2], (2, 3)); r = np.repeat(im[:2], 2, axis=0)
    m = np.maximum.accumulate(im, axis=1)
    mx = np.unravel_index(np.argmax(im), im.shape)
    return t, r, m, mx, np.flip(im, 0), np.transpose(im)[::2], np.kron(im[:2, :2], np.ones((2, 2)))

@prog(ts)
def sort_ops(ts):
    s = np.sort(ts)[::-1]
    r = np.argsort(np.argsort(ts))
    u, inv, cnt = np.unique(np.round(ts), return_inverse=True, return_counts=True)
    return s[:5], r, u, inv, cnt, np.median(ts), np.percentile(ts, [5, 95])

@prog(X)
def normalize_rows(X):
    n = np.linalg.norm(X, axis=1, keepdims=True)
    Y = np.divide(X, n, out=np.zeros_like(X), where=n > 0)
    return Y, np.max(np.abs(Y), axis=1), np.isfinite(Y).all()

@prog(img)
def mgrid_ops(im):
    yy, xx = np.mgrid[0:16, 0:16]
    cy = (yy * im).sum() / im.sum(); cx = (xx * im).sum() / im.sum()
    oy, ox = np.ogrid[:16, :16]
    r = np.hypot(oy - cy, ox - cx)
    return cy, cx, r

@prog(ts)
def where_chain(ts):
    a = np.where(ts > 0, ts, 0)
    b = np.select([ts < -1, ts > 1], [-1, 1], default=0)
    c = np.piecewise(ts, [ts < 0, ts >= 0], [lambda x: -x, lambda x: x])
    return a, b, c

@prog(X)
def triu_ops(X):
    C = X.T @ X
    iu = np.triu_indices(4, 1)
    return C[iu], np.tril(C), np.fill_diagonal(C, 0), C

@prog(ts)
def fft_filter(ts):
    F = np.fft.fft(ts)
    f = np.fft.fftfreq(ts.size)
    F[np.abs(f) > 0.1] = 0
    return np.fft.ifft(F).real, np.fft.fftshift(f)

@prog(X)
def matrix_power_ops(X):
    A = X.T @ X / len(X)
    return np.linalg.matrix_power(A, 3), np.linalg.eigh(A)[0], np.linalg.norm(A, 2), np.outer(A[0], A[1])

@prog(ts, 3)
def grid_with_number(ts, n):
    g = np.mgrid[0:n, 0:4]
    o = np.ogrid[0:n]
    return g, o, np.linspace(0, 1, n), np.arange(n) * ts[0]


# -- batch 3 --------------------------------------------------------------------------------

rng = np.random.default_rng(2)
X = rng.standard_normal((12, 6)); v = rng.standard_normal(40); idx = rng.integers(0, 12, 20)
img = rng.random((10, 12)); st = rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)

@prog(v)
def reduceat(v):
    starts = np.array([0, 5, 12, 30])
    return np.add.reduceat(v, starts), np.maximum.reduceat(v, [0, 10, 20]), np.add.accumulate(v)[::7]

@prog(X, idx)
def take_put(X, i):
    a = np.take(X, i, axis=0); b = np.take(X.ravel(), i * 3, mode="wrap")
    Y = X.copy(); np.put(Y, [0, 5, 9], [1.0, 2.0, 3.0]); np.putmask(Y, Y > 2, 0.0)
    Z = X.copy(); np.place(Z, Z < -1, [-1.0])
    return a, b, Y, Z

@prog(img)
def pads(im):
    return (np.pad(im, 2, mode="maximum"), np.pad(im, ((1, 1), (2, 0)), mode="median"), np.pad(im, 1, mode="minimum"),
            np.pad(im, 3, mode="symmetric", reflect_type="odd"), np.pad(im, (1, 2), mode="empty").shape)

@prog(st)
def stacked_linalg(S):
    return (np.linalg.inv(S), np.linalg.det(S), np.linalg.solve(S, np.ones((3, 4, 1))), np.linalg.eigh(S @ S.transpose(0, 2, 1))[0],
            np.linalg.norm(S, axis=(1, 2)), np.linalg.cholesky(S @ S.transpose(0, 2, 1)), np.linalg.slogdet(S))

@prog(img)
def grads(im):
    gy, gx = np.gradient(im)
    return gy, gx, np.diff(im, axis=1, prepend=0), np.fft.fft2(im).real, np.fft.ifftshift(im), np.trapezoid(im, axis=0)

@prog(X)
def einsum_paths(X):
    A = X[:6]; B = X[6:]
    path = np.einsum_path("ij,jk,kl->il", A, B.T, A, optimize="greedy")[0]
    return np.einsum("ij,jk,kl->il", A, B.T, A, optimize=path), np.einsum("i,i->", X[0], X[1]), np.einsum("bi,bj->bij", X, X)

@prog(v)
def sorting(v):
    k = 5
    part = np.partition(v, k)[:k]
    ap = np.argpartition(-v, k)[:k]
    order = np.lexsort((np.round(v, 1), v > 0))
    ss = np.searchsorted(np.sort(v), [-1.0, 0.0, 1.0])
    return np.sort(part), np.sort(ap), order, ss, np.sort(v, kind="stable")[::-1]

@prog(X)
def stats2(X):
    return (np.corrcoef(X.T), np.cov(X, rowvar=False, ddof=0), np.nanmedian(X, axis=0), np.ptp(X, axis=1),
            np.histogram2d(X[:, 0], X[:, 1], bins=4)[0], np.average(X, axis=0, weights=np.arange(12.0)),
            np.var(X, axis=0, ddof=1), np.argmax(X, axis=None), np.cumprod(1 + X[:, 0] * 0.01))

@prog(v)
def windows2(v):
    from numpy.lib.stride_tricks import sliding_window_view
    w = sliding_window_view(v, 5)
    med = np.median(w, axis=1)
    return med, np.convolve(v, np.ones(3) / 3, mode="valid"), np.correlate(v, v[:5], "same")

@prog(img)
def interp2(im):
    x = np.linspace(0, 11, 25)
    rows = np.array([np.interp(x, np.arange(12), r) for r in im])
    return rows, np.clip(np.round(im * 10), 2, 8).astype(np.int8)

@prog(idx)
def sets(i):
    u = np.unique(i)
    return u, np.isin(i, [1, 2, 3]), np.setdiff1d(np.arange(12), i), np.intersect1d(i, [1, 5, 7]), np.in1d(i, u) if hasattr(np, "in1d") else None

@prog(X, 3)
def topk_rows(X, k):
    i = np.argsort(X, axis=1)[:, -k:]
    return np.take_along_axis(X, i, axis=1), np.sort(X, axis=1)[:, ::-1][:, :k]

@prog(v)
def nan_ops(v):
    w = np.where(v > 1, np.nan, v)
    return np.nancumsum(w), np.nanargmin(w), np.nanpercentile(w, 50), np.isnan(w).any(), np.count_nonzero(np.isnan(w))

@prog(img)
def blocks(im):
    b = im[:10, :12].reshape(5, 2, 6, 2).mean(axis=(1, 3))
    t = np.block([[b, b], [b, b]])
    s = np.split(im, [3, 7], axis=0)
    return b, t, [x.sum() for x in s], np.array_split(im, 3, axis=1)[2]


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="list every break")
    parser.add_argument("names", nargs="*")
    opts = parser.parse_args(argv)
    counts = {"whole": 0, "breaks": 0, "differs": 0}
    for name, (f, args) in progs.items():
        if opts.names and name not in opts.names:
            continue
        try:
            check(f, args, calls=2)
        except Exception as e:  # noqa: BLE001 - a defect: listed always
            counts["differs"] += 1
            print(f"  DIFFERS  {name}: {type(e).__name__}: {str(e)[:300]}")
            continue
        breaks = [str(b).splitlines()[0] for b in sot.explain(sot.to_static(f, min_graph_size=0), *args).breaks]
        counts["breaks" if breaks else "whole"] += 1
        if breaks and opts.verbose:
            print(f"  BREAKS   {name}: " + "; ".join(breaks))
    total = sum(counts.values())
    print(f"{counts['whole']}/{total} programs captured whole, {counts['breaks']} break, {counts['differs']} differ")
    return 1 if counts["differs"] else 0


if __name__ == "__main__":
    sys.exit(main())
