"""Building replacement code objects with the `bytecode` package.

A replacement runs in place of an intercepted frame (see csrc/eval_frame_hook.c):
it receives the frame's argument vector as plain positional parameters and
the original closure. The code built here calls a Python callable with
`(globals(), a0, ..., an, cells...)` and returns its result; each used free
variable is passed as a fresh cell holding its current contents.
"""
from __future__ import annotations

import dis
import types

from bytecode import Bytecode, CellVar, FreeVar, Instr

from .. import _hook
from . import assemble
from .opcode_table import FACTS


def _call(n: int) -> list[Instr]:
    ins = [Instr("PRECALL", n)] if FACTS.has_precall else []
    ins.append(Instr("CALL", n) if FACTS.call_has_null_slot else Instr("CALL_FUNCTION", n))
    return ins


def _push_callable(obj) -> list[Instr]:
    if not FACTS.call_has_null_slot:
        return [Instr("LOAD_CONST", obj)]
    if FACTS.null_after_callable:
        return [Instr("LOAD_CONST", obj), Instr("PUSH_NULL")]
    return [Instr("PUSH_NULL"), Instr("LOAD_CONST", obj)]


def call_const(obj, arg_instrs: list, nargs: int) -> list[Instr]:
    """Instructions calling the constant `obj` with arguments pushed by `arg_instrs`."""
    return _push_callable(obj) + list(arg_instrs) + _call(nargs)


def new_function(code: types.CodeType) -> list[Instr]:
    """Push a function made from `code` and the running frame's globals."""
    ins = [Instr("LOAD_CONST", code)]
    if FACTS.make_function_pops_qualname:
        ins.append(Instr("LOAD_CONST", code.co_qualname if hasattr(code, "co_qualname") else code.co_name))
    ins.append(Instr("MAKE_FUNCTION", 0) if FACTS.make_function_flags_in_arg else Instr("MAKE_FUNCTION"))
    return ins


def _closure_of(code: types.CodeType, own_cells=()) -> list[Instr]:
    """Push the tuple of the running frame's cells for `code`'s free variables
    (`own_cells`: names that are the running code's cell variables, not free).

    3.13 has no LOAD_CLOSURE (the compiler emits LOAD_FAST on the cell's
    slot, which the bytecode package cannot express): there a LOAD_DEREF is
    emitted and `patch_closure_loads` turns it into LOAD_FAST afterwards."""
    op = "LOAD_CLOSURE" if FACTS.load_closure_is_real else "LOAD_DEREF"
    ins = [Instr(op, CellVar(name) if name in own_cells else FreeVar(name)) for name in code.co_freevars]
    return ins + [Instr("BUILD_TUPLE", len(code.co_freevars))]


def patch_closure_loads(built: types.CodeType) -> types.CodeType:
    """3.13: the LOAD_DEREFs feeding a closure tuple load the cells themselves
    (LOAD_FAST on the cell's slot, as the compiler emits it). Every function
    made in `built` is patched: generated code and original code copied
    through `closures_as_derefs`."""
    if FACTS.load_closure_is_real:
        return built
    raw = bytearray(built.co_code)
    instrs = list(dis.get_instructions(built))
    for k, ins in enumerate(instrs[:-3]):
        const = instrs[k + 1]
        if ins.opname != "BUILD_TUPLE" or const.opname != "LOAD_CONST" or \
                not isinstance(const.argval, types.CodeType) or ins.arg != len(const.argval.co_freevars) or \
                instrs[k + 2].opname != "MAKE_FUNCTION" or not _sets_closure(instrs[k + 3:]):
            continue
        for load in instrs[k - ins.arg:k]:
            if load.opname == "LOAD_DEREF":
                raw[load.offset] = dis.opmap["LOAD_FAST"]
            elif load.opname != "LOAD_FAST":
                raise AssertionError(f"a closure tuple loads with {load.opname}")
    return built.replace(co_code=bytes(raw))


def _sets_closure(after: list) -> bool:
    """Whether the SET_FUNCTION_ATTRIBUTEs after a MAKE_FUNCTION set its closure."""
    for ins in after:
        if ins.opname != "SET_FUNCTION_ATTRIBUTE":
            return False
        if ins.arg == 0x08:
            return True
    return False


