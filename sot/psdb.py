"""Helpers the simulator treats specially (named after Paddle SOT's psdb).

    sot.psdb.breakgraph()   # force a graph break here
    sot.psdb.fallback()     # make this frame run natively

Called outside a translated frame (or natively) they do nothing.
"""


def breakgraph() -> None:
    """Force a graph break at this call."""


def fallback() -> None:
    """Make the calling frame run natively (no graphs)."""
