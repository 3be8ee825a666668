"""Logs point at the user's code: category, file, line and source text."""
import logging

import numpy as np
import numpy.random  # noqa: F401  NumPy 2 imports it lazily; loaded, the break below is the call itself
import pytest

import sot

X = np.ones((3, 4), np.float32)


def breaks_on_print(x):
    y = x * 2
    print("hello")
    return y


def breaks_on_tolist(x):
    y = x * 2
    # a data-dependent length (a small array's tolist() stays in the graph)
    v = y[y > 0].tolist()
    return y, v


class _OwnSetattr:
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)


OBJ = _OwnSetattr()


def breaks_on_setattr_store(x):
    y = x * 2
    OBJ.count = 1
    return y


def breaks_on_random(x):
    y = x * 2
    return y + np.random.rand()


def runs_natively_with(x):
    with open(__file__):
        return x * 2


CASES = [
    (breaks_on_print, (X,), "unsupported-call", 'print("hello")'),
    (breaks_on_tolist, (X,), "data-dependent", "v = y[y > 0].tolist()"),
    (breaks_on_setattr_store, (X,), "side-effect", "OBJ.count = 1"),
    (breaks_on_random, (X,), "unsupported-call", "return y + np.random.rand()"),
    (runs_natively_with, (X,), "unsupported-object", "with open(__file__):"),
]


@pytest.mark.parametrize("fn, args, category, source", CASES, ids=[c[0].__name__ for c in CASES])
def test_break_log_names_category_and_the_users_file_line_and_source(caplog, capsys, fn, args, category, source):
    lineno = next(i for i, line in enumerate(open(__file__), 1) if line.strip() == source)
    sot.set_verbosity(1)
    try:
        with caplog.at_level(logging.INFO, logger="sot"):
            sot.to_static(fn, min_graph_size=0)(*args)
    finally:
        sot.set_verbosity(0)
    assert f"{__file__}:{lineno}: {category}:" in caplog.text
    assert source in caplog.text
    assert "sot/" not in caplog.text.split(f"{__file__}:{lineno}")[1].splitlines()[0]


def test_level_4_traces_every_simulated_instruction(caplog):
    sot.set_verbosity(4)
    try:
        with caplog.at_level(logging.INFO, logger="sot"):
            sot.to_static(lambda x: np.tanh(x) + 1)(X)
    finally:
        sot.set_verbosity(0)
    assert "BINARY_OP" in caplog.text or "BINARY_ADD" in caplog.text
    assert "RETURN_VALUE" in caplog.text


def test_explain_to_dict_is_structured():
    report = sot.explain(sot.to_static(breaks_on_print, min_graph_size=0), X)
    d = report.to_dict()
    assert d["graph_count"] == report.graph_count
    states = [c["state"] for c in d["codes"]]
    assert "partially static" in states
    brk = next(c["graph_break"] for c in d["codes"] if c["graph_break"])
    assert brk["category"] == "unsupported-call" and brk["filename"] == __file__


def test_explain_reports_translation_time_per_phase(capsys):
    report = sot.explain(sot.to_static(breaks_on_print, min_graph_size=0), X)
    phases = report.phase_seconds
    assert list(phases) == ["simulate", "backend compile", "codegen", "guards", "other"]
    assert all(t >= 0 for t in phases.values())
    assert phases["simulate"] > 0 and phases["codegen"] > 0 and phases["guards"] > 0
    assert abs(sum(phases.values()) - report.translate_seconds) < 1e-6
    assert "translation time: simulate" in str(report)
    assert report.to_dict()["phase_seconds"] == phases
