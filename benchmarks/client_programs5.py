"""Client programs, fifth set: an LSTM unrolled over a sequence held in a
list, a GRU encoder with a dataclass config and an Enum pooling mode, an
optimizer class (RMSProp / Adam by Enum) keeping per-parameter state in a
dict, HMM forward-backward and Viterbi in log space, beam search over a
tiny language model, a convolution by im2col over stride tricks, a
Gray-Scott reaction-diffusion with in-place updates and boundaries, a
Longstaff-Schwartz American option with the Generator passed in, PCA by
SVD with sign fixing and a data-chosen rank, conjugate gradients over a
CSR matrix multiplied with ``np.add.reduceat``, an MLP trained on
mini-batches with ``logging``, a progress callback and a print every N
steps, and a Gaussian-mixture EM with a log-likelihood tolerance; written
as users write them.

Same protocol as ``client_programs.py``: each program is ``build(deco)``
returning ``main``, with ``inputs(n, seed)`` giving fresh arguments.
"""
from __future__ import annotations

import enum
import logging
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import as_strided

from client_programs import program_registry

PROGRAMS, program = program_registry()

log = logging.getLogger("client_programs5")


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


# -- an LSTM cell unrolled over a sequence held in a list -----------------------------------

@program("lstm_seq", sizes=(6, 9), bench=40)
def lstm_seq(deco):
    @deco
    def lstm_cell(x, h, c, W, U, b):
        gates = x @ W + h @ U + b
        H = h.shape[-1]
        i = sigmoid(gates[:, :H])
        f = sigmoid(gates[:, H:2 * H])
        g = np.tanh(gates[:, 2 * H:3 * H])
        o = sigmoid(gates[:, 3 * H:])
        c = f * c + i * g
        h = o * np.tanh(c)
        return h, c

    @deco
    def run(xs, params, h0=None):
        W, U, b = params["W"], params["U"], params["b"]
        B, H = xs[0].shape[0], U.shape[0]
        h = np.zeros((B, H)) if h0 is None else h0
        c = np.zeros_like(h)
        hs = []
        for x in xs:
            h, c = lstm_cell(x, h, c, W, U, b)
            hs.append(h)
        return hs, c

    def main(xs, params):
        hs, c = run(xs, params)
        summary = np.stack(hs, axis=1).mean(axis=1)
        print(f"T={len(hs)} |h|={np.linalg.norm(hs[-1]):.6f} |c|={np.linalg.norm(c):.6f}")
        hs2, _ = run(xs[::-1], params, hs[-1])   # backward pass seeded with the last state
        return hs, c, summary, hs2[-1]
    return main


@lstm_seq.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    D, H, B = 8, 16, 4
    params = {"W": rng.normal(0, 0.3, (D, 4 * H)), "U": rng.normal(0, 0.3, (H, 4 * H)),
              "b": np.zeros(4 * H)}
    return [rng.standard_normal((B, D)) for _ in range(n)], params


# -- a GRU encoder: a dataclass config and an Enum pooling mode ------------------------------

class Pooling(enum.Enum):
    LAST = "last"
    MEAN = "mean"
    MAX = "max"


@dataclass(frozen=True)
class GRUConfig:
    hidden: int = 12
    n_classes: int = 3
    pooling: Pooling = Pooling.MEAN
    clip: float = 5.0


@program("gru_encoder", sizes=(5, 8), bench=40)
def gru_encoder(deco):
    class GRUClassifier:
        def __init__(self, cfg: GRUConfig, d_in, rng):
            H = cfg.hidden
            self.cfg = cfg
            self.Wz, self.Wr, self.Wh = (rng.normal(0, 0.2, (d_in + H, H)) for _ in range(3))
            self.bz, self.br, self.bh = np.zeros(H), np.zeros(H), np.zeros(H)
            self.head = rng.normal(0, 0.2, (H, cfg.n_classes))

        def step(self, x, h):
            xh = np.concatenate([x, h], axis=1)
            z = sigmoid(xh @ self.Wz + self.bz)
            r = sigmoid(xh @ self.Wr + self.br)
            cand = np.tanh(np.concatenate([x, r * h], axis=1) @ self.Wh + self.bh)
            return (1 - z) * h + z * cand

        @deco
        def forward(self, seq):
            h = np.zeros((seq.shape[0], self.cfg.hidden))
            states = []
            for t in range(seq.shape[1]):
                h = self.step(seq[:, t], h)
                states.append(h)
            if self.cfg.pooling is Pooling.LAST:
                pooled = states[-1]
            elif self.cfg.pooling == Pooling.MEAN:
                pooled = sum(states) / len(states)
            else:
                pooled = np.max(np.stack(states), axis=0)
            logits = np.clip(pooled @ self.head, -self.cfg.clip, self.cfg.clip)
            return logits

        @deco
        def predict(self, seq):
            logits = self.forward(seq)
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            return p / p.sum(axis=1, keepdims=True), logits.argmax(axis=1)

    def main(seq, rng):
        out = {}
        for mode in Pooling:
            model = GRUClassifier(GRUConfig(pooling=mode), seq.shape[2], rng)
            p, label = model.predict(seq)
            out[mode.value] = (p, label)
            print(mode.name, np.bincount(label, minlength=3).tolist())
        return out, rng
    return main


