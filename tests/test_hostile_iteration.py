"""Loops over a container the loop body changes: a list iterator reads the
list at each step and an array iterator reads row i at step i, as eagerly;
so do reversed(list), dicts and their views, a.flat and np.ndenumerate
(sot/executor/live_iterators.py). Taking every item when the loop started
gave silent wrong answers: appended items never visited, stale values."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check


def _appends_while_iterating(x, items):
    out = x
    for v in items:
        if len(items) < 6:
            items.append(v)
        out = out + v
    return out


def _removes_while_iterating(x, items):
    out = x
    for v in items:
        if v % 2 == 0:
            items.remove(v)
        out = out * 2 + v
    return out


def _replaces_ahead(x, items):
    out = x
    for i, v in enumerate(items):
        if i + 1 < len(items):
            items[i + 1] = v * 10
        out = out + v
    return out


def _zip_with_growing(x, items):
    out = x
    for a, b in zip(items, [1, 2, 3, 4, 5, 6]):
        if len(items) < 5:
            items.append(a + b)
        out = out + a * b
    return out


def _array_rows_after_writes(x):
    for i, v in enumerate(x):
        x[-1] += v
    return x


def _array_scalar_rows(x):
    t = 0
    for v in x:
        x[-1] = 10
        t = t + v
    return t


def _array_2d_rows_are_views(x):
    rows = []
    for r in x:
        x += 1
        rows.append(r.copy())
    return rows, x


def _iterator_kept_across_a_break(x, items):
    it = iter(items)
    first = next(it)
    print("break")
    items.append(10)
    return x + first + sum(it)


def _loop_with_break_appends(x, items):
    out = x
    for v in items:
        print(v)               # the loop runs natively from here
        if len(items) < 5:
            items.append(v + 1)
        out = out + v
    return out


def _enumerate_across_break(x, items):
    out = x
    for i, v in enumerate(items):
        print(i)
        if len(items) < 4:
            items.append(v)
        out = out + i * v
    return out


@pytest.mark.parametrize("fn", [_appends_while_iterating, _removes_while_iterating, _replaces_ahead,
                                _zip_with_growing, _iterator_kept_across_a_break, _loop_with_break_appends,
                                _enumerate_across_break], ids=lambda f: f.__name__.strip("_"))
def test_list_changed_by_its_loop(fn):
    check(fn, (np.ones(2), [1, 2]), (np.ones(2), [3, 4, 5, 6]))


@pytest.mark.parametrize("fn", [_array_rows_after_writes, _array_scalar_rows], ids=lambda f: f.__name__.strip("_"))
def test_array_changed_by_its_loop(fn):
    check(fn, (np.arange(4.0),), (np.arange(6.0)[::-1],))


def test_array_rows_are_read_when_reached():
    check(_array_2d_rows_are_views, (np.arange(6.0).reshape(3, 2),))


def _dict_items_after_store(x, d):
    out = x
    for k, v in d.items():
        d["b"] = 100           # a store, not a new key: allowed eagerly, seen by the next step
        out = out + v
    return out


def _dict_values_after_store(x, d):
    out = x
    for v in d.values():
        d["b"] = 100
        out = out + v
    return out


def _dict_view_taken_before_store(x, d):
    view = d.values()
    d["a"] = 7
    return x + sum(view)


def _dict_grows_while_iterating(x, d):
    for k in d:
        d[k + "x"] = 1         # RuntimeError eagerly
    return x


def _reversed_list_changed(x, items):
    out = x
    for v in reversed(items):
        items[0] = 100
        out = out + v
    return out


def _flat_after_writes(x):
    t = 0.0
    for v in x.flat:
        x[-1] = 50
        t = t + v
    return t


def _ndenumerate_after_writes(x):
    t = 0.0
    for idx, v in np.ndenumerate(x):
        x[-1] = 50
        t = t + v * (idx[0] + 1)
    return t


@pytest.mark.parametrize("fn", [_dict_items_after_store, _dict_values_after_store, _dict_view_taken_before_store,
                                _dict_grows_while_iterating], ids=lambda f: f.__name__.strip("_"))
def test_dict_changed_by_its_loop(fn):
    check(fn, (np.ones(2), {"a": 1, "b": 2}))


def test_reversed_list_changed_by_its_loop():
    check(_reversed_list_changed, (np.ones(2), [1, 2, 3]))


@pytest.mark.parametrize("fn", [_flat_after_writes, _ndenumerate_after_writes], ids=lambda f: f.__name__.strip("_"))
def test_flat_and_ndenumerate_read_when_reached(fn):
    check(fn, (np.arange(4.0),), (np.arange(6.0).reshape(2, 3),))


def _set_shrinks_while_iterating(x):
    members = {1, 2}
    out = x
    for v in members:
        members.discard(2)     # RuntimeError eagerly at the next step
        out = out + v
    return out


def test_set_changed_by_its_loop_raises_as_eager():
    check(_set_shrinks_while_iterating, (np.ones(2),))
