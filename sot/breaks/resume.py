"""Graph breaks: where one may happen, and the code objects that make it work.

A break at instruction *i* of a translated frame turns the frame into:

    guards → [graph of the region before i] → restore stack and locals →
    instruction i run natively → return Resume(resume_fn, *stack, *live_locals)

The hook (sot._C) calls `resume_fn` once the replacement's frame is gone, so
the resumed code runs where the original frame would have: its caller is the
frame's caller, and a traceback shows the user's function once.

`resume_code` builds the resume function: the original code with a prologue
that pushes the saved stack and jumps to the instruction after *i*. The hook
translates it on its first call, like any code, so the code after a break
gets its own graphs. A data-dependent conditional jump breaks by converting
its condition with `bool()` natively and resuming *at* the jump, so the
resume function sees a Python bool and follows (and guards) the branch.

When the graph before the break is smaller than `min_graph_size`, the region
runs natively instead: the replacement is the original code itself with the
resume call spliced in at the break (`native_prefix_code`).

A frame whose locals inner functions capture (cell variables) hands its
cells to the resume function as free variables, so functions made before
the break and the code after it share them.

A break inside a try/with body re-enters the block in both the replacement
and the resume function (breaks/tries.py).

Not supported yet (the frame runs natively, with the reason): breaks inside
except/finally handlers, and functions made in the graph before a break
that are still alive after it.
"""
from __future__ import annotations

import dis
import types
from dataclasses import dataclass

from bytecode import Bytecode, CellVar, FreeVar, Instr, Label

from ..executor import assemble, codegen
from ..executor.opcode_table import (
    BREAKABLE, FACTS, LOCAL_LOADS, LOCAL_STORES, TRUTH_JUMPS, exception_entries, exception_ranges,
    instructions, local_names_of, loop_ranges,
)
from .._codemap import CodeMap
from . import abstract_cache, explicit_super, loop_body
from .regions import _ALWAYS_JUMPS, _ENDS, _is_jump
from .reasons import DataDependent

SOT_PREFIX = "__sot_"           # names of sot's own temporaries in generated code
STACK_PREFIX = SOT_PREFIX + "s"
RESULT_PREFIX = SOT_PREFIX + "r"


@dataclass
class BreakPlan:
    instr: dis.Instruction        # the instruction the break is at
    kind: str                     # "native" (run instr, resume after), "bool" (resume at instr),
                                  # "loop" (run the loop at instr natively, resume at its exit), or
                                  # "region" (run the statements from instr to resume_offset natively),
                                  # "try" (instr inside a try/with body: breaks/tries.py)
    resume_offset: int | None     # None: the rest of the code runs natively (no resume function)
    layout_before: list[bool]     # stack slots before instr; True = NULL
    layout_after: list[bool]      # stack slots the resume function receives
    pushed: int = 0               # values the native instruction leaves on top
    native_stores: frozenset = frozenset()  # locals the native part binds
    body: object = None           # "loop": the loop body as a function (loop_body.LoopBody), or None
    blocks: tuple = ()            # "try" on 3.10: (handler offset, stack level) of each enclosing block
    entry_bound: tuple | None = None  # locals bound where the native part starts (set by split._split)


def stop_offset(code: types.CodeType, instr: dis.Instruction):
    """Where the graph before a break at `instr` ends: `instr` itself, or the
    head of the outermost loop around it (the whole loop then runs natively).
    Returns (offset, loop range or None), or a string saying why not."""
    introspects = reads_own_frame(code)
    if introspects:
        return (f"{introspects} sees the frame's locals: after a graph break they would be the resume "
                "function's (sot's temporaries, no names bound by exec)")
    instrs = instructions(code)
    off = instr.offset
    loops = [(lo, hi) for lo, hi in loop_ranges(instrs) if lo <= off <= hi]
    if not loops:
        return off, None  # inside a try/with body or not: see breaks/tries.py
    lo, hi = min(loops, key=lambda r: (r[0], -r[1]))
    outer = [(a, b) for a, b in loop_ranges(instrs) if a <= lo and hi <= b]
    lo, hi = min(outer, key=lambda r: (r[0], -r[1]))
    if any(a < lo <= b < hi or lo < a <= hi < b for a, b in exception_ranges(code, instrs)):
        return "the loop around the graph break overlaps a try/with block"
    real = [i for i in instrs if i.opname not in ("EXTENDED_ARG", "CACHE")]
    lo = real[_at_or_after(real, lo)].offset
    return lo, (lo, hi)