@gru_encoder.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((6, n, 5)), np.random.default_rng(seed + 3)


# -- an optimizer class: per-parameter state in a dict, the rule chosen by an Enum -----------

class Rule(enum.Enum):
    SGD_MOMENTUM = 1
    RMSPROP = 2
    ADAM = 3


@dataclass
class OptConfig:
    rule: Rule = Rule.ADAM
    lr: float = 0.01
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    weight_decay: float = 0.0
    history: list = field(default_factory=list)


@program("optimizer", sizes=(32, 45), bench=2000)
def optimizer(deco):
    class Optimizer:
        def __init__(self, params: dict, cfg: OptConfig):
            self.params = params
            self.cfg = cfg
            self.state = {name: {} for name in params}
            self.t = 0

        @deco
        def step(self, grads):
            cfg = self.cfg
            self.t += 1
            for name, p in self.params.items():
                g = grads[name]
                if cfg.weight_decay:
                    g = g + cfg.weight_decay * p
                st = self.state[name]
                if cfg.rule is Rule.SGD_MOMENTUM:
                    buf = st.setdefault("momentum", np.zeros_like(p))
                    buf *= cfg.beta1
                    buf += g
                    p -= cfg.lr * buf
                elif cfg.rule is Rule.RMSPROP:
                    sq = st.get("sq")
                    if sq is None:
                        sq = st["sq"] = np.zeros_like(p)
                    sq[...] = cfg.beta2 * sq + (1 - cfg.beta2) * g ** 2
                    p -= cfg.lr * g / (np.sqrt(sq) + cfg.eps)
                else:
                    if "m" not in st:
                        st["m"], st["v"] = np.zeros_like(p), np.zeros_like(p)
                    st["m"] = cfg.beta1 * st["m"] + (1 - cfg.beta1) * g
                    st["v"] = cfg.beta2 * st["v"] + (1 - cfg.beta2) * g * g
                    mhat = st["m"] / (1 - cfg.beta1 ** self.t)
                    vhat = st["v"] / (1 - cfg.beta2 ** self.t)
                    p -= cfg.lr * mhat / (np.sqrt(vhat) + cfg.eps)
            cfg.history.append(self.t)

    @deco
    def loss_grads(params, X, y):
        r = X @ params["w"] + params["b"] - y
        loss = 0.5 * np.mean(r ** 2)
        return loss, {"w": X.T @ r / len(y), "b": np.array([r.mean()])}

    def main(X, y, steps=25):
        results = {}
        for rule in Rule:
            params = {"w": np.zeros(X.shape[1]), "b": np.zeros(1)}
            opt = Optimizer(params, OptConfig(rule=rule, lr=0.05, weight_decay=1e-3 if rule is Rule.ADAM else 0.0))
            for _ in range(steps):
                loss, grads = loss_grads(params, X, y)
                opt.step(grads)
            log.info("%s final loss %.5f", rule.name, loss)
            print(f"{rule.name:<13} loss={float(loss):.6f} t={opt.t}")
            results[rule.name] = (params, opt.state, loss, len(opt.cfg.history))
        return results
    return main


@optimizer.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    return X, X @ np.array([1.0, -0.5, 2.0, 0.0]) + 0.1 * rng.standard_normal(n) + 0.3


# -- HMM forward-backward and Viterbi in log space ---------------------------------------------

