import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # tests/difftest.py

# The do-no-harm governor (sot/governor.py) alternates translated and native
# calls over a decorated function's first calls, by wall-clock time: tests
# that count translations or cache hits would depend on timing. It is off
# here; tests/test_governor.py turns it on with a fake clock.
os.environ.setdefault("SOT_DO_NO_HARM", "0")


@pytest.fixture(autouse=True)
def _fresh_sot():
    """Every test starts with empty caches."""
    try:
        import sot
    except ImportError:  # the hook/IR tests may run before the API exists
        yield
        return
    sot.reset()
    yield
    sot.reset()


@pytest.fixture(autouse=True)
def _frozen_heap():
    """Each test's gc.collect() walks only what the test made: everything
    older (47k collected items, reports, earlier tests' leftovers) is moved
    out of the cycle collector's reach for the test (gc.freeze is O(1)).
    Late in a full run one collect cost ~2.5 s, and the leak and refcount
    checks make dozens."""
    import gc
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture
def sessions(monkeypatch):
    """The onnxruntime sessions created while the test runs."""
    import onnxruntime as ort
    created = []
    real = ort.InferenceSession

    def counting(*args, **kwargs):
        created.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(ort, "InferenceSession", counting)
    return created


def pytest_addoption(parser):
    """`--fuzz-examples=N`: run the long differential fuzz profile (tests marked
    `fuzz`, e.g. `pytest -m fuzz --fuzz-examples=10000`) with N fresh random programs."""
    parser.addoption("--fuzz-examples", type=int, default=None,
                     help="number of random programs for the long fuzz profile (tests marked fuzz)")

