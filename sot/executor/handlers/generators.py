"""Opcodes of a generator's own frame (see executor/generators.py)."""
from ...breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .. import dispatch
from ..generators import GeneratorVariable
from ..opcode_table import FACTS
from ..signals import YieldSignal
from ..variables import ConstVariable, IteratorVariable
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


# -- yield from: the delegating generator passes each item (and each sent
# value) through; the sub-iterator's return value is what `yield from` evaluates to.

@handler("GET_YIELD_FROM_ITER")
def get_yield_from_iter(ex, instr):
    ex.push(dispatch.get_iter(ex.graph, ex.pop()))


def _send(receiver, value):
    """The receiver's next item after `value` is sent in, or None when it returned."""
    if not isinstance(receiver, IteratorVariable):
        raise FallbackError(UNSUPPORTED_OBJECT, f"yield from {receiver.describe()}")
    if isinstance(value, ConstVariable) and value.value is None:
        return receiver.next()
    if not isinstance(receiver, GeneratorVariable):
        raise FallbackError(UNSUPPORTED_OBJECT, f"send() through yield from to {receiver.describe()} (eager raises)")
    return receiver.send(value)


def _returned(receiver):
    value = getattr(receiver, "returned", None)  # a GeneratorVariable's return value
    return value if value is not None else ConstVariable(None)


@handler("SEND")
def send(ex, instr):
    item = _send(ex.peek(2), ex.peek(1))
    if item is not None:
        ex.stack[-1] = item  # YIELD_VALUE follows
        return
    if not FACTS.send_keeps_receiver:
        ex.pop()
    ex.stack[-1] = _returned(ex.peek(2) if FACTS.send_keeps_receiver else ex.peek())
    ex.jump_to(instr.argval)


@handler("END_SEND")
def end_send(ex, instr):
    ex.stack[-2:] = ex.stack[-1:]  # drop the receiver under the return value


@handler("YIELD_FROM")
def yield_from(ex, instr):
    value = ex.pop()  # 3.10: the sent value, then the receiver stays until it returns
    item = _send(ex.peek(), value)
    if item is not None:
        ex.pc -= 1  # resumed, YIELD_FROM runs again with what is sent then
        raise YieldSignal(item)
    ex.stack[-1] = _returned(ex.peek())
