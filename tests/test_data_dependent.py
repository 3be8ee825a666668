"""Data-dependent sizes inside a graph (sot/ir/unbacked.py): np.nonzero,
flatnonzero, argwhere, unique, compress, extract, bincount and x[mask] give a
size known only at run time; the trace goes on over it, guards nothing on
it, and breaks where Python needs its value.  Each is compared with the
undecorated function: on the NumPy backend bitwise, on onnxruntime within
float tolerance (what reads such a size runs on NumPy there)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import sot
from difftest import assert_same, check
from ort_tolerance import assert_ort_close
from sot.ir import StatementIR, TensorMeta, registry

F64 = np.array([[0.3, -1.2, 0.0, 2.5], [1.5, 0.7, -0.4, 0.9], [0.0, 3.1, -2.2, 0.05]])
OPERANDS = {
    "f64": F64, "f32": F64.astype(np.float32), "i64": np.round(F64 * 3).astype(np.int64),
    "bool": F64 > 0.5, "transposed": F64.T, "strided": F64[:, ::2], "1-d": F64[1],
    "none selected": -np.abs(F64) - 1, "empty": np.zeros((0, 3)), "one": np.array([[2.0]]),
}
ids = list(OPERANDS)


def one_graph(fn, *args, backend="numpy"):
    """The call is one graph (no break, no fallback) with eager's result."""
    report = sot.explain(sot.to_static(fn, backend=backend, min_graph_size=0), *args)
    assert not report.breaks, [str(b) for b in report.breaks]
    assert report.graph_count == 1
    if backend == "numpy":
        assert_same(fn(*args), report.result, bitwise=True)
    return report


def breaks_at(fn, *args, why="known only at run time"):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), *args)
    assert report.breaks and any(why in str(b) for b in report.breaks), [str(b) for b in report.breaks]
    return report


def _selectors(a):
    return {
        "nonzero": lambda a: tuple(i * 2 for i in np.nonzero(a > 0.5)),
        "method nonzero": lambda a: a.nonzero(),
        "where": lambda a: np.where(a > 0.5) + (np.where(a > 0.5, a, 0.0),),
        "flatnonzero": lambda a: np.flatnonzero(a) + 1,
        "argwhere": lambda a: np.argwhere(a > 0.5).sum(axis=0),
        "mask": lambda a: (a[a > 0.5] * 2 - 1, a[a > 0.5].sum()),
        "mask rows": lambda a: (lambda s: s.T @ s)(a[a[..., 0] > 0.2]) if a.ndim == 2 else a[a > 0],
        "unique": lambda a: np.unique(a) + 1,
        "unique counts": lambda a: np.unique(a, return_counts=True),
        "unique all": lambda a: np.unique(a, return_index=True, return_inverse=True, return_counts=True),
        "compress": lambda a: np.compress(a.ravel() > 0, a),
        "compress axis": lambda a: np.compress(a[..., 0] > 0.2, a, axis=0).sum(axis=-1) if a.ndim else a,
        "method compress": lambda a: a.ravel().compress(a.ravel() > 0) ** 2,
        "extract": lambda a: np.extract(a > 0, a) / 2,
    }


@pytest.mark.parametrize("name", list(_selectors(None)))
@pytest.mark.parametrize("key", ids)
def test_data_dependent_ops_match_eager_in_one_graph(name, key):
    f = _selectors(None)[name]
    a = OPERANDS[key]
    check(f, (a,))
    try:
        f(a)
    except ValueError:   # compress with a 0-d condition: raises as eagerly (checked above)
        return
    one_graph(f, a)


@pytest.mark.parametrize("ints", [np.array([0, 3, 1, 3, 3]), np.array([], dtype=np.int64),
                                  np.array([2, 0, 5], dtype=np.uint8), np.arange(10)[::3]])
def test_bincount_length_is_data_dependent(ints):
    def f(x, w):
        return np.bincount(x) * 2, np.bincount(x, w), np.bincount(x, minlength=4).sum()
    w = np.linspace(0, 1, ints.size)
    check(f, (ints, w))
    one_graph(f, ints, w)
    check(f, (np.array([1, -1]), np.ones(2)))   # negative: the ValueError, as eagerly


