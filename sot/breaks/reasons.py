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


class FallbackError(Exception):
    """Raised inside the simulator: the frame cannot be captured."""

    def __init__(self, category: str, message: str, hint: str | None = None):
        super().__init__(message)
        self.reason = BreakReason(category, message, hint=hint)


def unsupported(message: str, category: str = UNSUPPORTED_OBJECT, hint: str | None = None):
    return FallbackError(category, message, hint)
