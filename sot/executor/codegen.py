"""Building replacement code objects with the `bytecode` package.

A replacement runs in place of an intercepted frame (see csrc/eval_frame_hook.c):
it receives the frame's argument vector as plain positional parameters and
the original closure. The code built here calls a Python callable with
`(globals(), a0, ..., an, cells...)` and returns its result; each used free
variable is passed as a fresh cell holding its current contents.
"""
from __future__ import annotations

import types

from bytecode import Bytecode, FreeVar, Instr

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


def uniform_arg_names(code: types.CodeType) -> list[str]:
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    return list(code.co_varnames[:n])


def make_calling_code(original: types.CodeType, target, used_cells: set[int]) -> types.CodeType:
    """Code with `original`'s uniform signature whose body is
    `return target(globals(), *args, *cells)`."""
    arg_names = uniform_arg_names(original)
    bc = Bytecode()
    bc.name = original.co_name
    bc.filename = original.co_filename
    bc.first_lineno = original.co_firstlineno
    if hasattr(original, "co_qualname"):
        bc.qualname = original.co_qualname
    bc.argcount = len(arg_names)
    bc.argnames = arg_names
    bc.freevars = list(original.co_freevars)
    lineno = original.co_firstlineno
    ins: list[Instr] = []
    if FACTS.has_resume:
        if original.co_freevars:
            ins.append(Instr("COPY_FREE_VARS", len(original.co_freevars), lineno=lineno))
        ins.append(Instr("RESUME", 0, lineno=lineno))
    ins += _push_callable(target)
    ins += _push_callable(globals) + _call(0)
    for name in arg_names:
        ins.append(Instr("LOAD_FAST", name))
    for i, name in enumerate(original.co_freevars):
        if i in used_cells:
            ins += _push_callable(types.CellType) + [Instr("LOAD_DEREF", FreeVar(name))] + _call(1)
        else:
            ins.append(Instr("LOAD_CONST", None))
    ins += _call(1 + len(arg_names) + len(original.co_freevars))
    ins.append(Instr("RETURN_VALUE"))
    for i in ins:
        if i.lineno is None:
            i.lineno = lineno
    bc.extend(ins)
    return bc.to_code()
