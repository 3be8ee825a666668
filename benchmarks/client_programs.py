"""Client programs: NumPy code as scientists and engineers write it, decorated
the way a user decorates it (functions, methods, helpers calling each other,
time-step loops calling a decorated step).

Each program is a ``build(deco)`` that defines its functions under ``@deco``
(identity for eager, ``sot.to_static(backend=...)`` for traced) and returns
``main``, plus ``inputs(n, seed)`` giving fresh arguments for ``main`` at
problem size ``n``. ``benchmarks/clients.py`` times them;
``tests/test_client_programs.py`` checks decorated against eager bitwise.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def program_registry():
    """A dict of programs and the ``program`` decorator that fills it (one
    per file of programs)."""
    programs: dict = {}

    def program(name, sizes, bench):
        """Register ``build`` under ``name``; ``sizes`` are the small test sizes,
        ``bench`` the benchmark size."""
        def register(build):
            def inputs_of(fn):
                programs[name] = (build, fn, tuple(sizes), bench)
                return fn
            build.inputs = inputs_of
            return build
        return register
    return programs, program


PROGRAMS, program = program_registry()


# -- k-means clustering -------------------------------------------------------

@program("kmeans", sizes=(40, 57), bench=2000)
def kmeans(deco):
    @deco
    def assign(X, C):
        d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1)
        return d2.argmin(axis=1), d2.min(axis=1)

    @deco
    def update(X, labels, k):
        sums = np.zeros((k, X.shape[1]), dtype=X.dtype)
        np.add.at(sums, labels, X)
        counts = np.bincount(labels, minlength=k)
        return sums / np.maximum(counts, 1)[:, None], counts

    def main(X, k, rng, iters=10):
        C = X[rng.choice(len(X), size=k, replace=False)].copy()
        history = []
        for _ in range(iters):
            labels, dist = assign(X, C)
            C_new, counts = update(X, labels, k)
            history.append(float(dist.sum()))
            if np.allclose(C_new, C):
                break
            C = C_new
        return C, labels, counts, history
    return main


@kmeans.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=5, size=(4, 3))
    X = centres[rng.integers(0, 4, n)] + rng.normal(size=(n, 3))
    return X, 4, np.random.default_rng(seed + 1)


# -- PCA with SVD whitening ------------------------------------------------------

@program("pca_whiten", sizes=(30, 45), bench=4000)
def pca_whiten(deco):
    @deco
    def fit(X, n_components, eps=1e-8):
        mean = X.mean(axis=0)
        Xc = X - mean
        U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
        explained = S ** 2 / (X.shape[0] - 1)
        ratio = explained / explained.sum()
        components = Vt[:n_components]
        scale = 1.0 / np.sqrt(explained[:n_components] + eps)
        return mean, components, scale, ratio

    @deco
    def transform(X, mean, components, scale):
        Z = (X - mean) @ components.T
        Z *= scale
        return Z

    def main(X, k):
        mean, comps, scale, ratio = fit(X, k)
        Z = transform(X, mean, comps, scale)
        cov = np.cov(Z, rowvar=False)
        return Z, ratio, np.cumsum(ratio), cov
    return main


@pca_whiten.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(8, 8))
    return rng.normal(size=(n, 8)) @ A, 3


# -- 2-D heat equation, explicit stencil, in place -------------------------------

@program("heat2d", sizes=(12, 17), bench=256)
def heat2d(deco):
    @deco
    def apply_bc(u, t):
        u[0, :] = 1.0                  # hot wall
        u[-1, :] = 0.0
        u[:, 0] = u[:, 1]              # insulated sides
        u[:, -1] = u[:, -2]

    @deco
    def step(u, alpha, dt, dx):
        lap = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]) / dx ** 2
        u[1:-1, 1:-1] += alpha * dt * lap
        return np.abs(lap).max()

    def main(u, steps=20, alpha=0.1):
        dx = 1.0 / (u.shape[0] - 1)
        dt = 0.2 * dx ** 2 / alpha
        residuals = []
        for t in range(steps):
            apply_bc(u, t)
            residuals.append(step(u, alpha, dt, dx))
        return u, np.array(residuals)
    return main


@heat2d.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.random((n, n)) * 0.1,)


# -- 1-D wave equation with np.roll (periodic) -----------------------------------

@program("wave1d", sizes=(32, 50), bench=100_000)
def wave1d(deco):
    @deco
    def leapfrog(u_prev, u, c, dt, dx):
        lap = np.roll(u, 1) - 2 * u + np.roll(u, -1)
        u_next = 2 * u - u_prev + (c * dt / dx) ** 2 * lap
        return u, u_next

    @deco
    def energy(u_prev, u, dt, dx):
        ut = (u - u_prev) / dt
        ux = np.gradient(u, dx)
        return 0.5 * np.sum(ut ** 2 + ux ** 2) * dx

    def main(u0, steps=30, c=1.0):
        dx = 1.0 / u0.size
        dt = 0.5 * dx / c
        u_prev, u = u0.copy(), u0.copy()
        energies = []
        for _ in range(steps):
            u_prev, u = leapfrog(u_prev, u, c, dt, dx)
            energies.append(energy(u_prev, u, dt, dx))
        return u, energies
    return main


@wave1d.inputs
def _(n, seed):
    x = np.linspace(0, 1, n, endpoint=False)
    return (np.exp(-200 * (x - 0.3 - 0.01 * seed) ** 2),)


# -- Kalman filter, a class with decorated methods ---------------------------------

class KalmanFilter:
    def __init__(self, dim, dt, q=1e-3, r=0.5):
        self.F = np.eye(2 * dim) + np.eye(2 * dim, k=dim) * dt
        self.H = np.eye(dim, 2 * dim)
        self.Q = q * np.eye(2 * dim)
        self.R = r * np.eye(dim)
        self.x = np.zeros(2 * dim)
        self.P = np.eye(2 * dim)
        self.log_likelihood = 0.0

    def predict(self):
        self.x = self.F @ self.x
        self.P = self.F @ self.P @ self.F.T + self.Q

    def update(self, z):
        y = z - self.H @ self.x
        S = self.H @ self.P @ self.H.T + self.R
        K = np.linalg.solve(S, self.H @ self.P).T
        self.x = self.x + K @ y
        I_KH = np.eye(self.P.shape[0]) - K @ self.H
        self.P = I_KH @ self.P @ I_KH.T + K @ self.R @ K.T
        sign, logdet = np.linalg.slogdet(S)
        self.log_likelihood += -0.5 * (y @ np.linalg.solve(S, y) + logdet + len(z) * np.log(2 * np.pi))
        return y


@program("kalman", sizes=(15, 22), bench=400)
def kalman(deco):
    class Tracker(KalmanFilter):
        predict = deco(KalmanFilter.predict)
        update = deco(KalmanFilter.update)

    def main(zs, dt=0.1):
        kf = Tracker(zs.shape[1], dt)
        states, innovations = [], []
        for z in zs:
            kf.predict()
            innovations.append(kf.update(z))
            states.append(kf.x.copy())
        return np.stack(states), np.stack(innovations), kf.P, kf.log_likelihood
    return main


@kalman.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(n) * 0.1
    truth = np.stack([np.sin(t), np.cos(t)], axis=1)
    return (truth + rng.normal(scale=0.3, size=truth.shape),)


# -- image processing: padding, stride-trick convolution, Sobel, histogram eq. -----

@program("image", sizes=(16, 23), bench=512)
def image(deco):
    @deco
    def convolve2d(img, kernel):
        kh, kw = kernel.shape
        padded = np.pad(img, ((kh // 2, kh // 2), (kw // 2, kw // 2)), mode="reflect")
        windows = sliding_window_view(padded, (kh, kw))
        return np.einsum("ijkl,kl->ij", windows, kernel[::-1, ::-1])

    @deco
    def sobel(img):
        kx = np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]], dtype=np.float64)
        gx = convolve2d(img, kx)
        gy = convolve2d(img, kx.T)
        mag = np.hypot(gx, gy)
        angle = np.arctan2(gy, gx)
        return mag, angle

    @deco
    def equalize(img8):
        hist = np.bincount(img8.ravel(), minlength=256)
        cdf = hist.cumsum()
        cdf_min = cdf[cdf > 0].min()
        lut = np.round((cdf - cdf_min) / (cdf[-1] - cdf_min) * 255)
        lut = np.clip(lut, 0, 255).astype(np.uint8)
        return lut[img8]

    def main(img):
        blur = convolve2d(img, np.full((3, 3), 1 / 9))
        mag, angle = sobel(blur)
        edges = mag > np.percentile(mag, 90)
        img8 = (255 * (img - img.min()) / np.ptp(img)).astype(np.uint8)
        eq = equalize(img8)
        return mag, angle, edges, eq
    return main


@image.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:n, 0:n]
    return ((x > n // 2).astype(float) + 0.1 * rng.random((n, n)) + 0.3 * (y / n),)


# -- Monte Carlo option pricing with a Generator -----------------------------------

@program("monte_carlo", sizes=(200, 333), bench=200_000)
def monte_carlo(deco):
    @deco
    def gbm_paths(rng, s0, mu, sigma, T, steps, n_paths):
        dt = T / steps
        z = rng.standard_normal((n_paths, steps))
        increments = (mu - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * z
        log_paths = np.cumsum(increments, axis=1)
        return s0 * np.exp(log_paths)

    @deco
    def price(paths, strike, r, T):
        disc = np.exp(-r * T)
        euro = disc * np.maximum(paths[:, -1] - strike, 0.0)
        asian = disc * np.maximum(paths.mean(axis=1) - strike, 0.0)
        n = paths.shape[0]
        return euro.mean(), euro.std(ddof=1) / np.sqrt(n), asian.mean(), asian.std(ddof=1) / np.sqrt(n)

    def main(rng, n_paths):
        out = []
        for strike in (90.0, 100.0, 110.0):
            paths = gbm_paths(rng, 100.0, 0.05, 0.2, 1.0, 16, n_paths)
            out.append(price(paths, strike, 0.05, 1.0))
        return out
    return main


@monte_carlo.inputs
def _(n, seed):
    return np.random.default_rng(seed), n


# -- logistic regression in a class -------------------------------------------------

class LogisticRegression:
    def __init__(self, n_features, lr=0.1, l2=1e-3):
        self.w = np.zeros(n_features)
        self.b = 0.0
        self.lr = lr
        self.l2 = l2
        self.losses = []

    @staticmethod
    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))

    def predict_proba(self, X):
        return self.sigmoid(X @ self.w + self.b)

    def loss(self, X, y):
        p = np.clip(self.predict_proba(X), 1e-12, 1 - 1e-12)
        return -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)) + 0.5 * self.l2 * self.w @ self.w

    def step(self, X, y):
        p = self.predict_proba(X)
        err = p - y
        grad_w = X.T @ err / len(y) + self.l2 * self.w
        grad_b = err.mean()
        self.w -= self.lr * grad_w
        self.b -= self.lr * grad_b
        self.losses.append(self.loss(X, y))

    def fit(self, X, y, epochs):
        for _ in range(epochs):
            self.step(X, y)
        return self


@program("logreg", sizes=(30, 41), bench=5000)
def logreg(deco):
    class Model(LogisticRegression):
        step = deco(LogisticRegression.step)
        predict_proba = deco(LogisticRegression.predict_proba)

    def main(X, y, epochs=15):
        model = Model(X.shape[1]).fit(X, y, epochs)
        pred = model.predict_proba(X) > 0.5
        return model.w, model.b, model.losses, (pred == y).mean()
    return main


@logreg.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X @ np.array([1.0, -2.0, 0.5, 0.0, 1.5]) + rng.normal(size=n) > 0).astype(float)
    return X, y


# -- particles on a grid: searchsorted, bincount, add.at, in-place updates ---------

@program("particles", sizes=(50, 77), bench=100_000)
def particles(deco):
    @deco
    def deposit(x, q, edges):
        cell = np.searchsorted(edges, x, side="right") - 1
        rho = np.bincount(cell, weights=q, minlength=len(edges) - 1)
        return cell, rho

    @deco
    def push(x, v, E, cell, dt, L):
        a = E[cell]
        v += a * dt
        x += v * dt
        np.mod(x, L, out=x)
        return 0.5 * np.sum(v * v)

    @deco
    def field(rho, dx):
        rho0 = rho - rho.mean()
        E = np.cumsum(rho0) * dx
        E -= E.mean()
        return E

    def main(x, v, q, n_cells=16, steps=12, L=1.0):
        edges = np.linspace(0, L, n_cells + 1)
        dx = L / n_cells
        kinetic = []
        for _ in range(steps):
            cell, rho = deposit(x, q, edges)
            E = field(rho, dx)
            kinetic.append(push(x, v, E, cell, 0.05, L))
        counts = np.zeros(n_cells, dtype=np.int64)
        np.add.at(counts, cell, 1)
        return x, v, kinetic, counts
    return main


@particles.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return rng.random(n), rng.normal(scale=0.1, size=n), np.full(n, 1.0 / n)


# -- signal processing with np.fft ----------------------------------------------------

@program("spectral", sizes=(64, 100), bench=65536)
def spectral(deco):
    @deco
    def bandpass(x, fs, lo, hi):
        X = np.fft.rfft(x * np.hanning(len(x)))
        f = np.fft.rfftfreq(len(x), d=1 / fs)
        X[(f < lo) | (f > hi)] = 0
        return np.fft.irfft(X, n=len(x)), f

    @deco
    def spectrum(x, fs):
        X = np.fft.rfft(x)
        power = np.abs(X) ** 2 / len(x)
        f = np.fft.rfftfreq(len(x), d=1 / fs)
        peak = np.argmax(power[1:]) + 1
        return f[peak], power, np.angle(X[peak])

    def main(x, fs=1000.0):
        y, f = bandpass(x, fs, 20.0, 120.0)
        peak_f, power, phase = spectrum(y, fs)
        smooth = np.convolve(y, np.ones(5) / 5, mode="same")
        return y, peak_f, power, phase, smooth
    return main


@spectral.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 1000.0
    return (np.sin(2 * np.pi * 50 * t) + 0.5 * np.sin(2 * np.pi * 300 * t) + 0.2 * rng.normal(size=n),)


# -- data cleaning without pandas -------------------------------------------------------

SENSOR = np.dtype([("station", "i4"), ("day", "i4"), ("temp", "f8"), ("rain", "f8")])


@program("cleaning", sizes=(40, 61), bench=50_000)
def cleaning(deco):
    @deco
    def fill_and_flag(temp, rain):
        bad = np.isnan(temp) | (temp < -50) | (temp > 60)
        temp = np.where(bad, np.nan, temp)
        med = np.nanmedian(temp)
        z = (temp - np.nanmean(temp)) / np.nanstd(temp)
        outlier = np.abs(np.nan_to_num(z)) > 3
        filled = np.where(np.isnan(temp), med, temp)
        rain = np.nan_to_num(rain, nan=0.0)
        rain[rain < 0] = 0
        return filled, rain, bad, outlier

    @deco
    def per_station(station, temp, rain):
        ids, inv, counts = np.unique(station, return_inverse=True, return_counts=True)
        mean_t = np.bincount(inv, weights=temp) / counts
        total_r = np.bincount(inv, weights=rain)
        order = np.argsort(-total_r, kind="stable")
        return ids[order], mean_t[order], total_r[order], counts[order]

    def main(records):
        temp, rain, bad, outlier = fill_and_flag(records["temp"], records["rain"].copy())
        order = np.lexsort((records["day"], records["station"]))
        ids, mean_t, total_r, counts = per_station(records["station"][order], temp[order], rain[order])
        q = np.percentile(temp, [5, 50, 95])
        return ids, mean_t, total_r, counts, int(bad.sum()), int(outlier.sum()), q
    return main


@cleaning.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    rec = np.zeros(n, dtype=SENSOR)
    rec["station"] = rng.integers(100, 105, n)
    rec["day"] = rng.permutation(n)
    rec["temp"] = rng.normal(15, 8, n)
    rec["rain"] = rng.exponential(2, n)
    rec["temp"][rng.random(n) < 0.1] = np.nan
    rec["temp"][rng.random(n) < 0.03] = 999.0
    rec["rain"][rng.random(n) < 0.05] = -1.0
    return (rec,)