def closures_as_derefs(bc, code: types.CodeType):
    """3.13: the original's closure loads (LOAD_FAST on a cell or free slot,
    which the bytecode package would turn into a plain local of that name in
    any other layout) as LOAD_DEREF of the cell; patch_closure_loads turns
    them back once the new code is built. In place; returns `bc`."""
    if FACTS.load_closure_is_real:
        return bc
    cells, free = set(code.co_cellvars), set(code.co_freevars)
    for k, item in enumerate(bc):
        if isinstance(item, Instr) and item.name == "LOAD_FAST" and isinstance(item.arg, str) \
                and (item.arg in cells or item.arg in free):
            ref = CellVar(item.arg) if item.arg in cells else FreeVar(item.arg)
            bc[k] = Instr("LOAD_DEREF", ref, location=item.location)
    return bc


def make_function(code: types.CodeType, qualname: str, closure: list, defaults_local: str | None) -> list[Instr]:
    """Push a function of `code` made in the running frame, as MAKE_FUNCTION
    made it: `closure` the CellVar/FreeVar of each cell it takes, its
    defaults tuple in the local `defaults_local` (or none)."""
    ins, flags = [], 0
    if defaults_local is not None:
        ins.append(Instr("LOAD_FAST", defaults_local))
        flags |= 0x01
    if closure:
        op = "LOAD_CLOSURE" if FACTS.load_closure_is_real else "LOAD_DEREF"  # see patch_closure_loads
        ins += [Instr(op, ref) for ref in closure] + [Instr("BUILD_TUPLE", len(closure))]
        flags |= 0x08
    ins.append(Instr("LOAD_CONST", code))
    if FACTS.make_function_pops_qualname:
        ins.append(Instr("LOAD_CONST", qualname))
    if FACTS.make_function_flags_in_arg:
        return ins + [Instr("MAKE_FUNCTION", flags)]
    ins.append(Instr("MAKE_FUNCTION"))
    return ins + [Instr("SET_FUNCTION_ATTRIBUTE", bit) for bit in (0x08, 0x01) if flags & bit]


def closure_function(code: types.CodeType, own_cells=()) -> list[Instr]:
    """Push a function of `code` over the running frame's cells for its free
    variables (`own_cells`: the running code's cell variables among them)."""
    ins = new_function(code)
    if code.co_freevars:
        if FACTS.make_function_flags_in_arg:
            ins = _closure_of(code, own_cells) + ins
            ins[-1] = Instr("MAKE_FUNCTION", 0x08)
        else:
            ins = _closure_of(code, own_cells) + ins + [Instr("SET_FUNCTION_ATTRIBUTE", 0x08)]
    return ins


def call_local(name: str, arg_instrs: list, nargs: int) -> list[Instr]:
    """Instructions calling the callable in local `name` with arguments pushed by `arg_instrs`."""
    load = Instr("LOAD_FAST", name)
    if not FACTS.call_has_null_slot:
        head = [load]
    elif FACTS.null_after_callable:
        head = [load, Instr("PUSH_NULL")]
    else:
        head = [Instr("PUSH_NULL"), load]
    return head + list(arg_instrs) + _call(nargs)


def return_resume(code: types.CodeType, arg_names: list[str], own_cells=()) -> list[Instr]:
    """`return Resume(<function from code, with this frame's closure>, *arg_names)`:
    the hook makes the call once this frame is gone (see sot/_hook.py).
    `own_cells`: the running code's cell variables that `code` takes as free."""
    ins = closure_function(code, own_cells)
    ins += [Instr("LOAD_FAST", name) for name in arg_names]
    return call_const(_hook.Resume, ins, 1 + len(arg_names)) + [Instr("RETURN_VALUE")]


def release_frame_args() -> list[Instr]:
    """`_hook.release_frame_args()`: from here on the replacement's own
    frame is the only one holding the arguments (see csrc, run_replacement),
    so user code that drops one frees it as eagerly."""
    return call_const(_hook.release_frame_args, [], 0) + [Instr("POP_TOP")]


