"""A warning NumPy's own Python code raises (``warnings.warn`` in
``np.mean``: "Mean of empty slice") inside a graph is shown once per call,
as eagerly, also under an "always" filter where a graph that errors later
(the empty mean's 0/0) is rerun natively (issue 14)."""
import warnings

import numpy as np
import pytest

import sot

X = np.array([1.0, 2.0, 3.0])


def empty_mean(x):
    return np.mean(x[:0]) + x.sum()


def empty_var(x):
    return np.var(x[:1], ddof=1) * x


def empty_mean_then_more(x):
    y = np.nanmean(np.full(3, np.nan))
    return x + y


def _seen(fn, action, calls=3):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter(action)
        for _ in range(calls):
            fn(X)
    return [(w.category, str(w.message), w.filename, w.lineno) for w in seen]


@pytest.mark.parametrize("fn", [empty_mean, empty_var, empty_mean_then_more])
@pytest.mark.parametrize("action", ["always", "default", "module", "once"])
def test_python_level_numpy_warnings_are_shown_as_eagerly(fn, action):
    static = sot.to_static(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        static(X)  # translated
    eager = _seen(fn, action)
    assert eager  # the function does warn
    assert _seen(static, action) == eager


def test_an_always_filter_does_not_show_a_warning_twice():
    static = sot.to_static(empty_mean)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        static(X)
    seen = _seen(static, "always", calls=1)
    assert sum(m.startswith("Mean of empty slice") for _, m, _, _ in seen) == 1


def test_the_warnings_filters_are_left_as_they_were():
    static = sot.to_static(empty_mean)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        before = list(warnings.filters)
        static(X)
        static(X)
        assert warnings.filters == before
