"""``np.cov(x, y)`` / ``np.corrcoef(x, y)`` (a second operand, the usual
``np.corrcoef(x, y)[0, 1]``) stay in the graph (sot/ir/ops_api.py): the two
are stacked as NumPy stacks them (``ndmin=2``, transposed where
``rowvar=False`` and there is more than one row); operands that differ in
observations raise eager's error.  ``fweights=``/``aweights=`` (one per
observation; a negative or fractional one raises eager's error when the
graph runs) and ``np.ediff1d(..., to_begin=, to_end=)`` too."""
import numpy as np
import pytest

from difftest import case_params, check, check_case

rng = np.random.default_rng(11)


def pairs(a, b):
    return (np.corrcoef(a, b), np.corrcoef(a, b)[0, 1], np.cov(a, b, bias=True), np.cov(a, b, rowvar=False),
            np.cov(a, y=b, ddof=0))


@pytest.mark.parametrize("fn, arg_sets", case_params({
    "vectors": (pairs, [(rng.standard_normal(6), rng.standard_normal(6)),
                        (rng.standard_normal(6), rng.standard_normal(6).astype(np.float32))]),
    "rows_and_a_vector": (lambda a, b: (np.corrcoef(a, b), np.cov(a, b, bias=True)), [(rng.standard_normal((2, 6)), rng.standard_normal(6))]),
    "one_row_each": (lambda a, b: np.cov(a, b), [(np.ones((1, 5)), np.arange(5.0)), (rng.standard_normal((1, 4)),
                                                                                   rng.standard_normal((1, 4)))]),
    "columns": (lambda a, b: np.cov(a, b, rowvar=False), [(rng.standard_normal((6, 2)), rng.standard_normal((6, 3)))]),
}))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


@pytest.mark.parametrize("a, b", [(rng.standard_normal(6), rng.standard_normal(5)),
                                  (rng.standard_normal((6, 2)), rng.standard_normal((6, 3)))])
def test_operands_that_differ_in_observations_raise_eagers_error(a, b):
    check(lambda a, b: np.cov(a, b), (a, b))
    check(lambda a, b: np.corrcoef(a, b), (a, b))


W = np.array([1.0, 2, 0.5, 3, 1])
FW = np.array([1, 2, 1, 3, 1])


def weighted(a, w, fw):
    return (np.cov(a, aweights=w), np.cov(a, fweights=fw), np.cov(a, fweights=fw, aweights=w, ddof=0),
            np.cov(a[0], aweights=w), np.cov(a.T, rowvar=False, aweights=w), np.cov(a, aweights=[1, 1, 1, 1, 2.0]))


def test_weights_match_eager_and_run_whole():
    check_case(weighted, [(rng.standard_normal((3, 5)), W, FW), (rng.standard_normal((2, 5)), W * 3, FW * 2)])


@pytest.mark.parametrize("w, fw", [(-W, FW), (W, -FW), (W, FW * 1.5), (W[:4], FW)])
def test_bad_weights_raise_eagers_error(w, fw):
    check(weighted, (rng.standard_normal((3, 5)), w, fw))


def differences_with_ends(a):
    return (np.ediff1d(a, to_begin=0), np.ediff1d(a, to_end=[1, 2]), np.ediff1d(a, to_begin=a[:2], to_end=np.nan),
            np.ediff1d(a.astype(np.int64), to_begin=-1), np.ediff1d(a, None, None))


def test_ediff1d_with_ends_matches_eager_and_runs_whole():
    check_case(differences_with_ends, [(rng.standard_normal(5),), (rng.standard_normal((2, 3)),)])
    check(lambda a: np.ediff1d(a.astype(np.int64), to_begin=0.5), (rng.standard_normal(4),))   # NumPy raises
