"""Control signals the simulator raises through its own run loop (not errors)."""
from __future__ import annotations


class YieldSignal(Exception):
    """A simulated generator reached YIELD_VALUE: `value` is what it yields;
    its executor keeps its state and continues after the yield when run again."""

    def __init__(self, value):
        self.value = value


class RaiseSignal(Exception):
    """A simulated exception (`exc`, an ExceptionVariable) left a simulated
    frame that has no handler for it: the caller's executor looks for one."""

    def __init__(self, exc):
        self.exc = exc
