import numpy as np


class Adam:
    """Adam with bias correction by the step counter `t` (a Python int)."""

    def __init__(self, lr=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.t = 0
        self.cache = {}

    def update(self, name, param, grad):
        if name not in self.cache:
            self.cache[name] = {"m": np.zeros_like(grad), "v": np.zeros_like(grad)}
        state = self.cache[name]
        state["m"] = self.beta1 * state["m"] + (1 - self.beta1) * grad
        state["v"] = self.beta2 * state["v"] + (1 - self.beta2) * grad ** 2
        m_hat = state["m"] / (1 - self.beta1 ** self.t)
        v_hat = state["v"] / (1 - self.beta2 ** self.t)
        return param - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)

    def step(self):
        self.t += 1
