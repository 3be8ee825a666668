"""Differential fuzzing of inference and the NumPy backend against eager
NumPy (hypothesis): indexing, broadcasting operators and reductions on
random shapes, dtypes and arguments.

By default 300 derandomized examples per test (a fixed, reproducible
sweep); ``SOT_FUZZ_EXAMPLES=5000`` runs that many with fresh random seeds."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_ir_oracle import (ALL_DTYPES, Const, F, M, O, assert_matches_eager,
                            assert_matches_eager_unless_value_dependent, sample)

_EXAMPLES = os.environ.get("SOT_FUZZ_EXAMPLES")
SETTINGS = settings(max_examples=int(_EXAMPLES or 300), derandomize=not _EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)
dtypes = st.sampled_from(ALL_DTYPES)
small_ints = st.integers(-6, 6)
slices = st.builds(slice, st.none() | small_ints, st.none() | small_ints,
                   st.none() | st.integers(-3, 3).filter(bool))
int_lists = st.lists(st.integers(-4, 4), min_size=0, max_size=3)
index_items = st.one_of(small_ints, slices, st.none(), st.just(Ellipsis), int_lists,
                        int_lists.map(lambda v: np.array(v, dtype=np.intp)),
                        st.integers(-2, 2).map(np.intp))


@st.composite
def operands(draw, shape=shapes, dtype=dtypes):
    s, d = draw(shape), draw(dtype)
    if s == () and draw(st.booleans()):
        return sample((), d, seed=draw(st.integers(0, 3)), scalar=True)
    return sample(s, d, seed=draw(st.integers(0, 3)))


@SETTINGS
@given(operands(dtype=st.just(np.float32)), st.one_of(index_items, st.tuples(), st.lists(index_items, max_size=4).map(tuple)))
def test_random_indexing_matches_eager(x, index):
    assert_matches_eager(O("getitem"), x, index)


def _broadcastable(draw, shape):
    out = [draw(st.sampled_from([d, 1])) for d in shape]
    return tuple(out[draw(st.integers(0, len(out))):])


@st.composite
def binary_operands(draw):
    a = draw(shapes)
    b = _broadcastable(draw, a) if draw(st.integers(0, 5)) else draw(shapes)
    if draw(st.booleans()):
        a, b = b, a
    left = draw(operands(shape=st.just(a)))
    right = draw(st.one_of(operands(shape=st.just(b)),
                           st.sampled_from([0, 1, -1, 2, 7, 0.5, -2.5, True, False, 1j, 255, 256, -129]),
                           st.sampled_from([np.float32(2), np.int8(3), np.uint16(1), np.float16(-1)]).map(Const)))
    return (left, right) if draw(st.booleans()) else (right, left)


OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor", "lshift", "rshift",
             "lt", "le", "eq", "ne", "gt", "ge", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow",
             "iand", "ior", "ixor", "ilshift", "irshift"]


@SETTINGS
@given(st.sampled_from(OPERATORS), binary_operands())
def test_random_operator_matches_eager(name, pair):
    assert_matches_eager_unless_value_dependent(O(name), *pair)


axes = st.one_of(st.none(), st.integers(-4, 3), st.lists(st.integers(-4, 3), max_size=3).map(tuple))


@SETTINGS
@given(st.sampled_from(["sum", "prod", "mean", "max", "min", "argmax", "argmin", "var", "std", "any", "all",
                        "cumsum", "cumprod"]), st.booleans(), operands(), axes, st.booleans())
def test_random_reduction_matches_eager(name, as_method, x, axis, keepdims):
    kwargs = {} if name in ("cumsum", "cumprod") else {"keepdims": keepdims}
    op = M(name) if as_method else F(getattr(np, name))
    assert_matches_eager(op, x, axis=axis, **kwargs)


@SETTINGS
@given(operands(dtype=st.sampled_from([np.float32, np.int16])),
       st.lists(st.integers(-1, 5), min_size=0, max_size=4).map(tuple))
def test_random_reshape_matches_eager(x, shape):
    assert_matches_eager(M("reshape"), x, shape)
    assert_matches_eager(F(np.reshape), x, shape)
