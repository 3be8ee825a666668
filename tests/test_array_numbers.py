"""``float(x)`` / ``int(x)`` / ``x.item()`` of array data stay in the graph as a
Python number known at run time (sot/executor/array_numbers.py, sot/ir/data_numbers.py):
arithmetic with it is eager's (NEP 50: a Python float is a weak scalar), it
leaves the graph as the very Python float eager computes (-0.0, NaN, inf), and
the graph breaks only where Python needs its value (a branch, a print, a
shape, an index)."""
import math

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, assert_same, case_params, check, check_case

rng = np.random.default_rng(5)
F = rng.standard_normal((4, 3))
F32 = F.astype(np.float32)
I = rng.integers(-3, 4, (4, 3))
SPECIAL = np.array([[-0.0, 1.0, 2.0], [np.nan, 3.0, 4.0], [np.inf, -np.inf, 5.0], [6.0, 7.0, -8.0]])
NEG_ZERO = np.full((4, 3), -0.0)


def step(w, x, t, hist, lr):
    """A training step: the loss read into Python, used, logged and returned."""
    y = x @ w
    loss = float(np.mean((y - t) ** 2))
    g = x.T @ (y - t) / len(x)
    hist.append(loss)
    return w - lr * g * loss, loss


def promotion(x, a):
    m = float(x[0, 0])
    s = a.mean().item()
    return (a * m, m * a, a / m, a.astype(np.float32) * m, a.astype(np.float16) * m, a.astype(np.int8) * m,
            (a > 0) * m, a.astype(np.float32).sum() * m, m * a.astype(np.float16)[0, 0], np.float64(a[0, 0]) + m,
            m * 2, m / 3, -m, abs(m), m ** 2, m // 0.75, m % 0.75, m + s, m < s, np.full(2, m))


def reads(x):
    return (float(x[0, 0]), float(x.astype(np.float32)[1, 1]), float(x.astype(np.float16).max()), float(x.sum()),
            x.std().item(), x[1:2, :1].item(), x.astype(np.float32).min().item(), float((x > 0).any()),
            float(x.astype(np.int64)[0, 1]), float(np.float32(x[0, 2])))


def returned(x):
    return float(x[0, 0])


def ints(x, mask):
    """``int()`` / ``.item()`` to a Python int: exact (a uint64 past int64)."""
    n = int(mask.sum())
    k = int(x.astype(np.int64)[0, 0])
    u = x.astype(np.uint64).max().item()
    j = x.astype(np.int32)[1:2, :1].item()
    return (x * n, n // 2, n / 3, n ** 2, n - 1, -n, n % 3, k, k * 1.5, u, j + n, x.astype(np.float32) * k,
            n < k, x[n % 3], (x > 0) * n, np.float32(x[0, 1]) * n)


CASES = {
    "training_step": (step, [(np.ones(3), F, np.ones(4), [], 0.01), (np.ones(3), F * 2, np.zeros(4), [0.5], 0.1),
                             (np.ones(3), SPECIAL, np.ones(4), [], 0.01)]),
    "promotion": (promotion, [(F, F32), (F, I), (-F, F), (NEG_ZERO, F32), (SPECIAL, F), (SPECIAL[1:], F32[1:])]),
    "reads": (reads, [(F,), (SPECIAL,), (NEG_ZERO,), (I * 1.0,)]),
    "returned": (returned, [(F,), (NEG_ZERO,), (SPECIAL[1:],), (SPECIAL[2:],)]),
    "ints": (ints, [(F * 10, F > 0), (-F * 1e3, F > -9), (I * 1.0, np.zeros((4, 3), bool)),
                    (np.full((4, 3), 2.0 ** 63 + 2 ** 12), F > 0)]),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


def test_the_returned_float_is_eagers_python_float():
    static = sot.to_static(returned)
    for x in (NEG_ZERO, SPECIAL[1:], SPECIAL[2:], F):
        for _ in range(2):
            got, want = static(x), returned(x)
            assert type(got) is float
            assert math.copysign(1.0, got) == math.copysign(1.0, want)
            assert got == want or (got != got and want != want)


def test_the_read_is_captured_not_a_break():
    """Without the capture each read is a break ("float() of an array reads its data")."""
    report = assert_captured_whole(step, np.ones(3), F, np.ones(4), [], 0.01, graphs=(1,))
    assert report.graph_count == 1
    hist = []
    sot.to_static(step)(np.ones(3), F, np.ones(4), hist, 0.01)
    assert [type(v) for v in hist] == [float]


def branch(x):
    m = float(x.mean())
    y = x * m
    if m > 0:
        return y + 1, m
    return y - 1, -m


def printed(x):
    s = x.std().item()
    print(s, f"{s:.3f}")
    return x / s


def as_shape(x):
    m = float(x.sum())
    return np.zeros(int(m) % 5), x[int(m) % 3], list(range(int(m) % 4))


def as_index(x):
    return x[float(x[0, 0])]


def sized_by_it(x):
    n = int(x.sum() > 0) + 2
    m = float(x[0, 0])
    a = np.arange(m)
    return a * 2, np.zeros(n), x[:n]


def fractional_power(x):
    m = float(x[0, 0])
    return m ** 0.5, 2.0 ** m, x * m


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn, where", [(branch, "if m > 0:"), (printed, 'print(s, f"{s:.3f}")'),
                                       (as_shape, "return np.zeros(int(m) % 5), x[int(m) % 3], list(range(int(m) % 4))"),
                                       (fractional_power, "return m ** 0.5, 2.0 ** m, x * m"),
                                       (sized_by_it, "a = np.arange(m)")])
