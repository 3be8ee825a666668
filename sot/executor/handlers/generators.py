"""Opcodes of a generator's own frame (see executor/generators.py)."""
from ..signals import YieldSignal
from ..variables import ConstVariable
from ._registry import handler


@handler("RETURN_GENERATOR")
def return_generator(ex, instr):
    ex.push(ConstVariable(None))  # resumed by next(): the sent None, popped by the POP_TOP after


@handler("GEN_START")
def gen_start(ex, instr):
    pass  # 3.10: pops the first sent None, which the simulation never pushed


@handler("YIELD_VALUE")
def yield_value(ex, instr):
    raise YieldSignal(ex.pop())
