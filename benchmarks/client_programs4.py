"""Client programs, fourth set: a Kalman filter with an RTS smoother over a
time series, k-means++ with a tolerance-checked loop, a 2-D wave solver with
reflecting boundaries and a source written in place, Adam training a
logistic regression on shuffled mini-batches, a conv / pool / batch-norm
image pipeline, a Monte-Carlo Asian option priced with antithetic paths and
a control variate, PageRank over an edge list with power iteration, a
pipeline over a dict of column arrays, a model class with ``__call__`` and
layers in attributes, a recursive merge sort and a quadtree, a generator
data loader feeding a training loop, and a tridiagonal Crank-Nicolson solve
with a Thomas sweep; written as users write them.

Same protocol as ``client_programs.py``: each program is ``build(deco)``
returning ``main``, with ``inputs(n, seed)`` giving fresh arguments.
"""
from __future__ import annotations

import numpy as np

from client_programs import program_registry

PROGRAMS, program = program_registry()


# -- Kalman filter + Rauch-Tung-Striebel smoother over a time series ------------------------

@program("kalman_rts", sizes=(20, 33), bench=400)
def kalman_rts(deco):
    @deco
    def predict(x, P, F, Q):
        return F @ x, F @ P @ F.T + Q

    @deco
    def update(x, P, z, H, R):
        y = z - H @ x
        S = H @ P @ H.T + R
        K = np.linalg.solve(S.T, (P @ H.T).T).T
        x = x + K @ y
        P = (np.eye(len(x)) - K @ H) @ P
        nis = float(y @ np.linalg.solve(S, y))
        return x, P, nis

    @deco
    def smooth_step(xf, Pf, xp, Pp, xs_next, Ps_next, F):
        G = Pf @ F.T @ np.linalg.inv(Pp)
        return xf + G @ (xs_next - xp), Pf + G @ (Ps_next - Pp) @ G.T

    def main(zs, dt):
        F = np.array([[1.0, dt], [0.0, 1.0]])
        Q = 0.01 * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
        H = np.array([[1.0, 0.0]])
        R = np.array([[0.25]])
        x, P = np.zeros(2), np.eye(2) * 10.0
        xf, Pf, xp, Pp, nis = [], [], [], [], 0.0
        for z in zs:
            x, P = predict(x, P, F, Q)
            xp.append(x)
            Pp.append(P)
            x, P, e = update(x, P, np.atleast_1d(z), H, R)
            nis += e
            xf.append(x)
            Pf.append(P)
        xs, Ps = [xf[-1]], [Pf[-1]]
        for k in range(len(zs) - 2, -1, -1):
            s, S = smooth_step(xf[k], Pf[k], xp[k + 1], Pp[k + 1], xs[0], Ps[0], F)
            xs.insert(0, s)
            Ps.insert(0, S)
        print(f"mean NIS {nis / len(zs):.4f}")
        return np.array(xf), np.array(xs), np.array([np.trace(S) for S in Ps])
    return main


@kalman_rts.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(n) * 0.1
    return np.sin(t) + 0.5 * rng.standard_normal(n), 0.1


# -- k-means++ seeding and Lloyd iterations with a tolerance ------------------------------

@program("kmeanspp", sizes=(50, 71), bench=3000)
def kmeanspp(deco):
    @deco
    def seed_centres(X, k, rng):
        C = np.empty((k, X.shape[1]))
        C[0] = X[rng.integers(len(X))]
        d2 = ((X - C[0]) ** 2).sum(axis=1)
        for j in range(1, k):
            p = d2 / d2.sum()
            C[j] = X[rng.choice(len(X), p=p)]
            d2 = np.minimum(d2, ((X - C[j]) ** 2).sum(axis=1))
        return C

    @deco
    def lloyd(X, C, tol=1e-6, max_iter=50):
        k = len(C)
        for it in range(max_iter):
            d = np.linalg.norm(X[:, None, :] - C[None], axis=2)
            labels = np.argmin(d, axis=1)
            new = np.array([X[labels == j].mean(axis=0) if np.any(labels == j) else C[j] for j in range(k)])
            shift = np.abs(new - C).max()
            C = new
            if shift < tol:
                break
        inertia = (d.min(axis=1) ** 2).sum()
        return C, labels, it + 1, inertia

    def main(X, k, rng):
        C = seed_centres(X, k, rng)
        C, labels, iters, inertia = lloyd(X, C)
        print(f"{iters} iterations, inertia {inertia:.3f}")
        return C, labels, iters, rng
    return main


