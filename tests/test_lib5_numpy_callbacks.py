"""NumPy's Python-level helpers that call back user functions
(np.vectorize, np.frompyfunc, np.piecewise, np.apply_along_axis,
np.apply_over_axes), np.polynomial.Polynomial objects and
np.lib.recfunctions: values, dtypes and Python types as eager, the user
callback's side effects (calls counted in a list) as eager."""
import numpy as np
import numpy.lib.recfunctions as rfn
import pytest
from numpy.polynomial import Polynomial

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float64).reshape(3, 4) * 0.5 - 2


def vectorize_a_python_function(x):
    calls = []

    def f(v):
        calls.append(1)
        return v * 2 if v > 0 else -v
    out = np.vectorize(f)(x)
    return out, len(calls), np.vectorize(lambda a, b: a + b, otypes=[np.float32])(x, 1.5)


def vectorize_signature(x):
    return np.vectorize(lambda row: row.sum() - row.max(), signature="(n)->()")(x)


def frompyfunc_object_array(x):
    f = np.frompyfunc(lambda a, b: a * b + 1, 2, 1)
    out = f(x, 2)
    return out, out.dtype, f(3, 4)


def piecewise_of_conditions(x):
    return (np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 2]),
            np.piecewise(x, [x < -1], [0.0, 1.0]))


def apply_along_axis_rows(x):
    calls = []

    def f(row):
        calls.append(row.shape)
        return row.max() - row.min()
    return np.apply_along_axis(f, 1, x), np.apply_along_axis(np.cumsum, 0, x), calls


def apply_over_axes_sum(x):
    return np.apply_over_axes(np.sum, x, [0, 1]), np.apply_over_axes(np.mean, x, 1)


def polynomial_fit_eval_deriv(x):
    t = np.linspace(0.0, 1.0, x.shape[1])
    p = Polynomial.fit(t, x[0], 2)
    d = p.deriv()
    return p(t), d(0.5), p.degree(), p.convert().coef, (p * 2 + 1)(t)


def polynomial_objects(x):
    p = Polynomial([1.0, 2.0, 3.0])
    return p(x), p.deriv(2).coef, p.integ().coef, (p ** 2).coef, p.roots(), str(p)


def recfunctions_basics(x):
    rec = np.zeros(3, dtype=[("a", "f8"), ("b", "i4")])
    rec["a"] = x[:, 0]
    rec["b"] = np.arange(3)
    plain = rfn.structured_to_unstructured(rec[["a"]])
    back = rfn.unstructured_to_structured(x[:, :2].copy(), names=["p", "q"])
    more = rfn.append_fields(rec, "c", x[:, 1], usemask=False)
    return plain, back, more, rfn.drop_fields(rec, "b"), rfn.rename_fields(rec, {"a": "alpha"}).dtype.names


def piecewise_bad_conditions_raise(x):
    return np.piecewise(x, [x < 0, x > 0, x == 0], [1, 2])


CASES = [vectorize_a_python_function, vectorize_signature, frompyfunc_object_array, piecewise_of_conditions,
         apply_along_axis_rows, apply_over_axes_sum, polynomial_fit_eval_deriv, polynomial_objects,
         recfunctions_basics, piecewise_bad_conditions_raise]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_matches_eager(fn):
    check(fn, (X,), (X[::-1] * 3,))


def call_of_a_polynomial_passed_in(x, p):
    return p(x) + 1, p.degree()


def test_an_unhashable_callable_object_is_called_not_looked_up():
    # a Polynomial defines __eq__ and so is unhashable: the NumPy call tables
    # are searched by identity, so the call breaks cleanly (no internal error)
    p = Polynomial([1.0, -2.0, 0.5])
    check(call_of_a_polynomial_passed_in, (X, p), (X * 2, p))
    report = sot.explain(sot.to_static(call_of_a_polynomial_passed_in, min_graph_size=0), X, p)
    assert report.breaks and not any("internal-error" in str(b) for b in report.breaks), \
        [str(b) for b in report.breaks]