@program("hmm", sizes=(12, 19), bench=300)
def hmm(deco):
    def logsumexp(a, axis=None, keepdims=False):
        m = np.max(a, axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        s = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
        return s if keepdims else np.squeeze(s, axis=axis)

    @deco
    def forward_backward(log_pi, log_A, log_B, obs):
        T, K = len(obs), len(log_pi)
        alpha = np.empty((T, K))
        beta = np.zeros((T, K))
        alpha[0] = log_pi + log_B[:, obs[0]]
        for t in range(1, T):
            alpha[t] = logsumexp(alpha[t - 1][:, None] + log_A, axis=0) + log_B[:, obs[t]]
        for t in range(T - 2, -1, -1):
            beta[t] = logsumexp(log_A + (log_B[:, obs[t + 1]] + beta[t + 1])[None, :], axis=1)
        loglik = logsumexp(alpha[-1])
        gamma = np.exp(alpha + beta - loglik)
        return gamma, loglik

    @deco
    def viterbi(log_pi, log_A, log_B, obs):
        T, K = len(obs), len(log_pi)
        delta = log_pi + log_B[:, obs[0]]
        back = np.zeros((T, K), dtype=np.intp)
        for t in range(1, T):
            scores = delta[:, None] + log_A
            back[t] = scores.argmax(axis=0)
            delta = scores.max(axis=0) + log_B[:, obs[t]]
        path = [int(delta.argmax())]
        for t in range(T - 1, 0, -1):
            path.append(int(back[t, path[-1]]))
        return path[::-1], float(delta.max())

    def main(pi, A, B, obs):
        lp, lA, lB = np.log(pi), np.log(A), np.log(B)
        gamma, ll = forward_backward(lp, lA, lB, obs)
        path, best = viterbi(lp, lA, lB, obs)
        print(f"loglik {ll:.6f} viterbi {best:.6f} agree {np.mean(gamma.argmax(1) == np.array(path)):.3f}")
        return gamma, ll, path, best
    return main


@hmm.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    A = np.array([[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]])
    B = rng.dirichlet(np.ones(4), size=3)
    return np.array([0.5, 0.3, 0.2]), A, B, rng.integers(0, 4, n)


# -- beam search over a tiny neural language model ---------------------------------------------

@program("beam_search", sizes=(3, 4), bench=5)
def beam_search(deco):
    @deco
    def next_logprobs(E, W, tokens):
        h = np.tanh(E[tokens].mean(axis=0))
        logits = h @ W
        return logits - np.log(np.exp(logits - logits.max()).sum()) - logits.max()

    @deco
    def search(E, W, bos, eos, beam, max_len):
        beams = [(0.0, [bos])]
        done = []
        for _ in range(max_len):
            candidates = []
            for score, toks in beams:
                lp = next_logprobs(E, W, np.array(toks))
                for tok in np.argsort(lp)[::-1][:beam]:
                    candidates.append((score + float(lp[tok]), toks + [int(tok)]))
            candidates.sort(key=lambda c: c[0], reverse=True)
            beams = []
            for score, toks in candidates[:beam]:
                (done if toks[-1] == eos else beams).append((score, toks))
            if not beams:
                break
        done.extend(beams)
        return max(done, key=lambda c: c[0] / len(c[1]))

    def main(E, W, beam):
        score, toks = search(E, W, 0, 1, beam, 6)
        print("best", toks, round(score, 6))
        return score, toks
    return main


@beam_search.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    V, D = 12, 6
    return rng.normal(0, 1.0, (V, D)), rng.normal(0, 1.5, (D, V)), n


# -- convolution by im2col over stride tricks ---------------------------------------------------

@program("im2col", sizes=(8, 11), bench=48)
def im2col(deco):
    def windows(x, kh, kw, stride=1):
        N, C, H, W = x.shape
        oh, ow = (H - kh) // stride + 1, (W - kw) // stride + 1
        s = x.strides
        return as_strided(x, (N, C, oh, ow, kh, kw),
                          (s[0], s[1], s[2] * stride, s[3] * stride, s[2], s[3]), writeable=False)

    @deco
    def conv2d(x, w, b, stride=1, pad=0):
        if pad:
            x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        F, C, kh, kw = w.shape
        cols = windows(x, kh, kw, stride)
        N, _, oh, ow = cols.shape[:4]
        cols = cols.transpose(0, 2, 3, 1, 4, 5).reshape(N * oh * ow, C * kh * kw)
        out = cols @ w.reshape(F, -1).T + b
        return out.reshape(N, oh, ow, F).transpose(0, 3, 1, 2)

    @deco
    def block(x, w1, b1, w2, b2):
        y = np.maximum(conv2d(x, w1, b1, pad=1), 0.0)
        y = conv2d(y, w2, b2, stride=2)
        N, F, H, W = y.shape
        return y.reshape(N, F, -1).mean(axis=2)

    def main(x, w1, b1, w2, b2):
        feats = block(x, w1, b1, w2, b2)
        print("features", feats.shape, f"{feats.std():.6f}")
        return feats, conv2d(x, w1, b1)
    return main


@im2col.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((2, 3, n, n)), rng.normal(0, 0.3, (4, 3, 3, 3)), np.zeros(4),
            rng.normal(0, 0.3, (5, 4, 3, 3)), rng.normal(0, 0.1, 5))


