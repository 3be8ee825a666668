"""A `collections.deque` given to NumPy's stacking and array-making
functions (`np.stack(window)`, `np.concatenate(history)`, `np.array(q)`):
NumPy reads it as the sequence of its items, exactly as a list, so the
graph records it as one. Other functions that tell a list from another
sequence (`np.block` takes a deque for a single array) are not listed and
break, giving eager's result."""
import collections

import numpy as np
import pytest

from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float64).reshape(3, 4)


def sliding_window(x):
    window = collections.deque(maxlen=2)
    for row in x:
        window.append(row * 2)
    return (np.stack(window), np.concatenate(window), np.vstack(window), np.hstack(window), np.dstack(window),
            np.column_stack(window), len(window))


def numbers_to_array(x):
    q = collections.deque([1.5, 2.0])
    q.appendleft(float(x.shape[0]))
    return np.array(q) * x[0, :3], np.asarray(q, dtype=np.float32)


def argument_deque(x, q):
    q.append(x[0])
    return np.stack(q) + 1


def block_of_deque(x):
    return np.block(collections.deque([x, x]))


@pytest.mark.parametrize("fn", [sliding_window, numbers_to_array])
def test_made_in_the_trace_captured_whole(fn):
    assert_captured_whole(fn, X)
    check(fn, (X,), (X[:2],))


def test_argument_deque_matches_eager_as_its_length_changes():
    def args(n):
        return X, collections.deque([np.ones(4) * i for i in range(n)], maxlen=4)
    check(argument_deque, args(1), args(2), args(3), args(4))


def test_block_keeps_eagers_reading():
    check(block_of_deque, (X,))
