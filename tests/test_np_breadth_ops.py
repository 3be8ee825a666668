"""NumPy breadth: the array-API linear algebra (sot/ir/ops_linalg_api.py) and
the editing/restacking ops (sot/ir/ops_edit.py), each captured whole and
bitwise equal to eager on the NumPy backend, and within float32 tolerance
on onnxruntime/auto; the forms that must not be captured still match eager."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, assert_same, check

rng = np.random.default_rng(1)
F = rng.standard_normal((4, 5))
F32 = F.astype(np.float32)
SQ = rng.standard_normal((4, 4)) + 4 * np.eye(4)
B3 = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
V = rng.standard_normal(5)
V4 = rng.standard_normal(4)
I = rng.integers(-3, 9, (4, 5))
C = F + 1j * F[::-1]

CASES = {
    # linalg (array API)
    "linalg_matmul": (lambda a, b: np.linalg.matmul(a, b), [(F, F.T), (B3, B3), (V4, F)]),
    "linalg_outer": (lambda a, b: np.linalg.outer(a, b), [(V, V4), (V4.astype(np.float32), V)]),
    "linalg_vecdot": (lambda a, b: (np.linalg.vecdot(a, b), np.linalg.vecdot(a, a, axis=0)), [(F, V), (F32, F32)]),
    "matrix_transpose": (lambda a: (np.linalg.matrix_transpose(a), np.matrix_transpose(a) + 1), [(F,), (B3,)]),
    "linalg_diagonal": (lambda a: (np.linalg.diagonal(a), np.linalg.diagonal(a, offset=1),
                                   np.linalg.diagonal(a, offset=-2)), [(F,), (B3,)]),
    "linalg_trace": (lambda a: (np.linalg.trace(a), np.linalg.trace(a, offset=1)), [(F,), (B3,), (I,)]),
    "matrix_norm": (lambda a: (np.linalg.matrix_norm(a), np.linalg.matrix_norm(a, ord=1),
                               np.linalg.matrix_norm(a, keepdims=True), np.linalg.matrix_norm(a, ord="nuc")),
                    [(F,), (B3,), (F32,)]),
    "vector_norm": (lambda a: (np.linalg.vector_norm(a), np.linalg.vector_norm(a, axis=1, ord=1),
                               np.linalg.vector_norm(a, axis=(0, 1), keepdims=True),
                               np.linalg.vector_norm(a, ord=np.inf, axis=-1)), [(F,), (B3,), (I,)]),
    "svdvals": (lambda a: np.linalg.svdvals(a), [(F,), (B3,), (F32,)]),
    "cond": (lambda a: (np.linalg.cond(a), np.linalg.cond(a, "fro"), np.linalg.cond(a, 1)), [(SQ,), (B3,)]),
    "matrix_rank": (lambda a: (np.linalg.matrix_rank(a), np.linalg.matrix_rank(a, tol=0.5)), [(F,), (B3,), (SQ,)]),
    "multi_dot": (lambda a, b: (np.linalg.multi_dot([a, b, a]), np.linalg.multi_dot([V4, a, b])),
                  [(F, F.T), (F32, F32.T)]),
    "vdot": (lambda a, b: (np.vdot(a, b), np.vdot(a, a)), [(F, F), (C, C), (I, F)]),
    "cumulative": (lambda a: (np.cumulative_sum(a, axis=1), np.cumulative_prod(a, axis=0),
                              np.cumulative_sum(a, axis=0, include_initial=True),
                              np.cumulative_sum(a[0], dtype=np.float32)), [(F,), (I,), (F32,)]),
    # editing
    "append": (lambda a, b: (np.append(a, b, axis=0), np.append(a, b), np.append(a, 1.5), np.append(a[0], [1, 2])),
               [(F, F), (I, F), (F32, F32)]),
    "delete": (lambda a: (np.delete(a, 1, axis=1), np.delete(a, [0, 2, -1], axis=0), np.delete(a, slice(1, None, 2)),
                          np.delete(a, [3, 3, 0]), np.delete(a, -1, 0)), [(F,), (I,)]),
    "insert": (lambda a: (np.insert(a, 1, 0.5, axis=1), np.insert(a, 0, 7), np.insert(a, [1, 1, 3], -1, axis=0),
                          np.insert(a, 4, 2, axis=0)), [(F,), (I,)]),
    "resize": (lambda a: (np.resize(a, (3, 7)), np.resize(a, 2), np.resize(a, (0,))), [(F,), (I,)]),
    "diagflat": (lambda a: (np.diagflat(a), np.diagflat(a, k=-2), np.diagflat(a[0], 1)), [(F,), (V,)]),
    "dstack": (lambda a, b: (np.dstack([a, b]), np.dstack((a[0], b[0])), np.dstack([a[None], a[None]])),
               [(F, F), (I, F)]),
    "block": (lambda a, b: (np.block([[a, b], [b, a]]), np.block([a[0], b[1]]), np.block([a, b])), [(F, F), (SQ[:, :4], F[:, :4])]),
    "rollaxis": (lambda a: (np.rollaxis(a, 2), np.rollaxis(a, 0, 3), np.rollaxis(a, -1, 1) * 2), [(B3,)]),
    "unstack": (lambda a: (np.unstack(a), np.unstack(a, axis=1)), [(F,), (B3,)]),
    "broadcast_arrays": (lambda a, b: np.broadcast_arrays(a, b[:, None]), [(V, V4), (V4, V)]),
    "indices_from": (lambda a: (np.tril_indices_from(a), np.triu_indices_from(a, k=1), np.tril_indices_from(a, -2),
                                np.diag_indices(4), np.diag_indices(3, 3), a[np.triu_indices_from(a)]),
                     [(F,), (SQ,)]),
    "diag_indices_from": (lambda a: (np.diag_indices_from(a), a[np.diag_indices_from(a)]), [(SQ,), (B3[:, :2, :2],)]),
    # polynomials and same-shape functions
    "poly_arith": (lambda a, b: (np.polyadd(a, b), np.polysub(b, a), np.polymul(a, b), np.polyadd(a, [1, 2]),
                                 np.polymul([2.0], b)), [(V, V4), (V4.astype(np.float32), V), (I[0], V)]),
    "polyder_int": (lambda a: (np.polyder(a), np.polyder(a, 3), np.polyder(a, 0), np.polyder(a, 9), np.polyint(a),
                               np.polyint(a, 2, k=[1.0, 2.0]), np.polyint(a, k=3)), [(V,), (I[0],), (V4[:1],)]),
    "polyfit": (lambda x, y: (np.polyfit(x, y, 2), np.polyfit(x, np.stack([y, -y], 1), 1),
                              np.polyval(np.polyfit(x, y, 3), x)), [(V, V[::-1] * 2), (V.astype(np.float32), V)]),
    "vander": (lambda a: (np.vander(a), np.vander(a, 3), np.vander(a, 2, increasing=True)), [(V,), (I[0],)]),
    "same_shape": (lambda a: (np.isneginf(a), np.isposinf(np.log(a)), np.iscomplex(a), np.isreal(a),
                              np.sort_complex(a), np.unwrap(a), np.unwrap(a, axis=0, period=3.0)),
                   [(np.where(F > 0, F, -np.inf),), (I,)]),
    "complex_tests": (lambda a: (np.iscomplex(a), np.isreal(a), np.sort_complex(a), np.unwrap(a.real)), [(C,)]),
    "i0": (lambda a: np.i0(a), [(F,), (V,)]),
    "argpartition_method": (lambda a: (a.argpartition(2), a.argpartition(1, axis=0)), [(F,), (I,)]),
    "linspace_traced_ends": (lambda a: (np.linspace(a.min(), a.max(), 7), np.linspace(0.0, a.max(), 4, endpoint=False),
                                        np.logspace(a.min(), 1.0, 3), np.linspace(a[0, 0], a[1, 1], 5, dtype=np.float32)),
                             [(F,), (I,), (F32,)]),
    "repeat_counts": (lambda a: (np.repeat(a, [1, 0, 2, 1], axis=0), np.repeat(a, [2], axis=1), a.repeat([1, 2, 0, 0, 3], 1),
                                 np.repeat(a[0], [1, 1, 2, 0, 1])), [(F,), (I,)]),
    # selection, histogram edges, inverse real FFTs, constants
    "histogram_traced_edges": (lambda x, e: (np.histogram(x, bins=e), np.histogram(x, e, weights=x * 2, density=True)[0],
                                             np.histogram(x, bins=e[::2])[0]),
                               [(V, np.array([-1.0, 0.0, 0.5, 2.0])), (F.ravel(), np.linspace(-2, 2, 9))]),
    "histogram_int_bins": (lambda x, y: (np.histogram(x, 7), np.histogram_bin_edges(x, 5),
                                         np.histogram_bin_edges(x, 4, range=(-1, 1)), np.histogram2d(x, y, bins=4),
                                         np.histogram2d(x, y, bins=[3, 5], range=[[-2, 2], [-3, 3]], weights=x)),
                           [(V, V[::-1]), (V[:0], V[:0]), (V.astype(np.float32), V)]),
    "unique_api": (lambda x: (np.unique_values(x) * 2, np.unique_counts(x), np.unique_counts(x).counts.sum(),
                              np.unique_inverse(x).inverse_indices + 1, np.unique_all(x),
                              type(np.unique_inverse(x)).__name__),
                   [(np.array([3, 1, 2, 1, 3]),), (np.array([[1., 2], [2, np.nan]]),), (np.zeros(0),), (I,)]),
    "compress_constant": (lambda a: (np.compress([True, False, True, True], a, axis=0), a.compress([0, 1, 1], axis=1),
                                     np.compress([1, 0, 1], a), np.compress([False] * 4, a, axis=0)), [(F,), (I,)]),
    "irfftn": (lambda a: (np.fft.irfft2(np.fft.rfft2(a)), np.fft.irfftn(np.fft.rfftn(a)),
                          np.fft.irfftn(np.fft.rfft2(a), axes=(0,)), np.fft.irfft2(a + 0j, norm="ortho")),
               [(F,), (B3,), (F32,)]),
    "ix_choose": (lambda a, i: (a[np.ix_([0, 2], [1, 3, 4])], np.ix_([1, 2], np.arange(3)), np.choose(i, [a, -a, a * 2]),
                                i.choose([a, a + 1, a[0]]), np.choose(i % 2, [0.5, a]), a[np.ix_(i[0] % 4, i[1])]),
                  [(F, np.abs(I) % 3), (F32, np.abs(I[::-1]) % 3)]),
    "constant_functions": (lambda a: (np.iterable(a), np.iterable(a.sum()), np.broadcast_shapes((4, 1), a.shape),
                                      np.binary_repr(5, width=8), np.base_repr(255, 16), a * 2), [(F,), (I,)]),
}


def _params():
    out = []
    for name, (fn, arg_sets) in CASES.items():
        fn.__name__ = name
        if name in ("cumulative",) and not hasattr(np, "cumulative_sum"):
            continue
        if name in ("unstack", "same_shape") and not hasattr(np, "unstack"):
            continue
        out.append(pytest.param(fn, arg_sets, id=name))
    return out


@pytest.mark.parametrize("fn, arg_sets", _params())
def test_op_matches_eager_bitwise_on_numpy(fn, arg_sets):
    static = check(fn, *arg_sets, calls=2)
    for args in arg_sets:
        assert_same(fn(*args), static(*args), bitwise=True)


@pytest.mark.parametrize("fn, arg_sets", _params())
def test_op_is_captured_whole(fn, arg_sets):
    assert_captured_whole(fn, *arg_sets[0])


def _close(eager, got):
    if isinstance(eager, (tuple, list)):
        assert type(eager) is type(got) and len(eager) == len(got)
        for e, g in zip(eager, got):
            _close(e, g)
        return
    assert type(eager) is type(got) and eager.dtype == got.dtype and np.shape(eager) == np.shape(got)
    tol = 1e-4 if eager.dtype in (np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(got, eager, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["linalg_matmul", "matrix_norm", "multi_dot", "append", "delete", "rollaxis",
                                  "indices_from"])
@pytest.mark.parametrize("backend", ["onnxruntime", "auto"])
def test_other_backends_agree(name, backend):
    fn, arg_sets = CASES[name]
    static = sot.to_static(fn, backend=backend)
    for args in arg_sets:
        _close(fn(*args), static(*args))


# -- what must still break or raise as eager -------------------------------------------------

def test_data_dependent_dtype_and_python_values_still_break():
    def f(a):
        return np.linalg.eigvals(a), np.allclose(a, a.T), np.real_if_close(a + 0j), np.linalg.matrix_rank(a[0])
    check(f, (SQ,), (SQ + SQ.T,))
    report = sot.explain(sot.to_static(f, min_graph_size=0), SQ)
    assert report.breaks


@pytest.mark.parametrize("form", [
    lambda a: np.delete(a, 9, axis=1),                  # position out of bounds: IndexError
    lambda a: np.insert(a, 9, 0.0, axis=1),             # IndexError
    lambda a: np.append(a, a[0], axis=0),               # ndim mismatch: ValueError
    lambda a: np.linalg.outer(a, a),                    # 2-d: ValueError
    lambda a: np.linalg.multi_dot([a, a]),              # shapes do not align
    lambda a: np.diag_indices_from(a),                  # not square
    lambda a: np.vdot(a, a[0]),                         # sizes differ
])
def test_invalid_arguments_raise_eagers_error(form):
    check(form, (F,))


@pytest.mark.parametrize("form", [
    lambda a, i: np.choose(i, [a, a]),                          # an index out of range: ValueError
    lambda a, i: np.histogram(a, bins=i[0].astype(float)),     # edges that do not increase: ValueError
    lambda a, i: np.compress([0, 0, 0, 0, 1], a, axis=0),       # selects beyond the axis: IndexError
    lambda a, i: a[np.ix_(i[0] > 1, [1])],                      # a boolean ix_: data-dependent, still right
    lambda a, i: np.binary_repr(i.sum()),                       # a value from data: runs natively
    lambda a, i: np.histogram(a[0] / 0.0, 3),                   # edges from a non-finite range: ValueError
    lambda a, i: np.histogram(a, bins="auto"),                  # a bin count from data: runs natively
])
def test_data_dependent_failures_are_eagers(form):
    check(form, (F, np.array([[2, 0, 1, 2, 0], [0, 1, 2, 0, 1]] * 2)))


def test_positions_from_a_traced_array_are_not_captured():
    def f(a, idx):
        return np.delete(a, idx, axis=0)
    check(f, (F, np.array([0, 2])))


def _warnings_of(fn, *args):
    import warnings
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn(*args)
    return [(w.category, str(w.message), w.filename, w.lineno) for w in seen]


def test_warnings_from_inside_numpy_functions_are_eagers():
    def fit(x, y):
        return np.polyfit(x, y, 5), np.unwrap(np.array([1.0, -np.inf, 2.0]) * x[0])
    args = (np.array([1., 1, 1, 2, 2, 2]), np.arange(6.))
    eager = _warnings_of(fit, *args)
    assert eager
    static = sot.to_static(fit)
    for _ in range(2):
        assert _warnings_of(static, *args) == eager


def test_polyfit_of_mismatched_lengths_raises_as_eager():
    check(lambda x, y: np.polyfit(x, y, 1), (V, V4))


def test_views_with_an_exact_onnx_form_are_exported(tmp_path):
    t = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)

    def f(x):
        return np.rollaxis(x, 3, 1) * 2 + np.matrix_transpose(x).sum() + np.rollaxis(x, -1).sum()
    sot.save(f, tmp_path / "m.onnx", input_spec=[sot.InputSpec((2, 3, 4, 5), "float32", "x")])
    _close(f(t), sot.load(tmp_path / "m.onnx")(t))


@pytest.mark.parametrize("axis, start", [(0, 0), (0, 4), (3, 1), (-1, -3), (2, 2), (1, 3)])
def test_rollaxis_lowering_matches_numpy(axis, start):
    t = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    fn = lambda x: np.rollaxis(x, axis, start) + 1  # noqa: E731
    _close(fn(t), sot.to_static(fn, backend="onnxruntime")(t))


def test_ops_without_an_exact_onnx_form_say_why_on_save(tmp_path):
    def f(x):
        return np.linalg.svdvals(x)
    with pytest.raises(Exception, match="svdvals"):
        sot.save(f, tmp_path / "m.onnx", input_spec=[sot.InputSpec((4, 5), "float32", "x")])


# -- a constant list of bools in an index selects a known number of positions ------------------

BOOL_INDEXES = [lambda x: x[:, [True, False, True, True, False]], lambda x: x[[True, False, True, False]],
                lambda x: x[[True, False, True, True], 1:], lambda x: x[[False] * 4],
                lambda x: x[None, [True, False, True, False], [1, 2]], lambda x: x[[True, True, False, False], [0, 3]]]


@pytest.mark.parametrize("form", BOOL_INDEXES)
def test_constant_bool_list_index_is_static(form):
    check(form, (F,), (I,))
    assert_same(form(F), sot.to_static(form)(F), bitwise=True)
    assert_captured_whole(form, F)
    _close(form(F32), sot.to_static(form, backend="auto")(F32))


def test_constant_bool_list_in_an_assignment():
    def g(x):
        x[:, [True, False, True, False, True]] = -1
        x[[False, True, True, False]] += 2
        return x
    check(g, (F,), (I,))
    assert_captured_whole(g, F.copy())


@pytest.mark.parametrize("form", [lambda x: x[[True, False]], lambda x: x[..., [True, False, True, True, True]],
                                  lambda x: x[[True, False, True, False, True]]])
def test_constant_bool_list_of_another_length_raises_as_eager(form):
    check(form, (F,))