# -- Gray-Scott reaction-diffusion: in-place updates, fixed and periodic boundaries ---------------

@program("gray_scott", sizes=(16, 21), bench=128)
def gray_scott(deco):
    @deco
    def laplacian(Z, out):
        out[1:-1, 1:-1] = (Z[:-2, 1:-1] + Z[2:, 1:-1] + Z[1:-1, :-2] + Z[1:-1, 2:] - 4 * Z[1:-1, 1:-1])
        return out

    @deco
    def step(U, V, LU, LV, Du, Dv, F, k, dt):
        laplacian(U, LU)
        laplacian(V, LV)
        uvv = U * V * V
        U += dt * (Du * LU - uvv + F * (1 - U))
        V += dt * (Dv * LV + uvv - (F + k) * V)
        # periodic edges for U, clamped (zero-flux) edges for V
        U[0, :], U[-1, :] = U[-2, :], U[1, :]
        U[:, 0], U[:, -1] = U[:, -2], U[:, 1]
        V[0, :] = V[1, :]
        V[-1, :] = V[-2, :]
        V[:, 0] = V[:, 1]
        V[:, -1] = V[:, -2]

    def main(U, V, steps=40, every=10):
        LU, LV = np.zeros_like(U), np.zeros_like(V)
        for s in range(steps):
            step(U, V, LU, LV, 0.16, 0.08, 0.035, 0.065, 1.0)
            if (s + 1) % every == 0:
                print(f"step {s + 1}: mean V {V.mean():.8f}")
        return U.sum(), V.max()
    return main


@gray_scott.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    U, V = np.ones((n, n)), np.zeros((n, n))
    c = n // 2
    U[c - 2:c + 2, c - 2:c + 2] = 0.5
    V[c - 2:c + 2, c - 2:c + 2] = 0.25
    V += 0.01 * rng.random((n, n))
    return U, V


# -- Longstaff-Schwartz American put: the Generator is passed in ----------------------------------

@program("lsmc", sizes=(200, 301), bench=20000)
def lsmc(deco):
    @deco
    def simulate(S0, r, sigma, T, steps, n_paths, rng):
        dt = T / steps
        z = rng.standard_normal((n_paths, steps))
        incr = (r - 0.5 * sigma ** 2) * dt + sigma * math.sqrt(dt) * z
        return S0 * np.exp(np.concatenate([np.zeros((n_paths, 1)), np.cumsum(incr, axis=1)], axis=1))

    @deco
    def price(S, K, r, T):
        steps = S.shape[1] - 1
        dt = T / steps
        disc = np.exp(-r * dt)
        cash = np.maximum(K - S[:, -1], 0.0)
        for t in range(steps - 1, 0, -1):
            cash = cash * disc
            itm = K - S[:, t] > 0
            if itm.sum() < 3:
                continue
            x = S[itm, t]
            A = np.stack([np.ones_like(x), x, x * x], axis=1)
            coef, *_ = np.linalg.lstsq(A, cash[itm], rcond=None)
            cont = A @ coef
            exercise = K - x
            ex = exercise > cont
            idx = np.flatnonzero(itm)[ex]
            cash[idx] = exercise[ex]
        return disc * cash.mean(), disc * cash.std() / np.sqrt(len(cash))

    def main(n_paths, rng):
        S = simulate(36.0, 0.06, 0.2, 1.0, 10, n_paths, rng)
        p, se = price(S, 40.0, 0.06, 1.0)
        print(f"american put {p:.6f} +- {se:.6f}")
        return p, se, rng
    return main


