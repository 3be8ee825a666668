"""``PredicateGuard``: a branch on a Python number that is a graph input
still goes the way it went in the trace.

A number that varies between calls (an optimizer's step ``self.t``, a
growing history's length) is a graph input (executor/scalar_policy.py).
A branch on it (``if self.t % 100 == 0:``) needs only the branch's
outcome, not the value: the trace follows the way it went, and this guard
checks that ``bool(predicate(value))`` is still that outcome, so a logging
branch taken every hundredth call makes two entries, not one per value.

The predicate replays the graph's own ops on Python numbers (no user
code) and takes the value twice (``predicate(v, v)``). It runs as the guard program's two-register call op (the one
``OverlapGuard`` uses) with the value in both registers; an exception from
it (a division by zero for some value) fails the guard: a miss, and the
trace then meets that value itself.
"""
from __future__ import annotations

from .guard import Guard
from .tracker import Tracker, _short

__all__ = ["PredicateGuard"]


class PredicateGuard(Guard):
    def __init__(self, tracker: Tracker, predicate, outcome: bool, text: str):
        self.tracker, self.predicate, self.outcome, self.text = tracker, predicate, bool(outcome), text

    def describe(self):
        return "the branch on %s went %s" % (self.text, self.outcome)

    def explain_failure(self, value):
        shown = "shape %s" % (value.shape,) if hasattr(value, "shape") else _short(value)
        return "the branch on %s now goes the other way (%s: %s)" % (self.text, self.tracker.subject(), shown)

    def c_ops(self, prog):
        r = prog.reg(self.tracker)
        return [("overlap", r, r, self.predicate, self.outcome)]   # predicate(v, v)

    def _key(self):
        return (self.text, self.outcome)
