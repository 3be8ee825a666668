"""Statement regions: where a graph break goes when it cannot go at one instruction.

Some instructions cannot be split off on their own: an attribute load
(`np.subtract.outer`, `x.strides`), a call whose result feeds another call
still being built (a NULL call slot is live after it), the body of a 3.12+
inlined comprehension (a `try` block around a loop). For those the break
widens to the *statement region* around the instruction: the code from the
last point before it where the value stack is empty to the first point after
it where the stack is empty again and no jump enters or leaves in between.
The region runs natively in the original code; the graph before it and the
resume function after it are translated as for any break.

Stack depths come from a forward pass over the code with `dis.stack_effect`
(the compiler's own model), so the analysis is the same on every version.
"""
from __future__ import annotations

import dis
import types
from dataclasses import dataclass

from ..executor.opcode_table import LOCAL_LOADS, LOCAL_STORES, exception_ranges, instructions, local_names_of

_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
_ALWAYS_JUMPS = frozenset(("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD_NO_INTERRUPT",
                           "JUMP", "JUMP_NO_INTERRUPT"))
_ENDS = frozenset(("RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"))


def real_instructions(code: types.CodeType) -> list[dis.Instruction]:
    return [i for i in instructions(code) if i.opname not in ("EXTENDED_ARG", "CACHE")]


def _is_jump(ins) -> bool:
    return ins.opcode in _JUMPS and isinstance(ins.argval, int)


def stack_depths(code: types.CodeType, real=None) -> dict[int, int]:
    """Value-stack depth before each reachable instruction (offset -> depth)."""
    real = real if real is not None else real_instructions(code)
    at = {ins.offset: k for k, ins in enumerate(real)}
    depth: dict[int, int] = {}
    work = [(0, 0)]
    try:
        for e in dis.Bytecode(code).exception_entries:
            work.append((at[e.target], e.depth + 1 + int(e.lasti)))
    except AttributeError:  # 3.10: handlers are reached through SETUP_* jumps
        pass
    while work:
        k, d = work.pop()
        while k < len(real):
            ins = real[k]
            if ins.offset in depth:
                break
            depth[ins.offset] = d
            arg = ins.arg if ins.opcode >= dis.HAVE_ARGUMENT else None
            if _is_jump(ins):
                target = next((j for j, i in enumerate(real) if i.offset >= ins.argval), None)
                if target is not None:
                    work.append((target, d + dis.stack_effect(ins.opcode, arg, jump=True)))
                if ins.opname in _ALWAYS_JUMPS:
                    break
                d += dis.stack_effect(ins.opcode, arg, jump=False)
            elif ins.opname in _ENDS:
                break
            else:
                d += dis.stack_effect(ins.opcode, arg)
            k += 1
    return depth


@dataclass
class Region:
    start: int              # offset of the region's first instruction (stack empty before it)
    end: int | None         # offset after its last (stack empty there); None: runs to the end
    stored: frozenset       # locals every path through the region binds
    conditional: frozenset  # locals some paths bind
    deleted: frozenset      # locals it may unbind (del)
    cleared: frozenset      # comprehension variables: saved and restored around the loop (3.12+)
    loops: list             # (first, last) of the loops inside it

    def live_after(self, bound: set, order: list[str]):
        """(locals bound when the region completes, in `order`; locals that may be unbound)."""
        bound = set(bound)
        certain = (self.stored - self.cleared - self.deleted) | (bound - self.deleted)
        unsure = (self.conditional | self.deleted | self.cleared) - certain
        return [n for n in order if n in certain], unsure


def statement_region(code: types.CodeType, offset: int):
    """The smallest statement region around the instruction at `offset`, or a
    string saying why there is none."""
    real = real_instructions(code)
    depth = stack_depths(code, real)
    pos = next(k for k, i in enumerate(real) if i.offset == offset)
    starts = [k for k in range(pos, -1, -1) if depth.get(real[k].offset) == 0]
    if not starts:
        return "no point before the break where the stack is empty"
    tries = exception_ranges(code, instructions(code))
    for s in starts:
        for e in range(pos + 1, len(real) + 1):
            hi = real[e].offset if e < len(real) else None
            if hi is not None and depth.get(hi) != 0:
                continue
            region = _closed(real, s, e, tries)
            if region is not None:
                return region
    return "no statement around the break has a single entry and exit"


def _closed(real, s: int, e: int, tries):
    """A Region for real[s:e] if no jump enters or leaves it, else None."""
    lo = real[s].offset
    hi = real[e].offset if e < len(real) else 1 << 30
    inside = real[s:e]
    for ins in inside:
        if _is_jump(ins) and not lo <= ins.argval <= hi:
            return None
    for ins in real[:s] + real[e:]:
        if _is_jump(ins) and lo < ins.argval < hi:
            return None
    for a, b in tries:
        if a < hi and lo < b and not (lo <= a and b <= hi):
            return None  # a try block that only partly overlaps
    loops = [(ins.argval, ins.offset) for ins in inside if _is_jump(ins) and ins.argval <= ins.offset]
    # A store is certain when no forward jump inside the region skips it.
    skipped = set()
    for ins in inside:
        if _is_jump(ins) and ins.argval > ins.offset:
            skipped |= {i.offset for i in inside if ins.offset < i.offset < ins.argval}
    stored, conditional, deleted = set(), set(), set()
    for ins in inside:
        if ins.opname in LOCAL_STORES:
            names = set(local_names_of(ins))
            if ins.opname == "DELETE_FAST":
                deleted |= names
            elif ins.offset in skipped:
                conditional |= names
            else:
                stored |= names
    cleared = {n for ins in inside if ins.opname == "LOAD_FAST_AND_CLEAR" for n in local_names_of(ins)}
    return Region(lo, None if e >= len(real) else hi, frozenset(stored), frozenset(conditional),
                  frozenset(deleted), frozenset(cleared), loops)


def read_after(code: types.CodeType, offset: int) -> set:
    """Locals any instruction at or after `offset` reads (a superset of what is live)."""
    return {n for i in real_instructions(code) if i.offset >= offset and i.opname in LOCAL_LOADS
            for n in local_names_of(i)}
