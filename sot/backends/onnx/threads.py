"""How many intra-op threads a small onnxruntime segment runs on: measured.

A segment whose every statement is small (``session.SMALL_WORK``: a
42-layer MLP at batch 1) gains nothing from splitting one kernel over
threads, but a pool that stays awake between its many short kernels still
pays off where cores are free: on this project's 2-core machine the 42
Gemms take 3.2 ms on one thread and 1.7 ms on two threads that spin between
kernels, against 2.5 ms on two that sleep.  Under load, or on a machine
whose other cores are busy, the same pool is slower than one thread.  No
size rule gets both, so such a segment times both on its first calls and
keeps the faster:

* ``ONE``: one thread, the session as it was before any pool;
* ``POOL``: onnxruntime's default count (one per core), spinning while a
  run lasts and stopped when it returns (``session.force_spinning_stop``):
  a pool left spinning after its run slows what the caller does next (a
  NumPy matmul after the call took 10.6 ms where it takes 0.4 ms).

Each candidate runs ``1 + TRIALS`` calls in a block, the first a warm-up,
the best of the rest its time (as ``auto`` times backends); the loser's
session is then dropped.  Only segments compiled by ``OnnxCompiledGraph``
for the CPU with ``SOT_ORT_THREADS`` unset choose; ``auto`` waits for the
choice before it times the graph (``OnnxCompiledGraph.settling``).
"""
from __future__ import annotations

import os
import threading
import time
import weakref

from sot.backends import measuring_calls

__all__ = ["ONE", "POOL", "ThreadChoice", "wants_choice"]

#: the clock candidates are timed by (tests script it)
clock = time.perf_counter

#: one intra-op thread
ONE = 1
#: onnxruntime's default pool, spinning only while a run lasts
POOL = 0


def wants_choice(threads: int, cpu: bool) -> bool:
    """A segment that ``threads_for`` put on one thread, on a CPU with more
    than one core for this process, chooses by measurement."""
    if threads != ONE or not cpu or os.environ.get("SOT_ORT_THREADS"):
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:   # not Linux
        cores = os.cpu_count() or 1
    return cores > 1


class ThreadChoice:
    """Times a segment's candidates in blocks and keeps the faster.

    While it measures, the segment's ``call`` is this choice's ``_measure``;
    once chosen, the segment's own call on the winner's session.  The
    choice holds the segment weakly: no cycle keeps a replaced graph's
    sessions alive."""

    def __init__(self, step, make_session):
        from .auto import TRIALS
        self._step = weakref.ref(step)
        self._make_session = make_session   # threads -> session
        self._sessions = {ONE: step.session}
        self._block = 1 + TRIALS
        self._n = 0
        self._call = step.call
        self._current = ONE
        self.candidates = (ONE, POOL)
        self.times: dict[int, list[float]] = {c: [] for c in self.candidates}
        self.chosen: int | None = None
        self.why = ""
        self._lock = threading.Lock()
        step.call = self._measure

    def _measure(self, values: list) -> list:
        with self._lock:   # threads calling at once: one switches sessions, one chooses
            if self.chosen is not None:   # chosen while this call came in: the winner runs it
                call, candidate = self._call, None
            else:
                measuring_calls[0] += 1   # not a call the governor or a benchmark should time
                n = self._n
                self._n += 1
                candidate = self.candidates[min(n // self._block, len(self.candidates) - 1)]
                step = self._step()   # alive: it is calling us
                if candidate != self._current:
                    session = self._sessions.get(candidate)
                    if session is None:
                        session = self._sessions[candidate] = self._make_session(candidate)
                    step.use_session(session)
                    self._call, self._current = step.call, candidate
                    step.call = self._measure
                call = self._call
        if candidate is None:
            return call(values)
        t0 = clock()
        result = call(values)
        elapsed = clock() - t0
        with self._lock:
            if self.chosen is None and candidate == self._current:
                if n % self._block:   # each block's first call is its warm-up
                    self.times[candidate].append(elapsed)
                if self._n >= len(self.candidates) * self._block:
                    self._choose(step)
        return result

    def _choose(self, step) -> None:
        # (a candidate whose timed calls all ended after the switch, under
        # threads calling at once, has no time: it does not compete)
        best = {c: min(t) for c, t in self.times.items() if t}
        winner = min(best, key=best.__getitem__)
        self.why = ", ".join(f"{_name(c)} {best[c] * 1e6:.1f} us" for c in sorted(best, key=best.__getitem__))
        step.use_session(self._sessions[winner])   # its call replaces _measure
        step.threads = winner
        # the loser's session (its packed weights) goes; a call of another
        # thread still in ``_measure`` runs the winner
        self._sessions, self._call, self._current = {}, step.call, winner
        self.chosen = winner

    @property
    def settling(self) -> bool:
        return self.chosen is None

    def report(self) -> dict:
        return {"chosen": None if self.chosen is None else _name(self.chosen), "why": self.why,
                "times": {_name(c): list(t) for c, t in self.times.items()}}


def _name(threads: int) -> str:
    return "1 thread" if threads == ONE else "pool"
