"""sot's logging: silent by default; `set_verbosity` / env SOT_LOG_LEVEL turn it on.

Level 1 shows fallbacks with their reasons and the user's source line, and
cache-limit overflows; higher levels add detail as it lands.
"""
from __future__ import annotations

import logging
import os

logger = logging.getLogger("sot")
logger.addHandler(logging.NullHandler())
_handler: logging.Handler | None = None


def set_verbosity(level: int) -> None:
    """0: silent; 1: fallbacks and cache overflows; 2+: more detail (debug)."""
    global _handler
    if _handler is not None:
        logger.removeHandler(_handler)
        _handler = None
    if level <= 0:
        logger.setLevel(logging.WARNING)
        logger.propagate = True
        return
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("[sot] %(message)s"))
    logger.addHandler(_handler)
    logger.setLevel(logging.INFO if level == 1 else logging.DEBUG)


def _from_env() -> None:
    try:
        level = int(os.environ.get("SOT_LOG_LEVEL", "0"))
    except ValueError:
        level = 0
    if level:
        set_verbosity(level)


_from_env()
