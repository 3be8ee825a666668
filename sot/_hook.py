"""Thin Python face of the frame-evaluation hook ``sot._C``.

The contract (see ``csrc/eval_frame_hook.c``):

* ``set_callback(cb)`` sets this thread's callback (``None`` clears it) and
  returns the previous one. The interpreter's eval-frame function is sot's
  while at least one thread has a callback.
* For an intercepted frame of code ``co`` the *argument vector* is the values
  of its first ``co_argcount + co_kwonlyargcount (+1 *args) (+1 **kwargs)``
  locals at entry, and the *free cells* are its closure cells.
* ``set_cache(code, [(guard, replacement), ...])``: ``guard(f_globals,
  *args, *free_cells)`` truthy selects ``replacement`` (``None`` = run the
  original frame, or a code object that takes the argument vector as plain
  positional parameters and has the same free variables).
* On a miss ``callback(frame_info)`` returns ``None`` (run the original),
  ``SKIP`` (never intercept this code again) or a replacement code object.
"""
from __future__ import annotations

import contextlib
from typing import Callable, Iterator, Optional

from sot import _C
from sot._C import (  # noqa: F401  (re-exported API)
    SKIP,
    FrameInfo,
    clear_cache,
    frames_seen,
    get_cache,
    get_callback,
    hook_installed,
    is_skipped,
    reset_counters,
    set_cache,
    set_callback,
    skip_code,
    unskip_code,
)

__all__ = [
    "SKIP",
    "FrameInfo",
    "callback_set",
    "clear_cache",
    "frames_seen",
    "get_cache",
    "get_callback",
    "hook_installed",
    "is_skipped",
    "reset_counters",
    "set_cache",
    "set_callback",
    "skip_code",
    "unskip_code",
]


@contextlib.contextmanager
def callback_set(cb: Optional[Callable]) -> Iterator[None]:
    """Set this thread's frame callback for the ``with`` body.

    The previous callback (or ``None``) is restored on exit, also when the
    body raises, so the hook is uninstalled after the outermost use.
    """
    previous = _C.set_callback(cb)
    try:
        yield
    finally:
        _C.set_callback(previous)