@lsmc.inputs
def _(n, seed):
    return n, np.random.default_rng(seed)


# -- PCA by SVD with sign fixing and a rank chosen by explained variance --------------------------

@program("pca_signfix", sizes=(40, 57), bench=3000)
def pca_signfix(deco):
    @deco
    def svd_flip(U, Vt):
        cols = np.argmax(np.abs(U), axis=0)
        signs = np.sign(U[cols, range(U.shape[1])])
        return U * signs, Vt * signs[:, None]

    @deco
    def fit(X, var_kept=0.9):
        mu = X.mean(axis=0)
        U, S, Vt = np.linalg.svd(X - mu, full_matrices=False)
        U, Vt = svd_flip(U, Vt)
        ratio = S ** 2 / np.sum(S ** 2)
        k = int(np.searchsorted(np.cumsum(ratio), var_kept) + 1)
        return {"mean": mu, "components": Vt[:k], "ratio": ratio[:k], "k": k}

    @deco
    def reconstruct(model, X):
        Z = (X - model["mean"]) @ model["components"].T
        return Z, Z @ model["components"] + model["mean"]

    def main(X):
        model = fit(X)
        Z, Xr = reconstruct(model, X)
        err = np.mean((X - Xr) ** 2)
        print(f"k={model['k']} kept {model['ratio'].sum():.6f} mse {err:.6e}")
        return model, Z, err
    return main


@pca_signfix.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(10, 10)) * np.array([5, 4, 3, 1, 0.5, 0.2, 0.1, 0.1, 0.05, 0.01])[:, None]
    return (rng.normal(size=(n, 10)) @ A,)


# -- conjugate gradients over a CSR matrix multiplied with np.add.reduceat -------------------------

@dataclass
class CSRMatrix:
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple

    def matvec(self, x):
        prod = self.data * x[self.indices]
        out = np.zeros(self.shape[0])
        nonempty = np.diff(self.indptr) > 0
        out[nonempty] = np.add.reduceat(prod, self.indptr[:-1][nonempty])
        return out


@program("csr_cg", sizes=(20, 31), bench=2000)
def csr_cg(deco):
    @deco
    def cg(A, b, tol=1e-10, max_iter=200, callback=None):
        x = np.zeros_like(b)
        r = b - A.matvec(x)
        p = r.copy()
        rs = r @ r
        for it in range(max_iter):
            Ap = A.matvec(p)
            alpha = rs / (p @ Ap)
            x += alpha * p
            r -= alpha * Ap
            rs_new = r @ r
            if callback is not None:
                callback(it, np.sqrt(rs_new))
            if np.sqrt(rs_new) < tol:
                break
            p = r + (rs_new / rs) * p
            rs = rs_new
        return x, it + 1

    def main(data, indices, indptr, b):
        A = CSRMatrix(data, indices, indptr, (len(b), len(b)))
        norms = []
        x, iters = cg(A, b, callback=lambda it, rn: norms.append(rn))
        print(f"cg converged in {iters} iterations, residual {np.linalg.norm(A.matvec(x) - b):.3e}")
        return x, iters, norms
    return main


@csr_cg.inputs
def _(n, seed):
    # a 1-D Laplacian plus a diagonal shift, rows in CSR order
    rng = np.random.default_rng(seed)
    rows, cols, vals = [], [], []
    for i in range(n):
        for j, v in ((i - 1, -1.0), (i, 2.5 + rng.random()), (i + 1, -1.0)):
            if 0 <= j < n:
                rows.append(i)
                cols.append(j)
                vals.append(v)
    indptr = np.searchsorted(np.array(rows), np.arange(n + 1))
    return np.array(vals), np.array(cols), indptr, rng.standard_normal(n)


# -- an MLP on mini-batches: logging, a progress callback, a print every N steps -------------------

class Progress:
    """A tqdm-like counter: ``update(k)`` and a postfix."""

    def __init__(self, total, every):
        self.total, self.n, self.every = total, 0, every
        self.postfix = {}

    def update(self, k=1):
        self.n += k
        if self.n % self.every == 0 or self.n == self.total:
            items = " ".join(f"{key}={val:.4f}" for key, val in self.postfix.items())
            print(f"[{self.n}/{self.total}] {items}")

    def set_postfix(self, **kw):
        self.postfix.update(kw)


