"""Loop bodies as functions: a graph break inside a loop keeps the rest of each iteration in graphs.

A break inside a loop cannot resume in the middle of the loop (the resume
function would run the rest of the frame, not the rest of one iteration), so
the loop itself runs natively in the replacement (resume.loop_region_code).
Its *body* does not: it becomes a function of its own, called once per
iteration, that the hook translates like any code — the break then falls
inside that function, which is split as usual, and the other statements of
each iteration keep their graphs (what Paddle SOT does with its loop body
functions).

The body function is the original code from the first instruction of the
body to the loop's closing jump. It takes the loop item (for `for` loops)
and the locals the body uses that are bound before the loop, and returns
``(value, stopped, returned, *outs)`` at each way out of the body:

    continue / end of the body   (None, False, False, *outs)
    break / while's exit          (None, True, False, *outs)
    return v                      (v, True, True, None...)

A return builds its tuple in place over the value, with no local of its
own: a loop nested in the body is planned again when the body function is
translated, and a hidden local or a jump to a shared stub there was read as
the user's (a jump out of the inner loop looked like a `break`).

In the replacement the body span is replaced by the call, the stores of
``outs`` and the dispatch on the two flags. ``outs`` are the locals the body
rebinds that were bound before the loop, and the names it binds anew that
are read after the loop; such a new name is bound after the loop only when
the body ran, so the code after the loop has two resume functions, with and
without those names (a flag says which).

A name the body binds anew and reads before binding it (the previous
iteration's value: ``if i: y = prev + x`` then ``prev = f(x)``), or binds
on some paths only and is read after the loop (``if done: break`` before
``last = y``), is *carried*: the replacement keeps it in a hidden local
(CARRIED + name) that holds UNBOUND until an iteration binds it, passes it
in and takes it back like the other locals; in the body function each read of it that may come
before its binding first deletes it when it holds UNBOUND, so that the read
raises eager's own UnboundLocalError (name and message). The frame's own
name is bound from it once it holds a value; the resume function after
the loop takes such a name as it is and unbinds it there when it holds
UNBOUND (resume.resume_code's `maybe_unbound`).

A 3.12+ inlined comprehension in the body has a handler of its own (it
restores the comprehension's variable and re-raises) placed after the
frame's code: the body function takes a copy of it along.

Not done here (the whole loop runs natively, as before): loops in
generators, loops inside or around other try/with blocks, bodies that delete a
local, loops with values under the iterator on the stack
(a loop inside a 3.12+ inlined comprehension), breaks to more than one place.
"""
from __future__ import annotations

import dis
import enum
import types
from dataclasses import dataclass, field

import numpy as np
from bytecode import Instr, Label

from .. import _hook
from .._codemap import CodeMap
from ..executor import assemble, codegen
from ..executor.opcode_table import (LOCAL_LOADS, LOCAL_STORES, exception_entries, exception_ranges, instructions,
                                     local_names_of)
from . import explicit_super
from .regions import _ALWAYS_JUMPS, _ENDS, _is_jump, real_instructions, stack_depths

PREFIX = "__sot_"
ITEM = PREFIX + "item"          # the body function's parameter: the loop item
_FN, _STOP, _RETURNED, _VALUE, RAN = (PREFIX + n for n in ("body", "stop", "returned", "value", "ran"))
CARRIED = PREFIX + "c_"       # the replacement's hidden local for a carried name
_RETURNS = frozenset(("RETURN_VALUE", "RETURN_CONST"))
# Instructions that read a value deeper in the stack than they pop, and how deep
# (a comprehension's LIST_APPEND to its list under the iterator, COPY).
_REACH = {"LIST_APPEND": lambda a: a + 1, "SET_ADD": lambda a: a + 1, "MAP_ADD": lambda a: a + 2,
          "COPY": lambda a: a, "DUP_TOP_TWO": lambda a: 2}
_GENERATOR_FLAGS = 0x20 | 0x80 | 0x100 | 0x200   # generator, coroutine, iterable coroutine, async generator

_body_cache = CodeMap()  # original code -> {(span, ins, outs): body function code}
LOOP_BODIES = CodeMap()  # body function code -> (original code, first line of the body), for explain

