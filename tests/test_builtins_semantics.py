"""Builtins the simulator models behave as CPython's own, on each version:
sum() of floats (3.12+: compensated summation), callable(), calling an object
through its type's __call__, and `in` / `==` on containers using identity
before == (NaN objects)."""
import math

import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(4, dtype=np.float64)
TENTHS = [0.1] * 10
SMALL_BIG = [1e16, 1.0, -1e16, 1.0, 0.1, 0.2]


# -- sum -----------------------------------------------------------------------

def sum_list(x, vals):
    return x * sum(vals)


def sum_start(x, vals):
    return x + sum(vals, 0.5)


def sum_ints_then_floats(x, vals):
    return x - sum([1, 2] + vals)


def sum_then_array(x, vals):
    return sum(vals + [x, 0.1, 0.2])


def sum_python_result(x, vals):
    s = sum(vals)
    return x + s, s


@pytest.mark.parametrize("fn", [sum_list, sum_start, sum_ints_then_floats, sum_then_array, sum_python_result])
@pytest.mark.parametrize("vals", [TENTHS, SMALL_BIG, [0.1, 0.2, 0.3]])
def test_sum_of_floats_matches_the_builtin(fn, vals):
    check(fn, (X, list(vals)))


def test_sum_of_floats_from_shapes(x=np.zeros((3, 7))):
    def f(x):
        n = x.shape[0] ** 0.5
        return x + sum([0.1, n, 0.1, 0.1, 0.7, n])
    check(f, (np.zeros((3, 7)),), (np.zeros((5, 7)),), (np.zeros((6, 7)),))


def test_sum_of_ints_from_shapes_stays_symbolic():
    def f(x):
        return x.reshape(sum([x.shape[0], x.shape[1], 1]) - 1, -1)
    check(f, (np.zeros((3, 4)),), (np.zeros((5, 4)),), (np.zeros((6, 4)),))


# -- callable --------------------------------------------------------------------

class Plain:
    pass


class WithCall:
    def __call__(self, x):
        return x * 2


def _instance_with_call_attribute(cls):
    o = cls()
    o.__call__ = lambda x: x * 100   # an instance attribute: not what calling o uses
    return o


PLAIN_WITH_ATTR = _instance_with_call_attribute(Plain)
CALLABLE_WITH_ATTR = _instance_with_call_attribute(WithCall)


PLAIN, WITH_CALL = Plain(), WithCall()


def _helper():
    pass


def test_callable_matches_the_builtin():
    def f(x):
        flags = (callable(int), callable(np.float32), callable(Plain), callable(PLAIN), callable(WithCall),
                 callable(WITH_CALL), callable(PLAIN_WITH_ATTR), callable(CALLABLE_WITH_ATTR), callable(np.add),
                 callable(len), callable(_helper), callable(x), callable((1, 2)), callable(3), callable("s"),
                 callable([x]), callable(math), callable(x.sum), callable(WITH_CALL.__call__), callable(None))
        return x + sum(flags), flags
    check(f, (X,))
    assert " 0 graph break(s), 0 fallback(s)" in str(sot.explain(f, X))


def test_callable_of_an_object_with_only_an_instance_call_attribute():
    def f(x, obj):
        return x + callable(obj)
    check(f, (X, PLAIN_WITH_ATTR), (X, CALLABLE_WITH_ATTR), (X, PLAIN))


def test_calling_an_object_uses_its_types_call():
    def f(x, obj):
        return obj(x) + 1
    check(f, (X, CALLABLE_WITH_ATTR))


def test_calling_an_object_whose_call_is_only_an_instance_attribute_raises_as_eager():
    def f(x):
        return PLAIN_WITH_ATTR(x) + 1
    check(f, (X,))


# -- identity before == ------------------------------------------------------------

NAN = float("nan")
OTHER_NAN = float("nan")


def test_in_uses_identity_first():
    def f(x, a, b):
        return x + (a in (b,)) + 2 * (a in [b, 1.0]) + 4 * (a in (a,)) + 8 * (NAN in (NAN, 0.5))
    check(f, (X, NAN, NAN), (X, NAN, OTHER_NAN), (X, 1.0, 1.0), (X, NAN, NAN))


def test_tuple_equality_uses_identity_first():
    def f(x, a, b):
        return x + ((a,) == (b,)) + 2 * ([a, 1] == [b, 1]) + 4 * ((a,) != (b,)) + 8 * ((NAN,) == (NAN,))
    check(f, (X, NAN, NAN), (X, NAN, OTHER_NAN), (X, 2.0, 2.0), (X, NAN, NAN))


def test_in_a_constant_tuple_holding_nan():
    pair = (NAN, 1.0)

    def f(x):
        return x + (NAN in pair) + 2 * (OTHER_NAN in pair) + 4 * ((NAN, 1.0) == pair)
    check(f, (X,))


def test_dict_lookup_uses_identity_first():
    table = {NAN: 3.0, 1.0: 5.0}

    def f(x, key):
        return x + (key in table)
    check(f, (X, NAN), (X, OTHER_NAN), (X, 1.0))


def test_nan_identity_changes_between_calls_are_seen():
    static = sot.to_static(lambda x, a, b: x + (a in (b,)))
    assert static(X, NAN, NAN)[0] == 1.0
    assert static(X, NAN, OTHER_NAN)[0] == 0.0
    assert static(X, NAN, NAN)[0] == 1.0


# -- isinstance ------------------------------------------------------------------

class Pretends:
    """isinstance() consults __class__ after the type: this one says float."""

    @property
    def __class__(self):
        return float


PRETENDS = Pretends()


def test_isinstance_sees_a_class_property():
    def f(x, obj):
        return x + isinstance(obj, float) + 2 * isinstance(obj, Pretends) + 4 * isinstance(PLAIN, Plain)
    check(f, (X, PRETENDS), (X, PLAIN))
