"""Python builtins over arrays and NumPy idioms of numerical programs:
``divmod()`` of arrays (``np.divmod``), ``reversed()`` of an array (its rows
read from the last), ``np.repeat`` by an array of counts (a data-dependent
size), ``np.bincount`` of bools or small unsigned ints with ``minlength``
past their largest value (a static size), quantiles at a traced array of
``q``, ``np.insert`` at a traced array of positions, ``np.mgrid``/``np.ogrid`` with
a stop that changes between calls, ``np.choose`` from an array of choices
(its rows), ``np.compress`` by a condition of any dtype, ``np.gradient`` over
several axes (one op per axis), ``ufunc.reduceat`` at a traced array of
indices, ``np.einsum_path`` (planned at trace time), ``round(s, n)`` of a NumPy scalar,
``np.asarray_chkfinite`` (its check when the graph runs), each captured whole and bitwise equal to eager; the
forms eager rejects raise eager's error."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, assert_same, case_params, check, check_case

rng = np.random.default_rng(5)
F = rng.standard_normal((4, 5)) * 10
I = rng.integers(-20, 20, (4, 5))
V = rng.standard_normal(6)
U8 = rng.integers(0, 256, 50).astype(np.uint8)

CASES = {
    "divmod": (lambda a, b: (divmod(a, 3), divmod(a, b), divmod(7, a + 100), divmod(a[0, 0], b),
                             divmod(a, 2.5), divmod(b, True)),
               [(F, F[::-1] + 0.5), (I, I[::-1] * 2 + 1), (F.astype(np.float32), I + 50)]),
    "reversed_rows": (lambda a: ([r * 2 for r in reversed(a)], [v for v in reversed(a[0])], list(reversed(a[:, 0])),
                                 type(reversed(a)).__name__, next(reversed(a[1:]))), [(F,), (I,), (V.reshape(2, 3),)]),
    "repeat_by_counts": (lambda a, r: (np.repeat(a[0], r[:5]), np.repeat(a, r[:4], axis=0), a.repeat(r[:5], axis=-1),
                                       np.repeat(a, r[:1]), np.repeat(a, r[0]), np.repeat(a[0, 0], r[1:2]),
                                       np.repeat(a, r[:5] > 2, axis=1), np.repeat(a, repeats=r[:20])),
                         [(F, np.arange(20) % 4), (I, (np.arange(20) % 3).astype(np.int8)), (F, np.zeros(20, int))]),
    "repeat_unique_counts": (lambda x: np.repeat(*np.unique(x, return_counts=True)) * 2, [(I.ravel() % 5,), (V,)]),
    "bincount_of_pixels": (lambda u: (np.interp(u, np.arange(256), np.bincount(u, minlength=256).cumsum() / u.size),
                                      np.bincount(u, None, 300), np.bincount(u > 128, minlength=2) + np.arange(2),
                                      np.bincount(u, minlength=10), np.bincount(u.astype(np.uint16), minlength=2 ** 16)[:4],
                                      np.bincount(u, weights=u * 0.5, minlength=256)),
                           [(U8,), (U8[:0],), (np.full(7, 255, np.uint8),)]),
    "quantile_of_traced_q": (lambda a: (np.quantile(a, np.linspace(0, 1, 5)), np.percentile(a, np.arange(0, 101, 25), axis=0),
                                        np.nanquantile(a, np.array([[0.1], [0.9]]), axis=1, keepdims=True),
                                        np.quantile(a, a[0, :2] * 0 + 0.5, method="nearest"),
                                        np.quantile(a.astype(np.float32), np.float32(0.25) + a[0, :3] * 0)),
                             [(F,), (I,)]),
    "insert_at_traced_positions": (lambda a, i: (np.insert(a, i, -1.0), np.insert(a, i[:2], a[0, :2]),
                                                 np.insert(a, i[:3] % 4, a[:3], axis=0), np.insert(a, i[:2], 7, axis=1),
                                                 np.insert(a, i[:0], 5.0), np.insert(a, [1, 3], [9, 8]),
                                                 np.insert(a, i[:2], a[:, :1], axis=1), np.insert(a, i[:2], a[0, 0])),
                                   [(F, np.array([1, 3, -2, 0])), (I, np.array([0, 0, 5, 4], np.int32))]),
    "choose_rows_and_compress_by_values": (lambda a, i: (i.choose(a), np.choose(i, a * 2), (i > 1).choose(a[:2]),
                                                         np.choose(i[:, :1], a[:, 0]), a[0].compress(a[1]),
                                                         np.compress(a[1] * 0.5, a, axis=1), a.compress(i[:, 0] + 0j, 0)),
                                           [(F[:3], np.abs(I[:3]) % 3), (I[:3] * 1.0, np.abs(I[1:4]) % 3)]),
    "gradient_axes": (lambda a: (np.gradient(a), np.gradient(a, 0.5), np.gradient(a, axis=(1, 0)), np.gradient(a, axis=(-1,)),
                                 np.gradient(a, 2.0, np.arange(5.0) ** 2), np.gradient(a, edge_order=2),
                                 np.gradient(a[None], axis=[2, 1])), [(F,), (I,), (F.astype(np.float32),)]),
    "reduceat_traced_indices": (lambda a, i: (np.add.reduceat(a, i, axis=1), np.maximum.reduceat(a[0], i[:2]),
                                              np.multiply.reduceat(a, i[:3] % 4), np.add.reduceat(a[0], i[:0]),
                                              np.minimum.reduceat(a, i.astype(np.int8), axis=-1)),
                                [(F, np.array([0, 2, 1, 4])), (I, np.array([4, 3, 0, 0]))]),
    "round_numpy_scalars": (lambda a: (round(a[1, 1], 1), round(a.sum(), -1), round(np.float32(1.25), 1),
                                       round(a.astype(np.int8)[0, 0], -1), round(a.max(), ndigits=2),
                                       round(a.astype(np.float16)[2, 2], 2), round(2.675, ndigits=2)),
                            [(F,), (I * 1.5,)]),
    "reversed_zip": (lambda a: sum(x * y for x, y in zip(reversed(a), a)), [(V,), (F,)]),
}


@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_matches_eager_bitwise_and_is_captured_whole(fn, arg_sets):
    check_case(fn, arg_sets)


@pytest.mark.parametrize("form", [
    lambda a: divmod(a, a[:2, :2]),        # shapes do not broadcast: ValueError
    lambda a: divmod(a + 1j, 2),           # complex: TypeError
    lambda a: divmod(a, "x"),              # TypeError
    lambda a: list(reversed(a.sum())),     # a NumPy scalar: TypeError
    lambda a: np.gradient(a, axis=(0, 0)),  # a repeated axis: ValueError
    lambda a: (round(a[0, 0]), round(a.sum(), None)),   # Python ints from the data: natively
    lambda a: divmod(a),                   # TypeError (arity)
    lambda a: round(a[0, 0], 1, 2),        # TypeError (arity)
    lambda a: round(a[0, 0] > 0, 1),       # a NumPy bool has no __round__: TypeError
    lambda a: round(a, 1),                 # an ndarray has no __round__: TypeError
    lambda a: np.add.reduceat(a, np.arange(3) * 3) + 1,   # an index out of bounds: IndexError at run time
    lambda a: np.add.reduceat(a, np.arange(3) * 1.0),     # float indices: TypeError
    lambda a: np.gradient(a, 1.0, 2.0, 3.0),   # three spacings for two axes: TypeError
    lambda a: np.gradient(a[:1]),          # one point along an axis: ValueError
    lambda a: np.choose((a[:2] > 0).astype(np.uint64), a[:2]),   # uint64 indices: TypeError
    lambda a: np.choose(np.abs(a[:2]).astype(int) % 5, a[:2]),   # an index past the choices: ValueError
    lambda a: a[0].compress(a[:, 0] + 1),  # selects past the end: IndexError
    lambda a: np.repeat(a, (a[0] > 0).astype(np.uint64)),  # counts that do not cast safely: TypeError
    lambda a: np.repeat(a, a[0] > 0),      # 5 counts for 20 elements: ValueError
    lambda a: np.repeat(a, a[:, :1] > 0),  # 2-d counts: ValueError
    lambda a: list(reversed(a[0, 0, ...])),  # 0-d: TypeError
])
def test_invalid_forms_raise_eagers_error(form):
    check(form, (F,))


def test_a_traced_q_out_of_range_raises_as_eager():
    check(lambda a, q: np.quantile(a, q * 2) + 1, (F, np.array([0.1, 0.4])), (F, np.array([0.1, 0.6])))


@pytest.mark.parametrize("form", [
    lambda a, i: np.insert(a, i, 0.0, axis=0) + 1,        # a position out of bounds: IndexError at run time
    lambda a, i: np.insert(a, i.astype(float), 0.0),      # float positions: IndexError
    lambda a, i: np.insert(a, i[:3], a[:2], axis=0),      # values do not broadcast: ValueError
    lambda a, i: np.insert(a, i[:1], a[:2], axis=0),      # one position takes the values' rows
    lambda a, i: np.insert(a, i.reshape(2, 2), 0.0),      # 2-d positions: ValueError
    lambda a, i: np.insert(a, i.astype(np.uint8), 0.0),   # NumPy's own casting error on unsigned positions
])
def test_insert_forms_match_eager(form):
    check(form, (F, np.array([1, 9, 0, 2])), (F, np.array([1, 2, 0, 2])))


def test_grids_with_a_stop_that_changes_between_calls():
    def f(x, n):
        return (np.mgrid[0:n, 0:4] * x[0], np.ogrid[1:n:2, 0:3], np.mgrid[0:n], np.ogrid[n:0:-1],
                np.mgrid[2:n, 5:n:-2].sum(), np.ogrid[0:n][::2])
    static = sot.to_static(f)
    for n in (3, 4, 7, 2, 9, 1, 0, -2, 5):
        check(f, (V, n), static=static, calls=1)
    before = sot.translation_count(static)
    for n in (6, 8, 11, 3):   # n is a graph input by now: no translation per value
        check(f, (V, n), static=static, calls=1)
    assert sot.translation_count(static) == before


def test_einsum_path_is_planned_from_shapes():
    def f(a, b):
        path, report = np.einsum_path("ij,jk,kl->il", a, b, a, optimize="greedy")
        out = np.einsum("ij,jk,kl->il", a, b, a, optimize=path)
        path.append("mutated")   # a new list on every call
        return out, path, report, np.einsum_path("ii", b[:4, :4])
    check(f, (F, F.T), (I, I.T * 1.0))
    assert_captured_whole(f, F, F.T)
    check(lambda a: np.einsum_path("ij,jk", a, a), (F,))   # shapes that do not match: ValueError


def test_asarray_chkfinite_validates_when_the_graph_runs():
    def f(x):
        y = np.asarray_chkfinite(x)
        return y * 2, np.asarray_chkfinite(x[0], dtype=np.float32), y

    def after_a_write(x):
        x[0, 0] = 5.0
        return np.asarray_chkfinite(x) + 1
    check(f, (F,), (F / 0.0,), (I,))
    check(after_a_write, (F,), (F / 0.0,))
    assert_captured_whole(f, F)
    static = sot.to_static(f)
    for _ in range(3):
        x = F.copy()
        assert static(x)[2] is x   # NumPy returns the array itself


def test_negative_counts_raise_as_eager():
    check(lambda a, r: np.repeat(a, r) + 1, (V, np.array([1, 2, 0, 1, 1, 1])), (V, np.array([1, 2, -1, 1, 1, 1])))

    def after_a_write(a, r):
        a[0] = 5.0
        return np.repeat(a, r)
    check(after_a_write, (V, np.array([1, 2, 0, 1, 1, 1])), (V, np.array([1, 2, -1, 1, 1, 1])))


def test_divmod_by_zero_warns_as_eager():
    import warnings

    def f(a):
        return divmod(a, 0), divmod(a.astype(np.int64), 0)

    def seen(fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn(F)
        return out, [(w.category, str(w.message), w.filename, w.lineno) for w in caught]
    eager, eager_warnings = seen(f)
    assert eager_warnings
    static = sot.to_static(f)
    for _ in range(3):
        out, got = seen(static)
        assert_same(eager, out, bitwise=True)
        assert got == eager_warnings


def test_reversed_reads_each_row_at_its_step():
    def f(a):
        out = []
        for r in reversed(a):
            a[0] += r   # the last row read sees the earlier writes
            out.append(r.copy())
        return out, a
    check(f, (F.copy(),), (I.copy(),))
