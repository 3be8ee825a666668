"""Every CPython-version difference the simulator and code generator rely on.

Handlers are written once per meaning and read these facts; nothing else in
`sot.executor` tests `sys.version_info`.
"""
from __future__ import annotations

import dis
import sys
from dataclasses import dataclass

from .._codemap import RecentCodes

PY = sys.version_info[:2]


@dataclass(frozen=True)
class VersionFacts:
    # CALL-like instructions: 3.11+ keep two slots below the arguments
    # (NULL + callable, or method + self); 3.10 keeps one (the callable).
    call_has_null_slot: bool
    # LOAD_GLOBAL's low arg bit requests a NULL push (3.11+).
    load_global_null_bit: bool
    # LOAD_ATTR's low arg bit means "method load" (3.12+; 3.10/3.11 use LOAD_METHOD).
    load_attr_method_bit: bool
    # Whether the NULL goes below (3.11/3.12) or above (3.13) the callable.
    null_after_callable: bool
    # An exhausted FOR_ITER leaves something for END_FOR to pop (3.12+), and
    # END_FOR pops the iterator too on 3.12 (3.13 follows it with POP_TOP).
    for_iter_exhaust_pushes: bool
    end_for_pops: int
    # Generated code starts with RESUME (3.11+); free vars need COPY_FREE_VARS.
    has_resume: bool
    # 3.11 needs PRECALL before CALL.
    has_precall: bool
    # Cell objects are loaded with LOAD_CLOSURE (a pseudo-op from 3.13 on).
    load_closure_is_real: bool
    # Instructions between an exhausted FOR_ITER's target and the loop's
    # continuation: END_FOR on 3.12, END_FOR + POP_TOP on 3.13.
    for_exit_skip: int
    # MAKE_FUNCTION: 3.10 pops a qualname; before 3.13 its arg holds the
    # attribute flags (3.13 sets them with SET_FUNCTION_ATTRIBUTE).
    make_function_pops_qualname: bool
    make_function_flags_in_arg: bool
    # Cell variables are created by MAKE_CELL (3.11+) rather than at frame entry.
    cells_made_by_instruction: bool
    # Exceptions: 3.11+ find the handler in the code's exception table (zero-cost
    # try); 3.10 keeps a block stack (SETUP_FINALLY/SETUP_WITH push, POP_BLOCK
    # pops) and a handler receives six values (the previous exception's
    # traceback, value, type, then the raised one's).
    exception_table: bool
    # WITH_EXCEPT_START finds the bound __exit__ this deep on the stack.
    with_exit_depth: int
    # yield from: SEND leaves the receiver under the return value for END_SEND
    # to pop (3.12+); 3.11's SEND pops it itself; 3.10 has YIELD_FROM instead.
    send_keeps_receiver: bool
    # Pattern matching: 3.10's MATCH_KEYS and MATCH_CLASS also push a bool
    # (MATCH_CLASS leaves the subject under it on failure); 3.11+ push the
    # values tuple or None (MATCH_CLASS pops subject and class).
    match_pushes_bool: bool
    # generator.close() returns the value the generator returned on GeneratorExit (3.13+; None before).
    gen_close_returns_value: bool


FACTS = VersionFacts(
    call_has_null_slot=PY >= (3, 11),
    load_global_null_bit=PY >= (3, 11),
    load_attr_method_bit=PY >= (3, 12),
    null_after_callable=PY >= (3, 13),
    for_iter_exhaust_pushes=PY >= (3, 12),
    end_for_pops=2 if PY == (3, 12) else 1,
    for_exit_skip={(3, 12): 1, (3, 13): 2}.get(PY, 0),
    has_resume=PY >= (3, 11),
    has_precall=PY == (3, 11),
    load_closure_is_real=PY < (3, 13),
    make_function_pops_qualname=PY < (3, 11),
    make_function_flags_in_arg=PY < (3, 13),
    cells_made_by_instruction=PY >= (3, 11),
    exception_table=PY >= (3, 11),
    with_exit_depth=4 if PY >= (3, 11) else 7,
    send_keeps_receiver=PY >= (3, 12),
    match_pushes_bool=PY < (3, 11),
    gen_close_returns_value=PY >= (3, 13),
)

# MAKE_FUNCTION / SET_FUNCTION_ATTRIBUTE flag bits, popped in this order.
MAKE_FUNCTION_FLAGS = (("closure", 0x08), ("annotations", 0x04), ("kwdefaults", 0x02), ("defaults", 0x01))

