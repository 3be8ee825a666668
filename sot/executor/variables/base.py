"""Base of the VariableTracker family: a symbolic stand-in for one Python value.

A Variable knows its `tracker` (where the value came from, when it existed
before the frame; None when the simulation created it). Operations on
Variables live in `sot.executor.dispatch`; the classes here hold state.
"""
from __future__ import annotations

from ...breaks.reasons import UNSUPPORTED_OBJECT, FallbackError


class Variable:
    tracker = None

    def __init__(self, tracker=None):
        self.tracker = tracker

    def python_type(self) -> type:
        raise FallbackError(UNSUPPORTED_OBJECT, f"type of {self!r} is unknown")

    def truth(self) -> bool:
        raise FallbackError(UNSUPPORTED_OBJECT, f"truth value of {self.describe()} is not known at trace time")

    def describe(self) -> str:
        name = self.tracker.name() if self.tracker is not None else None
        kind = type(self).__name__.replace("Variable", "").lower()
        return f"{kind} {name}" if name else kind

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"


class RealObjectVariable(Variable):
    """A Variable standing for one fixed real object (`value`)."""

    def __init__(self, value, tracker=None):
        super().__init__(tracker)
        self.value = value

    def python_type(self):
        return type(self.value)

    def truth(self) -> bool:
        return True  # modules, functions and classes are truthy; others override


class NullVariable(Variable):
    """CPython's NULL stack marker (3.11+ call protocol, unbound locals)."""

    def describe(self) -> str:
        return "NULL"


NULL = NullVariable()


class CellVariable(Variable):
    """A closure cell. Contents are a Variable, or None while the cell is empty."""

    def __init__(self, contents: Variable | None = None, tracker=None, preexisting: bool = False):
        super().__init__(tracker)
        self.contents = contents
        self.preexisting = preexisting  # a real cell from before the frame

    def describe(self) -> str:
        return "cell"
