"""The user's frames of an error a graph raises as it is.

An error raised after a graph wrote into memory from outside it cannot be
rerun natively (sot/runner.py): it is raised as it is. The NumPy graph is
compiled at the user's lines and named like the user's function, so its
traceback entry stands for the user's frame. A statement inlined from a
function the user's function called, though, raised in *that* function
eagerly: eager's traceback has one entry per user frame, outermost first.
``raiser`` re-raises the error through small functions made for those
frames (each at its file and line, under its name), so the traceback is
eager's; the hook then drops sot's own entries before them
(``mark_user_frame``, csrc/traceback_fixup.h).
"""
from __future__ import annotations

import sys
import types

from . import _hook

__all__ = ["user_stacks", "raiser", "without_columns"]


def user_stacks(statements, filename: str, statement_at_line: dict | None = None) -> dict:
    """{line the graph's code reports: the user's frames, outermost first,
    as (filename, line, globals, name)}. A graph compiled at the user's
    lines (``filename``): the lines whose statements come from an inlined
    call (more than one frame) and agree on them. A graph in a file of its
    own: each line's statement (``statement_at_line``), whatever its frames.
    """
    if statement_at_line is not None:
        out = {}
        for line, i in statement_at_line.items():
            stack = _stack(statements[i].where) if 0 <= i < len(statements) else None
            if stack is not None:
                out[line] = stack
        return out
    stacks: dict = {}
    keys: dict = {}
    for st in statements:
        stack = _stack(st.where)
        line = next((f[1] for f in st.where if f[0] == filename), None) if stack else None
        if line is None:
            continue
        key = tuple((f[0], f[1], id(f[2]), f[3]) for f in stack)   # never == on a user's globals
        if keys.setdefault(line, key) != key:
            stacks[line] = None   # statements of different stacks at one line: unknown
        elif line not in stacks:
            stacks[line] = stack
    return {line: s for line, s in stacks.items() if s is not None and len(s) > 1}


def _stack(where):
    """A statement's user frames, outermost first, or None if not known."""
    if not where or not all(len(f) > 3 and f[1] for f in where):
        return None
    return tuple((f[0], f[1], f[2], f[3]) for f in reversed(where))


def raiser(graph_code, stacks: dict):
    """``raise_as_user(err)``: raise ``err`` (raised in ``graph_code``)
    through the user's frames of its line, where ``stacks`` knows them."""
    chains: dict = {}

    def raise_as_user(err):
        line, tb = None, err.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is graph_code:
                line = tb.tb_lineno
            tb = tb.tb_next
        stack = stacks.get(line)
        if stack is None:
            raise err
        chain = chains.get(line)
        if chain is None:
            chain = chains[line] = _chain(stack)
        chain(err.with_traceback(None))

    _hook.skip_code(raise_as_user.__code__)
    return raise_as_user


def _chain(stack):
    """A function of ``e`` raising it through one frame per entry of
    ``stack`` (outermost first)."""
    nxt = None
    for filename, line, globals_, name in reversed(stack):
        body = "raise e" if nxt is None else "nxt(e)"
        module = compile("\n" * (line - 1) + "def frame(e, nxt):  " + body + "\n", filename, "exec")
        code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
        names = {"co_name": name}
        if hasattr(code, "co_qualname"):
            names["co_qualname"] = name
        code = without_columns(code.replace(**names))
        _hook.skip_code(code)
        _hook.mark_user_frame(code)
        nxt = types.FunctionType(code, globals_, name, (nxt,))
    return nxt


def without_columns(code):
    """``code`` with its lines but no column positions (3.11+): a traceback
    then shows the user's line without carets under columns of sot's own
    source (a graph's, a made frame's), as it has no true columns there."""
    if sys.version_info < (3, 11):
        return code
    table = bytearray()
    prev = code.co_firstlineno
    for start, end, line in code.co_lines():
        units = (end - start) // 2
        while units > 0:
            n = min(units, 8)
            if line is None:
                table.append(0x80 | (15 << 3) | (n - 1))   # no location
            else:
                table.append(0x80 | (13 << 3) | (n - 1))   # a line, no columns
                _signed_varint(table, line - prev)
                prev = line
            units -= n
    return code.replace(co_linetable=bytes(table))


def _signed_varint(out: bytearray, value: int) -> None:
    value = (-value << 1) | 1 if value < 0 else value << 1
    while value >= 64:
        out.append(64 | (value & 63))
        value >>= 6
    out.append(value)