# Jump opcode names per version, read from dis itself.
_JUMP_BACK = "JUMP_BACKWARD" if "JUMP_BACKWARD" in dis.opmap else "JUMP_ABSOLUTE"
_FORWARD_IF = "POP_JUMP_FORWARD_IF_" if "POP_JUMP_FORWARD_IF_TRUE" in dis.opmap else "POP_JUMP_IF_"
_TO_FORWARD = {"JUMP_BACKWARD": "JUMP_FORWARD", "JUMP_BACKWARD_NO_INTERRUPT": "JUMP_FORWARD",
               "JUMP_ABSOLUTE": "JUMP_FORWARD"}
_TO_FORWARD.update({f"POP_JUMP_BACKWARD_IF_{c}": f"POP_JUMP_FORWARD_IF_{c}"
                    for c in ("TRUE", "FALSE", "NONE", "NOT_NONE")})


class _Unbound(enum.Enum):
    """What a carried name holds before the loop first binds it (an Enum
    member: the simulator compares it by identity under an identity guard)."""
    UNBOUND = "unbound"


UNBOUND = _Unbound.UNBOUND
# Loads that may read a carried name before the iteration binds it (3.12+
# emit LOAD_FAST_CHECK there: the name may be unbound in the original too).
_CHECKABLE = frozenset(("LOAD_FAST", "LOAD_FAST_CHECK"))
_LOAD_CHECKED = "LOAD_FAST_CHECK" if "LOAD_FAST_CHECK" in dis.opmap else "LOAD_FAST"


@dataclass
class LoopBody:
    head: int                 # offset of the loop head (FOR_ITER, or a while loop's first body instruction)
    start: int                # offset of the body's first instruction
    back_edge: int            # offset of the loop's closing jump
    is_for: bool
    ins: list                 # locals passed in on every iteration
    outs: list                # locals passed back
    new: list                 # outs bound only by the body (bound after the loop iff it ran)
    break_target: int | None  # where break / a while loop's exit goes
    exits: dict = field(default_factory=dict)  # offset of an instruction leaving the body -> (kind, depth)
    base: int = 0             # values under the loop on the stack (stand-ins in the body function)
    resume_full: object = None  # resume function taking `new` too (set by the translator)
    live_full: list = None      # its local parameters
    carried: list = field(default_factory=list)   # names read before the iteration binds them (in ins and outs)
    checks: frozenset = frozenset()  # offsets of the loads of carried names that may come before their binding
    maybe_unbound: list = field(default_factory=list)  # new names the loop may leave unbound though it ran

    def __post_init__(self):
        self.code = None