def test_python_needs_the_value_breaks_there_and_is_right_both_ways(fn, where):
    check(fn, (F,), (-F,), (np.abs(F) + 1,), (SPECIAL,), (NEG_ZERO,))
    report = sot.explain(sot.to_static(fn, min_graph_size=0), np.abs(F) + 1)
    assert [b.source for b in report.breaks] == [where], [str(b) for b in report.breaks]
    assert "float()" not in str(report.breaks[0])


def test_a_float_index_raises_eagers_error():
    check(as_index, (F,))


def test_int_of_a_float_breaks_there():
    """int(nan) raises: it stays where the user's line raises it, after the graph."""
    def f(x, hist):
        hist.append(float(x[1]))
        x *= 2
        return x, int(x[0])
    check(f, (np.array([np.nan, 1.0]), []), (np.array([np.inf, 2.0]), []), (np.array([-0.5, 3.0]), []))
    report = sot.explain(sot.to_static(f, min_graph_size=0), np.array([-0.5, 3.0]), [])
    assert [b.source for b in report.breaks] == ["return x, int(x[0])"], [str(b) for b in report.breaks]


def test_a_division_by_it_raises_eagers_error_when_the_graph_runs():
    def f(x):
        m = float(x.mean())
        return 1.0 / (m - 0.5), x / (m - 0.5), (m - 0.5) ** -1
    check(f, (np.full(3, 0.5),), (np.arange(4.0),))
    assert_captured_whole(f, np.arange(4.0), graphs=(1,))


@pytest.mark.parametrize("backend", ["onnxruntime", "auto"])
def test_other_backends(backend):
    def f(x, hist):
        loss = float(np.mean(x ** 2))
        hist.append(loss)
        return x * loss, loss
    static = sot.to_static(f, backend=backend)
    for x in (F32, -F32, NEG_ZERO.astype(np.float32)):
        h1, h2 = [], []
        want, got = f(x, h1), static(x, h2)
        assert_same(want, got)
        assert_same(h1, h2)


def test_save_refuses_a_float_read_from_data(tmp_path):
    def f(x):
        return x * float(x.mean())
    with pytest.raises(Exception, match="float"):
        sot.save(f, tmp_path / "m.onnx", input_spec=[sot.InputSpec((6,), "float32", "x")])


def test_an_int_that_decides_a_size_breaks_even_where_both_worlds_agree():
    """x[:n] with n past the end at trace time (and in the shadow world) must not bake in len(x)."""
    def f(x, mask):
        n = int(mask.sum())
        k = n % 3
        return x[:n].shape[0], x[-n:], x[n:n + 100].shape, np.ones(k)
    check(f, (np.arange(5.0), np.ones(2, bool)), (np.arange(5.0), np.ones(9, bool)),
          (np.arange(5.0), np.zeros(3, bool)))