def plan_loop(code: types.CodeType, loop: tuple, stack_nulls: list[bool], bound: set, wants_body=None):
    """The loop [head, exit) runs natively, then the resume function takes
    over at its exit; its body, where it can, as a function of its own
    (loop_body.py), so that the body keeps its graphs. A BreakPlan, or a
    string saying why not. `wants_body(body)`: whether a body function is
    worth its call per iteration (default: always)."""
    instrs = instructions(code)
    real = [i for i in instrs if i.opname not in ("EXTENDED_ARG", "CACHE")]
    head = real[_at_or_after(real, loop[0])]
    if head.opname == "FOR_ITER":
        k = _at_or_after(real, head.argval) + FACTS.for_exit_skip
        after = stack_nulls[:-1]  # the iterator is gone after the loop
    else:
        k = _at_or_after(real, loop[1]) + 1
        after = list(stack_nulls)
        if k < len(real) and not _is_loop_exit(code, real, loop, k):
            k = len(real)  # `while True:` left by return (3.12+ inlines the code after a break)
    if any(after):
        return "a NULL call slot is live around the loop"
    if k >= len(real):  # left only by return (`while True:`): no resume function after it
        body = loop_body.plan(code, (head.offset, loop[1]), stack_nulls, bound)
        if isinstance(body, str) or body.break_target is not None or (wants_body and not wants_body(body)):
            return "the loop around the graph break has no code after it"
        return BreakPlan(head, "loop", None, stack_nulls, after, 0, body=body)
    exit_offset = real[k].offset
    inside = [i for i in real if loop[0] <= i.offset < exit_offset]
    stored = {n for i in inside if i.opname in LOCAL_STORES for n in local_names_of(i)}
    if any(i.opname == "DELETE_FAST" for i in inside):
        return "the loop around the graph break deletes a local"
    read_after = {n for i in real if i.offset >= exit_offset and i.opname in LOCAL_LOADS
                  for n in local_names_of(i)}
    body = loop_body.plan(code, (head.offset, loop[1]), stack_nulls, bound)
    if not isinstance(body, str) and wants_body is not None and not wants_body(body):
        body = "it touches no arrays (it runs natively with the loop)"
    if not isinstance(body, str):
        return BreakPlan(head, "loop", exit_offset, stack_nulls, after, 0, body=body)
    maybe_unbound = (stored - bound) & read_after
    if maybe_unbound:
        return (f"the loop around the graph break binds {', '.join(sorted(maybe_unbound))}, "
                f"read after the loop; its body cannot be a function: {body}")
    return BreakPlan(head, "loop", exit_offset, stack_nulls, after, 0)


def _is_loop_exit(code: types.CodeType, real: list, loop: tuple, k: int) -> bool:
    """Whether real[k], after a while loop's back edge, is where the loop
    goes on: the back edge falls through to it (3.10's conditional back edge)
    or a jump inside the loop targets it, and it is no exception handler
    (3.11+ place a handler there when the loop, such as `while True:`, is
    only left by return)."""
    offset = real[k].offset
    if any(e.target == offset for e in exception_entries(code)):  # none on 3.10 (SETUP_* targets)
        return False
    if real[k - 1].opname not in _ALWAYS_JUMPS | _ENDS:
        return True
    return any(_is_jump(i) and not i.opname.startswith("SETUP_") and i.argval == offset
               for i in real if loop[0] <= i.offset <= loop[1])


# Calls that see the calling frame's locals (or bind names in them): in a
# resume function they would see another frame, so such a code never breaks.
FRAME_READERS = {"LOAD_GLOBAL": ("locals", "vars", "dir", "eval", "exec", "breakpoint"),
                 "LOAD_NAME": ("locals", "vars", "dir", "eval", "exec", "breakpoint"),
                 "LOAD_ATTR": ("_getframe", "currentframe", "f_locals"),
                 "LOAD_METHOD": ("_getframe", "currentframe")}