# Binary operators by the symbol dis prints (3.11+ BINARY_OP argrepr) and by
# the 3.10 opcode name; both map to the operator-module name used by the IR.
BINARY_SYMBOLS = {
    "+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv",
    "%": "mod", "**": "pow", "@": "matmul", "&": "and_", "|": "or_",
    "^": "xor", "<<": "lshift", ">>": "rshift",
}
INPLACE_SYMBOLS = {sym + "=": "i" + name.rstrip("_") for sym, name in BINARY_SYMBOLS.items()}

BINARY_OPCODES_310 = {
    "BINARY_ADD": "add", "BINARY_SUBTRACT": "sub", "BINARY_MULTIPLY": "mul",
    "BINARY_TRUE_DIVIDE": "truediv", "BINARY_FLOOR_DIVIDE": "floordiv",
    "BINARY_MODULO": "mod", "BINARY_POWER": "pow", "BINARY_MATRIX_MULTIPLY": "matmul",
    "BINARY_AND": "and_", "BINARY_OR": "or_", "BINARY_XOR": "xor",
    "BINARY_LSHIFT": "lshift", "BINARY_RSHIFT": "rshift",
}
INPLACE_OPCODES_310 = {
    "INPLACE_" + k[len("BINARY_"):]: "i" + v.rstrip("_") for k, v in BINARY_OPCODES_310.items()
}

COMPARE_SYMBOLS = {"<": "lt", "<=": "le", "==": "eq", "!=": "ne", ">": "gt", ">=": "ge"}

# CALL_INTRINSIC_1 operands (3.12+), by dis's name for them.
INTRINSIC_LIST_TO_TUPLE = "INTRINSIC_LIST_TO_TUPLE"
INTRINSIC_UNARY_POSITIVE = "INTRINSIC_UNARY_POSITIVE"
INTRINSIC_STOPITERATION_ERROR = "INTRINSIC_STOPITERATION_ERROR"


def binary_op_name(instr: dis.Instruction) -> str:
    """Operator-module name of a BINARY_OP / BINARY_* / INPLACE_* instruction."""
    if instr.opname == "BINARY_OP":
        sym = instr.argrepr
        return BINARY_SYMBOLS.get(sym) or INPLACE_SYMBOLS[sym]
    return BINARY_OPCODES_310.get(instr.opname) or INPLACE_OPCODES_310[instr.opname]


def compare_op_name(instr: dis.Instruction) -> str:
    # 3.13 may decorate argrepr as "bool(<)"; argval is the plain symbol.
    return COMPARE_SYMBOLS[instr.argval]


_DECODED = RecentCodes(64)


def instructions(code) -> list[dis.Instruction]:
    """``dis.get_instructions(code)`` as a new list. Decoded once per code
    for the latest codes: planning one break decodes its code a dozen times
    (a third of a first call's time went to dis)."""
    return list(_DECODED.get(code, lambda: tuple(dis.get_instructions(code))))


def line_table(code) -> dict[int, int]:
    """Bytecode offset -> source line, for every instruction offset."""
    table = {}
    for start, end, line in code.co_lines():
        for off in range(start, end, 2):
            table[off] = line
    return table


# -- graph breaks -------------------------------------------------------------
# Instructions a graph break may run natively: opname -> (consumed, pushed)
# stack slots, as functions of the instruction's arg. Instructions not listed
# (jumps, loops, returns, loads that push NULL) end translation instead.
_CALL_SLOTS = 2 if FACTS.call_has_null_slot else 1
BREAKABLE = {
    "CALL": (lambda a: a + 2, 1),
    "CALL_KW": (lambda a: a + 3, 1),
    "CALL_FUNCTION": (lambda a: a + 1, 1),
    "CALL_FUNCTION_KW": (lambda a: a + 2, 1),
    "CALL_METHOD": (lambda a: a + 2, 1),
    "CALL_FUNCTION_EX": (lambda a: _CALL_SLOTS + 1 + (a & 1), 1),
    **{name: (lambda a: 2, 1) for name in (
        "BINARY_OP", "COMPARE_OP", "BINARY_SUBSCR", "IS_OP", "CONTAINS_OP",
        *BINARY_OPCODES_310, *INPLACE_OPCODES_310)},
    **{name: (lambda a: 1, 1) for name in (
        "UNARY_NEGATIVE", "UNARY_POSITIVE", "UNARY_INVERT", "UNARY_NOT", "TO_BOOL", "GET_ITER")},
    "BINARY_SLICE": (lambda a: 3, 1),
    "STORE_SUBSCR": (lambda a: 3, 0),
    "STORE_SLICE": (lambda a: 4, 0),
    "DELETE_SUBSCR": (lambda a: 2, 0),
    "STORE_ATTR": (lambda a: 2, 0),
    "DELETE_ATTR": (lambda a: 1, 0),
    "STORE_GLOBAL": (lambda a: 1, 0),
    "DELETE_GLOBAL": (lambda a: 0, 0),
    "UNPACK_SEQUENCE": (lambda a: 1, None),  # pushes `arg` values
    "IMPORT_NAME": (lambda a: 2, 1),        # level, fromlist -> module (handlers/imports.py)
    "IMPORT_FROM": (lambda a: 1, 2),        # leaves the module under the name it reads
}