def plan(code: types.CodeType, loop: tuple, stack_nulls: list[bool], bound: set):
    """A LoopBody for the loop `loop` = (head offset, closing jump offset), or
    a string saying why its body cannot be a function."""
    if code.co_flags & _GENERATOR_FLAGS:
        return "loops in generators run natively"
    real = real_instructions(code)
    at = {i.offset: k for k, i in enumerate(real)}
    lo, hi = loop
    head = real[at[lo]]
    is_for = head.opname == "FOR_ITER"
    if any(stack_nulls):
        return "a NULL call slot is live around the loop"
    base = len(stack_nulls) - is_for   # values under the loop (an outer loop's iterator): untouched
    start = real[at[lo] + 1].offset if is_for else lo
    if is_for:   # the body runs to the loop's exit (3.12+ place a return's code after the closing jump)
        hi = real[next(k for k, i in enumerate(real) if i.offset >= head.argval) - 1].offset
    if _foreign_handlers(code, real, at, lo, start, hi):
        return "a try/with block inside the loop"
    depth = stack_depths(code, real)
    span = [i for i in real if start <= i.offset <= hi]
    if any(i.offset not in depth for i in span):
        return "unreachable code in the loop"
    exits, targets = {}, set()
    for ins in span:
        if ins.opname in _RETURNS:
            if depth[ins.offset] + (ins.opname == "RETURN_CONST") != 1:
                return "a return with values under it on the stack"
            exits[ins.offset] = ("return", 1)
        elif ins.opname.startswith("YIELD") or ins.opname in ("SETUP_FINALLY", "SETUP_WITH"):
            return f"{ins.opname} in the loop"
        elif _is_jump(ins) and not start <= ins.argval <= hi or _is_jump(ins) and ins.argval == lo:
            after = depth[ins.offset] + dis.stack_effect(ins.opcode, ins.arg, jump=True)
            kind = "continue" if ins.argval == lo else "break"
            if kind == "break":
                targets.add(ins.argval)
            exits[ins.offset] = (kind, after)
    for ins in span:
        reach = _REACH.get(ins.opname)
        if reach is not None and depth[ins.offset] - reach(ins.arg or 0) < base + is_for:
            return f"{ins.opname} reaches under the loop's values on the stack"
    last = span[-1]
    if last.opname not in _ALWAYS_JUMPS | _ENDS | _RETURNS:   # a conditional closing jump: falling through leaves
        nxt = real[at[hi] + 1] if at[hi] + 1 < len(real) else None
        if nxt is None:
            return "the loop has no code after it"
        targets.add(nxt.offset)
        exits[None] = ("break", depth[hi] + dis.stack_effect(last.opcode, last.arg, jump=False))
    if len(targets) > 1:
        return "the loop is left for more than one place"
    for kind, d in exits.values():
        want = {"continue": base + is_for, "break": base}.get(kind)
        if want is not None and d != want:
            return f"the stack at a {kind} is not the loop's"
    names = _names(code, span, start, exits, bound)
    if isinstance(names, str):
        return names
    ins_, outs, new, carried, checks, unsure = names
    return LoopBody(lo, start, hi, is_for, ins_, outs, new, next(iter(targets), None), exits, base,
                    carried=carried, checks=checks, maybe_unbound=unsure)


# The handler 3.12+ give an inlined comprehension (it restores the
# comprehension's variable, then re-raises): the only one a body may hold.
_CLEANUP = frozenset(("SWAP", "POP_TOP", "STORE_FAST"))


def _foreign_handlers(code, real, at: dict, lo: int, start: int, hi: int) -> bool:
    """Whether an exception handler other than an inlined comprehension's
    cleanup covers part of the loop (body_code copies that cleanup along)."""
    ranges = exception_ranges(code, instructions(code))
    if not any(a <= hi and lo < b for a, b in ranges):
        return False
    entries = exception_entries(code)
    if len(entries) != len(ranges):   # 3.10's conservative ranges
        return True
    return any(e.start <= hi and lo < e.end and not (start <= e.start and e.end <= hi + 1 and not e.lasti
                                                     and cleanup_block(real, at, e.target) is not None)
               for e in entries)


def cleanup_block(real, at: dict, target: int):
    """The instructions of an inlined comprehension's cleanup handler at
    offset `target` (moves and stores, then RERAISE), or None."""
    k = at.get(target)
    if k is None:
        return None
    block = []
    for ins in real[k:]:
        block.append(ins)
        if ins.opname == "RERAISE":
            return block
        if ins.opname not in _CLEANUP:
            return None
    return None


def _transfer(ins, have: frozenset, fresh: set) -> frozenset:
    if ins.opname not in LOCAL_STORES:
        return have
    names = set(local_names_of(ins)) & fresh
    if ins.opname in ("STORE_FAST_MAYBE_NULL", "DELETE_FAST"):
        return have - names
    return have | names


def _successors(span, k: int, at: dict, exits: dict) -> list:
    """Indices in the body reached after span[k] (exits lead out of it)."""
    ins = span[k]
    if ins.opname in _ENDS or ins.opname in _RETURNS:
        return []
    out = []
    if _is_jump(ins) and ins.offset not in exits:
        out.append(at[ins.argval] if ins.argval in at else next(j for j, i in enumerate(span)
                                                                if i.offset >= ins.argval))
    if not (_is_jump(ins) and ins.opname in _ALWAYS_JUMPS) and k + 1 < len(span):
        out.append(k + 1)
    return out


