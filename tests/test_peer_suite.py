"""The peer-style suite (tests/peer_cases/): several hundred small functions
of the kinds TorchDynamo's, Paddle SOT's, JAX's and numba's test suites run,
rewritten by us for NumPy. Each runs eagerly and under `sot.to_static`
(NumPy backend, compared bitwise: values, types, dtypes, shapes, exceptions,
stdout, mutations of the arguments, on a first call and two more: a guard
that a value changed between calls sets off shows on the third); the
cases marked `ort` also run on onnxruntime, within its tolerance."""
import copy
import warnings

import pytest

import sot
from difftest import assert_same, check
from ort_tolerance import assert_ort_close
from peer_cases import load_all

CASES = load_all()
ORT_CASES = [c for c in CASES if c[3]]


def _ids(cases):
    return [f"{group}-{fn.__name__}" for group, fn, _args, _ort in cases]


def _warning_log(fn, log):
    """`fn`, appending the warnings each call shows (under "always") to `log`."""
    def run(*args):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                return fn(*args)
            finally:
                log.append([(w.category, str(w.message), w.filename, w.lineno) for w in seen])
    return run


@pytest.mark.parametrize("group, fn, args, ort", CASES, ids=_ids(CASES))
def test_case_matches_eager_on_numpy_backend(group, fn, args, ort):
    eager_log, traced_log = [], []
    static = _warning_log(sot.to_static(fn, min_graph_size=0), traced_log)
    check(_warning_log(fn, eager_log), copy.deepcopy(args), calls=3, static=static)
    assert traced_log == eager_log, "warnings differ"


@pytest.mark.parametrize("group, fn, args, ort", ORT_CASES, ids=_ids(ORT_CASES))
def test_case_matches_eager_on_onnxruntime(group, fn, args, ort):
    static = sot.to_static(fn, backend="onnxruntime", min_graph_size=0)
    for _ in range(2):
        want_args = copy.deepcopy(args)
        want = fn(*want_args)
        got_args = copy.deepcopy(args)
        got = static(*got_args)
        assert_ort_close(got, want, inputs=args)
        assert_ort_close(got_args, want_args, "arguments after the call", inputs=args)


def _breaks(x):
    y = x + 1
    print("runs natively")
    return y * 2


def _native(x):
    return len(x)


def test_summary_counts_breaks_and_native_cases_and_finds_none_differing():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
    import peer_breaks
    x = CASES[0][2][0]
    per, differ, breaks = peer_breaks.measure([("t", _breaks, (x,), False), ("t", _native, (x,), False)])
    assert per == {"t": [2, 0, 1, 1]} and not differ
    assert [name for _, name, _ in breaks] == ["_breaks"] and "print" in breaks[0][2]
