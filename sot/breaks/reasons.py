"""Why a region could not be captured: typed reasons with the user's location.

A reason is raised inside the simulator as `FallbackError` (this frame runs
natively) and reported by logs and `sot.explain`. The location is the user's
source line of the instruction being simulated, never sot's own code.
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass, field

# Categories, as shown to users.
UNSUPPORTED_OPCODE = "unsupported-opcode"
UNSUPPORTED_CALL = "unsupported-call"
UNSUPPORTED_OBJECT = "unsupported-object"
DATA_DEPENDENT = "data-dependent"
SIDE_EFFECT = "side-effect"
LIMIT = "limit"
FORCED = "forced"
UNSUPPORTED_BREAK = "unsupported-break"
INTERNAL = "internal-error"


@dataclass
class BreakReason:
    category: str
    message: str
    filename: str | None = None
    lineno: int | None = None
    source: str | None = field(default=None)
    hint: str | None = None

    def located(self, filename: str, lineno: int | None) -> "BreakReason":
        if self.filename is None and lineno is not None:
            self.filename, self.lineno = filename, lineno
            self.source = linecache.getline(filename, lineno).strip() or None
        return self

    @property
    def location(self) -> str:
        if self.filename is None:
            return "<unknown location>"
        return f"{self.filename}:{self.lineno}"

    def __str__(self) -> str:
        text = f"{self.location}: {self.category}: {self.message}"
        if self.source:
            text += f"\n    {self.source}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def to_dict(self) -> dict:
        return {
            "category": self.category, "message": self.message,
            "filename": self.filename, "lineno": self.lineno,
            "source": self.source, "hint": self.hint,
        }


# One class per kind of reason: code asks `isinstance(reason, DataDependent)`,
# users see `category`. Built from a category by `reason_for`.

def _kind(name: str, category: str, doc: str) -> type:
    """A BreakReason subclass whose `category` is fixed (not an __init__ argument)."""
    namespace = {"__doc__": doc, "__module__": __name__, "__qualname__": name,
                 "__annotations__": {"category": "str"}, "category": field(default=category, init=False)}
    return dataclass(type(name, (BreakReason,), namespace))


UnsupportedOpcode = _kind("UnsupportedOpcode", UNSUPPORTED_OPCODE, "An instruction the simulator does not model.")
UnsupportedCall = _kind("UnsupportedCall", UNSUPPORTED_CALL, "A call the simulator cannot inline or record.")
UnsupportedObject = _kind("UnsupportedObject", UNSUPPORTED_OBJECT,
                          "A value the simulator does not model (or cannot rebuild).")
DataDependent = _kind("DataDependent", DATA_DEPENDENT,
                      "Python needs a value computed from array data (a branch, a conversion).")
SideEffect = _kind("SideEffect", SIDE_EFFECT, "Output, nondeterminism, or a write the trace does not replay.")
Limit = _kind("Limit", LIMIT, "A size or depth limit of the simulator.")
Forced = _kind("Forced", FORCED, "The user asked for it (sot.psdb).")
UnsupportedBreak = _kind("UnsupportedBreak", UNSUPPORTED_BREAK, "A graph break was needed where none can be made.")
InternalError = _kind("InternalError", INTERNAL,
                      "A bug in sot: the frame runs natively rather than risk a wrong result.")



class NewClassStatement(UnsupportedOpcode):
    """A class statement (run natively): each call makes a new class object, so
    a resume function after it, guarded on that class, would never match the
    next call; it is translated once and then runs natively (translate.py)."""


KINDS = {cls.category: cls for cls in (UnsupportedOpcode, UnsupportedCall, UnsupportedObject, DataDependent,
                                        SideEffect, Limit, Forced, UnsupportedBreak, InternalError)}


def reason_for(category: str, message: str, hint: str | None = None) -> BreakReason:
    """The typed reason of `category` (a plain BreakReason for an unknown one)."""
    cls = KINDS.get(category)
    return cls(message, hint=hint) if cls is not None else BreakReason(category, message, hint=hint)


class FallbackError(Exception):
    """Raised inside the simulator: the frame cannot be captured.

    `top_instr`/`top_line`: the instruction of the translated frame (not of
    an inlined callee) being simulated, where a graph break would go, and its
    line; `no_break`: the frame must run natively, no graph break is tried."""

    def __init__(self, category: str, message: str, hint: str | None = None):
        super().__init__(message)
        self.reason = reason_for(category, message, hint)
        self.top_instr = None
        self.top_line: int | None = None
        self.no_break = False


def unsupported(message: str, category: str = UNSUPPORTED_OBJECT, hint: str | None = None):
    return FallbackError(category, message, hint)
