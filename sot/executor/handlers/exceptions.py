"""Opcodes of try/except/finally and of `with`'s exceptional exit (the model
is in executor/exceptions.py; version differences in opcode_table)."""
from ...breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .. import exceptions
from ..dispatch import const
from ..opcode_table import FACTS
from ..signals import RaiseSignal
from ..variables import ConstVariable
from ._registry import handler


def _handled(ex):
    return ex.exc_info if ex.exc_info is not None else exceptions.OUTER


@handler("RAISE_VARARGS")
def raise_varargs(ex, instr):
    if instr.arg == 0:  # bare `raise`: the exception being handled
        exc = _handled(ex)
        if not isinstance(exc, exceptions.ExceptionVariable):
            raise FallbackError(UNSUPPORTED_OBJECT, "bare raise of an exception from outside the trace")
        raise RaiseSignal(exc)
    cause = ex.pop() if instr.arg == 2 else None
    exc = exceptions.exception_of(ex, ex.pop())
    if cause is not None:   # `raise exc from cause`: the exception object never leaves the trace
        if not (isinstance(cause, ConstVariable) and cause.value is None):
            cause = exceptions.exception_of(ex, cause)
        exc.cause, exc.suppress_context = cause, True
    exceptions.set_context(ex, exc)   # an explicit raise chains again, even of a caught exception
    raise RaiseSignal(exc)


@handler("RERAISE")
def reraise(ex, instr):
    if FACTS.exception_table:
        exc = ex.pop()   # the value below it (f_lasti, arg > 0) stays
    else:
        exc = ex.popn(3)[1]   # tb, value, type
    if not isinstance(exc, exceptions.ExceptionVariable):
        raise FallbackError(UNSUPPORTED_OBJECT, f"re-raise of {exc.describe()}")
    raise RaiseSignal(exc)


@handler("PUSH_EXC_INFO")
def push_exc_info(ex, instr):
    exc = ex.pop()
    ex.push(_handled(ex))
    ex.push(exc)
    ex.exc_info = exc


@handler("POP_EXCEPT")
def pop_except(ex, instr):
    if FACTS.exception_table:
        ex.exc_info = exceptions.restored(ex.pop())
    else:
        exceptions.pop_except_310(ex)


@handler("CHECK_EXC_MATCH")
def check_exc_match(ex, instr):
    classinfo = ex.pop()
    ex.push(const(exceptions.matches(ex.peek().python_type(), classinfo)))


@handler("JUMP_IF_NOT_EXC_MATCH")
def jump_if_not_exc_match(ex, instr):
    classinfo, raised = ex.pop(), ex.pop()   # 3.10: the raised exception's class
    if not exceptions.matches(raised.value, classinfo):
        ex.jump_to(instr.argval)


@handler("WITH_EXCEPT_START")
def with_except_start(ex, instr):
    exit_ = ex.peek(FACTS.with_exit_depth)
    exc = ex.peek(1) if FACTS.exception_table else ex.peek(2)
    tb = exceptions.TracebackVariable()
    ex.push(ex.call_function(exit_, [exceptions.class_variable(ex, exc), exc, tb], {}))


@handler("LOAD_ASSERTION_ERROR")
def load_assertion_error(ex, instr):
    ex.push(exceptions.class_variable_of(ex, AssertionError))


@handler("SETUP_FINALLY")
def setup_finally(ex, instr):
    ex.blocks.append((exceptions.SETUP, instr.argval, len(ex.stack)))  # 3.10 only


@handler("POP_BLOCK")
def pop_block(ex, instr):
    ex.blocks.pop()  # 3.10 only
