"""Run NumPy on made-up values (shape probes, buffer plans) without a word.

``warnings.catch_warnings()`` + ``simplefilter("ignore")`` would do, but both
tell the warnings machinery that its filters changed (``_filters_mutated``),
which empties every module's ``__warningregistry__``: a warning the user's
code already showed once (the default action) is shown again on its next
occurrence, as eager never does. Here one "ignore" filter is put at the front
of ``warnings.filters`` in place and taken out again: the machinery reads the
list on every warning, an ignored warning leaves no registry entry, and the
filters' version, so every registry, is left alone.

The filter holds for the thread that put it there only (its message "regex"
matches there alone): ``warnings.filters`` is shared by every thread, and a
plain ``("error", None, Warning, None, 0)`` turned another thread's warning,
even one its own filters ignore, into an exception while a graph ran here
under a careful error state (backends/fp_state.py) -- eager never raises it.
"""
from __future__ import annotations

import contextlib
import threading
import warnings

import numpy as np


@contextlib.contextmanager
def first_filter(action: str):
    """Every Python warning gets ``action`` ("ignore", "error"): one filter
    at the front of ``warnings.filters``, put in place and taken out again
    (the filters' version, so every registry, is left alone)."""
    filters = warnings.filters
    here = _ThisThread()
    here.match = id   # truthy for any text, in this thread only
    entry = (action, here, Warning, None, 0)  # a fresh tuple: removed by identity, not by value
    filters.insert(0, entry)
    try:
        yield
    finally:
        del here.match   # a copy of the list (another thread's catch_warnings) may keep it
        for i, f in enumerate(filters):
            if f is entry:
                del filters[i]
                break


class _ThisThread(threading.local):
    """A filter's message pattern (the warnings machinery calls its
    ``match(text)``) that matches in the thread that set ``match`` only:
    elsewhere ``match`` is the class's ``callable``, false for a str. All C
    (threading.local's attributes, two builtins): Python code here would let
    the interpreter switch threads while another thread's warning walks the
    filters, and our ``del filters[i]`` then shift a filter past it."""

    match = callable


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
