"""A list or tuple of arrays (or numbers computed in the graph) passed where
NumPy wants data (``np.mean([a, b], axis=0)``, ``np.max([x, y], axis=0)``,
``np.maximum.reduce([x, y, z])``, ``np.add([a, b], 1)``) is ``np.asarray`` of
it, as NumPy converts it, and stays in the graph (sot/executor/list_data.py);
a ragged one raises eager's error."""
import numpy as np
import pytest

from difftest import case_params, check, check_case

F = np.random.default_rng(9).standard_normal((4, 5))


def reductions_of_lists(a):
    return (np.mean([a, a * 2], axis=0), np.sum([a, a + 1, a * 3], axis=0), np.max([a[0], a[1]], axis=0),
            np.median([a, a * 2, a * 3], axis=0), np.std([a[0], a[1], a[2]], axis=0), np.any([a > 1, a < -1], axis=0),
            np.mean([a.sum(), a.max()]), np.max([a[0, 0], a[1, 1], 0.5]), np.sum([a.astype(np.float32), a.astype(np.int8)], axis=0))


def ufunc_methods_of_lists(a):
    return (np.logical_and.reduce([a > 0, a < 1]), np.maximum.reduce([a, -a, a * 2]),
            np.maximum.accumulate((a[0], a[1], a[2])), np.add([a[0], a[1]], 1))


def numbers_read_from_data(a):
    return np.mean([float(a[0].mean()), float(a[1].mean()), 2.0]), np.max([int(a.argmax()), 3])


@pytest.mark.parametrize("fn, arg_sets", case_params({
    "reductions_of_lists": (reductions_of_lists, [(F,), (-F,)]),
    "ufunc_methods_of_lists": (ufunc_methods_of_lists, [(F,), (F * 3,)]),
    "numbers_read_from_data": (numbers_read_from_data, [(F,), (-F,)]),
}))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


def test_a_ragged_list_raises_eagers_error():
    check(lambda a: np.mean([a, a[0]], axis=0), (F,))


def test_a_list_from_outside_is_read_as_eagerly():
    def f(a, items):
        return np.mean(items, axis=0) + a
    check(f, (F, [F, F * 2]), (F, [F]), (F, [F, F, -F]))
