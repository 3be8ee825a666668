"""Client programs, third set: a class-based trainer with a config dataclass
and callbacks, a particle filter and a Metropolis sampler drawing from a
seeded Generator that is passed in, an image pipeline over images of many
sizes, a tokenizer with a bag-of-words vocabulary, Dijkstra with heapq over
CSR arrays, a finite-difference solver with boundary conditions written in
place, a Kalman filter whose whole loop is decorated, a small autograd
engine (a user Tensor class with dunders), a recommender fitted with
np.add.at and bincount, L-BFGS with a deque of history, and a recursive
decision-tree fit; written as users write them.

Same protocol as ``client_programs.py``: each program is ``build(deco)``
returning ``main``, with ``inputs(n, seed)`` giving fresh arguments.
"""
from __future__ import annotations

import heapq
import re
from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np

from client_programs import program_registry

PROGRAMS, program = program_registry()


# -- a trainer class: config dataclass, callbacks, a log every k steps ----------------------

@dataclass
class TrainConfig:
    lr: float = 0.05
    momentum: float = 0.9
    weight_decay: float = 1e-4
    batch_size: int = 16
    epochs: int = 3
    log_every: int = 5


class PrintLogger:
    def __init__(self, every):
        self.every = every
        self.seen = []

    def on_step(self, step, loss):
        self.seen.append(loss)
        if step % self.every == 0:
            print(f"step {step:4d} loss {loss:.6f}")


@program("trainer_cb", sizes=(40, 67), bench=1200)
def trainer_cb(deco):
    class Trainer:
        def __init__(self, cfg: TrainConfig, n_in, n_out, rng):
            self.cfg = cfg
            self.W = rng.normal(0.0, 0.1, (n_in, n_out))
            self.b = np.zeros(n_out)
            self.vW = np.zeros_like(self.W)
            self.vb = np.zeros_like(self.b)
            self.callbacks = []
            self.step_count = 0

        @deco
        def train_step(self, X, Y):
            z = X @ self.W + self.b
            z = z - z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            loss = -(Y * np.log(p + 1e-12)).sum(axis=1).mean()
            g = (p - Y) / len(X)
            gW = X.T @ g + self.cfg.weight_decay * self.W
            gb = g.sum(axis=0)
            self.vW *= self.cfg.momentum
            self.vW -= self.cfg.lr * gW
            self.vb *= self.cfg.momentum
            self.vb -= self.cfg.lr * gb
            self.W += self.vW
            self.b += self.vb
            self.step_count += 1
            for cb in self.callbacks:
                cb.on_step(self.step_count, float(loss))
            return loss

        def fit(self, X, Y):
            bs = self.cfg.batch_size
            losses = []
            for epoch in range(self.cfg.epochs):
                for i in range(0, len(X), bs):
                    losses.append(self.train_step(X[i:i + bs], Y[i:i + bs]))
            return losses

    def main(X, y, rng):
        trainer = Trainer(TrainConfig(), X.shape[1], 3, rng)
        logger = PrintLogger(TrainConfig.log_every)
        trainer.callbacks.append(logger)
        losses = trainer.fit(X, np.eye(3)[y])
        return trainer.W, trainer.b, losses, logger.seen, trainer.step_count
    return main


@trainer_cb.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return rng.normal(size=(n, 6)) + np.eye(3, 6)[y], y, np.random.default_rng(seed + 1)


# -- a bootstrap particle filter: the Generator is passed in ----------------------------

@program("particle_filter", sizes=(50, 81), bench=2000)
def particle_filter(deco):
    @deco
    def pf_step(particles, weights, obs, rng, q=0.3, r=0.5):
        particles = 0.9 * particles + 0.5 * np.sin(particles) + q * rng.normal(size=particles.shape)
        lik = np.exp(-0.5 * ((obs - particles ** 2 / 5.0) / r) ** 2)
        weights = weights * lik + 1e-300
        weights /= weights.sum()
        ess = 1.0 / np.sum(weights ** 2)
        if ess < 0.5 * len(particles):
            cum = np.cumsum(weights)
            u = (rng.random() + np.arange(len(particles))) / len(particles)
            idx = np.minimum(np.searchsorted(cum, u), len(particles) - 1)
            particles = particles[idx]
            weights = np.full(len(particles), 1.0 / len(particles))
        return particles, weights, (weights * particles).sum()

    def main(obs, rng, n):
        particles = rng.normal(size=n)
        weights = np.full(n, 1.0 / n)
        means = []
        for z in obs:
            particles, weights, m = pf_step(particles, weights, z, rng)
            means.append(m)
        return np.array(means), particles, weights, rng
    return main