def reads_own_frame(code: types.CodeType) -> str | None:
    """The name of a call in `code` that may read or bind its frame's
    locals (``locals()``, ``vars()``, ``eval``/``exec``, ``sys._getframe``),
    or None."""
    names = set(code.co_names)
    if not any(n in names for ns in FRAME_READERS.values() for n in ns):
        return None
    for ins in instructions(code):
        if ins.argval in FRAME_READERS.get(ins.opname, ()):
            return f"{ins.argval}()" if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") else f".{ins.argval}"
    return None


def _at_or_after(real, offset: int) -> int:
    """Index of the first real instruction at or after `offset` (a jump may
    target the EXTENDED_ARG prefix of an instruction)."""
    return next(k for k, i in enumerate(real) if i.offset >= offset)


def plan_break(code: types.CodeType, instr: dis.Instruction, reason, stack_nulls: list[bool]):
    """A BreakPlan at `instr` itself, or a string saying why a break is not possible."""
    instrs = instructions(code)
    off = instr.offset
    real = [i for i in instrs if i.opname not in ("EXTENDED_ARG", "CACHE")]
    pos = next(k for k, i in enumerate(real) if i.offset == off)
    if instr.opname in TRUTH_JUMPS and isinstance(reason, DataDependent):
        if any(stack_nulls):
            return "a NULL call slot is live at the break"
        return BreakPlan(instr, "bool", off, stack_nulls, stack_nulls)
    if instr.opname not in BREAKABLE or pos + 1 >= len(real):
        return f"cannot break at {instr.opname}"
    consumed, pushed = BREAKABLE[instr.opname]
    n = consumed(instr.arg or 0)
    if not FACTS.call_has_null_slot and any(stack_nulls) and not _method_call_310(instr, stack_nulls):
        return "a NULL call slot is live at the break"
    if pushed is None:
        pushed = instr.arg
    if n > len(stack_nulls):
        return f"cannot break at {instr.opname}: stack shallower than expected"
    after = stack_nulls[:len(stack_nulls) - n] + [False] * pushed
    if any(after):
        return "a NULL call slot is live after the break"
    return BreakPlan(instr, "native", real[pos + 1].offset, stack_nulls, after, pushed)


def _method_call_310(instr, stack_nulls: list[bool]) -> bool:
    """3.10 has no PUSH_NULL: the one NULL we can rebuild is LOAD_METHOD's, below
    the callable of the CALL_METHOD that breaks (it becomes CALL_FUNCTION)."""
    n = instr.arg or 0
    return (instr.opname == "CALL_METHOD" and len(stack_nulls) >= n + 2
            and [j for j, null in enumerate(stack_nulls) if null] == [len(stack_nulls) - n - 2])


def _abstract(code: types.CodeType):
    """Bytecode.from_code(code) and, for each dis offset, its Instr's position;
    the exception table's stack depths as they are (3.11+: see _to_code).
    Decoded once per code (abstract_cache.py): each call gets a copy of its own."""
    keep = FACTS.exception_table
    return abstract_cache.cached(code, keep, lambda: _decode(code, keep))


def _decode(code: types.CodeType, keep_handler_depths: bool):
    bc = Bytecode.from_code(code, conserve_exception_block_stackdepth=keep_handler_depths)
    real = [i for i in instructions(code) if i.opname not in ("EXTENDED_ARG", "CACHE")]
    positions = [k for k, item in enumerate(bc) if isinstance(item, Instr)]
    if len(positions) != len(real):
        raise ValueError("bytecode and dis disagree on the instruction count")
    for ins, k in zip(real, positions):
        if ins.opname != bc[k].name:
            raise ValueError(f"bytecode and dis disagree at {ins.offset}: {ins.opname} vs {bc[k].name}")
    where = {ins.offset: k for ins, k in zip(real, positions)}
    bc, where = codegen.split_superinstructions(bc, where)
    return codegen.closures_as_derefs(bc, code), where


