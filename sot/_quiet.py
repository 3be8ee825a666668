"""Run NumPy on made-up values (shape probes, buffer plans) without a word.

``warnings.catch_warnings()`` + ``simplefilter("ignore")`` would do, but both
tell the warnings machinery that its filters changed (``_filters_mutated``),
which empties every module's ``__warningregistry__``: a warning the user's
code already showed once (the default action) is shown again on its next
occurrence, as eager never does. Here one "ignore" filter is put at the front
of ``warnings.filters`` in place and taken out again: the machinery reads the
list on every warning, an ignored warning leaves no registry entry, and the
filters' version, so every registry, is left alone.  Like catch_warnings it
is not thread-safe: another thread's warning in that window is not shown.
"""
from __future__ import annotations

import contextlib
import warnings

import numpy as np


@contextlib.contextmanager
def first_filter(action: str):
    """Every Python warning gets ``action`` ("ignore", "error"): one filter
    at the front of ``warnings.filters``, put in place and taken out again
    (the filters' version, so every registry, is left alone)."""
    filters = warnings.filters
    entry = (action, None, Warning, None, 0)  # a fresh tuple: removed by identity, not by value
    filters.insert(0, entry)
    try:
        yield
    finally:
        for i, f in enumerate(filters):
            if f is entry:
                del filters[i]
                break


@contextlib.contextmanager
def strictly():
    """Every NumPy floating-point error raises and every Python warning is an
    error: for values folded at trace time, which must not depend on the
    error state of the call that traced (under ``np.errstate(all="ignore")``
    ``np.float64(1) / 0`` warns of nothing, yet eager warns on a later call
    under the default state, or raises under "raise"), nor call a user's
    ``np.seterrcall`` handler from the trace."""
    with first_filter("error"), np.errstate(all="raise"):
        yield


@contextlib.contextmanager
def quietly():
    """NumPy's floating-point errors and every Python warning are silenced."""
    with first_filter("ignore"), np.errstate(all="ignore"):
        yield