@particle_filter.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    x, obs = 0.1, []
    for _ in range(30):
        x = 0.9 * x + 0.5 * np.sin(x) + 0.3 * rng.normal()
        obs.append(x * x / 5.0 + 0.5 * rng.normal())
    return np.array(obs), np.random.default_rng(seed + 11), n


# -- Metropolis-Hastings, the whole chain decorated ----------------------------------------

@program("mcmc_whole", sizes=(2, 3), bench=3)
def mcmc_whole(deco):
    def log_post(theta, X, y):
        z = X @ theta
        return -0.5 * theta @ theta + (y * z - np.logaddexp(0.0, z)).sum()

    @deco
    def metropolis(X, y, rng, n_steps=300, step=0.1):
        theta = np.zeros(X.shape[1])
        lp = log_post(theta, X, y)
        samples = np.empty((n_steps, X.shape[1]))
        accepted = 0
        for i in range(n_steps):
            prop = theta + step * rng.standard_normal(X.shape[1])
            lp_prop = log_post(prop, X, y)
            if np.log(rng.random()) < lp_prop - lp:
                theta, lp = prop, lp_prop
                accepted += 1
            samples[i] = theta
            if (i + 1) % 100 == 0:
                print(f"{i + 1} steps, acceptance {accepted / (i + 1):.3f}")
        return samples, accepted

    def main(X, y, rng):
        samples, accepted = metropolis(X, y, rng)
        return samples[100:].mean(axis=0), samples.std(axis=0), accepted, rng
    return main


@mcmc_whole.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, n))
    y = (X @ np.linspace(1.0, -1.0, n) + rng.normal(size=60) > 0).astype(float)
    return X, y, np.random.default_rng(seed + 3)


# -- an image pipeline over images of many sizes ---------------------------------------

@program("image_sizes", sizes=(4, 6), bench=24)
def image_sizes(deco):
    @deco
    def preprocess(img, gamma=2.2):
        img = img.astype(np.float64) / 255.0
        gray = img @ np.array([0.299, 0.587, 0.114])
        gray = gray ** (1.0 / gamma)
        p = np.pad(gray, 1, mode="edge")
        gx = p[1:-1, 2:] - p[1:-1, :-2]
        gy = p[2:, 1:-1] - p[:-2, 1:-1]
        mag = np.hypot(gx, gy)
        lo, hi = np.percentile(mag, [5, 95])
        norm = np.clip((mag - lo) / (hi - lo + 1e-9), 0.0, 1.0)
        hist, _ = np.histogram(norm, bins=8, range=(0.0, 1.0))
        return norm, hist / norm.size

    def main(images):
        feats = []
        for k, img in enumerate(images):
            edges, hist = preprocess(img)
            feats.append(hist)
            if k % 4 == 0:
                print(f"image {k} {img.shape[0]}x{img.shape[1]} edge mean {edges.mean():.4f}")
        return np.stack(feats)
    return main


@image_sizes.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (int(rng.integers(12, 40)), int(rng.integers(12, 40)), 3), dtype=np.uint8)
            for _ in range(n)],


# -- a tokenizer and a bag-of-words model ------------------------------------------------

_WORDS = ("the a model data graph array loss grad step train test value numpy python trace break "
          "guard cache shape dtype fast slow error tensor matrix vector").split()


@program("bag_of_words", sizes=(10, 17), bench=200)
def bag_of_words(deco):
    token_re = re.compile(r"[a-z]+")

    def tokenize(text):
        return token_re.findall(text.lower())

    def build_vocab(docs, min_count=2):
        counts = Counter(tok for d in docs for tok in tokenize(d))
        words = sorted(w for w, c in counts.items() if c >= min_count)
        return {w: i for i, w in enumerate(words)}

    @deco
    def vectorize(docs, vocab):
        X = np.zeros((len(docs), len(vocab)))
        for i, d in enumerate(docs):
            for tok in tokenize(d):
                j = vocab.get(tok)
                if j is not None:
                    X[i, j] += 1.0
        df = (X > 0).sum(axis=0)
        idf = np.log((1 + len(docs)) / (1 + df)) + 1.0
        X = X * idf
        X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
        return X

    @deco
    def nearest(X, q):
        sims = X @ q
        order = np.argsort(-sims, kind="stable")
        return order[:3], sims[order[:3]]

    def main(docs):
        vocab = build_vocab(docs)
        X = vectorize(docs, vocab)
        hits = [nearest(X, X[i]) for i in range(0, len(docs), 3)]
        print(f"{len(vocab)} words, {len(docs)} documents")
        return X, hits
    return main


