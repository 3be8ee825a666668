"""A small GPT-2 style transformer in plain NumPy, its forward pass traced.

    python examples/gpt2_small.py [--small]

Token and position embeddings, ``layers`` blocks of (layer norm, causal
multi-head self-attention, layer norm, MLP with tanh-gelu) with residual
connections, and the tied output projection to logits. Everything is
float32 (scales are Python floats, so NumPy 2 keeps float32). The model is
a callable object whose weights are attributes: sot guards them as graph
inputs, so updating a weight in place is seen; ``freeze=True`` promises
they are not, and onnxruntime can then pre-pack them.
"""
import numpy as np

import sot
from _common import compare, small


def layer_norm(x, w, b, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


class Block:
    def __init__(self, width, heads, rng):
        def w(*shape):
            return (rng.standard_normal(shape) * 0.02).astype(np.float32)
        self.heads = heads
        self.ln1_w, self.ln1_b = np.ones(width, np.float32), np.zeros(width, np.float32)
        self.ln2_w, self.ln2_b = np.ones(width, np.float32), np.zeros(width, np.float32)
        self.qkv, self.qkv_b = w(width, 3 * width), np.zeros(3 * width, np.float32)
        self.proj, self.proj_b = w(width, width), np.zeros(width, np.float32)
        self.fc, self.fc_b = w(width, 4 * width), np.zeros(4 * width, np.float32)
        self.out, self.out_b = w(4 * width, width), np.zeros(width, np.float32)

    def attention(self, x, mask):
        b, t, c = x.shape
        h = self.heads
        q, k, v = np.split(x @ self.qkv + self.qkv_b, 3, axis=-1)
        q = q.reshape(b, t, h, c // h).transpose(0, 2, 1, 3)
        k = k.reshape(b, t, h, c // h).transpose(0, 2, 1, 3)
        v = v.reshape(b, t, h, c // h).transpose(0, 2, 1, 3)
        scores = q @ k.transpose(0, 1, 3, 2) * (1.0 / (c // h) ** 0.5) + mask
        y = softmax(scores) @ v
        return y.transpose(0, 2, 1, 3).reshape(b, t, c) @ self.proj + self.proj_b

    def __call__(self, x, mask):
        x = x + self.attention(layer_norm(x, self.ln1_w, self.ln1_b), mask)
        return x + gelu(layer_norm(x, self.ln2_w, self.ln2_b) @ self.fc + self.fc_b) @ self.out + self.out_b


class GPT:
    def __init__(self, vocab=1000, context=128, width=128, heads=4, layers=4, seed=0):
        rng = np.random.default_rng(seed)
        self.wte = (rng.standard_normal((vocab, width)) * 0.02).astype(np.float32)
        self.wpe = (rng.standard_normal((context, width)) * 0.01).astype(np.float32)
        self.blocks = [Block(width, heads, rng) for _ in range(layers)]
        self.lnf_w, self.lnf_b = np.ones(width, np.float32), np.zeros(width, np.float32)

    def __call__(self, ids, mask):
        """Logits (batch, tokens, vocab) for token ids (batch, tokens);
        ``mask`` is 0 where a token may attend and -1e9 where it may not."""
        x = self.wte[ids] + self.wpe[: ids.shape[1]]
        for block in self.blocks:
            x = block(x, mask)
        return layer_norm(x, self.lnf_w, self.lnf_b) @ self.wte.T


def causal_mask(t):
    return np.triu(np.full((t, t), -1e9, np.float32), 1)


def main():
    if small():
        model, batch, tokens = GPT(vocab=100, context=16, width=32, heads=2, layers=2), 2, 16
    else:
        model, batch, tokens = GPT(vocab=4000, context=256, width=256, heads=8, layers=6), 8, 256
    ids = np.random.default_rng(1).integers(0, model.wte.shape[0], (batch, tokens))
    mask = causal_mask(tokens)
    compare(f"GPT forward, {len(model.blocks)} layers, width {model.wte.shape[1]}, "
            f"batch {batch} x {tokens} tokens", model, (ids, mask), freeze=True)

    # greedy generation with a fixed-size window: the shapes never change, so
    # one translation serves every step (the causal mask keeps the positions
    # after the last token from mattering)
    sot.reset()                    # forget the translations made for the comparison above
    generate = sot.to_static(model, freeze=True)
    window = np.zeros((1, tokens), ids.dtype)
    length = 4
    window[0, :length] = ids[0, :length]
    while length < min(tokens, 10 if small() else 32):
        logits = generate(window, mask)
        window[0, length] = logits[0, length - 1].argmax()
        length += 1
    print(f"generated tokens {window[0, 4:length].tolist()} with {sot.translation_count(generate)} "
          "translation(s)")

if __name__ == "__main__":
    main()
