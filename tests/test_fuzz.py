"""Differential program fuzzing: random functions run eagerly and under
`sot.to_static` must agree on results, dtypes, shapes, stdout, exceptions,
side effects on arguments and globals (see tests/fuzzgen.py).

Quick profile (default run): a fixed, derandomized sweep of programs.
Long profile: `pytest -m fuzz --fuzz-examples=10000 tests/test_fuzz.py`
draws that many fresh random programs; hypothesis shrinks a failure to a
minimal program, printed with its argument sets.
"""
from __future__ import annotations

import os
import time

import pytest
from hypothesis import HealthCheck, given, settings

import fuzzgen
from sot import _C

QUICK_EXAMPLES = int(os.environ.get("SOT_FUZZ_QUICK", 1500))
_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


_MISMATCHES = [0]  # the process-wide count when the test began (other tests may make some on purpose)


@pytest.fixture(autouse=True)
def _strict_guards():
    """Every program also checks each C guard against its Python twin."""
    previous = _C.set_guard_strict(True)
    _MISMATCHES[0] = _C.guard_counters()["strict_mismatches"]
    yield
    _C.set_guard_strict(previous)


def _run_checked(prog):
    fuzzgen.run_program(prog)
    assert _C.guard_counters()["strict_mismatches"] == _MISMATCHES[0], \
        "a C guard disagreed with its Python twin"


@settings(max_examples=QUICK_EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=_HEALTH)
@given(fuzzgen.programs())
def test_random_programs_match_eager(prog):
    _run_checked(prog)


@pytest.mark.fuzz
def test_random_programs_long(request):
    n = request.config.getoption("--fuzz-examples")
    if not n:
        pytest.skip("long fuzz profile: pass --fuzz-examples=N")

    count = [0]

    @settings(max_examples=n, derandomize=False, deadline=None, database=None,
              suppress_health_check=_HEALTH)
    @given(fuzzgen.programs())
    def run(prog):
        count[0] += 1
        _run_checked(prog)

    start = time.time()
    try:
        run()
    finally:
        print(f"\nsot fuzz: {count[0]} programs in {time.time() - start:.0f} s")