@bag_of_words.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return [" ".join(_WORDS[int(k)].capitalize() if j == 0 else _WORDS[int(k)]
                     for j, k in enumerate(rng.integers(0, len(_WORDS), int(rng.integers(4, 12)))))
            + "." for _ in range(n)],


# -- Dijkstra with heapq over a CSR graph -------------------------------------------------

@program("dijkstra", sizes=(20, 33), bench=400)
def dijkstra(deco):
    @deco
    def shortest_paths(indptr, indices, weights, source):
        n = len(indptr) - 1
        dist = np.full(n, np.inf)
        prev = np.full(n, -1, dtype=np.int64)
        dist[source] = 0.0
        heap = [(0.0, source)]
        done = np.zeros(n, dtype=bool)
        while heap:
            d, u = heapq.heappop(heap)
            if done[u]:
                continue
            done[u] = True
            for k in range(indptr[u], indptr[u + 1]):
                v = indices[k]
                nd = d + weights[k]
                if nd < dist[v]:
                    dist[v] = nd
                    prev[v] = u
                    heapq.heappush(heap, (nd, v))
        return dist, prev

    def main(indptr, indices, weights):
        dist, prev = shortest_paths(indptr, indices, weights, 0)
        reachable = np.isfinite(dist)
        print(f"{reachable.sum()} reachable, farthest {dist[reachable].max():.4f}")
        return dist, prev
    return main


@dijkstra.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n):
        nbrs = np.unique(rng.integers(0, n, 3))
        rows.append(nbrs[nbrs != u])
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    indices = np.concatenate(rows).astype(np.int64)
    return indptr, indices, rng.uniform(0.1, 2.0, len(indices))


# -- a finite-difference solver: boundary conditions written in place -----------------------

@program("poisson_bc", sizes=(12, 17), bench=64)
def poisson_bc(deco):
    @deco
    def apply_bc(u, t):
        u[0, :] = np.sin(np.pi * np.linspace(0.0, 1.0, u.shape[1])) * np.cos(t)
        u[-1, :] = 0.0
        u[:, 0] = u[:, 1]            # Neumann: zero flux
        u[:, -1] = u[:, -2]

    @deco
    def jacobi_sweep(u, f, h2):
        new = u.copy()
        new[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - h2 * f[1:-1, 1:-1])
        return new, np.abs(new - u).max()

    def main(f, steps=60):
        n = f.shape[0]
        u = np.zeros_like(f)
        h2 = (1.0 / (n - 1)) ** 2
        res = []
        for it in range(steps):
            apply_bc(u, 0.01 * it)
            u, r = jacobi_sweep(u, f, h2)
            res.append(r)
            if it % 20 == 0:
                print(f"sweep {it} residual {r:.3e}")
        return u, res
    return main


@poisson_bc.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, n)),)


# -- a Kalman filter over a time series, the whole loop decorated ------------------------

@program("kalman_whole", sizes=(20, 31), bench=500)
def kalman_whole(deco):
    @deco
    def kalman(zs, dt=0.1, q=1e-3, r=0.25):
        F = np.array([[1.0, dt, 0.5 * dt * dt], [0.0, 1.0, dt], [0.0, 0.0, 1.0]])
        H = np.array([[1.0, 0.0, 0.0]])
        Q = q * np.eye(3)
        R = np.array([[r]])
        x = np.zeros(3)
        P = np.eye(3)
        xs = np.empty((len(zs), 3))
        nis = 0.0
        for k, z in enumerate(zs):
            x = F @ x
            P = F @ P @ F.T + Q
            y = z - H @ x
            S = H @ P @ H.T + R
            K = P @ H.T @ np.linalg.inv(S)
            x = x + K @ y
            P = (np.eye(3) - K @ H) @ P
            xs[k] = x
            nis += float(y @ np.linalg.solve(S, y))
        return xs, P, nis / len(zs)

    def main(zs):
        xs, P, nis = kalman(zs)
        print(f"mean NIS {nis:.4f}")
        return xs, P, nis
    return main


