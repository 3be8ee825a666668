"""An error a graph raises as it is (after it wrote into an argument, it
cannot be rerun natively) looks like eager's: the innermost user frame is
the user's function at the user's line (not the generated ``f_graph`` /
``runner`` frames), one frame per user function where the statement was
inlined from a call (sot/graph_frames.py), and the exception has no
``__context__`` eager lacks."""
import sys
import traceback

import numpy as np
import pytest

import sot


def float_of_sum_over(x, n):
    x += 1
    s = float(x.sum())
    return s / n


def dim_floordiv(x, n):
    x *= 2
    k = x.shape[0] // n
    return x + k


def item_mod(x, n):
    x += 1
    return x.sum().item() % n


def write_then_reciprocal(x, n):
    x[0] = n
    return x * (1 / n)


def _halve_by(s, n):
    return s / n


def _through_two(s, n):
    return _halve_by(s, n) + 1


def in_an_inlined_helper(x, n):
    x *= 2
    s = float(x.sum())
    return _halve_by(s, n)


def two_helpers_deep(x, n):
    x += 1
    s = float(x.sum())
    return _through_two(s, n)


def _raise(fn, x, n, handling=False):
    try:
        if handling:
            try:
                raise KeyError("outer")
            except KeyError:
                fn(x, n)
        else:
            fn(x, n)
    except Exception as e:
        frames = [(f.name, f.lineno, f.line) for f in traceback.extract_tb(e.__traceback__)][1:]
        assert "".join(traceback.format_exception(e))   # prints
        return (type(e), str(e), frames, type(e.__context__), e.__cause__, e.__suppress_context__)
    return None


@pytest.mark.parametrize("fn", [float_of_sum_over, dim_floordiv, item_mod, write_then_reciprocal,
                                in_an_inlined_helper, two_helpers_deep])
@pytest.mark.parametrize("handling", [False, True])
def test_a_graph_error_after_a_write_has_the_users_frame(fn, handling):
    static = sot.to_static(fn)
    for n in (2, 3, 0, 2.0, 3.0, 0.0, 0, 0.0):   # later calls: numbers are graph inputs
        x_e, x_t = np.ones(3), np.ones(3)
        eager = _raise(fn, x_e, n, handling)
        traced = _raise(static, x_t, n, handling)
        assert traced == eager, n
        np.testing.assert_array_equal(x_t, x_e)


_HELPERS = '''
def h1(s, n):
    return s / n


def h2(x, n):
    y = x * 2
    z = y + 1
    w = z - 3
    return float(w.sum()) / n
'''


@pytest.fixture
def helpers(tmp_path, monkeypatch):
    """A module of helpers in a file of its own."""
    import importlib
    (tmp_path / "round4_graph_helpers.py").write_text(_HELPERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("round4_graph_helpers")
    yield mod
    sys.modules.pop("round4_graph_helpers", None)


def test_a_graph_error_in_a_helper_of_another_module_has_eagers_frames(helpers):
    def through_h1(x, n):
        x *= 2
        s = float(x.sum())
        return helpers.h1(s, n)

    def through_h2(x, n):   # most statements in the helper's file: a graph in a file of its own
        x += 1
        return helpers.h2(x, n)

    for fn in (through_h1, through_h2):
        static = sot.to_static(fn)
        for n in (2, 3, 0, 0):
            assert _raise(static, np.ones(3), n) == _raise(fn, np.ones(3), n), (fn.__name__, n)
