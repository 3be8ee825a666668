"""``np.cov(x, y)`` / ``np.corrcoef(x, y)`` (a second operand, the usual
``np.corrcoef(x, y)[0, 1]``) stay in the graph (sot/ir/ops_api.py): the two
are stacked as NumPy stacks them (``ndmin=2``, transposed where
``rowvar=False`` and there is more than one row); operands that differ in
observations raise eager's error."""
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
