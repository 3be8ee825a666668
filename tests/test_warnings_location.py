"""Warnings NumPy raises inside a NumPy-backend graph carry the user's file,
line and module, and go through that module's registry, so filters by module
or line and de-duplication ("default", "once", "module") behave as eagerly."""
import inspect
import warnings

import numpy as np
import pytest

import sot

ZERO = np.array([0.0, 1.0, 2.0])


def _helper(y):
    return np.sqrt(y - 5.0)          # invalid value: a warning on this line


def logs(x):
    y = np.log(x)                    # divide by zero: a warning on this line
    z = _helper(y)
    return z * 2 + y.mean()


def lines_of(fn, *needles):
    src, first = inspect.getsourcelines(fn)
    return [first + next(k for k, text in enumerate(src) if needle in text) for needle in needles]


LOG_LINE, = lines_of(logs, "np.log(x)")
SQRT_LINE, = lines_of(_helper, "np.sqrt(")


def _record(fn, action="always", calls=1, **filter_kwargs):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("ignore")
        warnings.filterwarnings(action, category=RuntimeWarning, **filter_kwargs)
        for _ in range(calls):
            fn(ZERO)
    return [(w.category, str(w.message), w.filename, w.lineno) for w in seen]


@pytest.fixture
def static():
    s = sot.to_static(logs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s(ZERO)                      # translated
    return s


def test_warnings_name_the_users_file_and_line(static):
    eager = _record(logs)
    assert [(w[2], w[3]) for w in eager] == [(__file__, LOG_LINE), (__file__, SQRT_LINE)]
    assert _record(static) == eager


@pytest.mark.parametrize("action", ["default", "once", "module"])
def test_deduplication_matches_eager(static, action):
    eager = _record(logs, action, calls=3)
    assert _record(static, action, calls=3) == eager
    # and mixed: a warning seen eagerly is not shown again by the graph
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter(action)
        logs(ZERO)
        static(ZERO)
        static(ZERO)
    assert len(seen) == len(eager)


def test_filter_by_module_raises_as_eager(static):
    for fn in (logs, static):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.filterwarnings("error", category=RuntimeWarning, module=__name__)
            with pytest.raises(RuntimeWarning, match="divide by zero encountered in log"):
                fn(ZERO)
    assert _record(static, module="some_other_module") == []


def test_filter_by_line(static):
    for line in (LOG_LINE, SQRT_LINE):
        eager = _record(logs, lineno=line)
        assert len(eager) == 1 and eager[0][3] == line
        assert _record(static, lineno=line) == eager


def test_graph_actually_ran(static):
    assert "graph 0" in str(sot.explain(static, ZERO))


@pytest.mark.parametrize("action", ["default", "once", "module"])
def test_translating_does_not_forget_warnings_already_shown(action):
    # Translation runs NumPy on made-up values with warnings silenced; doing
    # that by changing the warnings filters would empty every module's
    # registry, and the next warning eager already showed would show again.
    def fresh(x):
        return np.log(x) * 2         # a warning eager shows once

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("ignore")
        warnings.filterwarnings(action, category=RuntimeWarning)
        fresh(ZERO)
        static = sot.to_static(fresh)
        static(ZERO)                 # translated now
        static(ZERO)
    assert [str(w.message) for w in seen] == ["divide by zero encountered in log"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert "graph 0" in str(sot.explain(static, ZERO))
