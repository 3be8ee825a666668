"""The SOT_* environment variables, read one way.

A switch (SOT_STRICT, SOT_DISABLE, SOT_DO_NO_HARM, SOT_C_GUARDS,
SOT_GUARD_STRICT) is on for 1/true/yes/on and off for 0/false/no/off or
empty, in any case; anything else is an error, never a guess: read as
"set, so on", SOT_STRICT=0 had turned strict mode on and SOT_DISABLE=0 had
disabled translation. An integer (SOT_CACHE_SIZE, SOT_MIN_GRAPH_SIZE,
SOT_ORT_THREADS, SOT_CACHE_MAX_BYTES) is a decimal integer within its range.
A value read when a function is decorated (or a graph built) raises
ValueError naming the variable; one read at import is ignored with a
RuntimeWarning (see `at_import`), as logs.py does for SOT_LOG_LEVEL.
"""
from __future__ import annotations

import os
import warnings

_ON = ("1", "true", "yes", "on")
_OFF = ("0", "false", "no", "off")   # the C reader of SOT_DISABLE knows these too (static_function.c)


def flag(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name, "")
    text = raw.lower()   # not stripped: the C reader of SOT_DISABLE does not strip either
    if not text:
        return default
    if text in _ON:
        return True
    if text in _OFF:
        return False
    raise ValueError(f"environment variable {name}={raw!r} is not a switch; expected one of "
                     f"1/0, true/false, yes/no, on/off, or unset (default: {'on' if default else 'off'})")


def integer(name: str, default: int, minimum: int | None = None) -> int:
    raw = os.environ.get(name, "")
    text = raw.strip()
    if not text:
        return default
    try:
        value = int(text, 10)
    except ValueError:
        raise ValueError(f"environment variable {name}={raw!r} is not an integer "
                         f"(unset it for the default, {default})") from None
    if minimum is not None and value < minimum:
        raise ValueError(f"environment variable {name}={value} must be >= {minimum}")
    return value


def at_import(read, name: str, default, *args):
    """`read(name, default, *args)`, or `default` with a RuntimeWarning for an invalid value."""
    try:
        return read(name, default, *args)
    except ValueError as e:
        warnings.warn(f"sot: {e}; ignored", RuntimeWarning, stacklevel=3)
        return default
