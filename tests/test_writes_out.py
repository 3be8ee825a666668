"""``out=`` of the calls that compute and then store (sot/executor/writes_out.py):
ufuncs with two outputs (np.divmod, np.modf, np.frexp), np.clip, np.cumsum,
np.cumprod, and the method forms.  Captured as the op and a copy into each
out array: compared with eager (results, arguments afterwards, views made
before the call, identity of the returned out arrays), with no break."""
from __future__ import annotations

import numpy as np
import pytest

import sot
from difftest import check
from test_writes import BACKENDS, differential, function, no_breaks

OUT_CALLS = [
    # (parameters, statements): a, b are float64 arguments of shape (6,), x the data
    ("x, a, b", ["r = np.divmod(x, 3.0, out=(a, b))", "return r, r[0] is a, r[1] is b"]),
    ("x, a, b", ["r = np.divmod(x, 3.0, a, b)", "return r"]),
    ("x, a, b", ["q, s = np.divmod(x * 2, x + 1, out=(None, b))", "return q, s is b"]),
    ("x, a, b", ["r = np.modf(x * 1.7, out=(a, b))", "return r"]),
    ("x, a, b", ["m = np.empty_like(x)", "e = np.empty(x.shape, np.int32)", "r = np.frexp(x, m, e)",
                 "a += m", "return r, e * 2"]),
    ("x, a, b", ["r = np.divmod(x[::2], 3.0, out=(a[::2], b[1::2]))", "return r"]),
    ("x, a, b", ["r = np.clip(x, 0.2, 0.6, out=a)", "return r is a, r + 1"]),
    ("x, a, b", ["r = np.clip(x, 1.0, 4.0, a)", "return r is a"]),
    ("x, a, b", ["np.clip(a, 1.0, 4.0, out=a)", "return a"]),
    ("x, a, b", ["r = x.clip(0.5, 2.0, out=b)", "return r is b, b.sum()"]),
    ("x, a, b", ["r = x.clip(max=2.0, out=b[::-1])", "return r"]),
    ("x, a, b", ["r = np.cumsum(x, out=a)", "return r is a"]),
    ("x, a, b", ["r = np.cumsum(x, 0, None, a)", "s = np.cumprod(x + 1, out=b)", "return r, s"]),
    ("x, a, b", ["r = x.cumsum(out=a)", "s = (x * 0.5).cumprod(0, out=b)", "return r is a, s is b"]),
    ("x, a, b", ["np.cumsum(a, out=a)", "a.cumprod(out=a)", "return a"]),
    ("x, a, b", ["y = np.zeros(6)", "np.cumsum(x, out=y)", "return y"]),
]


def _make():
    x = np.linspace(0.25, 5.5, 6)
    a, b = np.arange(6.0), np.full(6, 2.0)
    return (x, a, b), (a[1:], b[::2])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("params, lines", OUT_CALLS, ids=[" / ".join(lines[:-1]) for _, lines in OUT_CALLS])
def test_out_of_calls_that_store_a_result_is_captured_and_exact(params, lines, backend):
    f = function(params, *lines)
    differential(f, _make, backend)
    no_breaks(f, *_make()[0])


def test_multi_output_ufuncs_without_out_return_a_tuple():
    def f(x):
        q = np.divmod(x, 2.5)
        return q, np.modf(x), np.frexp(x)

    check(f, (np.linspace(-3, 3, 7),))
    no_breaks(f, np.linspace(-3, 3, 7))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_read_only_out_raises_before_anything_is_written(backend):
    def f(x, a, b):
        return np.divmod(x, 3.0, out=(a, b))

    def make(read_only):
        a, b = np.zeros(4), np.zeros(4)
        b.flags.writeable = not read_only
        return np.arange(4.0) + 1, a, b

    static = sot.to_static(f, backend=backend)
    static(*make(False))
    for _ in range(2):
        e, t = make(True), make(True)
        with pytest.raises(ValueError, match="output array is read-only"):
            f(*e)
        with pytest.raises(ValueError, match="output array is read-only"):
            static(*t)
        np.testing.assert_array_equal(e[1], t[1])
        assert not t[1].any()


def test_out_arrays_that_overlap_run_natively_and_retranslate():
    def f(x, a, b):
        return np.divmod(x, 3.0, out=(a, b))

    static = sot.to_static(f)
    for make in (lambda: (np.arange(4.0), np.zeros(4), np.ones(4)),
                 lambda: (lambda base: (np.arange(4.0), base[:4], base[1:]))(np.zeros(5))):
        e, t = make(), make()
        rt, re = static(*t), f(*e)
        for u, v in zip(re + e, rt + t):
            np.testing.assert_array_equal(u, v)
    assert sot.explain(f, np.arange(4.0), np.zeros(4), np.ones(4)).breaks == []
    base = np.zeros(5)
    assert sot.explain(f, np.arange(4.0), base[:4], base[1:]).breaks


STILL_BREAKING = [
    "np.clip(a, 0, 1, out=y.astype(np.float32))",   # out of another dtype: NumPy's casting, natively
    "np.clip(a[1], 0, 1, out=y)",                    # a result broadcast into a larger out
    "np.divmod(a, 2.0, out=(y, y))",                 # two outputs into one array
]


@pytest.mark.parametrize("source", STILL_BREAKING)
def test_out_forms_not_captured_still_run_exactly(source):
    f = function("a, y", source, "return a, y")
    check(f, (np.arange(4.0), np.arange(4.0) * 0.5))
    assert sot.explain(f, np.arange(4.0), np.arange(4.0) * 0.5).breaks
