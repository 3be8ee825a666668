"""A tiny NumPy layer/optimizer library, installed into a temporary site
directory by tests/test_libraries.py (it must live outside the project, as
installed libraries do).  Written the way numpy-ml is: weights and step
counters in attributes, Python numbers in the update rules."""
from .layers import Dense, LSTMCell, relu
from .losses import mse, mse_grad
from .optim import Adam

__all__ = ["Dense", "LSTMCell", "relu", "mse", "mse_grad", "Adam"]
