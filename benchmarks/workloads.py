"""The workloads shared by the benchmarks and the end-to-end tests."""
from __future__ import annotations

import numpy as np


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x ** 3)))


def gelu_cube(x):
    return 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x * x * x)))


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layernorm(x, weight, bias, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def attention(q, k, v):
    """Scaled dot-product attention as often written: ``np.sqrt(d)`` is a
    float64 NumPy scalar, so under NumPy 2's rules (NEP 50) the scores, the
    softmax and the result are float64 even for float32 q, k, v."""
    d = q.shape[-1]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
    scores = scores - scores.max(-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(-1, keepdims=True)
    return p @ v


def attention_f32(q, k, v):
    """The same, as a float32 user writes it: the scale is a Python float
    (weak under NEP 50), so everything stays float32."""
    d = q.shape[-1]
    scores = q @ k.transpose(0, 2, 1) / d ** 0.5
    scores = scores - scores.max(-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(-1, keepdims=True)
    return p @ v


class Linear:
    def __init__(self, n_in, n_out, rng):
        self.w = (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
        self.b = np.zeros(n_out, dtype=np.float32)

    def __call__(self, x):
        return x @ self.w + self.b


class MLP:
    """42 x Linear(512, 512) with ReLU between: 125 graph ops (matmul, add, maximum)."""

    def __init__(self, layers=42, width=512, seed=0):
        rng = np.random.default_rng(seed)
        self.layers = [Linear(width, width, rng) for _ in range(layers)]

    def __call__(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = np.maximum(x, 0)
        return x


def tiny(x, y):
    return (x * y + 1).sum()


def _small_helper(a, b):
    return a * b + 1


def many_helpers(x):
    """Calls 10,000 small pure-Python helpers: frames sot must skip cheaply."""
    total = 0
    for _ in range(10_000):
        total = _small_helper(total, 3) % 7
    return x * total


def branch(x):
    if x.sum() > 0:
        return np.tanh(x) * 2
    else:
        return np.exp(x)


def with_print(x):
    y = np.tanh(x) * 2 + 1
    print("mid", y.shape)
    return np.exp(-y) * y


def heat_steps(u, lap, steps=4, alpha=0.2):
    """Explicit 2-D heat diffusion, in place: each step computes the
    Laplacian of the interior into the preallocated ``lap`` (ufunc out=)
    and updates the interior of the state ``u`` (``+=`` on a view)."""
    for _ in range(steps):
        np.add(u[:-2, 1:-1], u[2:, 1:-1], out=lap)
        lap += u[1:-1, :-2]
        lap += u[1:-1, 2:]
        lap -= 4.0 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += alpha * lap
    return u


def fill_rows(x):
    """Preallocate, then fill row by row over a static range."""
    out = np.empty((x.shape[0], x.shape[1]), x.dtype)
    for i in range(x.shape[0]):
        out[i] = np.tanh(x[i]) * 0.5 + x[i]
    return out


def rk4_step(y, w, dt=0.01):
    """One RK4 step of dy/dt = tanh(y @ w), updating the state ``y`` in place."""
    k1 = np.tanh(y @ w)
    k2 = np.tanh((y + 0.5 * dt * k1) @ w)
    k3 = np.tanh((y + 0.5 * dt * k2) @ w)
    k4 = np.tanh((y + dt * k3) @ w)
    y += dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y