@program("mlp_minibatch", sizes=(48, 70), bench=2000)
def mlp_minibatch(deco):
    @deco
    def train_step(params, X, Y, lr):
        W1, b1, W2, b2 = params
        h = X @ W1 + b1
        a = np.where(h > 0, h, 0.01 * h)          # leaky ReLU
        out = a @ W2 + b2
        err = out - Y
        loss = np.mean(err ** 2)
        d_out = 2 * err / err.size
        gW2, gb2 = a.T @ d_out, d_out.sum(axis=0)
        da = d_out @ W2.T
        dh = da * np.where(h > 0, 1.0, 0.01)
        gW1, gb1 = X.T @ dh, dh.sum(axis=0)
        for p, g in zip(params, (gW1, gb1, gW2, gb2)):
            p -= lr * g
        return loss

    @deco
    def evaluate(params, X, Y):
        W1, b1, W2, b2 = params
        h = X @ W1 + b1
        return float(np.mean((np.where(h > 0, h, 0.01 * h) @ W2 + b2 - Y) ** 2))

    def main(X, Y, rng, epochs=3, batch=16, log_every=4):
        params = [rng.normal(0, 0.3, (X.shape[1], 12)), np.zeros(12),
                  rng.normal(0, 0.3, (12, Y.shape[1])), np.zeros(Y.shape[1])]
        steps_per_epoch = -(-len(X) // batch)
        bar = Progress(epochs * steps_per_epoch, every=log_every)
        history = []
        for epoch in range(epochs):
            perm = rng.permutation(len(X))
            lr = 0.05 * 0.5 ** epoch
            for i in range(steps_per_epoch):
                idx = perm[i * batch:(i + 1) * batch]
                loss = train_step(params, X[idx], Y[idx], lr)
                history.append(loss)
                bar.set_postfix(loss=float(loss), lr=lr)
                bar.update()
                log.debug("epoch %d step %d loss %.4f", epoch, i, loss)
            val = evaluate(params, X, Y)
            log.info("epoch %d validation %.5f", epoch, val)
            print(f"epoch {epoch}: val {val:.6f}")
        return params, np.array(history), rng
    return main


@mlp_minibatch.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    Y = np.stack([np.sin(X[:, 0]) + X[:, 1] ** 2, X[:, 2] * X[:, 3]], axis=1)
    return X, Y, np.random.default_rng(seed + 11)


# -- a Gaussian-mixture EM with a log-likelihood tolerance ----------------------------------------

@program("gmm_em", sizes=(60, 91), bench=3000)
def gmm_em(deco):
    @deco
    def e_step(X, weights, means, variances):
        d = X[:, None, :] - means[None]
        log_p = (-0.5 * np.sum(d ** 2 / variances[None], axis=2)
                 - 0.5 * np.sum(np.log(2 * np.pi * variances), axis=1)[None] + np.log(weights)[None])
        m = log_p.max(axis=1, keepdims=True)
        log_norm = m + np.log(np.exp(log_p - m).sum(axis=1, keepdims=True))
        return np.exp(log_p - log_norm), float(log_norm.sum())

    @deco
    def m_step(X, resp, reg=1e-6):
        nk = resp.sum(axis=0) + 10 * np.finfo(float).eps
        means = resp.T @ X / nk[:, None]
        variances = resp.T @ (X * X) / nk[:, None] - means ** 2 + reg
        return nk / len(X), means, variances

    def main(X, k, tol=1e-6, max_iter=100):
        means = X[np.linspace(0, len(X) - 1, k).astype(int)].copy()
        weights, variances = np.full(k, 1.0 / k), np.ones((k, X.shape[1]))
        prev = -np.inf
        for it in range(max_iter):
            resp, ll = e_step(X, weights, means, variances)
            if ll - prev < tol * abs(ll):
                break
            prev = ll
            weights, means, variances = m_step(X, resp)
        print(f"EM: {it} iterations, loglik {ll:.6f}")
        return weights, means, variances, ll, it
    return main


@gmm_em.inputs
def _(n, seed):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [4.0, 1.0], [1.0, 5.0]])
    return centres[np.arange(n) % 3] + rng.standard_normal((n, 2)) * np.array([1.0, 0.6]), 3
