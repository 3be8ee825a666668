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
* A replacement that returns ``Resume(function, *args)`` has the hook call
  ``function(*args)`` once the replacement's frame is gone (the frame's
  result is that call's); one that raises ``RerunNatively`` before doing
  anything else has the hook run the original frame natively. A replacement
  that runs user code calls ``release_frame_args()`` first (after its
  runner): the unrun frame then drops its references to the arguments.
"""
from __future__ import annotations

from typing import Callable, Optional

from sot import _C
from sot._C import (  # noqa: F401  (re-exported API)
    SKIP,
    FrameInfo,
    RerunNatively,
    Resume,
    StaticFunction,
    clear_cache,
    frames_seen,
    get_cache,
    get_callback,
    hook_installed,
    is_skipped,
    mark_loop_body,
    mark_user_frame,
    release_frame_args,
    reset_counters,
    set_cache,
    set_callback,
    skip_code,
    unskip_code,
)

__all__ = [
    "SKIP",
    "FrameInfo",
    "RerunNatively",
    "Resume",
    "StaticFunction",
    "callback_set",
    "clear_cache",
    "frames_seen",
    "get_cache",
    "get_callback",
    "hook_installed",
    "is_skipped",
    "release_frame_args",
    "reset_counters",
    "set_cache",
    "set_callback",
    "skip_code",
    "unskip_code",
]


class callback_set:
    """``with callback_set(cb):`` sets this thread's frame callback for the
    body and restores the previous one (or ``None``) on exit, also when the
    body raises, so the hook is uninstalled after the outermost use.

    A class rather than a generator-based context manager, so that leaving
    the ``with`` runs no Python frame the callback would be shown.
    """

    __slots__ = ("_callback", "_previous")

    def __init__(self, cb: Optional[Callable]) -> None:
        self._callback = cb
        self._previous = None

    def __enter__(self) -> "callback_set":
        self._previous = _C.set_callback(self._callback)
        return self

    def __exit__(self, *exc_info: object) -> None:
        previous, self._previous = self._previous, None
        _C.set_callback(previous)


_C.skip_code(callback_set.__init__.__code__)
_C.skip_code(callback_set.__enter__.__code__)
_C.skip_code(callback_set.__exit__.__code__)
