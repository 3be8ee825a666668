"""Differential tests, eager vs to_static, for the constructs the simulator models.

Each test states a behaviour; `check` compares values, types, dtypes,
shapes, side effects on arguments, stdout and exceptions over several calls.
`captured` additionally asserts the frame became one graph (no fallback).
"""
import math

import numpy as np
import pytest

import sot
from difftest import check

rng = np.random.default_rng(1)
A = rng.standard_normal((4, 5)).astype(np.float32)
B = rng.standard_normal((5,)).astype(np.float32)
I = np.arange(12, dtype=np.int64).reshape(3, 4)


def captured(fn, *args, **kwargs):
    report = sot.explain(fn, *args, **kwargs)
    assert report.breaks == [], "\n".join(str(b) for b in report.breaks)
    return report


def falls_back(fn, *args):
    report = sot.explain(fn, *args)
    assert report.breaks, "expected the frame to run natively"
    return report.breaks[0]


# -- arguments -----------------------------------------------------------------

def test_keyword_default_and_keyword_only_arguments():
    def f(x, scale=2.0, *, shift=1):
        return x * scale + shift
    check(f, (A,), (A, 3.0))
    check(f, (A,), kwargs={"shift": 5})
    captured(f, A)


def test_varargs_and_varkw():
    def f(*arrays, **opts):
        total = arrays[0]
        for a in arrays[1:]:
            total = total + a
        return total * opts.get("k", 1.0)
    check(f, (A, A, A))
    check(f, (A, A), kwargs={"k": 0.5})
    captured(f, A, A)


def test_changed_python_scalar_argument_retranslates():
    def f(x, n):
        return x * n
    static = check(f, (A, 2), (A, 3), (A, 2.5))
    assert sot.translation_count(static) == 3


# -- Python values -----------------------------------------------------------------

def test_shape_arithmetic_in_python():
    def f(x):
        n, m = x.shape
        return x.reshape(m, n) * (n * m) + x.ndim - len(x) + x.size
    check(f, (A,), (I,))
    captured(f, A)


def test_branch_on_python_value_is_followed_and_guarded():
    def f(x, flag):
        if flag:
            return np.exp(x)
        return np.log1p(np.abs(x))
    check(f, (A, True), (A, False))


def test_branch_on_shape_is_followed():
    def f(x):
        if x.shape[0] > 3:
            return x.sum(0)
        return x.sum(1)
    check(f, (A,), (A[:2],))


def test_math_module_on_python_numbers():
    def f(x):
        return x / math.sqrt(x.shape[-1]) + math.pi
    check(f, (A,))
    captured(f, A)


def test_fstring_of_python_values():
    def f(x, name):
        key = f"{name}:{x.ndim}"
        return {key: x + 1}
    check(f, (A, "a"))


# -- containers -----------------------------------------------------------------------

def test_tuple_list_and_dict_results():
    def f(x):
        parts = [x, x * 2]
        parts.append(x + 1)
        d = {"sum": parts[0] + parts[1], "n": len(parts)}
        return tuple(parts), d
    check(f, (A,))
    captured(f, A)


def test_list_argument_items_are_inputs():
    def f(xs):
        return xs[0] @ xs[1]
    check(f, ([A, A.T],))


def test_dict_argument_is_read_by_key():
    def f(params, x):
        return x * params["w"] + params["b"]
    check(f, ({"w": B, "b": 1.0}, A))


def test_unpacking_and_star_unpacking():
    def f(x):
        a, *rest = [x, x + 1, x + 2]
        (b, c), d = (rest[0], rest[1]), a
        return a + b + c + d
    check(f, (A,))


def test_comprehensions():
    def f(x):
        rows = [x[i] * i for i in range(x.shape[0])]
        scaled = {i: r.sum() for i, r in enumerate(rows)}
        return np.stack(rows), scaled
    check(f, (A,))
    captured(f, A)


# -- loops and iterators --------------------------------------------------------------------