def _copy_metadata(dst: Bytecode, src: Bytecode, arg_names: list[str]) -> None:
    dst.name, dst.filename, dst.first_lineno = src.name, src.filename, src.first_lineno
    if hasattr(src, "qualname"):
        dst.qualname = src.qualname
    dst.flags = src.flags & ~(0x04 | 0x08)  # no *args/**kwargs: everything positional
    dst.argcount = len(arg_names)
    dst.posonlyargcount = 0
    dst.kwonlyargcount = 0
    dst.argnames = list(arg_names)
    dst.docstring = None
    dst.cellvars = list(src.cellvars)


_resume_cache = CodeMap()   # original code -> {(offset, stack layout, locals): resume code}
RESUME_ORIGIN = CodeMap()   # resume code -> (original code, offset), for explain and logs
RESUME_DYNAMIC = CodeMap()  # resume code -> argument names whose values come from array data
RESUME_OWN_CELLS = CodeMap()  # resume code -> the original's cell variables it takes as free
RESUME_AFTER_CLASS = CodeMap()  # resume codes after a class statement (reasons.NewClassStatement)


def resume_code(original: types.CodeType, offset: int, stack_nulls: list[bool],
                local_names: list[str], blocks=(), maybe_unbound=()) -> types.CodeType:
    """The original code, entered at `offset` with the given stack and locals
    (and, on 3.10, the try/with `blocks` set up again: see block_setups);
    the locals in `maybe_unbound` are unbound on entry where they hold
    loop_body.UNBOUND."""
    key = (offset, tuple(stack_nulls), tuple(local_names), tuple(blocks), tuple(maybe_unbound))
    per_code = _resume_cache.get(original)
    if per_code is None:
        per_code = {}
        _resume_cache[original] = per_code
    cached = per_code.get(key)
    if cached is not None:
        return cached
    bc, where = _abstract(original)
    target = Label()
    items = list(bc)
    items.insert(where[offset], target)
    items = [_cell_as_free(i) for i in items if not (isinstance(i, Instr) and i.name == "MAKE_CELL")]
    stack_args = [f"{STACK_PREFIX}{j}" for j, null in enumerate(stack_nulls) if not null]
    new = Bytecode()
    _copy_metadata(new, bc, stack_args + list(local_names))
    # The frame's cells are handed over as they are (inner functions made
    # before the break share them): its cell variables are free here.
    new.cellvars = []
    new.freevars = list(original.co_freevars) + list(original.co_cellvars)
    lineno = original.co_firstlineno
    head = codegen.prologue(original, nfree=len(new.freevars))
    setups = block_setups(bc, where, blocks)
    for j, null in enumerate(stack_nulls):
        head += setups.get(j, [])
        if null:
            head.append(Instr("PUSH_NULL"))
        else:   # on the stack only, as in the original frame
            head += [Instr("LOAD_FAST", f"{STACK_PREFIX}{j}"), Instr("DELETE_FAST", f"{STACK_PREFIX}{j}")]
    head += setups.get(len(stack_nulls), [])
    for name in maybe_unbound:
        head += loop_body.unbind_if_unbound(name)
    head.append(Instr("JUMP_FORWARD", target))
    for i in head:
        if isinstance(i, Instr):
            i.lineno = lineno
    new.extend(head + explicit_super.make_explicit(items, original))
    code = codegen.patch_closure_loads(_to_code(new, original, bc))
    per_code[key] = code
    RESUME_OWN_CELLS[code] = tuple(original.co_cellvars)
    RESUME_ORIGIN[code] = RESUME_ORIGIN.get(original, (original, None))[0], offset
    return code


def _to_code(bc: Bytecode, original: types.CodeType, kept: Bytecode) -> types.CodeType:
    """bc.to_code() without the control-flow analysis (executor/assemble.py):
    `kept` is the decoded original whose instructions `bc` reuses; the
    handlers keep the original's depths (_abstract), which the analysis
    could not find where a jump from the head enters a try range (3.11+)."""
    return assemble.to_code(bc, original, kept)