def test_zero_d_operands_raise_or_select_as_eagerly():
    zero_d = np.array(1.5)
    check(lambda a: np.nonzero(a), (zero_d,))   # NumPy 2 raises ValueError
    for f in (lambda a: np.argwhere(a), lambda a: np.flatnonzero(a), lambda a: np.unique(a),
              lambda a: np.extract(a > 1, a)):
        check(f, (zero_d,), (np.array(0.0),))
        one_graph(f, zero_d)


def test_the_count_is_not_guarded():
    def f(x, t):
        sel = x[x > t]
        return sel - sel.mean(), np.nonzero(x > t)[0]
    static = sot.to_static(f)
    x = np.linspace(-1, 1, 9)
    for t in (0.5, -2.0, 2.0, 0.0, 0.9):  # 4, 9, 0, 4 and 1 selected
        assert_same(f(x, np.float64(t)), static(x, np.float64(t)), bitwise=True)
    assert sot.translation_count(static) == 1


def test_the_trace_goes_on_over_the_size():
    def f(x, y):
        idx = np.nonzero(x > 0)
        sel = x[idx]                       # integer arrays of the data-dependent size
        z = np.concatenate([sel, y[0]])
        return np.sort(sel), np.cumsum(sel), z.sum(), np.take(y.ravel(), idx[0]), sel @ sel, \
            np.zeros(len(sel)) + 1, np.arange(sel.shape[0]) * 2
    args = (np.array([0.5, -1.0, 2.0, 0.0]), np.arange(8.0).reshape(2, 4))
    check(f, args, (np.zeros(4), args[1]))
    one_graph(f, *args)


def test_mask_chains_and_masks_of_masks():
    def f(x):
        a = x[x > 0]
        b = a[a < 2]                       # a mask of the data-dependent size
        return b, np.nonzero(b > 1)[0], a[np.argwhere(a > 1)[:, 0]]
    operands = [(OPERANDS[k],) for k in ("f64", "none selected", "empty", "strided")]
    check(f, *operands)
    one_graph(f, OPERANDS["f64"])

    def g(x):   # two selections are two sizes: their equality is not known to the trace
        return x[x > 0][x[x > 0] < 2] + 1
    check(g, *operands)
    breaks_at(g, OPERANDS["f64"], why="known only at run time")


def test_symbolic_input_dims_and_data_dependent_sizes_together():
    def f(x):
        return x[x > 0] * x.shape[0], np.unique(x.astype(np.int64)), np.flatnonzero(x)
    static = sot.to_static(f)
    for n in (4, 5, 6, 7, 8, 0, 1):
        x = np.sin(np.arange(n) * 1.7)
        assert_same(f(x), static(x), bitwise=True)
    assert sot.translation_count(static) <= 4


@pytest.mark.parametrize("case", ["branch on len", "branch on shape", "int in a branch", "range", "list repeat"])
def test_python_needing_the_size_breaks_the_graph(case):
    def f(x):
        y = x[x > 0]
        if case == "branch on len":
            return y.sum() if len(y) > 2 else y.max()
        if case == "branch on shape":
            return y * 2 if y.shape[0] else y
        if case == "int in a branch":
            return 1 if int(y.shape[0]) > 1 else 0
        if case == "range":
            return sum(i for i in range(y.shape[0]))
        return [0] * y.shape[0]
    check(f, (np.array([1.0, -2.0, 3.0, 4.0]),), (np.array([-1.0, 2.0]),))
    breaks_at(f, np.array([1.0, -2.0, 3.0, 4.0]))


