"""A symbolic dim matches every size >= 2, but the two inference worlds only
see sizes from the traced one up: a clamp (``x[:3]``, ``x[-3:]``, a slice
with a stop past the end) that is static at the traced sizes may not be
below them.  Where the trace reads such a dim as a Python int, the entry
must not serve the smaller sizes with the traced value (sot/ir/floor.py)."""
import numpy as np
import pytest

import sot

from difftest import assert_same


def head_len(x):
    y = x[:3]
    return y.shape[0]


def tail_len_and_sum(x):
    y = x[-3:]
    return len(y), y.sum()


def size_of_window(x):
    w = x[1:5] * 2
    return w.size + w.nbytes, w


def stepped(x):
    y = x[::4]
    return y.shape[0] * 10 + y.sum()


def two_dims(x):
    y = x[:3, :2]
    return y.shape, y * 2


def branch_on_clamp(x):
    y = x[:4]
    if y.shape[0] == 4:
        return y.sum()
    return -y.sum()


FUNCTIONS = [head_len, tail_len_and_sum, size_of_window, stepped, two_dims, branch_on_clamp]
SIZES = [6, 7, 9, 2, 3, 5, 4, 12, 1]


def _arg(fn, n):
    return np.arange(float(n * 3)).reshape(n, 3) if fn is two_dims else np.arange(float(n))


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_clamped_sizes_read_in_python_match_eager_at_every_size(fn, backend):
    static = sot.to_static(fn, backend=backend)
    for n in SIZES:   # two large sizes first: the dim becomes symbolic, then smaller ones
        assert_same(fn(_arg(fn, n)), static(_arg(fn, n)), bitwise=backend == "numpy")


def test_a_clamp_the_trace_does_not_read_stays_symbolic():
    def fn(x):
        return x[:3] * 2 + 1, x.sum()

    static = sot.to_static(fn)
    for n in SIZES:
        assert_same(fn(np.arange(float(n))), static(np.arange(float(n))), bitwise=True)
    assert sot.translation_count(fn) <= 3   # static, symbolic, size 1: not one per size
