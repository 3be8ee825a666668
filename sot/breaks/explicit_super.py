"""Zero-argument ``super()`` in generated code, made explicit.

``super()`` without arguments takes its class from the ``__class__`` cell
and its object from the frame's first local (CPython's
super_init_without_args). A resume function or a loop body holds the
original's instructions but has other locals first (the stack values it
takes, the loop item): there ``super()`` raised "super(): arg[0] deleted"
or bound the wrong object. In such code it becomes
``super(__class__, <first argument>)``, which is what the zero-argument form
means. (A module-level name ``super`` rebound to something else than the
builtin would now get two arguments; the compiler's own zero-argument form
calls whatever ``super`` is with none.)

The forms (the compiler emits each sequence adjacent):

  3.10       LOAD_GLOBAL super; CALL_FUNCTION 0
  3.11       LOAD_GLOBAL (NULL +) super; PRECALL 0; CALL 0
  3.12/3.13  LOAD_GLOBAL (NULL +) super; CALL 0
             and, for ``super().name``: LOAD_GLOBAL super; LOAD_DEREF
             __class__; LOAD_FAST self; LOAD_SUPER_ATTR (method, False,
             name): the class and object are already loaded, the flag
             says whether the call gets them.
"""
from __future__ import annotations

import types

from bytecode import FreeVar, Instr

_CALLS = ("PRECALL", "CALL", "CALL_FUNCTION")


def first_argument(code: types.CodeType) -> str | None:
    """The local a zero-argument ``super()`` in `code` reads, or None when
    `code` has none (no ``__class__`` cell, no ``super`` name, no argument)."""
    if "__class__" not in code.co_freevars or "super" not in code.co_names:
        return None
    if code.co_argcount == 0:   # super() raises "no arguments" there (even with *args); left alone
        return None
    return code.co_varnames[0]


def _is_super_load(item) -> bool:
    if not isinstance(item, Instr) or item.name != "LOAD_GLOBAL":
        return False
    return (item.arg[1] if isinstance(item.arg, tuple) else item.arg) == "super"


def make_explicit(items: list, original: types.CodeType) -> list:
    """`items` (instructions of generated code holding `original`'s, its
    cell variables free) with every zero-argument super() explicit."""
    first = first_argument(original)
    if first is None:
        return items
    out = []
    k = 0
    while k < len(items):
        item = items[k]
        out.append(item)
        k += 1
        if isinstance(item, Instr) and item.name == "LOAD_SUPER_ATTR" and not item.arg[1]:
            out[-1] = Instr("LOAD_SUPER_ATTR", (item.arg[0], True, item.arg[2]), location=item.location)
            continue
        if not _is_super_load(item):
            continue
        calls = []
        while k + len(calls) < len(items) and isinstance(items[k + len(calls)], Instr) \
                and items[k + len(calls)].name in _CALLS and items[k + len(calls)].arg == 0:
            calls.append(items[k + len(calls)])
        if not calls or calls[-1].name == "PRECALL":
            continue
        obj = FreeVar(first) if first in original.co_cellvars else first
        out += [Instr("LOAD_DEREF", FreeVar("__class__"), location=item.location),
                Instr("LOAD_DEREF" if isinstance(obj, FreeVar) else "LOAD_FAST", obj, location=item.location)]
        out += [Instr(c.name, 2, location=c.location) for c in calls]
        k += len(calls)
    return out
