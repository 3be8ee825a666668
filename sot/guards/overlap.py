"""``OverlapGuard``: whether two arrays share memory is what it was.

A graph that writes into an array reached from outside the frame was
recorded knowing which other input arrays may share its memory
(``np.may_share_memory``: their data ranges overlap).  A call where that
changes (two arguments that now overlap, or no longer do) must not reuse
the graph: the guard fails and the frame is translated again.

It reads two values (like ``DimEqualGuard``): its op calls
``np.may_share_memory`` (bounds of the data ranges, no user code for
ndarrays) from the guard program, in C on the warm path; for two plain
ndarrays whose item sizes it was given, the program computes those bounds
itself (an optimizer's step over a dozen arrays carries a hundred of these:
a Python call each cost more than the step). Only graphs that write into
such arrays carry it, one per unordered (written array, other array input)
pair.
"""
from __future__ import annotations

import numpy as np

from .guard import Guard
from .tracker import Tracker

__all__ = ["OverlapGuard"]


class OverlapGuard(Guard):
    """``np.may_share_memory(a, b) is overlap`` for two guarded arrays
    (their TensorGuards come first)."""

    def __init__(self, tracker: Tracker, other: Tracker, overlap: bool, itemsizes=None):
        self.tracker, self.other, self.overlap = tracker, other, bool(overlap)
        #: the two arrays' item sizes (their dtypes are guarded before): the
        #: guard program then checks two plain ndarrays' bounds itself
        self.itemsizes = itemsizes

    def describe(self):
        return "%s and %s %s memory" % (self.tracker.name(), self.other.name(),
                                        "may share" if self.overlap else "share no")

    def explain(self, read):
        return "%s and %s %s share memory" % (self.tracker.subject(), self.other.subject(),
                                              "no longer" if self.overlap else "now")

    def c_ops(self, prog):
        c_form = (np.ndarray,) + tuple(self.itemsizes) if self.itemsizes else ()
        return [("overlap", prog.reg(self.tracker), prog.reg(self.other), np.may_share_memory,
                 self.overlap) + c_form]

    def _key(self):
        return (self.other, self.overlap)