@kmeanspp.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    X = centres[np.arange(n) % 3] + rng.standard_normal((n, 2))
    return X, 3, np.random.default_rng(seed + 10)


# -- 2-D wave equation: leapfrog, reflecting boundaries, a point source -------------------

@program("wave2d", sizes=(12, 17), bench=200)
def wave2d(deco):
    @deco
    def step(u, u_prev, c2, t, src):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                           - 4.0 * u[1:-1, 1:-1])
        u_next = 2.0 * u - u_prev + c2 * lap
        i, j = src
        u_next[i, j] += np.sin(0.3 * t) * np.exp(-0.01 * t)
        # reflecting (Neumann) edges: copy the neighbour row / column
        u_next[0, :] = u_next[1, :]
        u_next[-1, :] = u_next[-2, :]
        u_next[:, 0] = u_next[:, 1]
        u_next[:, -1] = u_next[:, -2]
        return u_next

    def main(n, steps, c):
        u = np.zeros((n, n))
        u_prev = np.zeros((n, n))
        energy = []
        for t in range(steps):
            u, u_prev = step(u, u_prev, c * c, t, (n // 2, n // 3)), u
            if t % 10 == 0:
                energy.append(float((u ** 2).sum()))
        return u, energy
    return main


@wave2d.inputs
def _(n, seed):
    return n, 30 + seed, 0.4


# -- Adam on a logistic regression over shuffled mini-batches ------------------------------

@program("adam_logreg", sizes=(64, 101), bench=4000)
def adam_logreg(deco):
    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))

    @deco
    def loss_and_grad(w, b, X, y, l2):
        p = sigmoid(X @ w + b)
        eps = 1e-12
        loss = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + 0.5 * l2 * (w @ w)
        r = (p - y) / len(y)
        return loss, X.T @ r + l2 * w, r.sum()

    @deco
    def adam(params, grads, state, lr=0.05, b1=0.9, b2=0.999, eps=1e-8):
        state["t"] += 1
        t = state["t"]
        out = []
        for name, p, g in zip(("w", "b"), params, grads):
            m = state["m_" + name] = b1 * state["m_" + name] + (1 - b1) * g
            v = state["v_" + name] = b2 * state["v_" + name] + (1 - b2) * g * g
            mhat = m / (1 - b1 ** t)
            vhat = v / (1 - b2 ** t)
            out.append(p - lr * mhat / (np.sqrt(vhat) + eps))
        return out

    def main(X, y, rng, epochs=4, batch=16):
        w, b = np.zeros(X.shape[1]), 0.0
        state = {"t": 0, "m_w": np.zeros_like(w), "v_w": np.zeros_like(w), "m_b": 0.0, "v_b": 0.0}
        losses = []
        for epoch in range(epochs):
            order = rng.permutation(len(y))
            total = 0.0
            for s in range(0, len(y), batch):
                idx = order[s:s + batch]
                loss, gw, gb = loss_and_grad(w, b, X[idx], y[idx], 1e-3)
                w, b = adam((w, b), (gw, gb), state)
                total += loss * len(idx)
            losses.append(total / len(y))
            print(f"epoch {epoch} loss {losses[-1]:.5f}")
        return w, b, losses, state["t"], rng
    return main


@adam_logreg.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    y = (X @ np.array([1.0, -2.0, 0.5, 0.0, 1.5]) + 0.3 * rng.standard_normal(n) > 0).astype(np.float64)
    return X, y, np.random.default_rng(seed + 100)


# -- conv / ReLU / max-pool / batch-norm over a batch of images ----------------------------

