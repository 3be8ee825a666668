"""Every CPython-version difference the simulator and code generator rely on.

Handlers are written once per meaning and read these facts; nothing else in
`sot.executor` tests `sys.version_info`.
"""
from __future__ import annotations

import dis
import sys
from dataclasses import dataclass

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
    # MAKE_FUNCTION: 3.10 pops a qualname; before 3.13 its arg holds the
    # attribute flags (3.13 sets them with SET_FUNCTION_ATTRIBUTE).
    make_function_pops_qualname: bool
    make_function_flags_in_arg: bool
    # Cell variables are created by MAKE_CELL (3.11+) rather than at frame entry.
    cells_made_by_instruction: bool


FACTS = VersionFacts(
    call_has_null_slot=PY >= (3, 11),
    load_global_null_bit=PY >= (3, 11),
    load_attr_method_bit=PY >= (3, 12),
    null_after_callable=PY >= (3, 13),
    for_iter_exhaust_pushes=PY >= (3, 12),
    end_for_pops=2 if PY == (3, 12) else 1,
    has_resume=PY >= (3, 11),
    has_precall=PY == (3, 11),
    load_closure_is_real=PY < (3, 13),
    make_function_pops_qualname=PY < (3, 11),
    make_function_flags_in_arg=PY < (3, 13),
    cells_made_by_instruction=PY >= (3, 11),
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


def binary_op_name(instr: dis.Instruction) -> str:
    """Operator-module name of a BINARY_OP / BINARY_* / INPLACE_* instruction."""
    if instr.opname == "BINARY_OP":
        sym = instr.argrepr
        return BINARY_SYMBOLS.get(sym) or INPLACE_SYMBOLS[sym]
    return BINARY_OPCODES_310.get(instr.opname) or INPLACE_OPCODES_310[instr.opname]


def compare_op_name(instr: dis.Instruction) -> str:
    # 3.13 may decorate argrepr as "bool(<)"; argval is the plain symbol.
    return COMPARE_SYMBOLS[instr.argval]


def instructions(code) -> list[dis.Instruction]:
    return list(dis.get_instructions(code))


def line_table(code) -> dict[int, int]:
    """Bytecode offset -> source line, for every instruction offset."""
    table = {}
    for start, end, line in code.co_lines():
        for off in range(start, end, 2):
            table[off] = line
    return table
