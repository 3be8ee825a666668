"""Numbers read from data under functions that may raise for some values:
``math.exp(float(x.mean()))`` (OverflowError past ~709), ``0.5 ** (n // 3)``
with ``n = int(x.sum())`` (a float to an int power: always a float, or
ZeroDivisionError / OverflowError) stay in the graph: the result type is one
for every value, and an error is eager's, raised from the user's line.
``2 ** n`` of an int ``n`` from data (an int or a float as n's sign decides)
and a float from data to a float power (complex of a negative base) still
break."""
import math
import warnings

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, case_params, check, check_case

F = np.array([0.25, -1.5, 3.0, 2.0])
IV = np.array([3, 1, 2, 1, 0, 4])


def math_of_data(x):
    m = float(x.mean())
    return math.exp(m), math.log(float(x.max()) + 10.0), math.tanh(float(x.sum())) * x, math.ceil(m), \
        math.exp(m) * x


def float_to_data_int_power(x):
    n = int(x.sum())
    return 0.5 ** (n // 3), x * 0.5 ** (n // 3), 2.0 ** -n, (-1.5) ** n


def constant_to_data_float_power(x):
    m = float(x.mean())
    return 2 ** m, 10.0 ** m, x * 3 ** (m * 0.5)


def data_float_to_data_int_power(x):
    m = float(x[0])
    n = int(x.astype(np.int64).sum())
    return m ** n, x * (1.0 + m) ** (n % 4)


def shape_number_power(x):
    n = x.shape[0]
    return x * 0.5 ** (n // 3), 2.0 ** -len(x)


CASES = {
    "math_of_data": (math_of_data, [(F,), (F * 2,), (np.array([-0.0, 0.0]),)]),
    "float_to_data_int_power": (float_to_data_int_power, [(IV.astype(float),), (-IV,), (IV * 50,)]),
    "constant_to_data_float_power": (constant_to_data_float_power, [(F,), (-F * 3,), (np.array([np.nan, 1.0]),)]),
    "data_float_to_data_int_power": (data_float_to_data_int_power, [(F,), (-F * 2,), (np.array([-0.5, -3.0]),)]),
    "shape_number_power": (shape_number_power, [(F,), (np.ones(7),)]),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_matches_eager_and_runs_whole(fn, arg_sets):
    check_case(fn, arg_sets)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_math_exp_overflow_raises_eagers_error_from_the_users_line(backend):
    def f(x):
        y = x * 2
        return math.exp(float(y.max())) * y
    static = sot.to_static(f, backend=backend)
    check(f, (F,), (np.array([400.0]),), (np.array([-1e308]),), static=static)
    with pytest.raises(OverflowError) as info:
        static(np.array([400.0]))
    assert info.traceback[-1].statement.lines[-1].strip() == "return math.exp(float(y.max())) * y"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_zero_to_a_negative_data_power_raises_eagers_error():
    def f(x, base):
        n = int(x.sum())
        return base ** n
    for base in (0.0, 0.5, 1e300, -0.0):
        check(f, (IV, base), (-IV, base), (np.array([-2000]), base), (np.array([2000]), base))


def test_a_power_after_a_write_into_an_argument_is_not_raised_from_the_graph():
    """0.0 ** -n would raise after the graph wrote into x: the frame keeps eager's effects and error."""
    def f(x):
        x += 1
        return 0.0 ** int(x.sum())
    check(f, (np.array([-3, 1]),), (np.array([2, 3]),))


@pytest.mark.parametrize("source", [
    "2 ** int(x.sum())",                 # an int, or a float for a negative sum
    "float(x.mean()) ** 0.5",            # complex of a negative mean
    "float(x.mean()) ** float(x[0])",
    "(-2) ** float(x.mean())",           # complex
])
def test_a_power_whose_type_the_value_decides_still_breaks(source):
    ns = {"np": np}
    exec(f"def f(x):\n    return {source}\n", ns)
    f = ns["f"]
    for x in (np.array([1, 2]), np.array([-3, 1])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check(f, (x,))
    report = sot.explain(sot.to_static(f, min_graph_size=0), np.array([1, 2]))
    assert report.breaks, source


def test_captured_power_sees_a_changed_value():
    """Nothing is guarded on the number: every call computes it from the data."""
    def f(x):
        return x * 0.5 ** (int(x.sum()) // 3)
    static = sot.to_static(f)
    for k in range(-4, 10):
        x = np.array([k, 1])
        assert f(x).tobytes() == static(x).tobytes()
    assert_captured_whole(f, np.array([3, 1]))