@kalman_whole.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(n) * 0.1
    return (np.sin(t) + 0.5 * rng.normal(size=n)).reshape(n, 1),


# -- a small autograd engine: a Tensor class with dunders -----------------------------------

class Tensor:
    def __init__(self, data, parents=(), backward=None):
        self.data = data
        self.grad = np.zeros_like(data)
        self.parents = parents
        self._backward = backward

    def __add__(self, other):
        out = Tensor(self.data + other.data, (self, other))

        def backward():
            self.grad += out.grad if self.data.shape == out.grad.shape else out.grad.sum(axis=0)
            other.grad += out.grad if other.data.shape == out.grad.shape else out.grad.sum(axis=0)
        out._backward = backward
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other))

        def backward():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad
        out._backward = backward
        return out

    def tanh(self):
        t = np.tanh(self.data)
        out = Tensor(t, (self,))

        def backward():
            self.grad += (1.0 - t * t) * out.grad
        out._backward = backward
        return out

    def mse(self, target):
        diff = self.data - target
        out = Tensor(np.array((diff * diff).mean()), (self,))

        def backward():
            self.grad += 2.0 * diff / diff.size * out.grad
        out._backward = backward
        return out

    def backward(self):
        order, seen = [], set()

        def visit(t):
            if id(t) not in seen:
                seen.add(id(t))
                for p in t.parents:
                    visit(p)
                order.append(t)
        visit(self)
        self.grad = np.ones_like(self.data)
        for t in reversed(order):
            if t._backward is not None:
                t._backward()


@program("autograd", sizes=(16, 25), bench=256)
def autograd(deco):
    @deco
    def train_step(params, X, y, lr):
        W1, b1, W2, b2 = (Tensor(p) for p in params)
        h = (Tensor(X) @ W1 + b1).tanh()
        loss = (h @ W2 + b2).mse(y)
        loss.backward()
        for p, t in zip(params, (W1, b1, W2, b2)):
            p -= lr * t.grad
        return loss.data

    def main(X, y, rng, steps=25):
        params = [rng.normal(0, 0.5, (X.shape[1], 8)), np.zeros(8), rng.normal(0, 0.5, (8, 1)), np.zeros(1)]
        losses = [train_step(params, X, y, 0.1) for _ in range(steps)]
        print(f"loss {losses[0]:.5f} -> {losses[-1]:.5f}")
        return params, losses
    return main


@autograd.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.sin(X.sum(axis=1, keepdims=True)), np.random.default_rng(seed + 5)


# -- a recommender: biases and factors with np.add.at and bincount ---------------------------

@program("recommender", sizes=(60, 97), bench=20000)
def recommender(deco):
    @deco
    def epoch(users, items, ratings, P, Q, bu, bi, mu, lr=0.02, reg=0.05):
        pred = mu + bu[users] + bi[items] + (P[users] * Q[items]).sum(axis=1)
        err = ratings - pred
        gP = err[:, None] * Q[items] - reg * P[users]
        gQ = err[:, None] * P[users] - reg * Q[items]
        np.add.at(P, users, lr * gP)
        np.add.at(Q, items, lr * gQ)
        cu = np.maximum(np.bincount(users, minlength=len(bu)), 1)
        ci = np.maximum(np.bincount(items, minlength=len(bi)), 1)
        bu += lr * (np.bincount(users, weights=err, minlength=len(bu)) / cu - reg * bu)
        bi += lr * (np.bincount(items, weights=err, minlength=len(bi)) / ci - reg * bi)
        return np.sqrt((err ** 2).mean())

    def main(users, items, ratings, n_users, n_items, rng, epochs=15):
        P = 0.1 * rng.normal(size=(n_users, 4))
        Q = 0.1 * rng.normal(size=(n_items, 4))
        bu, bi = np.zeros(n_users), np.zeros(n_items)
        mu = ratings.mean()
        rmse = []
        for e in range(epochs):
            rmse.append(epoch(users, items, ratings, P, Q, bu, bi, mu))
            if e % 5 == 0:
                print(f"epoch {e} rmse {rmse[-1]:.5f}")
        return P, Q, bu, bi, rmse
    return main


