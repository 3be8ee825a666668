"""``OverlapGuard``: whether two arrays share memory is what it was.

A graph that writes into an array reached from outside the frame was
recorded knowing which other input arrays may share its memory
(``np.may_share_memory``: their data ranges overlap).  A call where that
changes (two arguments that now overlap, or no longer do) must not reuse
the graph: the guard fails and the frame is translated again.

It reads two values (like ``DimEqualGuard``) and has no C form, so an
entry that carries one keeps the generated Python guard function; only
graphs that write into such arrays carry it, one per (written array,
other array input) pair.
"""
from __future__ import annotations

import numpy as np

from .guard import Guard
from .tracker import Tracker

__all__ = ["OverlapGuard"]


class OverlapGuard(Guard):
    """``np.may_share_memory(a, b) is overlap`` for two guarded arrays
    (their TensorGuards come first)."""

    def __init__(self, tracker: Tracker, other: Tracker, overlap: bool):
        self.tracker, self.other, self.overlap = tracker, other, bool(overlap)

    def emit(self, ctx):
        return "%s(%s, %s) is %s" % (ctx.bind(np.may_share_memory), ctx.ref(self.tracker),
                                     ctx.ref(self.other), self.overlap)

    def code(self, v, ctx):  # pragma: no cover - emit() is used instead
        raise TypeError("OverlapGuard reads two values")

    def evaluate(self, g, args, cells):
        return self.failure(g, args, cells) is None

    def failure(self, g, args, cells):
        try:
            now = bool(np.may_share_memory(self.tracker.load(g, args, cells),
                                           self.other.load(g, args, cells)))
        except Exception as e:
            return "%s could not be read (%s)" % (self.describe(), type(e).__name__)
        if now is self.overlap:
            return None
        return "%s and %s %s share memory" % (self.tracker.subject(), self.other.subject(),
                                              "now" if now else "no longer")

    def check(self, value):  # pragma: no cover - evaluate() is used instead
        raise TypeError("OverlapGuard reads two values")

    def describe(self):
        return "%s and %s %s memory" % (self.tracker.name(), self.other.name(),
                                        "may share" if self.overlap else "share no")

    def explain_failure(self, value):  # pragma: no cover - failure() is used instead
        return self.describe()

    def _key(self):
        return (self.other, self.overlap)