def block_setups(bc, where: dict, blocks) -> dict[int, list[Instr]]:
    """3.10, entering code inside try/with blocks: stack level -> the
    SETUP_FINALLY instructions to run once that many stack values are pushed,
    so the block stack is the one the simulation had (to the original's own
    handler labels)."""
    setups: dict[int, list[Instr]] = {}
    for handler, level in blocks:
        label = bc[where[handler] - 1]
        if not isinstance(label, Label):
            raise ValueError(f"no label before the handler at {handler}")
        setups.setdefault(level, []).append(Instr("SETUP_FINALLY", label))
    return setups


def _cell_as_free(item):
    if isinstance(item, Instr) and isinstance(item.arg, CellVar):
        return Instr(item.name, FreeVar(item.arg.name), lineno=item.lineno)
    return item


def _store_stack(count: int) -> list[Instr]:
    return [Instr("STORE_FAST", f"{RESULT_PREFIX}{j}") for j in reversed(range(count))]


def _resume_call(resume: types.CodeType, stack_count: int, local_names: list[str]) -> list[Instr]:
    args = [f"{RESULT_PREFIX}{j}" for j in range(stack_count)] + list(local_names)
    return codegen.return_resume(resume, args, RESUME_OWN_CELLS.get(resume, ()))


def compiled_prefix_code(original: types.CodeType, plan: BreakPlan, runner, used_cells: set,
                         local_names: list[str], restored_locals: list[str], resume: types.CodeType,
                         functions=()):
    """Replacement: run `runner` (graph + rebuilt values), restore locals and
    stack, run the breaking instruction natively, call the resume function."""
    bc, where = _abstract(original)
    new = _replacement_bytecode(original)
    ins = _run_and_restore(original, plan, runner, used_cells, restored_locals, functions, local_names)
    if plan.kind == "native":
        k = where[plan.instr.offset]
        ins += [_copy(i) for i in _call_preamble(bc, k)]
        native = _copy(bc[k])
        if any(plan.layout_before) and not FACTS.call_has_null_slot:  # see _method_call_310
            native = Instr("CALL_FUNCTION", native.arg, lineno=native.lineno)
        ins.append(native)
    ins += _store_stack(len(plan.layout_after))
    ins += _resume_call(resume, len(plan.layout_after), local_names)
    return codegen.patch_closure_loads(codegen.finish(new, ins, original.co_firstlineno))


CALL_PREAMBLE = ("KW_NAMES", "PRECALL")  # 3.11/3.12 instructions that belong to the CALL after them


def _call_preamble(bc, k: int) -> list[Instr]:
    """The KW_NAMES/PRECALL instructions directly before the CALL at bc[k]."""
    run = []
    for item in reversed(bc[:k]):
        if not isinstance(item, Instr):
            continue
        if item.name not in CALL_PREAMBLE:
            break
        run.insert(0, item)
    return run


def _copy(instr: Instr) -> Instr:
    return instr.copy()


def loop_region_code(original: types.CodeType, plan: BreakPlan, runner, used_cells: set,
                     local_names: list[str], restored_locals: list[str], resume: types.CodeType,
                     functions=()):
    """Replacement for a break inside a loop: run `runner` (the graph before
    the loop), restore locals and stack, enter the original code at the loop
    head; at the loop's exit the resume function takes over. For a statement
    region the same from its start to its end, and for a break inside a
    try/with body (breaks/tries.py) from the breaking instruction to right
    after it."""
    bc, where = _abstract(original)
    items = list(bc)
    n = len(plan.layout_after)
    entry = _with_body(items, bc, where, original, plan)
    if resume is not None:
        # "try": directly after the instruction, before any label there (no other path reaches it)
        at = where[plan.instr.offset] + 1 if plan.kind == "try" else where[plan.resume_offset]
        exit_at = _position(items, bc[at])
        # bc[at] may be a pseudo-instruction (a TryEnd ending the range): the break's own line then
        line = getattr(bc[at], "lineno", None) or bc[where[plan.instr.offset]].lineno
        items[exit_at:exit_at] = _splice_lines(_exit_resume(plan, resume, n, local_names), line)
    head = Label()
    k = _position(items, entry)
    while plan.kind == "try" and isinstance(items[k - 1], Instr) and items[k - 1].name in CALL_PREAMBLE:
        k -= 1  # a CALL is entered at its KW_NAMES/PRECALL
    items.insert(k, head)
    new = _replacement_bytecode(original)
    # a loop or statement region: arguments the trace unbound (`del a`, a
    # carried name still UNBOUND) are unbound here too; the rest stay bound
    keep = list(plan.entry_bound) if plan.kind in ("loop", "region") and plan.entry_bound is not None else None
    ins = _run_and_restore(original, plan, runner, used_cells, restored_locals, functions, keep,
                           block_setups(bc, where, plan.blocks))
    ins.append(Instr("JUMP_FORWARD", head))
    for i in ins:
        if isinstance(i, Instr) and i.lineno is None:
            i.lineno = original.co_firstlineno
    new.extend(ins + items)
    return codegen.patch_closure_loads(_to_code(new, original, bc))


