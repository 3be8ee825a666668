"""``np.unique(a, axis=k)`` (unique rows or columns, with ``return_index``,
``return_inverse``, ``return_counts``) stays in the graph with a
data-dependent size along ``k`` (sot/ir/ops_data_dependent.py); a bad axis
raises eager's error."""
import numpy as np
import pytest

from difftest import case_params, check, check_case

rng = np.random.default_rng(8)
I = rng.integers(0, 2, (6, 3))


def unique_rows(a):
    return (np.unique(a, axis=0), np.unique(a, axis=1, return_counts=True), np.unique(a, axis=-1, return_inverse=True),
            np.unique(a, axis=0, return_index=True, return_inverse=True, return_counts=True), np.unique(a, axis=0).sum(axis=1))


@pytest.mark.parametrize("fn, arg_sets", case_params({
    "unique_rows": (unique_rows, [(I,), (I.astype(np.float64),), (np.zeros((4, 2)),), (I[:1],),
                                  (np.array([[np.nan, 1], [np.nan, 1.0]]),)]),
}))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


@pytest.mark.parametrize("a, axis", [(I, 2), (np.array(3), 0), (I, -3)])
def test_a_bad_axis_raises_eagers_error(a, axis):
    check(lambda a: np.unique(a, axis=axis), (a,))