@pytest.mark.parametrize("case", ["clamping slice", "squeeze"])
def test_what_sizes_0_and_1_would_change_breaks(case):
    """A size of 0 or 1 clamps a slice, is squeezed: such a use does not
    enter the graph (its result there would be wrong).  Two data-dependent
    sizes broadcast together are captured with a new data-dependent size
    (tests/test_unbacked_broadcast.py)."""
    def f(x):
        y = x[x > 0]
        if case == "clamping slice":
            return y[:3] + 1
        if case == "squeeze":
            return np.squeeze(y)
        return y + x[x > 1]
    args = [(np.array(v),) for v in ([1.0, -2.0, 3.0, 4.0, 5.0], [-1.0, 2.0], [-1.0, 1.5, 1.2], [-1.0, -2.0])]
    check(f, *args)
    breaks_at(f, *args[2], why="size")


def test_a_reduction_without_identity_raises_as_eagerly_on_an_empty_selection():
    def f(x):
        return x[x > 0].max(), np.argmax(x[x > 0])
    check(f, (np.array([1.0, -2.0, 3.0]),), (np.array([-1.0, -2.0]),))
    one_graph(f, np.array([1.0, -2.0, 3.0]))


def test_an_item_of_a_selection_raises_as_eagerly_when_it_is_empty():
    # IndexError at size 0, eager and graph alike: the graph runs NumPy's own indexing
    def f(x):
        y = x[x > 0]
        return y[0] * 2, y[-1]
    check(f, (np.array([1.0, -2.0, 3.0]),), (np.array([-1.0, 2.0]),), (np.array([-1.0, -2.0]),))
    one_graph(f, np.array([1.0, -2.0, 3.0]))


def test_listing_shows_the_size_as_unknown():
    ir = StatementIR()
    x = ir.add_input(TensorMeta((4, 3), np.float64))
    m = ir.add_input(TensorMeta((4,), np.bool_))
    m2 = ir.add_input(TensorMeta((4,), np.bool_))
    sel = ir.add_op(registry.lookup_operator("getitem"), (x, m))
    idx = ir.add_op(registry.lookup_function(np.nonzero), (m2,))
    assert str(sel.meta) == "f64[?, 3]" and [str(i.meta) for i in idx] == ["i64[?]"]
    assert sel.meta.symbolic_axes == (0,) and ir.is_symbolic
    assert sel.meta.shadow[0] != idx[0].meta.shadow[0]   # two counts are two sizes
    same = ir.add_op(registry.lookup_function(np.nonzero), (m,))
    assert sel.meta.shadow[0] == same[0].meta.shadow[0]   # the positions of m's Trues: m's count


@pytest.mark.parametrize("backend", ["onnxruntime", "auto"])
def test_onnxruntime_runs_the_rest_and_numpy_the_data_dependent_part(backend):
    def f(x, w):
        h = np.tanh(x @ w)
        sel = h[h > 0]
        return sel * 2, sel.sum() + h.mean(), np.bincount(np.flatnonzero(h > 0) % 3)
    x, w = F64.astype(np.float32), np.ones((4, 5), np.float32) / 3
    static = sot.to_static(f, backend=backend)
    for xs in (x, -x, x * 0):
        assert_ort_close(static(xs, w), f(xs, w), inputs=(xs, w))
    report = one_graph(f, x, w, backend=backend)
    assert "data-dependent" in str(report) or backend == "auto"


@pytest.mark.parametrize("backend", ["onnxruntime", "auto"])
def test_a_python_number_from_a_data_dependent_size_is_computed_by_numpy(backend):
    def f(x):
        n = x[x > 0].shape[0]
        return n * 2, x.sum() + n, np.zeros(3) + n
    static = sot.to_static(f, backend=backend)
    for x in (np.array([1.0, 2.0, -1.0]), np.array([-1.0, -2.0, -3.0, 4.0]), np.ones(9), np.ones(9) * -1):
        for _ in range(4):
            assert_ort_close(static(x), f(x), inputs=(x,))


def test_export_names_the_data_dependent_statements(tmp_path):
    def f(x):
        return x[x > 0.5] * 2
    with pytest.raises(sot.ExportError, match="known only at run time"):
        sot.save(f, os.path.join(tmp_path, "m.onnx"), input_spec=[sot.InputSpec([None], "float32", "x")])