def _position(items: list, obj) -> int:
    return next(k for k, item in enumerate(items) if item is obj)


def _with_body(items, bc, where, original, plan: BreakPlan):
    """A loop whose body is a function: the body span of `items` replaced by its
    call (loop_body.substitute). Returns the item where the loop is entered."""
    if plan.body is None:
        return bc[where[plan.instr.offset]]
    entry = loop_body.substitute(items, bc, where, original, plan.body)[0]
    # entered at the loop head, or at its `for` statement (split._loop_from_its_statement)
    return entry if plan.instr.offset == plan.body.head else bc[where[plan.instr.offset]]


def _exit_resume(plan: BreakPlan, resume, n: int, local_names: list[str]) -> list:
    """At the loop's exit: the resume call; with names only the loop body binds,
    the resume function taking them when the body ran, the other when not."""
    body = plan.body
    if body is None or not body.new:
        return _store_stack(n) + _resume_call(resume, n, local_names)
    not_ran = Label()
    passed = [loop_body.outer_name(body, name) if name in body.maybe_unbound else name for name in body.live_full]
    return ([Instr("LOAD_FAST", loop_body.RAN), Instr(loop_body._FORWARD_IF + "FALSE", not_ran)]
            + _store_stack(n) + _resume_call(body.resume_full, n, passed)
            + [not_ran] + _store_stack(n) + _resume_call(resume, n, local_names))


def _run_and_restore(original, plan: BreakPlan, runner, used_cells, restored_locals, functions,
                     unbind_names, setups=None) -> list[Instr]:
    """A replacement's entry: call the runner, restore locals, cells, rebuilt
    functions and the stack, unbind what eager's frame no longer holds
    (see _unbind), and let the unrun frame drop its arguments."""
    cells = original.co_cellvars
    ins = codegen.prologue(original, cells=cells) + codegen.calling_instrs(original, runner, used_cells, cells)
    ins += _restore(plan.layout_before, restored_locals, cells, functions, setups or {}, original.co_freevars)
    ins += _unbind(original, plan.layout_before, unbind_names)
    return ins + codegen.release_frame_args()


def _replacement_bytecode(original: types.CodeType) -> Bytecode:
    new = codegen.new_bytecode(original, codegen.uniform_arg_names(original))
    new.cellvars = list(original.co_cellvars)
    return new


@dataclass
class RebuiltFunction:
    """A function made by the frame before the break, alive after it: made
    again by the replacement over its own cells (see split._split)."""
    names: list          # the locals/cells that hold it
    code: types.CodeType
    qualname: str
    closure: list        # the cell variable or free variable name of each of its cells
    defaults: str | None  # the restored local holding its defaults tuple


def _store(name: str, cells, free=()) -> Instr:
    if name in free:  # a nonlocal the graph before the break wrote (executor/cell_writes.py)
        return Instr("STORE_DEREF", FreeVar(name))
    return Instr("STORE_DEREF", CellVar(name)) if name in cells else Instr("STORE_FAST", name)