def prologue(code: types.CodeType, nfree: int | None = None, cells=()) -> list[Instr]:
    """The entry instructions of generated code: MAKE_CELL for its cell
    variables `cells` (3.11+; 3.10 makes them at frame entry), then
    COPY_FREE_VARS for its `nfree` free variables (default: `code`'s)."""
    nfree = len(code.co_freevars) if nfree is None else nfree
    ins = []
    if FACTS.has_resume:
        ins += [Instr("MAKE_CELL", CellVar(name)) for name in cells]
        if nfree:
            ins.append(Instr("COPY_FREE_VARS", nfree))
        ins.append(Instr("RESUME", 0))
    return ins


def uniform_arg_names(code: types.CodeType) -> list[str]:
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    return list(code.co_varnames[:n])


def calling_instrs(original: types.CodeType, target, used_cells: set[int], cells=()) -> list[Instr]:
    """Push `target(globals(), *args, *cells)` (each used cell passed as a fresh cell).
    `cells`: the running code's cell variables (an argument among them is read from its cell)."""
    ins = _push_callable(target) + _push_callable(globals) + _call(0)
    arg_names = uniform_arg_names(original)
    ins += [Instr("LOAD_DEREF", CellVar(name)) if name in cells else Instr("LOAD_FAST", name)
            for name in arg_names]
    for i, name in enumerate(original.co_freevars):
        if i in used_cells:
            ins += _push_callable(types.CellType) + [Instr("LOAD_DEREF", FreeVar(name))] + _call(1)
        else:
            ins.append(Instr("LOAD_CONST", None))
    return ins + _call(1 + len(arg_names) + len(original.co_freevars))


def new_bytecode(original: types.CodeType, arg_names: list[str]) -> Bytecode:
    """An empty Bytecode named like `original`, taking `arg_names` positionally."""
    bc = Bytecode()
    bc.name = original.co_name
    bc.filename = original.co_filename
    bc.first_lineno = original.co_firstlineno
    if hasattr(original, "co_qualname"):
        bc.qualname = original.co_qualname
    bc.argcount = len(arg_names)
    bc.argnames = list(arg_names)
    bc.freevars = list(original.co_freevars)
    return bc


def finish(bc: Bytecode, ins: list, lineno: int) -> types.CodeType:
    for i in ins:
        if isinstance(i, Instr) and i.lineno is None:
            i.lineno = lineno
    bc.extend(ins)
    return assemble.to_code(bc)


def make_calling_code(original: types.CodeType, target, used_cells: set[int], stores=()) -> types.CodeType:
    """Code with `original`'s uniform signature whose body is
    `return target(globals(), *args, *cells)`; with `stores` (free variable
    names), `*new, result = target(...)`, each name's cell set to its value."""
    bc = new_bytecode(original, uniform_arg_names(original))
    ins = prologue(original) + calling_instrs(original, target, used_cells)
    if stores:
        ins.append(Instr("UNPACK_SEQUENCE", len(stores) + 1))
        ins += [Instr("STORE_DEREF", FreeVar(name)) for name in stores]
    ins.append(Instr("RETURN_VALUE"))
    return finish(bc, ins, original.co_firstlineno)


# 3.13 superinstructions pack two local indices in 4 bits each: in rebuilt
# code, where locals are renumbered, an index may reach 16, so each is
# written as its two plain instructions.
SUPERINSTRUCTIONS = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}


def split_superinstructions(bc: Bytecode, where: dict | None = None):
    """`bc` without superinstructions; `where` (offset -> item index) follows."""
    where = where or {}
    if not any(isinstance(i, Instr) and i.name in SUPERINSTRUCTIONS for i in bc):
        return bc, where
    index_of = {k: off for off, k in where.items()}
    items, new_where = [], {}
    for k, item in enumerate(bc):
        if k in index_of:
            new_where[index_of[k]] = len(items)
        if isinstance(item, Instr) and item.name in SUPERINSTRUCTIONS:
            first, second = SUPERINSTRUCTIONS[item.name]
            a, b = item.arg
            items.append(Instr(first, a, lineno=item.lineno))
            items.append(Instr(second, b, lineno=item.lineno))
        else:
            items.append(item)
    out = Bytecode(items)
    for attr in ("name", "filename", "first_lineno", "qualname", "flags", "argcount", "posonlyargcount",
                 "kwonlyargcount", "argnames", "cellvars", "freevars", "docstring"):
        if hasattr(bc, attr):
            setattr(out, attr, getattr(bc, attr))
    return out, new_where
