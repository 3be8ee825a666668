"""Stack shuffling and instructions that do nothing under simulation."""
from ._registry import handler
from ..opcode_table import FACTS
from ..variables import NULL


@handler("NOP", "RESUME", "PRECALL", "CACHE", "EXTENDED_ARG", "COPY_FREE_VARS",
         "NOT_TAKEN", "RESUME_CHECK")
def nop(ex, instr):
    pass  # COPY_FREE_VARS is done at frame entry


@handler("POP_TOP")
def pop_top(ex, instr):
    ex.pop()


@handler("PUSH_NULL")
def push_null(ex, instr):
    ex.push(NULL)


@handler("ROT_TWO")
def rot_two(ex, instr):
    ex.stack[-1], ex.stack[-2] = ex.stack[-2], ex.stack[-1]


@handler("ROT_THREE")
def rot_three(ex, instr):
    ex.stack[-3:] = [ex.stack[-1], ex.stack[-3], ex.stack[-2]]


@handler("ROT_FOUR")
def rot_four(ex, instr):
    ex.stack[-4:] = [ex.stack[-1]] + ex.stack[-4:-1]


@handler("ROT_N")
def rot_n(ex, instr):
    n = instr.arg
    ex.stack[-n:] = [ex.stack[-1]] + ex.stack[-n:-1]


@handler("DUP_TOP")
def dup_top(ex, instr):
    ex.push(ex.peek())


@handler("DUP_TOP_TWO")
def dup_top_two(ex, instr):
    ex.stack.extend(ex.stack[-2:])


@handler("COPY")
def copy(ex, instr):
    ex.push(ex.peek(instr.arg))


@handler("SWAP")
def swap(ex, instr):
    n = instr.arg
    ex.stack[-1], ex.stack[-n] = ex.stack[-n], ex.stack[-1]


@handler("END_FOR")
def end_for(ex, instr):
    # 3.12 pops the iterator and the exhaustion marker; 3.13 only the marker
    # (a POP_TOP follows), matching what FOR_ITER left (see opcode_table).
    ex.popn(FACTS.end_for_pops)
