"""Errors raised while recording NumPy operations into a StatementIR."""

from __future__ import annotations

__all__ = ["UnsupportedOp", "BroadcastError"]


class UnsupportedOp(Exception):
    """An op/argument combination that the IR does not capture.

    The caller (the opcode simulator) falls back to running the operation
    eagerly; where eager NumPy raises, the user then sees NumPy's own error.
    ``reason`` is a short human-readable explanation for logs.
    """

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class BroadcastError(UnsupportedOp):
    """Operands whose shapes do not broadcast (``registry.broadcast``, which
    is NumPy's rule): NumPy raises its broadcasting error on them."""