def _names(code, span, start, exits, bound):
    """(ins, outs, new, carried, checks, maybe unbound) for the body, or a string saying why not (see plan)."""
    skip = set(code.co_cellvars) | set(code.co_freevars)
    used = {n for i in span if i.opname in LOCAL_LOADS | LOCAL_STORES for n in local_names_of(i)} - skip
    if explicit_super.first_argument(code) is not None:   # super() reads it without a LOAD_FAST (3.10/3.11)
        used = (used | {explicit_super.first_argument(code)}) - skip
    stored = {n for i in span if i.opname in LOCAL_STORES for n in local_names_of(i)} - skip
    if any(i.opname == "DELETE_FAST" for i in span):
        return "the loop body deletes a local"
    cleared = {n for i in span if i.opname == "LOAD_FAST_AND_CLEAR" for n in local_names_of(i)}
    fresh = stored - set(bound) - cleared
    # Definite assignment of the fresh names, forward over the body (meet: intersection).
    at = {i.offset: k for k, i in enumerate(span)}
    state = {0: frozenset()}
    work = [0]
    while work:
        k = work.pop()
        after = _transfer(span[k], state[k], fresh)
        for j in _successors(span, k, at, exits):
            merged = after if j not in state else state[j] & after
            if state.get(j) != merged:
                state[j] = merged
                work.append(j)
    leaving = []   # definitely bound fresh names at each continue/break
    carried, checks = set(), set()
    for k, have in state.items():
        ins = span[k]
        for n in local_names_of(ins) if ins.opname in LOCAL_LOADS and ins.opname != "LOAD_FAST_AND_CLEAR" else ():
            if n in fresh and n not in have and ins.opname != "STORE_FAST_LOAD_FAST":
                if ins.opname not in _CHECKABLE:
                    return f"the loop body reads {n} before binding it (the previous iteration's value)"
                carried.add(n)
                checks.add(ins.offset)
        kind = exits.get(ins.offset, ("",))[0]
        if kind in ("continue", "break") or (k == len(span) - 1 and None in exits):
            leaving.append(_transfer(ins, have, fresh))
    certain = frozenset.intersection(*leaving) if leaving else frozenset()
    read_after = {n for i in real_instructions(code) if i.offset > span[-1].offset and i.opname in LOCAL_LOADS
                  for n in local_names_of(i)}
    unsure = (fresh & read_after) - certain   # carried too: UNBOUND until an iteration binds them
    carried |= unsure
    order = list(code.co_varnames)
    ins_ = [n for n in order if n in used and (n in bound or n in carried)]
    new = [n for n in order if n in fresh and n in read_after]
    outs = [n for n in order if n in stored and n in bound] + [n for n in order if n in carried and n not in new] + new
    return ins_, outs, new, [n for n in order if n in carried], frozenset(checks), [n for n in order if n in unsure]


def statement_start(code: types.CodeType, head: int) -> int | None:
    """The offset where the `for` statement of the loop at `head` starts (its
    iterable about to be computed, the stack empty), or None: a graph stopped
    there leaves the iterator to the native code (one the runner cannot
    rebuild, such as a lazy zip over arrays)."""
    real = real_instructions(code)
    depth = stack_depths(code, real)
    pos = next(k for k, i in enumerate(real) if i.offset == head)
    start = next((k for k in range(pos - 1, -1, -1) if depth.get(real[k].offset) == 0), None)
    if start is None:
        return None
    lo = real[start].offset
    if any(_is_jump(i) and lo < i.argval < head for i in real):
        return None   # entered in the middle
    if any(i.opname in LOCAL_STORES or i.opname in _RETURNS or _is_jump(i) for i in real[start:pos]):
        return None   # binds a name (walrus) or branches on the way to the loop
    return lo


def touches_arrays(body: LoopBody, executor, f_globals: dict) -> bool:
    """Whether the body may compute on arrays, from what the simulation
    holds at the loop head: its locals, the stack (the iterator), the
    frame's cells, the globals it loads. A body of Python values only is
    not worth a function call per iteration (its loop runs natively whole)."""
    from ..executor.variables import TensorVariable
    values = [executor.locals[n] for n in body.ins if n in executor.locals]
    values += [c.contents for c in executor.cells.values() if c.contents is not None]
    values += list(executor.stack)
    if any(_may_hold_arrays(v, TensorVariable) for v in values):
        return True
    raw = [executor.lazy_locals[n][0] for n in body.ins if n in executor.lazy_locals]
    code = executor.code
    real = real_instructions(code)
    raw += [f_globals[i.argval] for i in real if body.start <= i.offset <= body.back_edge
            and i.opname == "LOAD_GLOBAL" and i.argval in f_globals]
    return any(_raw_may_hold_arrays(v) for v in raw)