# Conditional jumps on an object's truth: a data-dependent one breaks by
# converting the condition with bool() natively and resuming at the jump.
TRUTH_JUMPS = frozenset((
    "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE",
))

# Backward jumps close loops; a break inside a loop body is not supported yet.
BACKWARD_JUMPS = frozenset((
    "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "POP_JUMP_BACKWARD_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE",
))
# 3.10 has no distinct backward opcodes: any jump to an earlier offset.
ABSOLUTE_JUMPS_310 = frozenset((
    "JUMP_ABSOLUTE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "JUMP_IF_FALSE_OR_POP",
    "JUMP_IF_TRUE_OR_POP",
))
# 3.10 block-stack setup: code after these is inside try/with.
BLOCK_SETUPS_310 = frozenset(("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"))


def loop_ranges(instrs) -> list[tuple[int, int]]:
    """(first, last) offsets of every loop body, from its closing backward jump.
    A backward jump in an except handler (3.11+ place handlers after the code,
    out of line: `continue` or the end of a handler inside a loop) closes no
    loop of its own when the loop it continues has a backward jump in the
    normal flow: its range would take in the code after that loop."""
    edges = []
    for ins in instrs:
        if ins.opname in BACKWARD_JUMPS or (
                ins.opname in ABSOLUTE_JUMPS_310 and isinstance(ins.argval, int) and ins.argval <= ins.offset):
            edges.append((ins.argval, ins.offset))
    if not edges:
        return edges
    normal = _normal_flow(instrs)
    heads = {head for head, at in edges if at in normal}
    return [(head, at) for head, at in edges if at in normal or head not in heads]


_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
_NO_FALLTHROUGH = frozenset(("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD_NO_INTERRUPT",
                             "JUMP", "JUMP_NO_INTERRUPT", "RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS",
                             "RERAISE"))


def _normal_flow(instrs) -> set[int]:
    """Offsets reached from the entry by jumps and fall-through alone (3.11+
    handlers are reached only through the exception table; 3.10's through SETUP_* jumps)."""
    real = [i for i in instrs if i.opname not in ("EXTENDED_ARG", "CACHE")]
    at = {ins.offset: k for k, ins in enumerate(real)}
    seen: set[int] = set()
    work = [0]
    while work:
        k = work.pop()
        while k < len(real) and real[k].offset not in seen:
            ins = real[k]
            seen.add(ins.offset)
            if ins.opcode in _JUMPS and isinstance(ins.argval, int):
                target = at.get(ins.argval)
                if target is None:   # a target inside an EXTENDED_ARG run: the next real instruction
                    target = next((j for j, i in enumerate(real) if i.offset >= ins.argval), None)
                if target is not None:
                    work.append(target)
            if ins.opname in _NO_FALLTHROUGH:
                break
            k += 1
    return seen


LOCAL_STORES = frozenset(("STORE_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST",
                          "STORE_FAST_MAYBE_NULL", "DELETE_FAST"))
LOCAL_LOADS = frozenset(("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_LOAD_FAST",
                         "STORE_FAST_LOAD_FAST", "DELETE_FAST"))


def local_names_of(ins) -> tuple:
    """The local names an instruction touches (two for the 3.13 superinstructions)."""
    return ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)


def exception_entries(code) -> list:
    """The code's exception table (3.11+): entries with start, end, target,
    depth, lasti; [] on 3.10 (see VersionFacts.exception_table)."""
    return list(getattr(dis.Bytecode(code), "exception_entries", ()))


def exception_ranges(code, instrs) -> list[tuple[int, int]]:
    """Offsets covered by a try/with handler (3.11+ exception table; on 3.10
    everything after the first block setup, conservatively)."""
    try:
        entries = dis.Bytecode(code).exception_entries
    except AttributeError:
        entries = None
    if entries is not None:
        return [(e.start, e.end) for e in entries]
    for ins in instrs:
        if ins.opname in BLOCK_SETUPS_310:
            return [(ins.offset, 1 << 30)]
    return []
