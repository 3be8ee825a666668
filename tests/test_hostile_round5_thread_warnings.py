"""Hostile use, round 5: sot's short-lived warnings filter (sot/_quiet.py
first_filter: "error" while a fold is computed at trace time and while a
graph runs under a careful NumPy error state, "ignore" for shape probes)
was put in ``warnings.filters``, which every thread shares: a warning that
*another* thread emitted in that window was raised as an exception there
(even one its own filters ignore) or silently dropped. Eager code in that
thread never sees either. The filter now matches in the thread that put it
there only (a threading.local message pattern, all C: no thread switch while
another thread's warning walks the filters)."""
import threading
import time
import warnings

import numpy as np
import pytest

import sot
from sot._quiet import first_filter


def _warn_in_a_thread(action: str, ours: str):
    """What a warning emitted by another thread meets while this thread is
    inside ``first_filter(ours)``, the filters being ``action`` for every
    warning: whether it raised, and the warnings shown."""
    seen = {}

    def other():
        try:
            warnings.warn("from the other thread", UserWarning)
            seen["raised"] = False
        except UserWarning:
            seen["raised"] = True

    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter(action)
        with first_filter(ours):
            t = threading.Thread(target=other)
            t.start()
            t.join()
    seen["log"] = [str(w.message) for w in log]
    return seen


@pytest.mark.parametrize("ours", ["error", "ignore"])
def test_another_threads_warning_ignores_our_filter(ours):
    assert _warn_in_a_thread("always", ours) == {"raised": False, "log": ["from the other thread"]}
    assert _warn_in_a_thread("ignore", ours) == {"raised": False, "log": []}


def test_our_filter_holds_in_our_thread_and_leaves_no_trace():
    before = list(warnings.filters)
    with first_filter("error"):
        with pytest.raises(UserWarning):
            warnings.warn("here", UserWarning)
    assert warnings.filters == before
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("always")
        warnings.warn("after", UserWarning)
    assert [str(w.message) for w in log] == ["after"]


def test_a_careful_graph_in_one_thread_never_raises_another_threads_warning():
    """Thread A calls a decorated function under a NumPy error state of its
    own (errstate is per thread) that makes its graph run careful; thread B,
    eager code that ignores its UserWarnings, warns in a loop meanwhile.
    B saw its warning raised hundreds of thousands of times in 3 s before."""
    def f(x):
        return np.sqrt(x * 2.0 + 1.0).sum()

    static = sot.to_static(f)
    big = np.ones(200_000)
    stop = threading.Event()
    raised = []

    def a():
        with np.errstate(all="call", call=lambda *args: None):
            while not stop.is_set():
                static(big)

    def b():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            while not stop.is_set():
                try:
                    warnings.warn("from B", UserWarning)
                except Warning as e:
                    raised.append(e)

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join()
    assert raised == []
