"""The abstract bytecode of the codes being split, decoded once and copied per use.

Planning one graph break builds several functions from the same original
code (the compiled prefix, the native prefix, the resume function, a loop
body), and each decoded the code again with ``Bytecode.from_code``: a fifth
of a first call's time. The decoded form is kept for the latest codes and
each use gets a copy of its own (callers set line numbers on the
instructions and splice them into new code): new Instr objects, new Labels
and try blocks that point at the new ones, the same metadata.
"""
from __future__ import annotations

from bytecode import Bytecode, Instr, Label
from bytecode.instr import SetLineno, TryBegin, TryEnd

from .._codemap import RecentCodes

_KEPT = RecentCodes(32)


def cached(code, flag, decode):
    """``decode()``'s ``(bytecode, where)`` for (code, flag), as a fresh copy."""
    bc, where = _KEPT.get(code, decode, flag)   # kept as decoded: only copies leave
    return copy(bc), dict(where)


def copy(bc: Bytecode) -> Bytecode:
    """A copy of `bc` that shares no mutable item with it."""
    labels: dict = {}

    def label(old):
        new = labels.get(old)
        if new is None:
            new = labels[old] = Label()
        return new

    tries: dict = {}
    items = []
    for item in bc:
        if isinstance(item, Instr):
            new = item.copy()
            if isinstance(item.arg, Label):
                new.arg = label(item.arg)
            items.append(new)
        elif isinstance(item, Label):
            items.append(label(item))
        elif isinstance(item, TryBegin):
            new = TryBegin(label(item.target), item.push_lasti, item.stack_depth)
            tries[id(item)] = new
            items.append(new)
        elif isinstance(item, TryEnd):
            items.append(TryEnd(tries[id(item.entry)]))
        elif isinstance(item, SetLineno):
            items.append(SetLineno(item.lineno))
        else:
            raise TypeError(f"cannot copy a bytecode item {item!r}")
    out = Bytecode(items)
    out._copy_attr_from(bc)
    out.argnames = list(bc.argnames)
    return out