_PLAIN = (int, float, bool, complex, str, bytes, type(None), range, slice,
          type(iter(range(0))), type(iter(range(1 << 70))))   # range iterators yield ints


def _may_hold_arrays(var, tensor_type, depth: int = 0) -> bool:
    from ..executor.variables import (
        BuiltinVariable, ClassVariable, ConstVariable, DictVariable, IteratorVariable, ListVariable, ModuleVariable,
        NumpyCallableVariable, SymScalarVariable, TupleVariable, UserFunctionVariable,
    )
    if isinstance(var, (tensor_type, ModuleVariable, NumpyCallableVariable)):  # arrays, or what makes them
        return True
    if depth > 3 or isinstance(var, (ConstVariable, SymScalarVariable, BuiltinVariable, UserFunctionVariable,
                                     ClassVariable)):
        return isinstance(var, ConstVariable) and not isinstance(var.value, _PLAIN) and depth <= 3
    if isinstance(var, ListVariable) and not var.loaded:
        return True   # a list from outside, not read yet: not loaded here (that would guard it)
    if isinstance(var, (TupleVariable, ListVariable)):
        return any(_may_hold_arrays(v, tensor_type, depth + 1) for v in var.items[:64])
    if isinstance(var, DictVariable):
        return any(_may_hold_arrays(v, tensor_type, depth + 1) for v in list(var.entries.values())[:64])
    if isinstance(var, IteratorVariable):
        rest = var.remaining()
        return rest is None or any(_may_hold_arrays(v, tensor_type, depth + 1) for v in rest[:64])
    return getattr(var, "value", None) is None or not isinstance(var.value, _PLAIN)


def _raw_may_hold_arrays(value, depth: int = 0) -> bool:
    if isinstance(value, (types.ModuleType, np.ufunc)):   # np.zeros, np.tanh...: what makes arrays
        return True
    if isinstance(value, _PLAIN) or callable(value) and not hasattr(value, "__dict__") \
            or isinstance(value, (types.FunctionType, type)):
        return False
    if depth > 3:
        return True
    if isinstance(value, (list, tuple)):
        return any(_raw_may_hold_arrays(v, depth + 1) for v in value[:64])
    if isinstance(value, dict):
        return any(_raw_may_hold_arrays(v, depth + 1) for v in list(value.values())[:64])
    return True   # arrays, and objects that may hold them


# ---- the body function -------------------------------------------------------------------