def test_for_loop_over_range_is_unrolled():
    def f(x):
        for i in range(4):
            x = x * 0.5 + i
        return x
    check(f, (A,))
    captured(f, A)


def test_zip_enumerate_reversed():
    def f(xs, ws):
        acc = 0
        for i, (x, w) in enumerate(zip(xs, reversed(ws))):
            acc = acc + x * w + i
        return acc
    check(f, ([A, A], [1.0, 2.0]))


def test_while_loop_on_python_counter():
    def f(x):
        i = 0
        while i < 3:
            x = np.tanh(x)
            i += 1
        return x
    check(f, (A,))


def test_iterating_over_array_rows():
    def f(x):
        total = np.zeros(x.shape[1], x.dtype)
        for row in x:
            total = total + row
        return total
    check(f, (A,))


# -- functions, closures, objects ---------------------------------------------------------------

def helper(x, k=2):
    return x ** k


def test_user_function_is_inlined():
    def f(x):
        return helper(x) + helper(x, k=3)
    check(f, (A,))
    captured(f, A)


def test_closure_cell_value_change_is_seen():
    scale = [2.0]

    def make():
        s = scale[0]

        def f(x):
            return x * s
        return f
    f = make()
    static = check(f, (A,))
    scale[0] = 3.0
    g = make()
    check(g, (A,))
    assert static is not None


def test_cell_variable_used_by_inner_function():
    def f(x, k):
        def inner(y):
            return y * k
        return inner(x) + inner(1.0)
    check(f, (A, 2.0))


def test_lambda_is_inlined():
    def f(x):
        g = lambda y: y * 2 + 1  # noqa: E731
        return g(x)
    check(f, (A,))
    captured(f, A)


class Scaler:
    factor = 3.0

    def __init__(self, w):
        self.w = w

    @property
    def w2(self):
        return self.w * 2

    @staticmethod
    def shift(x):
        return x - 1

    def __call__(self, x):
        return self.shift(x * self.w2 * self.factor)

    def method(self, x):
        return x + self.w


def test_methods_properties_and_static_methods():
    s = Scaler(B)
    check(s, (A,))
    check(Scaler.method, (s, A))
    bound = s.method
    check(bound, (A,))
    captured(s, A)


def test_changed_attribute_is_seen_on_next_call():
    s = Scaler(1.5)
    static = sot.to_static(s)
    np.testing.assert_array_equal(static(A), s(A))
    s.w = 2.5
    np.testing.assert_array_equal(static(A), s(A))
    Scaler.factor = 4.0
    try:
        np.testing.assert_array_equal(static(A), s(A))
    finally:
        Scaler.factor = 3.0


def test_returned_input_keeps_identity():
    def f(x, y):
        return x, y * 2
    check(f, (A, A))
    x = A.copy()
    assert sot.to_static(f)(x, x)[0] is x


# -- NumPy ops -------------------------------------------------------------------------------------

def test_indexing_kinds():
    def f(x):
        return x[1], x[::-1, 1:3], x[None, ..., 0], x[[0, 2]], x[-1, -2]
    check(f, (A,), (I,))
    captured(f, A)


def test_reductions_with_axis_and_keepdims():
    def f(x):
        return (x.sum(), x.mean(axis=0), np.max(x, axis=-1, keepdims=True), x.argmax(1),
                x.var(ddof=1), np.cumsum(x, axis=1), x.std(0), np.prod(x, 0))
    check(f, (A,), (I,))
    captured(f, A)


def test_shape_ops():
    def f(x):
        y = x.reshape(-1).reshape(2, 10)
        z = np.concatenate([y, y], axis=0)
        return z.T, np.transpose(z), np.expand_dims(y, 0).squeeze(0), np.stack([y, y], -1).shape, y.ravel()
    check(f, (A,))
    captured(f, A)


