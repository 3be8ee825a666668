"""A GPT-2 in NumPy for the decode benchmarks and tests (random float32 weights).

Token and position embeddings, pre-LN blocks with causal multi-head
attention and a GELU MLP, a final layer norm and the output projection tied
to the token embedding.  ``forward(ids)`` gives the logits of every
position; ``generate`` is the usual greedy loop around it (the sequence
grows by one token per step), and ``generate_cached`` keeps each layer's
keys and values in a list that ``forward_cached`` returns, one position
longer (concatenated) every step.  (The loop holds the cache: a forward that
mutates the caller's list or dict in place breaks the graph at each layer
today -- a side effect on an object from outside the function.)  Written
as a float32 user writes it: the attention scale is a Python float, so
nothing is promoted to float64.
"""
from __future__ import annotations

import numpy as np


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978846 * (x + 0.044715 * x * x * x)))


def _layernorm(x, g, b, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


class GPT2:
    """``layers`` blocks of width ``d`` with ``heads`` heads; vocabulary ``vocab``, context ``ctx``."""

    def __init__(self, layers=12, d=768, heads=12, vocab=50257, ctx=1024, seed=0):
        rng = np.random.default_rng(seed)

        def w(*shape, scale=0.02):
            return (rng.standard_normal(shape, dtype=np.float32) * np.float32(scale))

        self.heads = heads
        self.wte = w(vocab, d)
        self.wpe = w(ctx, d, scale=0.01)
        self.blocks = [{
            "ln1_g": np.ones(d, np.float32), "ln1_b": np.zeros(d, np.float32),
            "attn_w": w(d, 3 * d), "attn_b": np.zeros(3 * d, np.float32),
            "proj_w": w(d, d), "proj_b": np.zeros(d, np.float32),
            "ln2_g": np.ones(d, np.float32), "ln2_b": np.zeros(d, np.float32),
            "fc_w": w(d, 4 * d), "fc_b": np.zeros(4 * d, np.float32),
            "out_w": w(4 * d, d), "out_b": np.zeros(d, np.float32),
        } for _ in range(layers)]
        self.lnf_g, self.lnf_b = np.ones(d, np.float32), np.zeros(d, np.float32)

    def _attend(self, q, k, v, causal):
        """q: (h, n, dh), k/v: (h, m, dh); position i of q sees keys up to m - n + i."""
        n, m = q.shape[1], k.shape[1]
        scores = q @ k.transpose(0, 2, 1) / q.shape[-1] ** 0.5
        if causal:
            mask = np.arange(m) <= np.arange(m - n, m)[:, None]
            scores = np.where(mask, scores, -1e10)   # a Python float: stays float32
        return _softmax(scores) @ v

    def _heads(self, x):
        n, d = x.shape
        return x.reshape(n, self.heads, d // self.heads).transpose(1, 0, 2)

    def _block(self, x, p, past=None):
        """The block's output, and its keys and values (after ``past``'s)."""
        h = _layernorm(x, p["ln1_g"], p["ln1_b"]) @ p["attn_w"] + p["attn_b"]
        q, k, v = np.split(h, 3, axis=-1)
        q, k, v = self._heads(q), self._heads(k), self._heads(v)
        if past is not None:
            k = np.concatenate([past[0], k], axis=1)
            v = np.concatenate([past[1], v], axis=1)
        a = self._attend(q, k, v, causal=True)
        a = a.transpose(1, 0, 2).reshape(x.shape)
        x = x + a @ p["proj_w"] + p["proj_b"]
        m = _gelu(_layernorm(x, p["ln2_g"], p["ln2_b"]) @ p["fc_w"] + p["fc_b"])
        return x + m @ p["out_w"] + p["out_b"], (k, v)

    def forward(self, ids):
        """Logits (len(ids), vocab) of the token ids (an int64 array)."""
        x = self.wte[ids] + self.wpe[np.arange(ids.shape[0])]
        for p in self.blocks:
            x, _ = self._block(x, p)
        return _layernorm(x, self.lnf_g, self.lnf_b) @ self.wte.T

    def forward_cached(self, ids, past):
        """(logits of ``ids``, the new cache): ``past`` is the cache of the
        positions before (a list of (keys, values) per layer, each of shape
        (heads, n, dh); an empty list at first), and the new cache holds
        theirs and these positions'.  The position comes from its length."""
        start = past[0][0].shape[1] if past else 0
        x = self.wte[ids] + self.wpe[np.arange(start, start + ids.shape[0])]
        present = []
        for i, p in enumerate(self.blocks):
            x, kv = self._block(x, p, past[i] if past else None)
            present.append(kv)
        return _layernorm(x, self.lnf_g, self.lnf_b) @ self.wte.T, present


def generate(forward, ids, n):
    """Greedy decoding: ``n`` new tokens after ``ids``, the whole sequence run every step."""
    ids = list(ids)
    for _ in range(n):
        logits = forward(np.array(ids, dtype=np.int64))
        ids.append(int(np.argmax(logits[-1])))
    return ids[-n:]


def generate_cached(forward_cached, ids, n):
    """Greedy decoding with a KV cache: the prompt once, then one token per step."""
    cache = []
    out = []
    x = np.array(ids, dtype=np.int64)
    for _ in range(n):
        logits, cache = forward_cached(x, cache)
        nxt = int(np.argmax(logits[-1]))
        out.append(nxt)
        x = np.array([nxt], dtype=np.int64)
    return out
