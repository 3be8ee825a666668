"""A bug in sot while translating a frame never becomes the user's exception:
the frame runs natively, with eager's results, and the bug is logged and
shown by explain() as the entry's fallback.  Checked for each phase that can
fail: simulating the frame, and compiling its guards (a guard whose tracker
has no load op reached the user once)."""
import logging

import numpy as np
import pytest

import sot
from sot import translate


def f(x, k):
    return (x * k + 1).sum()


def _raise(*args, **kwargs):
    raise TypeError("a bug in sot")


@pytest.mark.parametrize("phase", ["_translate_specialising", "compile_guards"])
def test_internal_error_runs_natively(monkeypatch, caplog, phase):
    monkeypatch.setattr(translate, phase, _raise)
    sot.reset()
    x = np.arange(6, dtype=np.float32)
    g = sot.to_static(f)
    with caplog.at_level(logging.WARNING, logger="sot.breaks"):
        for k in (2.0, 3.0, 2.0):
            assert g(x, k) == f(x, k)
    assert "internal error translating f" in caplog.text and "a bug in sot" in caplog.text
    report = sot.explain(g, x, 2.0)
    assert report.result == f(x, 2.0)
    assert any("a bug in sot" in str(r) for r in report.fallbacks), report.fallbacks
    assert report.graph_count == 0