@program("conv_pool", sizes=(8, 12), bench=64)
def conv_pool(deco):
    @deco
    def conv2d(x, w, b):
        # x: (N, C, H, W), w: (K, C, kh, kw): valid convolution by shifted slices
        K, C, kh, kw = w.shape
        N, _, H, W = x.shape
        out = np.zeros((N, K, H - kh + 1, W - kw + 1), dtype=x.dtype)
        for i in range(kh):
            for j in range(kw):
                patch = x[:, :, i:i + H - kh + 1, j:j + W - kw + 1]
                out += np.einsum("nchw,kc->nkhw", patch, w[:, :, i, j])
        return out + b[None, :, None, None]

    @deco
    def maxpool2(x):
        N, C, H, W = x.shape
        x = x[:, :, :H - H % 2, :W - W % 2]
        return x.reshape(N, C, H // 2, 2, W // 2, 2).max(axis=(3, 5))

    @deco
    def batchnorm(x, gamma, beta, eps=1e-5):
        mu = x.mean(axis=(0, 2, 3), keepdims=True)
        var = x.var(axis=(0, 2, 3), keepdims=True)
        return gamma[None, :, None, None] * (x - mu) / np.sqrt(var + eps) + beta[None, :, None, None]

    def main(images, params):
        h = images
        for w, b, g, be in params:
            h = conv2d(h, w, b)
            h = np.maximum(h, 0.0)
            h = batchnorm(h, g, be)
            if min(h.shape[2:]) >= 4:
                h = maxpool2(h)
        feats = h.mean(axis=(2, 3))
        return feats, feats.argmax(axis=1)
    return main


@conv_pool.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    images = rng.standard_normal((4, 3, n + 4, n + 4)).astype(np.float32)
    params, c = [], 3
    for k in (6, 8):
        params.append((rng.standard_normal((k, c, 3, 3)).astype(np.float32) * 0.3,
                       np.zeros(k, np.float32), np.ones(k, np.float32), np.zeros(k, np.float32)))
        c = k
    return images, params


# -- Monte-Carlo Asian call: antithetic paths, geometric control variate ------------------

@program("asian_mc", sizes=(200, 333), bench=50_000)
def asian_mc(deco):
    @deco
    def simulate(S0, r, sigma, T, steps, Z):
        dt = T / steps
        incr = (r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z
        logS = np.log(S0) + np.cumsum(incr, axis=1)
        return np.exp(logS)

    @deco
    def payoffs(paths, K, r, T):
        arith = np.maximum(paths.mean(axis=1) - K, 0.0)
        geo = np.maximum(np.exp(np.log(paths).mean(axis=1)) - K, 0.0)
        disc = np.exp(-r * T)
        return disc * arith, disc * geo

    def main(rng, n_paths, S0=100.0, K=100.0, r=0.03, sigma=0.25, T=1.0, steps=24):
        Z = rng.standard_normal((n_paths, steps))
        Z = np.concatenate([Z, -Z])
        paths = simulate(S0, r, sigma, T, steps, Z)
        a, g = payoffs(paths, K, r, T)
        cov = np.cov(a, g)
        beta = cov[0, 1] / cov[1, 1]
        adjusted = a - beta * (g - g.mean())
        price = adjusted.mean()
        stderr = adjusted.std(ddof=1) / np.sqrt(len(adjusted))
        print(f"price {price:.4f} +- {stderr:.4f}")
        return price, stderr, rng
    return main


@asian_mc.inputs
def _(n, seed):
    return np.random.default_rng(seed), n


# -- PageRank over an edge list: power iteration with a tolerance break -------------------

@program("pagerank_edges", sizes=(30, 47), bench=20_000)
def pagerank_edges(deco):
    @deco
    def pagerank(src, dst, n, damping=0.85, tol=1e-10, max_iter=200):
        out_deg = np.bincount(src, minlength=n).astype(np.float64)
        dangling = out_deg == 0
        r = np.full(n, 1.0 / n)
        for it in range(max_iter):
            share = np.where(dangling, 0.0, r / np.where(dangling, 1.0, out_deg))
            new = np.zeros(n)
            np.add.at(new, dst, share[src])
            new = damping * (new + r[dangling].sum() / n) + (1 - damping) / n
            err = np.abs(new - r).sum()
            r = new
            if err < tol:
                break
        return r, it + 1

    def main(src, dst, n):
        r, iters = pagerank(src, dst, n)
        top = np.argsort(-r, kind="stable")[:5]
        return r, iters, top.tolist()
    return main


@pagerank_edges.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    m = 4 * n
    src = rng.integers(0, n, m)
    dst = (src + rng.integers(1, 5, m)) % n
    keep = src != n - 1   # one dangling node
    return src[keep], dst[keep], n


# -- a pipeline over a dict of column arrays ------------------------------------------------

@program("columns", sizes=(40, 63), bench=50_000)
def columns(deco):
    @deco
    def standardize(table, cols):
        out = dict(table)
        for c in cols:
            x = table[c]
            out[c + "_z"] = (x - x.mean()) / (x.std() + 1e-12)
        return out

    @deco
    def group_stats(keys, values):
        uniq, inv = np.unique(keys, return_inverse=True)
        counts = np.bincount(inv)
        sums = np.bincount(inv, weights=values)
        sq = np.bincount(inv, weights=values * values)
        mean = sums / counts
        return {"key": uniq, "count": counts, "mean": mean, "std": np.sqrt(np.maximum(sq / counts - mean ** 2, 0.0))}

    @deco
    def derive(table):
        t = dict(table)
        t["revenue"] = t["price"] * t["qty"]
        t["discounted"] = np.where(t["qty"] > 5, t["revenue"] * 0.9, t["revenue"])
        t["bucket"] = np.digitize(t["price"], [10.0, 20.0, 50.0])
        return t

    def main(table):
        t = derive(table)
        t = standardize(t, ["price", "revenue"])
        by_store = group_stats(t["store"], t["discounted"])
        by_bucket = group_stats(t["bucket"], t["revenue_z"])
        summary = {k: float(v.sum()) for k, v in t.items() if v.dtype.kind == "f"}
        return t, by_store, by_bucket, summary
    return main


@columns.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return ({"store": rng.integers(0, 4, n), "price": rng.uniform(1.0, 80.0, n), "qty": rng.integers(1, 10, n)},)


# -- a model class: layers as objects, __call__, parameters in attributes -------------------

@program("model_call", sizes=(16, 25), bench=2000)
def model_call(deco):
    class Dense:
        def __init__(self, n_in, n_out, rng, act=None):
            self.W = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
            self.b = np.zeros(n_out)
            self.act = act

        def __call__(self, x):
            z = x @ self.W + self.b
            return self.act(z) if self.act is not None else z

    def relu(z):
        return np.maximum(z, 0.0)

    class Model:
        def __init__(self, sizes, rng):
            self.layers = [Dense(a, b, rng, relu if i < len(sizes) - 2 else None)
                           for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]))]
            self.temperature = 1.0

        @deco
        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            z = x / self.temperature
            z = z - z.max(axis=-1, keepdims=True)
            return np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)

        @deco
        def sgd_last(self, x, y, lr):
            h = x
            for layer in self.layers[:-1]:
                h = layer(h)
            p = self(x)
            g = (p - np.eye(p.shape[1])[y]) / len(y)
            last = self.layers[-1]
            last.W -= lr * h.T @ g
            last.b -= lr * g.sum(axis=0)
            return -np.log(p[np.arange(len(y)), y]).mean()

    def main(X, y, rng):
        model = Model([X.shape[1], 16, 8, 3], rng)
        losses = [model.sgd_last(X, y, 0.1) for _ in range(5)]
        model.temperature = 2.0
        return model(X), losses, model.layers[-1].W
    return main


