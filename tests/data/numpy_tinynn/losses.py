import numpy as np


def mse(y, target):
    return 0.5 * np.mean((y - target) ** 2)


def mse_grad(y, target):
    return (y - target) / y.size