def test_creation_where_clip_astype():
    def f(x):
        z = np.zeros_like(x) + np.ones(x.shape[1], x.dtype)
        m = np.where(x > 0, x, z)
        return np.clip(m, -0.5, None).astype(np.float64) + np.arange(x.shape[1])
    check(f, (A,))
    captured(f, A)


def test_python_scalars_follow_nep50_weak_promotion():
    def f(x):
        return x * 2, x + 1.5, x / 3, 2 ** x, x.astype(np.int8) + 300 // 3
    check(f, (A,))
    check(f, (np.arange(5, dtype=np.int16),))


def test_matmul_variants():
    def f(a, b):
        return a @ b, np.dot(a, b), np.einsum("ij,j->i", a, b), np.tensordot(a, b, axes=1)
    check(f, (A, B))


def test_numpy_scalar_and_0d_results_keep_their_types():
    def f(x):
        s = x.sum()
        return s, s * 2, np.float32(1) + s, x[0, 0], np.tanh(x[0, 0])
    check(f, (A,))
    check(f, (np.array([[1.5]]),))


def test_inplace_on_intermediate_stays_in_graph():
    def f(x):
        y = x * 2
        y += 1
        y *= y
        return y
    check(f, (A,))
    captured(f, A)


# -- what must fall back -----------------------------------------------------------------------------

def test_print_runs_natively_with_same_output():
    def f(x):
        print("shape", x.shape)
        return x + 1
    check(f, (A,))
    assert "print" in falls_back(f, A).message


def test_data_dependent_branch_falls_back():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x - 1
    check(f, (A,), (-np.abs(A),))
    reason = falls_back(f, A)
    assert reason.category == "data-dependent"
    assert reason.source == "if x.sum() > 0:"


def test_random_is_never_captured():
    def f(x):
        return x + np.random.rand(*x.shape)
    np.random.seed(0)
    e = f(A)
    np.random.seed(0)
    t = sot.to_static(f)(A)
    np.testing.assert_array_equal(e, t)
    assert "nondeterministic" in falls_back(f, A).message


def test_inplace_update_of_argument_runs_natively():
    def f(x):
        x += 1
        return x
    check(f, (A.copy(),))


def test_mutating_argument_list_runs_natively():
    def f(xs, x):
        xs.append(x)
        return len(xs)
    check(f, ([A], A))


def test_global_store_runs_natively():
    def f(x):
        global COUNTER
        COUNTER = x.shape[0]
        return x
    check(f, (A,))


def test_exception_in_user_code_is_the_same():
    def f(x):
        return x @ x  # shapes do not match
    check(f, (A,))

    def g(x):
        return {}["missing"]
    check(g, (A,))


def test_not_to_static_function_is_called_natively():
    calls = []

    @sot.not_to_static
    def side(x):
        calls.append(1)
        return x

    def f(x):
        return side(x) + 1
    check(f, (A,), calls=2)
    assert len(calls) == 4


def test_full_graph_raises_on_fallback():
    def f(x):
        print(x.shape)
        return x
    static = sot.to_static(f, full_graph=True)
    with pytest.raises(sot.GraphBreakError, match="print"):
        static(A)


def test_object_dtype_arrays_run_natively():
    def f(x):
        return x + 1
    check(f, (np.array([1, "a"], dtype=object)[:1],))


def test_dict_views_iterate_but_are_not_lists():
    def f(d):
        total = 0
        for k, v in d.items():
            total = total + v
        return total, len(d.keys()), list(d.values())
    check(f, ({"a": A, "b": A},))

    def g(d):
        return d.keys()
    check(g, ({"a": A},))


def test_inplace_after_a_view_was_taken_keeps_numpy_semantics():
    def f(x):
        y = x * 2
        v = np.reshape(y, -1)
        w = y[0]
        y += 1
        return v, w, y
    check(f, (A,))


def test_is_none_on_python_values_is_decided_at_trace_time():
    def f(x, scale=1.5):
        if scale is None:
            return x
        return x * scale
    check(f, (A,), (A, None), (A, 2.0))
    captured(f, A)