def body_code(original: types.CodeType, body: LoopBody) -> types.CodeType:
    """The function a loop body becomes (built once per LoopBody)."""
    if body.code is not None:
        return body.code
    key = (body.start, body.back_edge, tuple(body.ins), tuple(body.outs), tuple(body.carried))
    per_code = _body_cache.get(original)
    if per_code is None:
        per_code = _body_cache[original] = {}
    if key in per_code:
        body.code = per_code[key]
        return body.code
    from .resume import _abstract, _cell_as_free, _copy_metadata
    bc, where = _abstract(original)
    items = list(bc)
    a, b = where[body.start], where[body.back_edge]
    span = items[a:b + 1]
    inside = {id(item) for item in span if isinstance(item, Label)}
    offset_of = {where[off]: off for off in where}
    stubs: dict = {}

    def stub(kind, d):
        return stubs.setdefault((kind, d), Label())

    out = []
    for k, item in enumerate(span, start=a):
        if not isinstance(item, Instr):
            out.append(item)
            continue
        off = offset_of.get(k)
        if item.name == "MAKE_CELL":
            continue
        item = _cell_as_free(item)
        if off in body.checks:
            out += _unbound_check(item)
        if off in body.exits:
            kind, d = body.exits[off]
            if kind == "return":   # in place (see the module's doc)
                if item.name == "RETURN_CONST":
                    out.append(Instr("LOAD_CONST", item.arg, lineno=item.lineno))
                out += _exit_stub(kind, d, body, item.lineno)
                continue
            name = _TO_FORWARD.get(item.name, item.name)
            if name.startswith("POP_JUMP_IF_") and _FORWARD_IF != "POP_JUMP_IF_":
                name = _FORWARD_IF + name[len("POP_JUMP_IF_"):]
            out.append(Instr(name, stub(kind, d), lineno=item.lineno))
            continue
        if isinstance(item.arg, Label) and id(item.arg) not in inside:
            raise ValueError("a jump leaves the loop body unexpectedly")
        out.append(item)
    lineno = next((i.lineno for i in span if isinstance(i, Instr) and i.lineno), original.co_firstlineno)
    if None in body.exits:
        out.append(Instr("JUMP_FORWARD", stub(*body.exits[None]), lineno=lineno))
    for (kind, d), label in stubs.items():
        out.append(label)
        out += _exit_stub(kind, d, body, lineno)
    out += _cleanup_handlers(span, items)
    args = ([ITEM] if body.is_for else []) + list(body.ins)
    new = type(bc)()
    _copy_metadata(new, bc, args)
    new.cellvars = []
    new.freevars = list(original.co_freevars) + list(original.co_cellvars)
    head = codegen.prologue(original, nfree=len(new.freevars))
    # the stack as the original's inside the loop: stand-ins for the values under
    # the loop and for the iterator, and the item
    head += [Instr("LOAD_CONST", None) for _ in range(body.base + body.is_for)]
    if body.is_for:
        head += [Instr("LOAD_FAST", ITEM), Instr("DELETE_FAST", ITEM)]
    for i in head:
        i.lineno = lineno
    new.extend(head + explicit_super.make_explicit(out, original))
    code = codegen.patch_closure_loads(assemble.to_code(new, original, bc))
    body.code = per_code[key] = code
    from .resume import RESUME_ORIGIN, RESUME_OWN_CELLS
    RESUME_OWN_CELLS[code] = tuple(original.co_cellvars)
    RESUME_ORIGIN[code] = RESUME_ORIGIN.get(original, (original, None))[0], body.start
    LOOP_BODIES[code] = lineno
    _hook.mark_loop_body(code)   # its frame's traceback entry stands for the user's (csrc/traceback_fixup.h)
    return code


def _cleanup_handlers(span: list, items: list) -> list:
    """The handler blocks (outside the loop) of the try ranges in `span`:
    inlined comprehensions' cleanups, ending in RERAISE (plan checked)."""
    inside = {id(item) for item in span}
    out = []
    for begin in span:
        if type(begin).__name__ != "TryBegin" or id(begin.target) in inside:
            continue
        k = next(k for k, item in enumerate(items) if item is begin.target)
        block = items[k:next(j for j in range(k, len(items))
                             if isinstance(items[j], Instr) and items[j].name == "RERAISE") + 1]
        out += block
        inside |= {id(item) for item in block}
    return out


def _unbound_check(load: Instr) -> list:
    """Before `load` of a carried name: delete it when it holds UNBOUND, so
    that the load raises eager's UnboundLocalError."""
    load.name = _LOAD_CHECKED   # 3.12+: a plain LOAD_FAST does not check
    ins = unbind_if_unbound(load.arg)
    for i in ins:
        if isinstance(i, Instr):
            i.lineno = load.lineno
    return ins


def unbind_if_unbound(name: str) -> list:
    """``if name is UNBOUND: del name``."""
    ok = Label()
    return [Instr("LOAD_FAST", name), Instr("LOAD_CONST", UNBOUND), Instr("IS_OP", 0),
            Instr(_FORWARD_IF + "FALSE", ok), Instr("DELETE_FAST", name), ok]


def outer_name(body: LoopBody, name: str) -> str:
    """The replacement's local a body parameter or result is passed through."""
    return CARRIED + name if name in body.carried else name


