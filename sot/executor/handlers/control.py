"""Jumps, loops and returns. Branches on Python values are followed (the
values are guarded); a branch on array data is data-dependent."""
from ...breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .. import dispatch, user_protocols
from ..signals import ReturnSignal
from ..opcode_table import FACTS
from ..variables import NULL, ConstVariable, IteratorVariable
from ._registry import handler, unsupported


@handler("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP",
         "JUMP_NO_INTERRUPT")
def jump(ex, instr):
    ex.jump_to(instr.argval)


def _truth(ex, v) -> bool:
    return user_protocols.truth(ex, v)   # a user object's __bool__/__len__ inlined


def _is_none(ex, v) -> bool:
    return dispatch.is_op(v, ConstVariable(None))


POP_JUMPS = {
    "POP_JUMP_IF_FALSE": lambda ex, v: not _truth(ex, v),
    "POP_JUMP_IF_TRUE": lambda ex, v: _truth(ex, v),
    "POP_JUMP_FORWARD_IF_FALSE": lambda ex, v: not _truth(ex, v),
    "POP_JUMP_FORWARD_IF_TRUE": lambda ex, v: _truth(ex, v),
    "POP_JUMP_BACKWARD_IF_FALSE": lambda ex, v: not _truth(ex, v),
    "POP_JUMP_BACKWARD_IF_TRUE": lambda ex, v: _truth(ex, v),
    "POP_JUMP_IF_NONE": _is_none,
    "POP_JUMP_IF_NOT_NONE": lambda ex, v: not _is_none(ex, v),
    "POP_JUMP_FORWARD_IF_NONE": _is_none,
    "POP_JUMP_FORWARD_IF_NOT_NONE": lambda ex, v: not _is_none(ex, v),
    "POP_JUMP_BACKWARD_IF_NONE": _is_none,
    "POP_JUMP_BACKWARD_IF_NOT_NONE": lambda ex, v: not _is_none(ex, v),
}


@handler(*POP_JUMPS)
def pop_jump(ex, instr):
    if POP_JUMPS[instr.opname](ex, ex.pop()):
        ex.jump_to(instr.argval)


@handler("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP")
def jump_or_pop(ex, instr):
    want = instr.opname == "JUMP_IF_TRUE_OR_POP"
    if _truth(ex, ex.peek()) == want:
        ex.jump_to(instr.argval)
    else:
        ex.pop()


@handler("GET_ITER")
def get_iter(ex, instr):
    obj = ex.pop()
    it = user_protocols.get_iter(ex, obj)
    ex.push(it if it is not None else dispatch.get_iter(ex.graph, obj))


@handler("FOR_ITER")
def for_iter(ex, instr):
    it = ex.peek()
    if not isinstance(it, IteratorVariable):
        raise FallbackError(UNSUPPORTED_OBJECT, f"iteration over {it.describe()}")
    item = it.next()
    if item is not None:
        ex.push(item)
        return
    if FACTS.for_iter_exhaust_pushes:
        ex.push(NULL)  # END_FOR (and 3.13's POP_TOP) pop what is left
    else:
        ex.pop()
    ex.jump_to(instr.argval)


@handler("RETURN_VALUE")
def return_value(ex, instr):
    raise ReturnSignal(ex.pop())


@handler("RETURN_CONST")
def return_const(ex, instr):
    from .names import const_variable
    raise ReturnSignal(const_variable(ex, instr.argval))


unsupported("exception groups, throw() into generators and async code are not simulated",
            "CHECK_EG_MATCH", "CLEANUP_THROW", "PREP_RERAISE_STAR", "SETUP_CLEANUP",
            "BEFORE_ASYNC_WITH", "SETUP_ASYNC_WITH", "ASYNC_GEN_WRAP", "EXIT_INIT_CHECK",
            "INTERPRETER_EXIT", "ENTER_EXECUTOR", "RESERVED", "INSTRUMENTED_LINE")
unsupported("coroutines are not simulated",
            "GET_AWAITABLE", "GET_AITER", "GET_ANEXT", "END_ASYNC_FOR", "SETUP_ASYNC_WITH",
            "BEFORE_ASYNC_WITH", "ASYNC_GEN_WRAP", "CALL_INTRINSIC_1_ASYNC")
