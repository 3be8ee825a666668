"""Errors raised while recording NumPy operations into a StatementIR."""

from __future__ import annotations

__all__ = ["UnsupportedOp"]


class UnsupportedOp(Exception):
    """An op/argument combination that the IR does not capture.

    The caller (the opcode simulator) falls back to running the operation
    eagerly; where eager NumPy raises, the user then sees NumPy's own error.
    ``reason`` is a short human-readable explanation for logs.
    """

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason
