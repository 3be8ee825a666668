"""Client programs, second set: training loops with in-place optimiser
updates, ODE integration, kernel methods, option pricing, time-series
features, an n-body class, a ray tracer, matrix factorisation, PageRank over
a hand-written CSR matrix, an attention block in a model object, and a small
convolutional network; written as users write them (classes, dicts of
parameters, helpers, progress prints, early stopping).

Same protocol as ``client_programs.py``: each program is ``build(deco)``
returning ``main``, with ``inputs(n, seed)`` giving fresh arguments.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from client_programs import program_registry

PROGRAMS, program = program_registry()


# -- MLP with manual backprop and Adam, parameters in a dict ------------------------

@program("mlp_adam", sizes=(24, 37), bench=2000)
def mlp_adam(deco):
    def init_params(sizes, rng):
        params = {}
        for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            params[f"W{i}"] = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))
            params[f"b{i}"] = np.zeros(fan_out)
        return params

    @deco
    def forward(params, X):
        h = X @ params["W0"] + params["b0"]
        a = np.maximum(h, 0.0)
        logits = a @ params["W1"] + params["b1"]
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        return p, (X, h, a)

    @deco
    def backward(params, p, cache, y):
        X, h, a = cache
        n = X.shape[0]
        d = p.copy()
        d[np.arange(n), y] -= 1.0
        d /= n
        grads = {"W1": a.T @ d, "b1": d.sum(axis=0)}
        da = d @ params["W1"].T
        da[h <= 0] = 0.0
        grads["W0"] = X.T @ da
        grads["b0"] = da.sum(axis=0)
        return grads

    @deco
    def adam_step(params, grads, state, lr=1e-2, beta1=0.9, beta2=0.999, eps=1e-8):
        state["t"] += 1
        t = state["t"]
        for k in params:
            m, v, g = state["m"][k], state["v"][k], grads[k]
            m *= beta1
            m += (1 - beta1) * g
            np.multiply(v, beta2, out=v)
            v += (1 - beta2) * g * g
            m_hat = m / (1 - beta1 ** t)
            v_hat = v / (1 - beta2 ** t)
            params[k] -= lr * m_hat / (np.sqrt(v_hat) + eps)

    def main(X, y, rng, epochs=30, patience=5):
        params = init_params([X.shape[1], 16, 3], rng)
        state = {"t": 0, "m": {k: np.zeros_like(v) for k, v in params.items()},
                 "v": {k: np.zeros_like(v) for k, v in params.items()}}
        best, bad, losses = np.inf, 0, []
        for epoch in range(epochs):
            p, cache = forward(params, X)
            loss = -np.log(p[np.arange(len(y)), y] + 1e-12).mean()
            losses.append(loss)
            if epoch % 10 == 0:
                print(f"epoch {epoch:3d} loss {loss:.6f}")
            if loss < best - 1e-4:
                best, bad = loss, 0
            else:
                bad += 1
                if bad >= patience:
                    print("early stop at", epoch)
                    break
            adam_step(params, backward(params, p, cache, y), state)
        return params, state, losses
    return main


@mlp_adam.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, 4)) + y[:, None] * np.array([1.0, -1.0, 0.5, 0.0])
    return X, y, np.random.default_rng(seed + 7)


# -- RK4 integration of the Lorenz system and a pendulum array ------------------------

def lorenz(t, s, sigma=10.0, rho=28.0, beta=8.0 / 3.0):
    x, y, z = s[..., 0], s[..., 1], s[..., 2]
    return np.stack([sigma * (y - x), x * (rho - z) - y, x * y - beta * z], axis=-1)


def pendulum(t, s, g=9.81, length=1.0, damping=0.1):
    theta, omega = s[:, 0], s[:, 1]
    return np.column_stack([omega, -g / length * np.sin(theta) - damping * omega])


@program("rk4", sizes=(5, 8), bench=2000)
def rk4(deco):
    @deco
    def rk4_step(f, t, y, dt):
        k1 = f(t, y)
        k2 = f(t + dt / 2, y + dt / 2 * k1)
        k3 = f(t + dt / 2, y + dt / 2 * k2)
        k4 = f(t + dt, y + dt * k3)
        return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    def integrate(f, y0, t0, t1, steps):
        dt = (t1 - t0) / steps
        ys = [y0]
        y, t = y0, t0
        for i in range(steps):
            y = rk4_step(f, t, y, dt)
            t += dt
            ys.append(y)
        return np.array(ys)

    def main(y0_lorenz, y0_pend, steps=40):
        traj = integrate(lorenz, y0_lorenz, 0.0, 0.5, steps)
        swing = integrate(pendulum, y0_pend, 0.0, 2.0, steps)
        energy = 0.5 * swing[..., 1] ** 2 + 9.81 * (1 - np.cos(swing[..., 0]))
        return traj, swing, energy
    return main


@rk4.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)) + np.array([1.0, 1.0, 20.0]), rng.uniform(-1, 1, size=(n, 2))


# -- Gaussian-process regression with a hyper-parameter grid ---------------------------

@program("gp_regress", sizes=(12, 19), bench=600)
def gp_regress(deco):
    @deco
    def rbf(A, B, length_scale, variance):
        d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
        return variance * np.exp(-0.5 * d2 / length_scale ** 2)

    @deco
    def fit(X, y, length_scale, variance, noise):
        K = rbf(X, X, length_scale, variance) + noise * np.eye(len(X))
        L = np.linalg.cholesky(K)
        alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
        log_ml = -0.5 * y @ alpha - np.log(np.diag(L)).sum() - 0.5 * len(X) * np.log(2 * np.pi)
        return L, alpha, log_ml

    @deco
    def predict(X, Xs, L, alpha, length_scale, variance):
        Ks = rbf(X, Xs, length_scale, variance)
        mean = Ks.T @ alpha
        v = np.linalg.solve(L, Ks)
        var = variance - (v * v).sum(axis=0)
        return mean, np.sqrt(np.maximum(var, 0.0))

    def main(X, y, Xs):
        best = None
        for ls in (0.3, 1.0, 3.0):
            for var in (0.5, 2.0):
                L, alpha, lml = fit(X, y, ls, var, 1e-2)
                if best is None or lml > best[0]:
                    best = (lml, ls, var, L, alpha)
        lml, ls, var, L, alpha = best
        print(f"best length scale {ls} variance {var} log ML {lml:.4f}")
        return predict(X, Xs, L, alpha, ls, var), lml
    return main


@gp_regress.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, 2))
    y = np.sin(X[:, 0]) * np.cos(X[:, 1]) + 0.05 * rng.normal(size=n)
    return X, y, rng.uniform(-3, 3, size=(n // 2 + 1, 2))


# -- Black-Scholes closed form, Greeks, and a Monte Carlo check -------------------------

def norm_cdf(x):
    # Abramowitz & Stegun 7.1.26 on erf, as code without scipy does it
    z = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * (1.0 + np.sign(x) * erf)


@program("black_scholes", sizes=(64, 101), bench=200_000)
def black_scholes(deco):
    @deco
    def bs_price(S, K, T, r, sigma, call=True):
        sqrtT = np.sqrt(T)
        d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * sqrtT)
        d2 = d1 - sigma * sqrtT
        if call:
            return S * norm_cdf(d1) - K * np.exp(-r * T) * norm_cdf(d2)
        return K * np.exp(-r * T) * norm_cdf(-d2) - S * norm_cdf(-d1)

    @deco
    def greeks(S, K, T, r, sigma, h=1e-4):
        up, mid, down = bs_price(S + h, K, T, r, sigma), bs_price(S, K, T, r, sigma), bs_price(S - h, K, T, r, sigma)
        delta = (up - down) / (2 * h)
        gamma = (up - 2 * mid + down) / h ** 2
        vega = (bs_price(S, K, T, r, sigma + h) - mid) / h
        return {"delta": delta, "gamma": gamma, "vega": vega}

    @deco
    def mc_price(S0, K, T, r, sigma, z):
        ST = S0 * np.exp((r - 0.5 * sigma ** 2) * T + sigma * np.sqrt(T) * z)
        ST_anti = S0 * np.exp((r - 0.5 * sigma ** 2) * T - sigma * np.sqrt(T) * z)
        payoff = 0.5 * (np.maximum(ST - K, 0) + np.maximum(ST_anti - K, 0))
        return np.exp(-r * T) * payoff.mean(), np.exp(-r * T) * payoff.std() / np.sqrt(len(z))

    def main(S, K, T, z, r=0.03, sigma=0.25):
        calls = bs_price(S, K, T, r, sigma)
        puts = bs_price(S, K, T, r, sigma, call=False)
        parity = np.abs(calls - puts - (S - K * np.exp(-r * T))).max()
        g = greeks(S, K, T, r, sigma)
        mc, se = mc_price(100.0, 100.0, 1.0, r, sigma, z)
        print(f"parity error {parity:.2e}, MC {mc:.4f} +- {se:.4f}")
        return calls, puts, g, mc, se
    return main


@black_scholes.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(50, 150, n), rng.uniform(60, 140, n), rng.uniform(0.1, 2.0, n),
            rng.standard_normal(n * 4))


# -- time-series features: rolling windows, EMA loop, z-scores --------------------------

@program("ts_features", sizes=(40, 63), bench=20_000)
def ts_features(deco):
    @deco
    def rolling_mean_std(x, w):
        c = np.cumsum(np.insert(x, 0, 0.0))
        c2 = np.cumsum(np.insert(x * x, 0, 0.0))
        mean = (c[w:] - c[:-w]) / w
        var = (c2[w:] - c2[:-w]) / w - mean ** 2
        return mean, np.sqrt(np.maximum(var, 0.0))

    @deco
    def ema(x, alpha):
        out = np.empty_like(x)
        out[0] = x[0]
        for i in range(1, len(x)):
            out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
        return out

    @deco
    def features(prices, cfg):
        logret = np.diff(np.log(prices))
        feats = {}
        for w in cfg["windows"]:
            m, s = rolling_mean_std(logret, w)
            pad = np.full(w - 1, np.nan)
            feats[f"mean_{w}"] = np.concatenate([pad, m])
            feats[f"z_{w}"] = np.concatenate([pad, (logret[w - 1:] - m) / (s + 1e-12)])
        win = sliding_window_view(prices, cfg["windows"][-1])
        feats["range"] = np.concatenate([np.full(cfg["windows"][-1] - 2, np.nan), win.max(1) - win.min(1)])
        feats["ema"] = ema(logret, cfg["alpha"])
        return feats

    def main(prices, cfg):
        feats = features(prices, cfg)
        X = np.column_stack([feats[k] for k in sorted(feats)])
        valid = ~np.isnan(X).any(axis=1)
        print(f"{valid.sum()} valid rows of {len(X)}")
        return X[valid], sorted(feats)
    return main


@ts_features.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(0.01 * rng.standard_normal(n))), {"windows": [3, 5, 10], "alpha": 0.2}


# -- n-body with a class holding state, leapfrog ----------------------------------------

class NBody:
    def __init__(self, pos, vel, mass, G=1.0, softening=0.05):
        self.pos, self.vel, self.mass = pos, vel, mass
        self.G, self.softening = G, softening
        self.time = 0.0
        self.energies = []

    @property
    def n(self):
        return len(self.mass)

    def accelerations(self):
        d = self.pos[None, :, :] - self.pos[:, None, :]
        inv_r3 = (np.sum(d ** 2, axis=-1) + self.softening ** 2) ** -1.5
        np.fill_diagonal(inv_r3, 0.0)
        return self.G * np.einsum("ijk,ij,j->ik", d, inv_r3, self.mass)

    def energy(self):
        kinetic = 0.5 * np.sum(self.mass * np.sum(self.vel ** 2, axis=1))
        d = self.pos[None, :, :] - self.pos[:, None, :]
        r = np.sqrt(np.sum(d ** 2, axis=-1) + self.softening ** 2)
        iu = np.triu_indices(self.n, 1)
        potential = -self.G * np.sum((self.mass[:, None] * self.mass[None, :] / r)[iu])
        return kinetic + potential

    def step(self, dt):
        self.vel += 0.5 * dt * self.accelerations()
        self.pos += dt * self.vel
        self.vel += 0.5 * dt * self.accelerations()
        self.time += dt


@program("nbody", sizes=(6, 9), bench=300)
def nbody(deco):
    class System(NBody):
        step = deco(NBody.step)
        energy = deco(NBody.energy)

    def main(pos, vel, mass, steps=20, dt=0.01):
        sim = System(pos, vel, mass)
        e0 = sim.energy()
        for i in range(steps):
            sim.step(dt)
            if i % 5 == 0:
                sim.energies.append(sim.energy())
        drift = abs(sim.energy() - e0) / abs(e0)
        print(f"t={sim.time:.2f} relative energy drift {drift:.3e}")
        return sim.pos, sim.vel, sim.energies, sim.time
    return main


@nbody.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)), 0.1 * rng.normal(size=(n, 3)), rng.uniform(0.5, 1.5, n)


# -- ray-sphere renderer with masks ------------------------------------------------------

@program("raytrace", sizes=(8, 13), bench=300)
def raytrace(deco):
    @deco
    def intersect(origins, dirs, center, radius):
        oc = origins - center
        b = np.sum(oc * dirs, axis=-1)
        c = np.sum(oc * oc, axis=-1) - radius * radius
        disc = b * b - c
        hit = disc > 0
        sq = np.sqrt(np.where(hit, disc, 0.0))
        t0, t1 = -b - sq, -b + sq
        t = np.where(t0 > 1e-6, t0, t1)
        return np.where(hit & (t > 1e-6), t, np.inf)

    @deco
    def render(width, height, spheres, light):
        ys, xs = np.mgrid[0:height, 0:width]
        px = (xs + 0.5) / width * 2 - 1
        py = 1 - (ys + 0.5) / height * 2
        dirs = np.stack([px, py, -np.ones_like(px)], axis=-1)
        dirs /= np.linalg.norm(dirs, axis=-1, keepdims=True)
        origins = np.zeros_like(dirs)
        nearest = np.full((height, width), np.inf)
        color = np.zeros((height, width, 3))
        for s in spheres:
            t = intersect(origins, dirs, s["center"], s["radius"])
            closer = t < nearest
            nearest = np.where(closer, t, nearest)
            hitp = origins + dirs * np.where(np.isfinite(t), t, 0.0)[..., None]
            normal = (hitp - s["center"]) / s["radius"]
            lam = np.clip(np.sum(normal * light, axis=-1), 0.0, 1.0)
            color[closer] = (s["color"] * (0.1 + 0.9 * lam[..., None]))[closer]
        return color, nearest

    def main(width, spheres, light):
        img, depth = render(width, width * 3 // 4, spheres, light)
        covered = np.isfinite(depth).mean()
        print(f"{covered:.1%} of pixels hit")
        return (np.clip(img, 0, 1) * 255).astype(np.uint8), depth
    return main


@raytrace.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    spheres = [{"center": np.array([rng.uniform(-1, 1), rng.uniform(-1, 1), -rng.uniform(3, 6)]),
                "radius": float(rng.uniform(0.5, 1.2)), "color": rng.uniform(0, 1, 3)} for _ in range(3)]
    light = np.array([1.0, 1.0, 1.0]) / np.sqrt(3)
    return n, spheres, light


# -- non-negative matrix factorisation, multiplicative updates ----------------------------

@program("nmf", sizes=(10, 17), bench=400)
def nmf(deco):
    @deco
    def update(V, W, H, eps=1e-10):
        H *= (W.T @ V) / (W.T @ W @ H + eps)
        W *= (V @ H.T) / (W @ H @ H.T + eps)
        return np.linalg.norm(V - W @ H) / np.linalg.norm(V)

    def main(V, rank, rng, iters=60, tol=1e-4):
        W = rng.random((V.shape[0], rank)) + 0.1
        H = rng.random((rank, V.shape[1])) + 0.1
        prev = np.inf
        for it in range(iters):
            err = update(V, W, H)
            if it % 20 == 0:
                print(f"iter {it} rel. error {err:.5f}")
            if prev - err < tol:
                break
            prev = err
        return W, H, it, err
    return main


@nmf.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return rng.random((n, 3)) @ rng.random((3, n + 4)), 3, np.random.default_rng(seed + 3)


# -- PageRank by power iteration on a hand-written CSR matrix -----------------------------

class CSR:
    def __init__(self, indptr, indices, data, shape):
        self.indptr, self.indices, self.data, self.shape = indptr, indices, data, shape

    @classmethod
    def from_edges(cls, src, dst, n):
        order = np.lexsort((src, dst))
        rows, cols = dst[order], src[order]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        return cls(indptr, cols, np.ones(len(rows)), (n, n))

    def matvec(self, x):
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        return np.bincount(rows, weights=self.data * x[self.indices], minlength=self.shape[0])


@program("pagerank", sizes=(20, 33), bench=20_000)
def pagerank(deco):
    @deco
    def normalise(A, out_degree):
        A.data = A.data / out_degree[A.indices]

    @deco
    def iterate(A, r, dangling, d):
        n = len(r)
        r_new = d * A.matvec(r) + (d * r[dangling].sum() + 1 - d) / n
        return r_new, np.abs(r_new - r).sum()

    def main(src, dst, n, d=0.85, tol=1e-10, max_iter=100):
        A = CSR.from_edges(src, dst, n)
        out_degree = np.bincount(src, minlength=n).astype(float)
        dangling = out_degree == 0
        normalise(A, np.where(dangling, 1.0, out_degree))
        r = np.full(n, 1.0 / n)
        for it in range(max_iter):
            r, err = iterate(A, r, dangling, d)
            if err < tol:
                break
        print(f"converged after {it + 1} iterations")
        return r, np.argsort(-r)[:5], it
    return main


@pagerank.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    m = 3 * n
    return rng.integers(0, n, m), rng.integers(0, n, m), n


# -- attention block in a model object with config ----------------------------------------

class Config:
    def __init__(self, d_model=16, n_heads=4, causal=True, eps=1e-5):
        self.d_model, self.n_heads, self.causal, self.eps = d_model, n_heads, causal, eps

    @property
    def d_head(self):
        return self.d_model // self.n_heads


class TinyTransformerBlock:
    def __init__(self, cfg, rng):
        self.cfg = cfg
        d = cfg.d_model
        self.params = {name: rng.normal(0, d ** -0.5, size=(d, d)) for name in ("wq", "wk", "wv", "wo")}
        self.params["w1"] = rng.normal(0, d ** -0.5, size=(d, 4 * d))
        self.params["w2"] = rng.normal(0, (4 * d) ** -0.5, size=(4 * d, d))
        self.gamma, self.beta = np.ones(d), np.zeros(d)
        self.calls = 0

    def layer_norm(self, x):
        mu = x.mean(-1, keepdims=True)
        var = x.var(-1, keepdims=True)
        return self.gamma * (x - mu) / np.sqrt(var + self.cfg.eps) + self.beta

    @staticmethod
    def softmax(x, axis=-1):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    def split_heads(self, x):
        T = x.shape[0]
        return x.reshape(T, self.cfg.n_heads, self.cfg.d_head).transpose(1, 0, 2)

    def attention(self, x):
        p = self.params
        q, k, v = (self.split_heads(x @ p[w]) for w in ("wq", "wk", "wv"))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(self.cfg.d_head)
        if self.cfg.causal:
            T = x.shape[0]
            scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
        out = self.softmax(scores) @ v
        return out.transpose(1, 0, 2).reshape(x.shape) @ p["wo"]

    def predict(self, x):
        self.calls += 1
        x = x + self.attention(self.layer_norm(x))
        h = np.maximum(self.layer_norm(x) @ self.params["w1"], 0)
        return x + h @ self.params["w2"]


@program("attention", sizes=(6, 11), bench=256)
def attention(deco):
    class Block(TinyTransformerBlock):
        predict = deco(TinyTransformerBlock.predict)

    def main(xs, rng, causal):
        model = Block(Config(causal=causal), rng)
        outs = [model.predict(x) for x in xs]
        return outs, model.calls
    return main


@attention.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, 16)), rng.normal(size=(n + 2, 16)), rng.normal(size=(n, 16))], \
        np.random.default_rng(seed + 11), seed % 2 == 0


# -- a small CNN forward pass with sliding windows -------------------------------------------

@program("conv_net", sizes=(10, 15), bench=128)
def conv_net(deco):
    @deco
    def conv2d(x, w, b, stride=1):
        # x (C, H, W), w (F, C, kh, kw)
        kh, kw = w.shape[2:]
        windows = sliding_window_view(x, (kh, kw), axis=(1, 2))[:, ::stride, ::stride]
        return np.einsum("chwij,fcij->fhw", windows, w) + b[:, None, None]

    @deco
    def max_pool(x, k=2):
        C, H, W = x.shape
        H2, W2 = H // k, W // k
        return x[:, :H2 * k, :W2 * k].reshape(C, H2, k, W2, k).max(axis=(2, 4))

    @deco
    def forward(net, img):
        x = img
        for layer in net["layers"]:
            x = conv2d(x, layer["w"], layer["b"])
            np.maximum(x, 0, out=x)
            if layer.get("pool"):
                x = max_pool(x)
        feats = x.mean(axis=(1, 2))
        return feats @ net["head"]

    def main(imgs, net):
        scores = np.stack([forward(net, img) for img in imgs])
        return scores, scores.argmax(axis=1)
    return main


@conv_net.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    net = {"layers": [{"w": rng.normal(0, 0.3, (4, 1, 3, 3)), "b": np.zeros(4), "pool": True},
                      {"w": rng.normal(0, 0.3, (6, 4, 3, 3)), "b": 0.01 * np.ones(6)}],
           "head": rng.normal(size=(6, 3))}
    return [rng.random((1, n, n)) for _ in range(3)], net


# -- whole loops decorated: a Markov chain's stationary distribution ----------------------

@program("markov_whole", sizes=(8, 13), bench=400)
def markov_whole(deco):
    @deco
    def stationary(P, tol=1e-12, max_iter=500, verbose=False):
        n = P.shape[0]
        pi = np.full(n, 1.0 / n)
        history = []
        for it in range(max_iter):
            new = pi @ P
            new /= new.sum()
            err = np.abs(new - pi).max()
            history.append(err)
            pi = new
            if verbose and it % 25 == 0:
                print(f"iter {it}: max change {err:.3e}")
            if err < tol:
                break
        else:
            print("did not converge")
        return pi, it + 1, history

    def main(P):
        pi, iters, history = stationary(P, verbose=True)
        entropy = -(pi * np.log(pi)).sum()
        return pi, iters, history, entropy
    return main


@markov_whole.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    P = rng.random((n, n)) + np.eye(n)
    return (P / P.sum(axis=1, keepdims=True),)


# -- whole loops decorated: a model's fit with weights as attributes ---------------------------

class SoftmaxRegression:
    def __init__(self, n_features, n_classes, lr=0.5, l2=1e-3, patience=4, log_every=10):
        self.W = np.zeros((n_features, n_classes))
        self.b = np.zeros(n_classes)
        self.lr, self.l2, self.patience, self.log_every = lr, l2, patience, log_every
        self.history = []
        self.n_iter_ = 0

    def _probs(self, X):
        z = X @ self.W + self.b
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def fit(self, X, y, epochs=40):
        Y = np.eye(self.W.shape[1])[y]
        best, waited = np.inf, 0
        for epoch in range(epochs):
            P = self._probs(X)
            loss = -np.mean(np.sum(Y * np.log(P + 1e-12), axis=1)) + 0.5 * self.l2 * np.sum(self.W ** 2)
            G = (P - Y) / len(X)
            self.W -= self.lr * (X.T @ G + self.l2 * self.W)
            self.b -= self.lr * G.sum(axis=0)
            self.history.append(float(loss))
            self.n_iter_ += 1
            if epoch % self.log_every == 0:
                print(f"epoch {epoch} loss {loss:.5f}")
            if loss > best - 1e-5:
                waited += 1
                if waited >= self.patience:
                    break
            else:
                best, waited = loss, 0
        return self

    def predict(self, X):
        return self._probs(X).argmax(axis=1)


@program("softmax_fit_whole", sizes=(30, 47), bench=3000)
def softmax_fit_whole(deco):
    class Model(SoftmaxRegression):
        fit = deco(SoftmaxRegression.fit)
        predict = deco(SoftmaxRegression.predict)

    def main(X, y):
        model = Model(X.shape[1], 3).fit(X, y)
        return model.predict(X), model.W, model.b, model.history, model.n_iter_
    return main


@softmax_fit_whole.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return rng.normal(size=(n, 5)) + 1.5 * np.eye(3, 5)[y], y


# -- whole loops decorated: adaptive-step ODE integration ---------------------------------------

@program("ode_adaptive_whole", sizes=(3, 5), bench=200)
def ode_adaptive_whole(deco):
    def rhs(t, y, k):
        return -k * y + np.sin(t)

    @deco
    def integrate(y0, k, t1=2.0, dt=0.1, rtol=1e-6):
        t, y = 0.0, y0.copy()
        ts, ys = [t], [y.copy()]
        rejected = 0
        while t < t1:
            dt = min(dt, t1 - t)
            # one Euler step against two half steps: the error estimate
            full = y + dt * rhs(t, y, k)
            half = y + dt / 2 * rhs(t, y, k)
            two = half + dt / 2 * rhs(t + dt / 2, half, k)
            err = np.max(np.abs(two - full) / (rtol + np.abs(two)))
            if err <= 1.0:
                t += dt
                y = 2 * two - full
                ts.append(t)
                ys.append(y.copy())
                dt *= min(2.0, 0.9 / np.sqrt(max(err, 1e-10)))
            else:
                rejected += 1
                dt *= max(0.2, 0.9 / np.sqrt(err))
        return np.array(ts), np.stack(ys), rejected

    def main(y0, k):
        return integrate(y0, k, rtol=1e-3)
    return main


@ode_adaptive_whole.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=n), rng.uniform(0.5, 3.0, n)
