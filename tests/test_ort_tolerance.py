"""The tolerance onnxruntime results are held to (ort_tolerance) is neither
a float64 tolerance on float32 work nor lax about types."""
import numpy as np
import pytest

from ort_tolerance import assert_ort_close, loosest_rtol


def perturbed(a, ulps):
    """``a`` moved by ``ulps`` units in the last place of float32, as another
    CPU's kernel might round it."""
    a32 = np.asarray(a, np.float32)
    return (a32 + ulps * np.spacing(a32)).astype(a.dtype)


def test_float64_results_of_float32_inputs_get_float32s_tolerance():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 64, 16), np.float32), rng.standard_normal((2, 64, 16), np.float32)
    want = (q @ k.transpose(0, 2, 1)) / np.sqrt(16)      # float64, from a float32 MatMul
    got = perturbed(q @ k.transpose(0, 2, 1), 8) / np.sqrt(16)
    assert want.dtype == got.dtype == np.float64
    assert loosest_rtol(want, (q, k)) == loosest_rtol(np.float32)
    assert_ort_close(got, want, inputs=(q, k))
    with pytest.raises(AssertionError):      # without the inputs it is held to float64's
        assert_ort_close(got, want)


def test_a_cancelling_sum_is_judged_by_the_magnitude_of_the_result():
    want = np.array([1000.0, 0.0, -3e-6], np.float32)
    assert_ort_close(want + np.float32(1e-4) * np.float32([0, 1, 1]) * 10, want)


def test_types_dtypes_shapes_and_integers_are_exact():
    a = np.arange(4, dtype=np.float32)
    for wrong in (a.astype(np.float64), a.reshape(2, 2), list(a), a.astype(np.int64)):
        with pytest.raises(AssertionError):
            assert_ort_close(wrong, a)
    with pytest.raises(AssertionError):
        assert_ort_close(np.arange(4) + np.array([0, 0, 0, 1]), np.arange(4))
    with pytest.raises(AssertionError):
        assert_ort_close(a * 1.01, a)
    with pytest.raises(AssertionError):
        assert_ort_close(np.array([np.nan, 1.0]), np.array([0.0, 1.0]))
