"""Break anywhere: an instruction that cannot be split off on its own (an
attribute load, a call nested in another call's arguments, the body of an
inlined comprehension) splits the frame around its statement instead of
running the whole frame natively (sot/breaks/regions.py)."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def static0(fn):
    return sot.to_static(fn, min_graph_size=0)


def captured_around(fn, *args, graphs=2):
    """The frame is split, not run natively: graphs on both sides of the break
    (before it only, where the break is in the last statement)."""
    report = sot.explain(static0(fn), *args)
    top = report.entries[0]
    assert top.fallback is None, top.fallback
    assert top.graph_break is not None
    assert report.graph_count >= graphs, report.graph_count
    return report


def ufunc_method(x):
    y = x * 2
    n = len(np.subtract.types)  # ufunc.types is not modelled (np.subtract.outer is captured)
    return y.sum() + n


def array_attribute(x):
    y = x + 1
    s = y.strides
    return y * 2, s


def finfo_eps(x):
    y = x * 2
    eps = np.finfo(x.dtype).eps.astype(float).item()  # .astype of a constant NumPy scalar is not modelled
    return y + eps


def call_in_call_arguments(x):
    y = x * 2
    z = np.add(y, float(str(y[0, 0])))   # str() of the data is text made from it: a break
    return z - 1


def comprehension_body(x):
    y = x * 2
    z = [str(v) for v in y[0]]   # str() of the data: a break
    return y + 1, z


def conditional_expression(x, flag):
    y = x * 3
    z = y.strides if flag else np.subtract.outer(y[0], y[0])
    return y - 1, z


def break_in_the_return_statement(x):
    y = np.tanh(x)
    return y[0] + len(np.subtract.types)


def comprehension_variable_bound_before(x):
    v = x[0]
    y = x * 2
    z = [str(v) for v in y[1]]
    return y + v, z


@pytest.mark.parametrize("fn", [ufunc_method, array_attribute, finfo_eps, call_in_call_arguments,
                                comprehension_body, break_in_the_return_statement,
                                comprehension_variable_bound_before])
def test_statement_around_an_unsplittable_instruction_runs_natively_and_the_rest_is_captured(fn):
    check(fn, (X,), (X * 2,), static=static0(fn))
    captured_around(fn, X, graphs=1 if fn is break_in_the_return_statement else 2)


def test_conditional_expression_statement_is_one_region():
    check(conditional_expression, (X, True), (X, False), static=static0(conditional_expression))
    captured_around(conditional_expression, X, True)


def test_region_names_computed_natively_do_not_retranslate_per_value():
    def f(x):
        y = x * 2
        n = float(np.add(y, float(y.sum())).max())
        return y + 1, n
    static = static0(f)
    for k in range(5):
        check(f, (X + k,), static=static, calls=1)
    assert sot.translation_count(static) <= 3


def test_walrus_in_a_skipped_branch_read_later_falls_back_correctly():
    def f(x, flag):
        y = x * 2
        z = (w := np.subtract.outer(y[0], y[0])) if flag else y.strides
        return y, z, w
    check(f, (X, True), (X, False), static=static0(f))


def test_region_inside_a_loop_leaves_the_loop_to_run_natively():
    def f(x):
        acc = x * 0
        for i in range(3):
            acc = acc + np.subtract.outer(x[i], x[i]).sum(axis=0)
        return acc * 2
    check(f, (X,), static=static0(f))
    report = sot.explain(static0(f), X)
    assert not report.fallbacks


def test_exception_inside_the_native_statement_propagates():
    def f(x, idx):
        y = x * 2
        z = np.subtract.outer(y[idx], y[0])
        return z
    check(f, (X, 1), (X, 7), static=static0(f))


def test_side_effects_before_and_inside_the_region_keep_their_order():
    def f(x, log):
        log.append(1)
        y = x * 2
        log.append(np.subtract.outer(y[0], y[0]).shape)
        log.append(3)
        return y
    check(f, (X, []), static=static0(f))