@recommender.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    n_users, n_items = max(3, n // 10), max(4, n // 8)
    users = rng.integers(0, n_users, n)
    items = rng.integers(0, n_items, n)
    return users, items, rng.uniform(1, 5, n).round(), n_users, n_items, np.random.default_rng(seed + 2)


# -- L-BFGS with a deque of curvature pairs, the whole minimiser decorated ---------------------

@program("lbfgs_whole", sizes=(5, 8), bench=60)
def lbfgs_whole(deco):
    def rosen(x):
        f = (100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2).sum()
        g = np.zeros_like(x)
        g[:-1] = -400.0 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2.0 * (1.0 - x[:-1])
        g[1:] += 200.0 * (x[1:] - x[:-1] ** 2)
        return f, g

    @deco
    def minimize(x, m=5, max_iter=200, tol=1e-8):
        hist = deque(maxlen=m)
        f, g = rosen(x)
        for it in range(max_iter):
            q = g.copy()
            alphas = []
            for s, y, rho in reversed(hist):
                a = rho * (s @ q)
                q -= a * y
                alphas.append(a)
            if hist:
                s, y, _ = hist[-1]
                q *= (s @ y) / (y @ y)
            for (s, y, rho), a in zip(hist, reversed(alphas)):
                b = rho * (y @ q)
                q += (a - b) * s
            d = -q
            t = 1.0
            while True:            # backtracking (Armijo)
                f_new, g_new = rosen(x + t * d)
                if f_new <= f + 1e-4 * t * (g @ d) or t < 1e-10:
                    break
                t *= 0.5
            s, y = t * d, g_new - g
            sy = s @ y
            if sy > 1e-12:
                hist.append((s, y, 1.0 / sy))
            x, f, g = x + s, f_new, g_new
            if np.abs(g).max() < tol:
                break
        return x, f, it + 1

    def main(x0):
        x, f, iters = minimize(x0)
        print(f"f {f:.6e} after {iters} iterations")
        return x, f, iters
    return main


@lbfgs_whole.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1.5, 1.5, n),)


# -- a decision tree fit: recursive, splits depend on the data ---------------------------------

@program("decision_tree", sizes=(40, 63), bench=600)
def decision_tree(deco):
    @deco
    def best_split(X, y, n_classes):
        best = (np.inf, -1, 0.0)
        n = len(y)
        for j in range(X.shape[1]):
            order = np.argsort(X[:, j], kind="stable")
            xs, ys = X[order, j], y[order]
            left = np.cumsum(np.eye(n_classes)[ys], axis=0)[:-1]
            right = left[-1] + np.eye(n_classes)[ys[-1]] - left
            nl = np.arange(1, n)
            gini = (nl * (1 - ((left / nl[:, None]) ** 2).sum(1))
                    + (n - nl) * (1 - ((right / (n - nl)[:, None]) ** 2).sum(1))) / n
            gini[xs[1:] == xs[:-1]] = np.inf
            k = int(np.argmin(gini))
            if gini[k] < best[0]:
                best = (gini[k], j, 0.5 * (xs[k] + xs[k + 1]))
        return best

    def grow(X, y, n_classes, depth, max_depth=4, min_size=5):
        counts = np.bincount(y, minlength=n_classes)
        if depth >= max_depth or len(y) < min_size or counts.max() == len(y):
            return {"leaf": counts / len(y)}
        score, j, thr = best_split(X, y, n_classes)
        if j < 0:
            return {"leaf": counts / len(y)}
        m = X[:, j] <= thr
        return {"feature": j, "threshold": thr,
                "left": grow(X[m], y[m], n_classes, depth + 1), "right": grow(X[~m], y[~m], n_classes, depth + 1)}

    def predict(node, x):
        while "leaf" not in node:
            node = node["left"] if x[node["feature"]] <= node["threshold"] else node["right"]
        return node["leaf"]

    def main(X, y):
        tree = grow(X, y, 3, 0)
        P = np.array([predict(tree, x) for x in X])
        print(f"train accuracy {(P.argmax(1) == y).mean():.3f}")
        return tree, P
    return main


@decision_tree.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return rng.normal(size=(n, 3)) + np.array([[1.5, 0.0, -1.0]]) * y[:, None], y
