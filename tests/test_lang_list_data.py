"""A list of numbers from outside the frame used as array data (an index, or
np.asarray'd) is a graph input guarded by length and element types: a new
list of the same shape does not retranslate, and its values are seen."""
import numpy as np
import pytest

import sot
from difftest import check

W = np.arange(40, dtype=np.float32).reshape(10, 4)


def embed(ids, w):
    return w[ids] + w[range(len(ids))]


def as_array(ids):
    a = np.asarray(ids)
    return a * 2, a


def test_new_token_lists_of_the_same_length_do_not_retranslate():
    static = sot.to_static(embed)
    rng = np.random.default_rng(0)
    for _ in range(6):
        ids = [int(v) for v in rng.integers(0, 10, size=5)]
        check(embed, (ids, W), static=static, calls=1)
    assert sot.translation_count(static) == 1


def test_length_or_element_type_change_retranslates_and_stays_correct():
    static = sot.to_static(embed)
    check(embed, ([1, 2, 3], W), ([4, 5, 6, 7], W), static=static)
    assert sot.translation_count(static) == 2
    check(as_array, ([1, 2, 3],), ([1.5, 2.0, 3.0],), ([True, False, True],), ([1, 2.5, 3],))


@pytest.mark.parametrize("ids", [[3, 1, 2], [0.5, 1.5], [True, False, True, False], [1, True, 2], [],
                                 [2**63 - 1, 5], [2**63, 1], [-(2**64), 1]])
def test_asarray_of_a_list_matches_eager(ids):
    check(as_array, (ids,))


def test_mask_and_index_lists():
    def f(w, mask, rows):
        return w[mask], w[rows]
    check(f, (W, [True] * 5 + [False] * 5, [9, 0, 9]), (W, [False] * 10, [1]))


def test_list_mutated_between_calls_is_seen():
    ids = [1, 2, 3]
    static = sot.to_static(embed)
    first = static(ids, W)
    ids[0] = 7
    second = static(ids, W)
    assert np.array_equal(first, embed([1, 2, 3], W))
    assert np.array_equal(second, embed([7, 2, 3], W))


def test_inplace_update_of_the_converted_array_matches_eager():
    def f(ids):
        a = np.asarray(ids)
        a += 1
        return a, ids
    check(f, ([1, 2, 3],))


def test_out_of_range_index_raises_as_eager():
    check(embed, ([1, 20, 3], W))


def test_int_beyond_int64_on_a_later_call_runs_natively_with_eager_dtype():
    static = sot.to_static(as_array)
    check(as_array, ([1, 2],), ([2**63, 1],), ([-(2**63) - 1, 0],), ([3, 4],), static=static)


def test_a_bool_list_index_is_a_mask_and_matches_eager():
    def f(w, mask):
        return w[mask] * 2
    check(f, (W, [True, False] * 5), (W, [False, True] * 5))
