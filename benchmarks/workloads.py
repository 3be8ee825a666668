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


# -- GPT-2 forward as picoGPT writes it (gpt2.py), unmodified in style:
# list(map(lambda ...)) over heads, wpe[range(len(inputs))], np.tri mask.

def gpt_gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def gpt_softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def gpt_layer_norm(x, g, b, eps: float = 1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    x = (x - mean) / np.sqrt(variance + eps)
    return g * x + b


def gpt_linear(x, w, b):
    return x @ w + b


def gpt_ffn(x, c_fc, c_proj):
    a = gpt_gelu(gpt_linear(x, **c_fc))
    x = gpt_linear(a, **c_proj)
    return x


def gpt_attention(q, k, v, mask):
    return gpt_softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


def gpt_mha(x, c_attn, c_proj, n_head):
    x = gpt_linear(x, **c_attn)
    qkv = np.split(x, 3, axis=-1)
    qkv_heads = list(map(lambda x: np.split(x, n_head, axis=-1), qkv))
    causal_mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10
    out_heads = [gpt_attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads)]
    x = np.hstack(out_heads)
    x = gpt_linear(x, **c_proj)
    return x


def gpt_transformer_block(x, mlp, attn, ln_1, ln_2, n_head):
    x = x + gpt_mha(gpt_layer_norm(x, **ln_1), **attn, n_head=n_head)
    x = x + gpt_ffn(gpt_layer_norm(x, **ln_2), **mlp)
    return x


def gpt2(inputs, wte, wpe, blocks, ln_f, n_head):
    x = wte[inputs] + wpe[range(len(inputs))]
    for block in blocks:
        x = gpt_transformer_block(x, **block, n_head=n_head)
    x = gpt_layer_norm(x, **ln_f)
    return x @ wte.T


def gpt2_params(n_vocab=256, n_ctx=64, n_embd=64, n_head=4, n_layer=2, seed=0):
    """Small random float32 weights in picoGPT's layout; (params, n_head)."""
    rng = np.random.default_rng(seed)

    def w(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def ln():
        return {"g": np.ones(n_embd, np.float32), "b": np.zeros(n_embd, np.float32)}

    blocks = [{"mlp": {"c_fc": {"w": w(n_embd, 4 * n_embd), "b": w(4 * n_embd)},
                       "c_proj": {"w": w(4 * n_embd, n_embd), "b": w(n_embd)}},
               "attn": {"c_attn": {"w": w(n_embd, 3 * n_embd), "b": w(3 * n_embd)},
                        "c_proj": {"w": w(n_embd, n_embd), "b": w(n_embd)}},
               "ln_1": ln(), "ln_2": ln()} for _ in range(n_layer)]
    params = {"wte": w(n_vocab, n_embd), "wpe": w(n_ctx, n_embd), "blocks": blocks, "ln_f": ln()}
    return params, n_head
