"""Give a compiled code object other line numbers, without recompiling.

Generated code (a NumPy-backend graph) is compiled from its own source, then
its lines are moved to the user's lines it stands for, so a warning or a
traceback from it names the user's line.  Doing that through the AST
(parse, walk every node, compile the tree) cost ~3x the plain compile; here
the line table is rewritten from ``co_lines()``, which every version gives,
in the version's own table format (the only per-version part, below):

* 3.10: ``co_linetable`` is (bytecode delta, line delta) byte pairs; a line
  delta of -128 means "no line" (Objects/lnotab_notes.txt).
* 3.11+: ``co_linetable`` is the location table: entries of 1..8 code units,
  first byte ``0x80 | code << 3 | (length - 1)``; code 13 is "line only" and
  is followed by the line delta as a signed varint, code 15 is "no
  location" (Objects/locations.md).  Columns are dropped: the generated
  code's columns would point into source the user never wrote.
"""
from __future__ import annotations

import sys
from typing import Callable, Optional

_NO_COLUMNS, _NO_LOCATION = 13, 15


def _signed_varint(value: int) -> bytes:
    value = (-value << 1) | 1 if value < 0 else value << 1
    out = bytearray()
    while value >= 64:
        out.append(64 | (value & 63))
        value >>= 6
    out.append(value)
    return bytes(out)


def _table_311(ranges, first: int) -> bytes:
    out, prev = bytearray(), first
    for start, end, line in ranges:
        units = (end - start) // 2
        while units > 0:
            n = min(units, 8)
            if line is None:
                out.append(0x80 | _NO_LOCATION << 3 | (n - 1))
            else:
                out.append(0x80 | _NO_COLUMNS << 3 | (n - 1))
                out += _signed_varint(line - prev)
                prev = line
            units -= n
    return bytes(out)


def _table_310(ranges, first: int) -> bytes:
    out, prev = bytearray(), first
    for start, end, line in ranges:
        bdelta = end - start
        if line is None:
            ldelta = -128
        else:
            ldelta, prev = line - prev, line
            while ldelta > 127:
                out += bytes((0, 127))
                ldelta -= 127
            while ldelta < -127:
                out += bytes((0, 256 - 127))
                ldelta += 127
        while bdelta > 254:
            out += bytes((254, ldelta & 255))
            ldelta = -128 if line is None else 0
            bdelta -= 254
        out += bytes((bdelta, ldelta & 255))
    return bytes(out)


_TABLE = _table_310 if sys.version_info < (3, 11) else _table_311


def relocate(code, line_of: Callable[[int], Optional[int]]):
    """``code`` (and the code objects among its constants) with each line
    ``k`` moved to ``line_of(k)`` (None: no line)."""
    consts = tuple(relocate(c, line_of) if isinstance(c, type(code)) else c for c in code.co_consts)
    ranges = [(s, e, None if ln is None else line_of(ln)) for s, e, ln in code.co_lines() if e > s]
    first = line_of(code.co_firstlineno) or next((ln for _s, _e, ln in ranges if ln is not None), 1)
    return code.replace(co_firstlineno=first, co_linetable=_TABLE(ranges, first), co_consts=consts)
