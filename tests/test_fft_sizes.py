"""``np.fft.fft2/fftn/rfft2/rfftn/irfft2/irfftn(a, s=..., axes=...)`` (padded or
cropped transforms) stay in the graph (sot/ir/ops_linalg_fft.py); ``s``
without ``axes`` on the n-d forms (deprecated: NumPy warns), sizes below 1
and mismatched lengths run natively with eager's warning or error.  Also
``np.isdtype`` of a guarded dtype, answered at trace time."""
import warnings

import numpy as np
import pytest

from difftest import case_params, check, check_case

rng = np.random.default_rng(4)
F = rng.standard_normal((4, 5))


def sized(a):
    return (np.fft.fft2(a, s=(4, 4)), np.fft.ifft2(a, s=(2, 8)), np.fft.fftn(a, s=(3,), axes=(0,)),
            np.fft.rfft2(a, s=(4, 6)), np.fft.rfftn(a, s=(5, 3), axes=(1, 0)), np.fft.irfft2(np.fft.rfft2(a), s=a.shape),
            np.fft.irfftn(a, s=(7,), axes=(1,)), np.fft.fft2(a, s=[1, 1], norm="ortho"))


def dtype_kinds(a):
    return (np.isdtype(a.dtype, "real floating"), np.isdtype(a.dtype, ("integral", np.float64)),
            np.isdtype(a.dtype, np.int64))


@pytest.mark.parametrize("fn, arg_sets", case_params({
    "sized": (sized, [(F,), (F.astype(np.float32),), (F[:3, :2],)]),
    "dtype_kinds": (dtype_kinds, [(F,), (np.arange(3),), (F.astype(np.float32),), (F > 0,)]),
}))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


@pytest.mark.parametrize("call", [lambda a: np.fft.fft2(a, s=(0, 3)), lambda a: np.fft.fft2(a, s=(3,)),
                                  lambda a: np.fft.irfft2(np.fft.rfft2(a), s=a.shape), lambda a: np.isdtype(a, "real floating")])
def test_bad_sizes_raise_eagers_error(call):
    check(call, (rng.standard_normal((3, 4, 5)),))


def test_s_without_axes_warns_as_eagerly():
    def f(a):
        return np.fft.fftn(a, s=(3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(f, (F,))
