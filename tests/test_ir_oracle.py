"""The eager-NumPy oracle shared by the IR and NumPy-backend tests.

``assert_matches_eager(op, *args, **kwargs)`` records ``op`` into a one-op
StatementIR (every ndarray and NumPy scalar among the arguments becomes a
graph input; wrap one in ``Const`` to pass it as a constant instead), and
checks that

* the inferred TensorMeta equals ``TensorMeta.of(eager result)`` — shape,
  dtype, and NumPy scalar vs ndarray;
* the NumPy backend's result is identical to eager: same Python type, dtype,
  shape and bytes (NaNs and signed zeros included), and the same effect on
  the inputs (in-place operators).

Where eager NumPy only gives a DeprecationWarning, or its result is not an
array at all (``1j + np.float64(1)`` is a Python complex), inference may refuse.
Where eager NumPy raises, inference must raise UnsupportedOp — or, for an
error that depends on the data (an integer array raised to a negative
power), the compiled graph must raise the same error.
``assert_unsupported`` checks an op that is deliberately not captured.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

from sot.backends import compile_numpy
from sot.ir import (StatementIR, TensorMeta, UnsupportedOp, lookup_attribute,
                    lookup_function, lookup_method, lookup_operator)


class Const:
    """Marks an array-like argument to be recorded as a constant."""

    def __init__(self, value):
        self.value = value


def F(fn):
    op = lookup_function(fn)
    assert op is not None, f"{fn} is not registered"
    return op


def M(name):
    op = lookup_method(name)
    assert op is not None, f"method {name} is not registered"
    return op


def O(name):  # noqa: E743
    op = lookup_operator(name)
    assert op is not None, f"operator {name} is not registered"
    return op


def A(name):
    op = lookup_attribute(name)
    assert op is not None, f"attribute {name} is not registered"
    return op


def _is_value(v):
    return isinstance(v, (np.ndarray, np.generic))


def _trace(graph, tree, inputs):
    """Replace array values by graph inputs; ``inputs`` collects the values."""
    if isinstance(tree, Const):
        return tree.value
    if _is_value(tree):
        inputs.append(tree)
        return graph.add_input(TensorMeta.of(tree), hint=f"arg{len(inputs) - 1}")
    if isinstance(tree, tuple):
        return tuple(_trace(graph, v, inputs) for v in tree)
    if isinstance(tree, list):
        return [_trace(graph, v, inputs) for v in tree]
    if isinstance(tree, dict):
        return {k: _trace(graph, v, inputs) for k, v in tree.items()}
    return tree


def _unwrap(tree):
    if isinstance(tree, Const):
        return tree.value
    if isinstance(tree, tuple):
        return tuple(_unwrap(v) for v in tree)
    if isinstance(tree, list):
        return [_unwrap(v) for v in tree]
    if isinstance(tree, dict):
        return {k: _unwrap(v) for k, v in tree.items()}
    return tree


def run_eager(op, args, kwargs, caught=None):
    with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            return op.call(_unwrap(args), _unwrap(kwargs))
        finally:
            if caught is not None:
                caught.extend(w.category for w in record)


def assert_same_value(actual, expected):
    """Same Python type, dtype, shape and bytes."""
    assert type(actual) is type(expected), f"type {type(actual)} != {type(expected)}"
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    a = np.ascontiguousarray(actual).tobytes()
    e = np.ascontiguousarray(expected).tobytes()
    assert a == e, f"values differ:\n{actual!r}\n{expected!r}"


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def assert_matches_eager(op, *args, **kwargs):
    """Inference and the NumPy backend agree with eager NumPy (see module doc)."""
    eager_args = copy.deepcopy((args, kwargs))
    categories: list = []
    try:
        expected = run_eager(op, *eager_args, caught=categories)
    except Exception as e:
        # not captured, or (data-dependent errors) the compiled graph raises the same
        graph = StatementIR("oracle")
        inputs: list = []
        symargs = _trace(graph, args, inputs)
        symkwargs = _trace(graph, kwargs, inputs)
        try:
            result = graph.add_op(op, symargs, symkwargs)
        except UnsupportedOp:
            return e
        graph.set_outputs(list(result) if isinstance(result, tuple) else [result])
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(type(e)) as info:
                compile_numpy(graph)(*copy.deepcopy(inputs))
        assert str(info.value) == str(e)
        return e

    graph = StatementIR("oracle")
    inputs: list = []
    symargs = _trace(graph, copy.deepcopy(args), inputs)
    symkwargs = _trace(graph, copy.deepcopy(kwargs), inputs)
    try:
        result = graph.add_op(op, symargs, symkwargs)
    except UnsupportedOp:
        if any(issubclass(c, DeprecationWarning) for c in categories):
            return expected  # deprecated behaviour (e.g. NumPy 2.2's out-of-bounds index into nothing)
        if not all(_is_value(v) for v in _outputs(expected)):
            return expected  # not an array (1j + np.float64(1) is a Python complex)
        raise
    symbols = list(result) if isinstance(result, tuple) else [result]
    expected_list = _outputs(expected)
    assert len(symbols) == len(expected_list)
    for sym, value in zip(symbols, expected_list):
        assert _same_meta(sym.meta, TensorMeta.of(value)), f"inferred {sym.meta!r}, eager {TensorMeta.of(value)!r}"
    graph.set_outputs(symbols)

    compiled = compile_numpy(graph)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = compiled(*inputs)
    assert isinstance(traced, tuple) and len(traced) == len(symbols)
    for actual, value in zip(traced, expected_list):
        assert_same_value(actual, value)
    # side effects on the inputs (in-place operators) are the same as eager's
    eager_inputs: list = []
    _collect(eager_args, eager_inputs)
    for mine, theirs in zip(inputs, eager_inputs):
        assert_same_value(mine, theirs)
    return expected


def _collect(tree, out):
    if isinstance(tree, Const):
        return
    if _is_value(tree):
        out.append(tree)
    elif isinstance(tree, (tuple, list)):
        for v in tree:
            _collect(v, out)
    elif isinstance(tree, dict):
        for v in tree.values():
            _collect(v, out)


VALUE_DEPENDENT = "depends on the value"


def _same_meta(meta: TensorMeta, eager: TensorMeta) -> bool:
    """Equal, but for a size known only at run time (sot/ir/unbacked.py)."""
    sym = meta.symbolic_axes
    return (meta.dtype, meta.is_scalar, meta.ndim) == (eager.dtype, eager.is_scalar, eager.ndim) and all(
        i in sym or d == e for i, (d, e) in enumerate(zip(meta.shape, eager.shape)))


def assert_matches_eager_unless_value_dependent(op, *args, **kwargs):
    """As ``assert_matches_eager``, but the op may also be refused because its
    result type depends on the value of a traced operand."""
    try:
        return assert_matches_eager(op, *args, **kwargs)
    except UnsupportedOp as e:
        assert VALUE_DEPENDENT in e.reason, e.reason
        return e


def assert_agrees_or_refuses(op, *args, **kwargs):
    """The op is refused (UnsupportedOp), or captured and exactly as eager:
    never a wrong answer.  For sweeps over arguments some ops do not take."""
    try:
        return assert_matches_eager(op, *args, **kwargs)
    except UnsupportedOp as e:
        return e


def assert_unsupported(op, *args, **kwargs):
    """``op`` on these arguments is not captured."""
    graph = StatementIR("unsupported")
    symargs = _trace(graph, args, [])
    symkwargs = _trace(graph, kwargs, [])
    with pytest.raises(UnsupportedOp) as info:
        graph.add_op(op, symargs, symkwargs)
    assert len(graph) == 0
    assert info.value.reason
    return info.value


# ----------------------------------------------------------------------------
# sample data

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float16, np.float32, np.float64]
COMPLEX_DTYPES = [np.complex64, np.complex128]
ALL_DTYPES = [np.bool_] + INT_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES
CORE_DTYPES = [np.bool_, np.int8, np.int64, np.uint8, np.float16, np.float32, np.float64, np.complex128]


def sample(shape, dtype, seed=0, scalar=False):
    """Deterministic data of ``shape``/``dtype`` with negatives, zeros and
    (for floats) a NaN; ``scalar=True`` gives a NumPy scalar."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed + 7 * dtype.num + len(shape))
    n = int(np.prod(shape)) if not scalar else 1
    if dtype.kind == "b":
        flat = rng.integers(0, 2, n).astype(bool)
    elif dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -5
        flat = rng.integers(lo, 6, n).astype(dtype)
    elif dtype.kind == "f":
        flat = (rng.standard_normal(n) * 3).astype(dtype)
        if n > 2:
            flat[1] = np.nan
            flat[2] = 0.0
    else:
        flat = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    if scalar:
        return flat[0]
    return flat.reshape(shape)


def test_sample_scalar_is_a_numpy_scalar():
    assert isinstance(sample((), np.float32, scalar=True), np.float32)
    assert type(sample((), np.float32)) is np.ndarray


def test_oracle_compares_type_dtype_shape_and_bits():
    assert_same_value(np.float32(1), np.float32(1))
    for a, b in [(np.float32(1), np.array(1, np.float32)), (np.float32(0.0), np.float32(-0.0)),
                 (np.ones(2), np.ones(3)), (np.ones(2, np.float32), np.ones(2))]:
        with pytest.raises(AssertionError):
            assert_same_value(a, b)
    assert_same_value(np.array([np.nan]), np.array([np.nan]))
