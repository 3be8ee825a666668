"""NumPy's floating-point error handling under sot: a graph that raises
part-way emits nothing twice (warnings shown "always", np.seterrcall
callbacks), and an onnxruntime graph runs on NumPy where NumPy's error state
or the warnings filters would make NumPy raise, warn "always" or call back."""
import warnings

import numpy as np
import pytest

import sot
from ort_tolerance import assert_ort_close

X = np.array([0.0, 1.0, 4.0])
BAD = np.array([0, 5])        # index 5 is out of bounds: IndexError after the log warned
GOOD = np.array([0, 2])


def log_then_index(x, idx):
    y = np.log(x)               # divide by zero at x == 0
    z = np.sqrt(y - 1.0)        # invalid value
    return (z * 2 + y)[idx]     # IndexError for BAD, from the graph, after both warnings


def _static(backend="numpy"):
    s = sot.to_static(log_then_index, backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s(X, GOOD)
        s(X, GOOD)
    return s


def _outcome(fn, *args):
    args = args if len(args) == 2 else (X,) + args
    try:
        return "ok", fn(*args)
    except Exception as e:  # noqa: BLE001 - compared
        return type(e).__name__, str(e)


def _same(a, b):
    assert a[0] == b[0]
    if a[0] == "ok":
        np.testing.assert_array_equal(a[1], b[1])
    else:
        assert a[1] == b[1]


def _with_always(fn, idx):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = _outcome(fn, idx)
    return out, [(str(w.message), w.lineno) for w in seen]


@pytest.mark.parametrize("idx", [BAD, GOOD])
def test_always_filter_sees_each_warning_once(idx):
    static = _static()
    eager_out, eager_seen = _with_always(log_then_index, idx)
    static_out, static_seen = _with_always(static, idx)
    _same(eager_out, static_out)
    assert static_seen == eager_seen and len(eager_seen) == 2


@pytest.mark.parametrize("mode", ["call", "log"])
@pytest.mark.parametrize("idx", [BAD, GOOD])
def test_errcall_runs_once_per_error(mode, idx):
    static = _static()

    class Log:
        def __init__(self):
            self.calls = []

        def __call__(self, kind, flag):
            self.calls.append((kind, flag))

        def write(self, text):
            self.calls.append(text)

    results = []
    for fn in (log_then_index, static):
        log = Log()
        with np.errstate(all=mode, call=log):
            out = _outcome(fn, idx)
        results.append((out, log.calls))
    (eager_out, eager_calls), (static_out, static_calls) = results
    _same(eager_out, static_out)
    assert static_calls == eager_calls and len(eager_calls) == 2


def test_default_filters_dedup_on_rerun():
    static = _static()
    results = []
    for fn in (log_then_index, static):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("default")
            out = _outcome(fn, BAD)
        results.append((out, [(str(w.message), w.lineno) for w in seen]))
    _same(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


@pytest.mark.parametrize("setting", [dict(divide="raise"), dict(invalid="raise"), dict(all="raise")])
def test_errstate_raise_raises_as_eager(setting):
    static = _static()
    for idx in (GOOD, BAD):
        with np.errstate(**setting):
            _same(_outcome(log_then_index, idx), _outcome(static, idx))


# -- onnxruntime -----------------------------------------------------------------

ort = pytest.importorskip("onnxruntime")


def smooth(x, unused=None):
    y = np.log(x) * 0.5
    return np.exp(y) + np.sqrt(x - 1.0)


XF = np.array([0.0, 1.0, 4.0, 9.0], np.float32)


def _ort_static():
    s = sot.to_static(smooth, backend="onnxruntime")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s(XF)
    assert "onnxruntime" in str(sot.explain(s, XF))
    return s


@pytest.mark.parametrize("setting", [dict(divide="raise"), dict(all="raise"), dict(invalid="raise")])
def test_onnxruntime_under_errstate_raise_raises_as_eager(setting):
    static = _ort_static()
    with np.errstate(**setting):
        eager = _outcome(smooth, XF, None)
        traced = _outcome(static, XF, None)
    assert eager[0] == "FloatingPointError"
    _same(eager, traced)


def test_onnxruntime_under_error_filter_raises_as_eager():
    static = _ort_static()
    for fn in (smooth, static):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            with pytest.raises(RuntimeWarning, match="divide by zero encountered in log"):
                fn(XF)


def test_onnxruntime_under_errcall_calls_back_as_eager():
    static = _ort_static()
    calls = []
    for fn in (smooth, static):
        calls.append([])
        with np.errstate(all="call", call=lambda kind, flag, log=calls[-1]: log.append(kind)):
            fn(XF)
    assert calls[0] == calls[1] and calls[0]


def test_onnxruntime_with_plain_state_stays_on_onnxruntime():
    static = _ort_static()
    with np.errstate(all="ignore"):
        y = static(XF)
    with np.errstate(all="ignore"):
        assert_ort_close(y, smooth(XF))