@model_call.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return rng.standard_normal((n, 4)) + y[:, None], y, np.random.default_rng(seed + 7)


# -- recursion: merge sort on arrays, a quadtree over points --------------------------------

@program("recursion", sizes=(24, 37), bench=500)
def recursion(deco):
    @deco
    def merge(a, b):
        out = np.empty(len(a) + len(b), dtype=a.dtype)
        pos = np.searchsorted(a, b, side="right") + np.arange(len(b))
        mask = np.ones(len(out), dtype=bool)
        mask[pos] = False
        out[pos] = b
        out[mask] = a
        return out

    @deco
    def merge_sort(x):
        if len(x) <= 4:
            return np.sort(x, kind="stable")
        mid = len(x) // 2
        return merge(merge_sort(x[:mid]), merge_sort(x[mid:]))

    @deco
    def quadtree(pts, x0, y0, size, cap=6, depth=0):
        inside = ((pts[:, 0] >= x0) & (pts[:, 0] < x0 + size)
                  & (pts[:, 1] >= y0) & (pts[:, 1] < y0 + size))
        p = pts[inside]
        if len(p) <= cap or depth >= 5:
            return {"n": len(p), "centroid": p.mean(axis=0) if len(p) else None}
        h = size / 2
        kids = [quadtree(p, x0 + dx, y0 + dy, h, cap, depth + 1) for dx in (0.0, h) for dy in (0.0, h)]
        return {"n": len(p), "kids": kids}

    def leaves(node):
        return [node["n"]] if "kids" not in node else [c for k in node["kids"] for c in leaves(k)]

    def main(x, pts):
        s = merge_sort(x)
        tree = quadtree(pts, 0.0, 0.0, 1.0)
        return s, leaves(tree), tree
    return main


