"""Writes into arrays on onnxruntime (sot/backends/onnx_writes.py,
onnx_lowering_writes.py): a write into an array nothing else in the graph
reaches is lowered (and written back into an argument); other writes, and
the memory they change, run in place on NumPy in a partitioned graph.
Compared with eager within float tolerance (test_writes.differential)."""
from __future__ import annotations

import numpy as np
import pytest

import sot
from test_writes import BACKENDS, _same, differential, function

def _view_of_other_read_after_write(x, y):
    w = y[1:]            # a view of y, made before x is written
    x[...] = 0.0
    return w * 2.0, w.sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_view_of_an_overlapping_argument_sees_the_write(backend):
    def separate():
        return (np.arange(6.0), np.arange(6.0) + 10.0), ()

    def overlapping():
        base = np.arange(8.0)
        return (base[:6], base[2:]), (base,)

    static = sot.to_static(_view_of_other_read_after_write, backend=backend)
    differential(_view_of_other_read_after_write, separate, backend)
    differential(_view_of_other_read_after_write, overlapping, backend)
    # traced on separate arrays, called on overlapping ones: translated again
    e, t = separate()[0], separate()[0]
    _same(_view_of_other_read_after_write(*e), static(*t), backend, "separate")
    e, t = overlapping()[0], overlapping()[0]
    _same(_view_of_other_read_after_write(*e), static(*t), backend, "overlapping")
    _same(list(e), list(t), backend, "arguments")
    assert sot.translation_count(static) == 2


def test_writes_through_box_views_of_an_argument_lower_to_onnxruntime():
    def f(u, lap):
        np.add(u[:-2, 1:-1], u[2:, 1:-1], out=lap)
        lap -= 4.0 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += 0.2 * lap
        return np.tanh(u).sum()

    static = sot.to_static(f, backend="onnxruntime")
    u = np.random.default_rng(4).random((6, 6))
    static(u.copy(), np.zeros((4, 4)))
    report = sot.explain(static, u.copy(), np.zeros((4, 4)))
    assert report.graph_count == 1 and not report.breaks
    (ops, backend, source), = [g for e in report.entries for g in e.graphs]
    assert backend == "onnxruntime", backend

    def make():
        x = u.copy()
        return (x, np.zeros((4, 4))), (x[1:-1, 1:-1],)

    differential(f, make, "onnxruntime")


def test_auto_backend_never_runs_a_write_twice():
    def f(x):
        x += 1.0
        return np.tanh(x).sum()

    static = sot.to_static(f, backend="auto")
    e, t = np.zeros(64), np.zeros(64)
    for _ in range(12):
        f(e)
        static(t)
    np.testing.assert_allclose(t, e)
    np.testing.assert_array_equal(t, np.full(64, 12.0))


def _graph_backends(static, *args):
    report = sot.explain(static, *args)
    return [b for e in report.entries for _, b, _ in e.graphs]


def test_fill_loop_runs_wholly_on_onnxruntime():
    def f(x):
        out = np.empty((x.shape[0], 4), np.float32)
        for i in range(x.shape[0]):
            out[i] = np.tanh(x[i, :4]) + x[i, 4:]
        return out

    def make():
        return (np.random.default_rng(5).random((6, 8)).astype(np.float32),), ()

    static = differential(f, make, "onnxruntime")
    assert _graph_backends(static, *make()[0]) == ["onnxruntime"]


LOCAL_WRITES = [
    "a[1:, ::-2] = y[1:, ::2] * 2",
    "a[None, ..., 1] = 5",
    "a[[2, 0]] = y[:2]",
    "a[a > 0.5] = 0",
    "a[y[:, 0] > 0.5] = y[0]",
    "a += y",
    "a *= 3",
    "a -= y.astype(np.int64) * 3",
    "np.add(a, y, out=a)",
    "np.multiply(y, 2, out=a, where=y > 0.3)",
    "np.copyto(a, y[0], where=y > 0.5)",
    "a.fill(7)",
]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("source", LOCAL_WRITES)
def test_writes_into_a_local_are_lowered_for_onnxruntime(source, dtype):
    f = function("x, y", "a = x + 0", source, "return a, a * 2")

    def make():
        rng = np.random.default_rng(6)
        return ((rng.random((4, 6)) * 4).astype(dtype), (rng.random((4, 6)) * 4).astype(dtype)), ()

    static = differential(f, make, "onnxruntime")
    assert _graph_backends(static, *make()[0]) == ["onnxruntime"], source


def test_a_write_that_does_not_lower_keeps_its_array_on_numpy():
    def f(x):
        a = x * 2.0
        a[0] = 1.0
        b = a.copy()            # may be one onnxruntime value with a
        np.expm1(a, out=a)      # no ONNX lowering: in place, on NumPy
        return a, b

    def make():
        return (np.arange(5.0),), ()

    static = differential(f, make, "onnxruntime")
    assert _graph_backends(static, *make()[0]) == ["numpy+onnxruntime"]


