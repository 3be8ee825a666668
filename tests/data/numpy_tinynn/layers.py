import numpy as np


def relu(x):
    return np.maximum(x, 0.0)


class Dense:
    def __init__(self, n_in, n_out, seed=0):
        rng = np.random.default_rng(seed)
        self.W = rng.standard_normal((n_in, n_out)) * 0.1
        self.b = np.zeros(n_out)
        self.params = {"W": self.W, "b": self.b}

    def forward(self, x):
        self.x = x
        return x @ self.params["W"] + self.params["b"]

    def backward(self, dy):
        grads = {"W": self.x.T @ dy, "b": dy.sum(axis=0)}
        return dy @ self.params["W"].T, grads


class LSTMCell:
    """One LSTM step; current_step counts the steps taken (as numpy-ml's LSTMCell)."""

    def __init__(self, n_in, n_hidden, seed=1):
        rng = np.random.default_rng(seed)
        self.Wx = rng.standard_normal((n_in, 4 * n_hidden)) * 0.1
        self.Wh = rng.standard_normal((n_hidden, 4 * n_hidden)) * 0.1
        self.b = np.zeros(4 * n_hidden)
        self.n_hidden = n_hidden
        self.current_step = 0

    def forward(self, x, h, c):
        n = self.n_hidden
        z = x @ self.Wx + h @ self.Wh + self.b
        i = 1.0 / (1.0 + np.exp(-z[:, :n]))
        f = 1.0 / (1.0 + np.exp(-z[:, n:2 * n]))
        o = 1.0 / (1.0 + np.exp(-z[:, 2 * n:3 * n]))
        g = np.tanh(z[:, 3 * n:])
        c = f * c + i * g
        h = o * np.tanh(c)
        self.current_step += 1
        return h, c
