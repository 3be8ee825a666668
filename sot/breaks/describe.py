"""Resume functions in the user's words, for logs and explain.

A resume function (resume.py) takes the values left on the stack at a graph
break as parameters named ``__sot_s0``, ``__sot_s1``, ... and starts at a
bytecode offset: both are sot's internals, and offsets differ per Python.
Here they become source: the function "resumed after `float(m.max())`,
line 6", and its top stack value "the value of `float(m.max())`" (the
expression of the instruction that computed it, from the code's column
positions; on 3.10, which has none, the line).
"""
from __future__ import annotations

import linecache
import re
import types

from ..executor.opcode_table import instructions
from . import loop_body
from .resume import RESUME_ORIGIN, STACK_PREFIX

_STACK_NAME = re.compile(re.escape(STACK_PREFIX) + r"(\d+)\b")
_SKIP = {"CACHE", "EXTENDED_ARG", "NOP"}


def _producer(code: types.CodeType):
    """The instruction (copied from the original code) that ran just before
    the resume point: the prologue's jump leads to the resume point."""
    instrs = [i for i in instructions(code) if i.opname not in _SKIP]
    jump = next((i for i in instrs if i.opname == "JUMP_FORWARD"), None)
    if jump is None:
        return None
    k = next((k for k, i in enumerate(instrs) if i.offset == jump.argval), None)
    if not k or instrs[k - 1] is jump:
        return None
    return instrs[k - 1]


def _segment(filename: str, instr) -> str | None:
    """The source text of ``instr``'s expression (3.11+), or None."""
    pos = getattr(instr, "positions", None)
    if pos is None or None in (pos.lineno, pos.end_lineno, pos.col_offset, pos.end_col_offset):
        return None
    lines = [linecache.getline(filename, n).encode("utf-8") for n in range(pos.lineno, pos.end_lineno + 1)]
    if not all(lines):
        return None
    if len(lines) == 1:
        text = lines[0][pos.col_offset:pos.end_col_offset]
    else:
        text = b" ".join([lines[0][pos.col_offset:].strip()] + [ln.strip() for ln in lines[1:-1]]
                         + [lines[-1][:pos.end_col_offset].strip()])
    text = text.decode("utf-8", "replace").strip()
    return text or None


def _line(instr) -> int | None:
    pos = getattr(instr, "positions", None)
    if pos is not None and pos.lineno is not None:
        return pos.lineno
    return getattr(instr, "starts_line", None) if isinstance(getattr(instr, "starts_line", None), int) \
        else None


def _line_of(code: types.CodeType, instr) -> int | None:
    """The source line of ``instr`` (3.10's Instruction has only starts_line)."""
    line = _line(instr)
    if line is not None:
        return line
    for start, _end, lineno in code.co_lines():
        if start <= instr.offset < _end:
            return lineno
    return None


def resume_label(code: types.CodeType) -> str:
    """``"resumed after `float(m.max())`, line 6"`` for a resume function
    (``"loop body, line 7"`` for a loop body function)."""
    body = loop_body.label(code)
    if body is not None:
        return body
    instr = _producer(code)
    if instr is None:
        return "resumed after a graph break"
    text, line = _segment(code.co_filename, instr), _line_of(code, instr)
    if text:
        return f"resumed after `{text}`, line {line}"
    return f"resumed at line {line}" if line else "resumed after a graph break"


def stack_value(code: types.CodeType, index: int) -> str:
    """What the stack parameter ``__sot_s<index>`` of a resume function holds."""
    stack = [n for n in code.co_varnames[:code.co_argcount] if _STACK_NAME.fullmatch(n)]
    instr = _producer(code)
    if instr is not None and stack and index == int(_STACK_NAME.fullmatch(stack[-1]).group(1)):
        text = _segment(code.co_filename, instr)
        if text:
            return f"the value of `{text}`"
        line = _line_of(code, instr)
        if line:
            return f"the value computed at line {line}"
    return f"the value {index + 1} on the stack at the graph break"


def user_text(text: str | None, code: types.CodeType) -> str | None:
    """``text`` with the stack parameters of resume function ``code`` named in words."""
    if not text or code not in RESUME_ORIGIN or STACK_PREFIX not in text:
        return text
    return _STACK_NAME.sub(lambda m: stack_value(code, int(m.group(1))), text)