def test_writes_into_an_argument_nothing_views_are_lowered_and_written_back():
    def f(x, y):
        x += y
        x *= 2.0
        x[0] = -1.0
        return np.tanh(x).sum(), x

    def make():
        rng = np.random.default_rng(7)
        x = rng.random(16).astype(np.float32)
        return (x, rng.random(16).astype(np.float32)), (x[::3],)

    static = differential(f, make, "onnxruntime")
    assert _graph_backends(static, *make()[0]) == ["onnxruntime"]

    def overlapping():   # y is a view of x: the graph is translated again, on NumPy
        base = np.random.default_rng(8).random(17).astype(np.float32)
        return (base[:16], base[1:]), (base,)

    differential(f, overlapping, "onnxruntime")
    assert sot.translation_count(static) == 2


def test_written_back_argument_is_seen_by_a_later_numpy_statement():
    def f(x):
        x += 1.0
        s = np.expm1(x)      # no ONNX lowering: NumPy, after the write-back
        x[1] = 5.0
        return s, x

    def make():
        x = np.arange(4.0)
        return (x,), (x[1:],)

    static = differential(f, make, "onnxruntime")
    assert _graph_backends(static, *make()[0]) == ["numpy+onnxruntime"]


# writes through views (onnx_write_views): a root and box views of it are one value

VIEW_WRITES = [
    # (statements after "a = x + 0" / "a = x" for an argument, views made before and after writes)
    ("v = a[1:-1, 1:]", "v += y[:2, :5]", "v[0] = 3", "r = v * 2"),
    ("v = a[2]", "w = a[:, 1:3]", "v[1:] = y[0, :5]", "w *= 2", "r = v + w.sum()"),
    ("v = a[1:3][:, None, 2:4]", "v[...] = 7", "a[0, ::2] = -1", "r = v.sum() + a"),
    ("v = a[:, 1:4]", "np.add(v, 1, out=v)", "np.copyto(v, y[:, :3], where=y[:, :3] > 2)", "r = v[0] * 1"),
    ("v = a[1:]", "v[v > 2] = 0", "r = a - v.sum()", "v[1:, 2].fill(5)"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("lines", VIEW_WRITES)
@pytest.mark.parametrize("root", ["a = x + 0", "a = x"])
def test_writes_through_box_views_are_lowered_for_onnxruntime(root, lines, dtype):
    f = function("x, y", root, *lines, "return a, r")

    def make():
        rng = np.random.default_rng(9)
        x = (rng.random((4, 6)) * 4).astype(dtype)
        return (x, (rng.random((4, 6)) * 4).astype(dtype)), (x[1:, ::2], x.T)

    static = differential(f, make, "onnxruntime")
    assert _graph_backends(static, *make()[0]) == ["onnxruntime"], lines


VIEWS_NOT_BOXES = [
    "v = a.T",                 # transposed
    "v = a[:, ::-2]",          # reversed, strided
    "v = a.reshape(6, 4)",     # reshape of a view may copy
]


@pytest.mark.parametrize("view", VIEWS_NOT_BOXES)
def test_writes_through_other_views_run_on_numpy_and_stay_exact(view):
    f = function("x, y", "a = x", view, "v[1] = 9", "a[0, 0] += 1", "return np.tanh(a).sum(), v * 2")

    def make():
        x = np.random.default_rng(10).random((4, 6)).astype(np.float32)
        return (x, x), (x[1:],)

    static = differential(f, make, "onnxruntime")
    assert _graph_backends(static, *make()[0]) == ["numpy+onnxruntime"]


def test_a_returned_view_of_written_memory_is_numpys_and_sees_later_writes():
    def f(x):
        a = x * 2.0
        v = a[1:]
        v += 1.0
        a[2] = 0.0
        return v, np.tanh(a)

    def make():
        return (np.arange(5.0, dtype=np.float32),), ()

    static = differential(f, make, "onnxruntime")
    result = static(np.arange(5.0, dtype=np.float32))
    assert result[0].base is not None


INDICES = ["1:", ":-1", "1:3, 2:", "2", ":, 1", "None, 1:, :4", "..., 2:5", "1:2", "::2", ":, ::3", "-1", "1:-1, 1:-1"]
WRITES = ["{v}[...] = y[:{v}.shape[0], :{v}.shape[-1]].sum() if {v}.ndim else 1", "{v} += 2", "{v} *= 3",
          "{v}.fill(5)", "np.add({v}, 1, out={v})", "{v}[{v} > 6] = 0"]


def _random_program(seed):
    rng = np.random.default_rng(seed)
    lines = ["a = x + 0" if rng.random() < 0.5 else "a = x"]
    names = ["a"]
    for k in range(int(rng.integers(2, 5))):
        v = f"v{k}"
        lines.append(f"{v} = {rng.choice(names)}[{rng.choice(INDICES)}]")
        names.append(v)
        w = str(rng.choice(WRITES)).format(v=str(rng.choice(names)))
        lines.append(w)
    lines.append("r = " + " + ".join(f"{n}.sum()" for n in names))
    return lines


@pytest.mark.parametrize("seed", range(40))
def test_random_writes_through_views_agree_with_eager(seed):
    lines = _random_program(seed)
    f = function("x, y", *lines, "return a, r")

    def make():
        x = np.arange(48, dtype=np.int64).reshape(6, 8) % 7
        return (x, x.T.copy()), (x[1:], x.T)

    try:
        eager = f(*make()[0])
    except (IndexError, ValueError, TypeError):
        pytest.skip("the random program raises eagerly")
    del eager
    differential(f, make, "onnxruntime")
    differential(f, make, "numpy")