@recursion.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n), rng.random((3 * n, 2))


# -- a generator data loader feeding a training loop -----------------------------------------

@program("loader", sizes=(48, 75), bench=4000)
def loader(deco):
    def batches(X, y, batch, rng, augment=True):
        order = rng.permutation(len(X))
        for s in range(0, len(X), batch):
            idx = order[s:s + batch]
            xb = X[idx]
            if augment:
                xb = xb + 0.01 * rng.standard_normal(xb.shape)
            yield xb, y[idx]

    @deco
    def train_epoch(W, X, y, rng, lr, batch=8):
        total, seen = 0.0, 0
        for xb, yb in batches(X, y, batch, rng):
            pred = xb @ W
            err = pred - yb
            W = W - lr * xb.T @ err / len(yb)
            total += float((err ** 2).sum())
            seen += len(yb)
        return W, total / seen

    def main(X, y, rng, epochs=3):
        W = np.zeros((X.shape[1], y.shape[1]))
        history = []
        for e in range(epochs):
            W, mse = train_epoch(W, X, y, rng, 0.1)
            history.append(mse)
        return W, history, rng
    return main


@loader.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    return X, X @ rng.standard_normal((3, 2)), np.random.default_rng(seed + 1)


# -- Crank-Nicolson heat equation with a Thomas tridiagonal sweep ----------------------------

@program("crank_nicolson", sizes=(10, 15), bench=200)
def crank_nicolson(deco):
    @deco
    def thomas(a, b, c, d):
        n = len(d)
        cp = np.empty(n)
        dp = np.empty(n)
        cp[0] = c[0] / b[0]
        dp[0] = d[0] / b[0]
        for i in range(1, n):
            m = b[i] - a[i] * cp[i - 1]
            cp[i] = c[i] / m
            dp[i] = (d[i] - a[i] * dp[i - 1]) / m
        x = np.empty(n)
        x[-1] = dp[-1]
        for i in range(n - 2, -1, -1):
            x[i] = dp[i] - cp[i] * x[i + 1]
        return x

    @deco
    def rhs(u, r, left, right):
        d = r * u[:-2] + (2 - 2 * r) * u[1:-1] + r * u[2:]
        d[0] += 2 * r * left
        d[-1] += 2 * r * right
        return d

    def main(u0, r, steps, left, right):
        m = len(u0) - 2
        a = np.full(m, -r)
        b = np.full(m, 2 + 2 * r)
        c = np.full(m, -r)
        a[0] = 0.0
        c[-1] = 0.0
        u = u0.copy()
        u[0], u[-1] = left, right
        for _ in range(steps):
            u[1:-1] = thomas(a, b, c, rhs(u, r, left, right))
        return u
    return main


@crank_nicolson.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return rng.random(n), 0.5, 6, 1.0, 0.0