def _exit_stub(kind: str, depth: int, body: LoopBody, lineno) -> list:
    """Leave the body function: `return (value, stopped, returned, *outs)`;
    a return's value is the one value on the stack (plan checks it)."""
    if kind == "return":
        ins = []
    else:
        ins = [Instr("POP_TOP") for _ in range(depth)] + [Instr("LOAD_CONST", None)]
    ins += [Instr("LOAD_CONST", kind != "continue"), Instr("LOAD_CONST", kind == "return")]
    if kind == "return":
        ins += [Instr("LOAD_CONST", None) for _ in body.outs]
    else:
        ins += [Instr("LOAD_FAST", n) for n in body.outs]
    ins += [Instr("BUILD_TUPLE", 3 + len(body.outs)), Instr("RETURN_VALUE")]
    for i in ins:
        i.lineno = lineno
    return ins


# ---- the loop in the replacement ------------------------------------------------------------

def substitute(items: list, bc, where: dict, original: types.CodeType, body: LoopBody):
    """In `items` (the original's instructions, to be run natively), replace
    the body span by a call of the body function. Returns (the item where the
    loop is entered, the label at the break target or None). Positions are
    found by identity, so edits made before and after by the caller hold."""
    code = body_code(original, body)
    first, last, head = bc[where[body.start]], bc[where[body.back_edge]], bc[where[body.head]]
    lineno = first.lineno
    target_label = None
    if body.break_target is not None:
        target_item = bc[where[body.break_target]]
        target_label = Label()
        k = _index(items, target_item)
        items.insert(k, target_label)
    a, b = _index(items, first), _index(items, last)
    loop_label = Label()
    call = _call_body(code, body, original)
    call += [Instr("UNPACK_SEQUENCE", 3 + len(body.outs)), Instr("STORE_FAST", _VALUE),
             Instr("STORE_FAST", _STOP), Instr("STORE_FAST", _RETURNED)]
    for n in body.outs:
        call.append(Instr("STORE_FAST", outer_name(body, n)))
        if n in body.carried and n in body.new:   # read after the loop: bound in the frame too, once bound
            unbound = Label()
            call += [Instr("LOAD_FAST", outer_name(body, n)), Instr("LOAD_CONST", UNBOUND), Instr("IS_OP", 0),
                     Instr(_FORWARD_IF + "TRUE", unbound), Instr("LOAD_FAST", outer_name(body, n)),
                     Instr("STORE_FAST", n), unbound]
    if body.new:
        call += [Instr("LOAD_CONST", True), Instr("STORE_FAST", RAN)]
    stopped = Label()
    call += [Instr("LOAD_FAST", _STOP), Instr(_FORWARD_IF + "TRUE", stopped), Instr(_JUMP_BACK, loop_label),
             stopped]
    if body.is_for:
        call.append(Instr("POP_TOP"))   # the iterator
    if target_label is not None:
        call += [Instr("LOAD_FAST", _RETURNED), Instr(_FORWARD_IF + "FALSE", target_label)]
    call += [Instr("LOAD_FAST", _VALUE), Instr("RETURN_VALUE")]
    for i in call:
        if isinstance(i, Instr):
            i.lineno = lineno
    items[a:b + 1] = call
    # Made once before the loop: the body function (over this frame's cells) and the ran flag.
    init = codegen.closure_function(code, original.co_cellvars) + [Instr("STORE_FAST", _FN)]
    for n in body.carried:
        init += [Instr("LOAD_CONST", UNBOUND), Instr("STORE_FAST", outer_name(body, n))]
    if body.new:
        init += [Instr("LOAD_CONST", False), Instr("STORE_FAST", RAN)]
    for i in init:
        i.lineno = head.lineno
    k = _index(items, head) if body.is_for else a   # a while loop's head is the body's first instruction
    items[k:k] = init + [loop_label]
    return init[0], target_label


def _call_body(code, body: LoopBody, original) -> list:
    args = ([Instr("STORE_FAST", ITEM)] if body.is_for else [])
    loads = ([Instr("LOAD_FAST", ITEM)] if body.is_for else []) + [Instr("LOAD_FAST", outer_name(body, n))
                                                                    for n in body.ins]
    return args + codegen.call_local(_FN, loads, len(loads))


def _index(items: list, obj) -> int:
    return next(k for k, item in enumerate(items) if item is obj)


def label(code: types.CodeType) -> str | None:
    """``"loop body, line 7"`` for a body function, else None."""
    line = LOOP_BODIES.get(code)
    return None if line is None else f"loop body, line {line}"
