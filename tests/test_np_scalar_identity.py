"""NumPy scalar and 0-d corners, and identity questions NumPy answers without
looking at data: each is captured whole and matches eager (difftest.check)."""
import numpy as np
import pytest

from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize("z", [np.array(2.5), np.array(3, dtype=np.int32), np.array(1.5, dtype=np.float32)])
def test_inplace_update_of_a_0d_argument_writes_into_it(z):
    def f(z):
        z += 1
        z[...] = z * 2
        z *= 3
        return z, z + 1
    check(f, (z,))
    assert_captured_whole(f, z.copy())


def test_inplace_update_of_a_0d_int_with_a_float_raises_as_eager():
    def f(z):
        z += 1.5
        return z
    check(f, (np.array(3, dtype=np.int32),))


def test_conversions_that_return_their_operand_are_that_object():
    def f(x):
        return (np.asarray(x) is x, np.asanyarray(x) is x, np.asarray(x, dtype=np.float32) is x,
                x.astype(np.float32, copy=False) is x, x.astype("f4", copy=False) is x,
                np.asarray(x, order="K", copy=None) is x)
    check(f, (X,), (X.T,), (np.array(1.0, np.float32),))
    assert_captured_whole(f, X)


def test_copies_and_new_arrays_are_not_their_operand():
    def f(x):
        y, z, v = x.astype(np.float64), x.astype(np.float32), x * 2
        return (y, z is x, y is x, v is x, x is v, np.asarray(v) is v, v.astype(np.float32) is v,
                np.asarray(x, dtype=np.float64) is x, z is v)
    check(f, (X,), (X.T,))
    assert_captured_whole(f, X)


def test_identity_of_a_view_is_still_not_decided():
    def f(x):
        v = x[1:]
        return np.asarray(v, dtype=np.float32) is v, v is x
    check(f, (X,))


def test_numpy_integer_constant_indexes_a_list_and_a_str():
    def f(x):
        return [1, 2, 3][np.int64(1)], "abc"[np.int32(2)], (4, 5)[np.uint8(0)], x + 1
    check(f, (X,))
    assert_captured_whole(f, X)


def test_numpy_float_list_index_raises_as_eager():
    def f(x):
        return [1, 2, 3][np.float64(1.0)], x
    check(f, (X,))


def test_methods_of_constant_numpy_scalars_fold():
    def f(x):
        return (np.float64(1.5).is_integer(), np.float32(2.0).is_integer(), np.float64(0.25).as_integer_ratio(),
                np.int64(7).bit_count(), np.float64(2.5).item(), np.int16(3).tolist(), x * 2)
    check(f, (X,))
    assert_captured_whole(f, X)


def test_methods_of_a_numpy_scalar_argument_read_data_and_break():
    def f(s, x):
        return s.as_integer_ratio(), s.is_integer(), x
    check(f, (np.float64(0.1), X), (np.float64(3.0), X))
    report = pytest.importorskip("sot").explain(pytest.importorskip("sot").to_static(f, min_graph_size=0),
                                               np.float64(0.1), X)
    assert report.breaks