def _restore(layout: list[bool], restored_locals: list[str], cells=(), functions=(),
             setups=None, free=()) -> list[Instr]:
    """Unpack the runner's tuple (locals and cell contents, then stack values),
    make the functions again, and push the stack (with 3.10's block `setups`
    at their levels)."""
    setups = setups or {}
    stack_vals = [j for j, null in enumerate(layout) if not null]
    ins = [Instr("UNPACK_SEQUENCE", len(restored_locals) + len(stack_vals))]
    ins += [_store(name, cells, free) for name in restored_locals]
    ins += [Instr("STORE_FAST", f"{STACK_PREFIX}{j}") for j in stack_vals]
    for f in functions:
        refs = [CellVar(n) if n in cells else FreeVar(n) for n in f.closure]
        ins += codegen.make_function(f.code, f.qualname, refs, f.defaults)
        for name in f.names[1:]:
            ins.append(Instr("COPY", 1) if FACTS.call_has_null_slot else Instr("DUP_TOP"))
        ins += [_store(name, cells, free) for name in f.names]
    for j, null in enumerate(layout):
        ins += setups.get(j, [])
        if not null:
            ins.append(Instr("LOAD_FAST", f"{STACK_PREFIX}{j}"))
        elif FACTS.call_has_null_slot:
            ins.append(Instr("PUSH_NULL"))
    return ins + setups.get(len(layout), [])


def _unbind(original: types.CodeType, layout: list[bool], local_names: list[str] | None) -> list[Instr]:
    """After _restore: unbind the arguments the region before the break
    unbound (`del x`, a resume function's stack arguments) and the stack
    temporaries, so that the frame holds what eager's holds. With
    `local_names` None only the temporaries: the original code runs on
    (a loop or statement region) and its LOAD_FASTs expect its locals bound."""
    names = [n for n in codegen.uniform_arg_names(original)
             if local_names is not None and n not in local_names
             and n not in original.co_cellvars]  # a cell is restored as it is
    names += [f"{STACK_PREFIX}{j}" for j, null in enumerate(layout) if not null]
    return [Instr("DELETE_FAST", n) for n in dict.fromkeys(names)]


def _splice_lines(splice: list, lineno) -> list:
    for i in splice:
        if isinstance(i, Instr) and i.lineno is None:
            i.lineno = lineno
    return splice


PROLOGUE_OPS = ("RESUME", "COPY_FREE_VARS", "MAKE_CELL", "NOP")


def native_prefix_code(original: types.CodeType, plan: BreakPlan, local_names: list[str],
                       resume: types.CodeType) -> types.CodeType:
    """Replacement: the original code, natively, with the resume call spliced
    in at the break (used when the graph before it would be too small)."""
    bc, where = _abstract(original)
    items = list(bc)
    k = where[plan.instr.offset]
    n = len(plan.layout_after)
    lineno = bc[k].lineno
    if plan.kind in ("native", "try"):
        splice = _store_stack(n) + _resume_call(resume, n, local_names) if resume is not None else []
        items[k + 1:k + 1] = splice
    elif plan.kind in ("loop", "region"):
        _with_body(items, bc, where, original, plan)
        if resume is not None:
            lineno = bc[where[plan.resume_offset]].lineno
            k = _position(items, bc[where[plan.resume_offset]])
            splice = _exit_resume(plan, resume, n, local_names)
            items[k:k] = splice
        else:
            splice = []  # everything after the graph runs natively
    else:
        top = f"{RESULT_PREFIX}{n - 1}"
        splice = _store_stack(n)
        splice += codegen.call_const(bool, [Instr("LOAD_FAST", top)], 1) + [Instr("STORE_FAST", top)]
        splice += _resume_call(resume, n, local_names)
        items[k:k] = splice
    for i in splice:
        if isinstance(i, Instr) and i.lineno is None:
            i.lineno = lineno
    # no runner: the arguments can go from the start (after RESUME)
    start = next(j for j, i in enumerate(items) if isinstance(i, Instr) and i.name not in PROLOGUE_OPS)
    release = codegen.release_frame_args()
    for i in release:
        i.lineno = original.co_firstlineno
    items[start:start] = release
    new = Bytecode()
    _copy_metadata(new, bc, codegen.uniform_arg_names(original))
    new.freevars = list(original.co_freevars)
    new.extend(items)
    return codegen.patch_closure_loads(_to_code(new, original, bc))
