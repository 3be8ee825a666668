"""Calls and function creation, across the 3.10–3.13 call protocols.

The callable sits below the arguments in one slot (3.10 CALL_FUNCTION) or
two (CALL_METHOD, and 3.11+ CALL: NULL + callable, callable + NULL, or
method + self). `pop_callable` reads both layouts the same way.
"""
from ...breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..opcode_table import FACTS, MAKE_FUNCTION_FLAGS
from ..variables import (
    NULL, ConstVariable, DictVariable, TupleVariable, UserFunctionVariable,
)
from ._registry import handler


def pop_callable(ex, slots: int, args: list):
    if slots == 1:
        return ex.pop(), args
    a, b = ex.popn(2)
    if a is NULL:
        return b, args
    if b is NULL:
        return a, args
    return a, [b] + args


def do_call(ex, fn, args, kwargs):
    ex.push(ex.call_function(fn, args, kwargs))


def split_kwargs(args: list, names: tuple):
    if not names:
        return args, {}
    n = len(names)
    return args[:-n], dict(zip(names, args[-n:]))


@handler("CALL_FUNCTION")
def call_function(ex, instr):
    args = ex.popn(instr.arg)
    fn, args = pop_callable(ex, 1, args)
    do_call(ex, fn, args, {})


@handler("CALL_FUNCTION_KW")
def call_function_kw(ex, instr):
    names = ex.pop().value if isinstance(ex.peek(), ConstVariable) else tuple(v.value for v in ex.pop().items)
    args, kwargs = split_kwargs(ex.popn(instr.arg), names)
    fn, args = pop_callable(ex, 1, args)
    do_call(ex, fn, args, kwargs)


@handler("CALL_METHOD")
def call_method(ex, instr):
    args = ex.popn(instr.arg)
    fn, args = pop_callable(ex, 2, args)
    do_call(ex, fn, args, {})


@handler("KW_NAMES")
def kw_names(ex, instr):
    # 3.11's dis does not resolve the operand: it indexes co_consts.
    names = instr.argval
    ex.kw_names = names if isinstance(names, tuple) else ex.code.co_consts[instr.arg]


@handler("CALL")
def call(ex, instr):
    names, ex.kw_names = ex.kw_names or (), None
    args, kwargs = split_kwargs(ex.popn(instr.arg), names)
    fn, args = pop_callable(ex, 2, args)
    do_call(ex, fn, args, kwargs)


@handler("CALL_KW")
def call_kw(ex, instr):
    names_var = ex.pop()
    names = tuple(v.value for v in names_var.items) if isinstance(names_var, TupleVariable) else names_var.value
    args, kwargs = split_kwargs(ex.popn(instr.arg), names)
    fn, args = pop_callable(ex, 2, args)
    do_call(ex, fn, args, kwargs)


@handler("CALL_FUNCTION_EX")
def call_function_ex(ex, instr):
    kwargs_var = ex.pop() if instr.arg & 1 else DictVariable({})
    args_var = ex.pop()
    if not isinstance(kwargs_var, DictVariable) or not isinstance(args_var, TupleVariable):
        from .. import dispatch
        args_var = TupleVariable(dispatch.get_iter(ex.graph, args_var).items)
        if not isinstance(kwargs_var, DictVariable):
            raise FallbackError(UNSUPPORTED_OBJECT, f"** of {kwargs_var.describe()}")
    fn, args = pop_callable(ex, 2 if FACTS.call_has_null_slot else 1, list(args_var.items))
    do_call(ex, fn, args, dict(kwargs_var.entries))


@handler("MAKE_FUNCTION")
def make_function(ex, instr):
    qualname = ex.pop().value if FACTS.make_function_pops_qualname else None
    code = ex.pop().value
    fn = UserFunctionVariable(code, ex.globals, code.co_name, globals_tracker=ex.globals_tracker)
    fn.qualname = qualname or getattr(code, "co_qualname", code.co_name)
    if FACTS.make_function_flags_in_arg:
        for attr, bit in MAKE_FUNCTION_FLAGS:
            if instr.arg & bit:
                set_function_attribute(fn, attr, ex.pop())
    ex.push(fn)


@handler("SET_FUNCTION_ATTRIBUTE")
def set_function_attribute_op(ex, instr):
    fn = ex.pop()
    value = ex.pop()
    for attr, bit in MAKE_FUNCTION_FLAGS:
        if instr.arg == bit:
            set_function_attribute(fn, attr, value)
    ex.push(fn)


def set_function_attribute(fn: UserFunctionVariable, attr: str, value) -> None:
    if attr == "closure":
        fn.closure = tuple(value.items)
    elif attr == "defaults":
        fn.defaults = tuple(value.items)
    elif attr == "kwdefaults":
        fn.kwdefaults = dict(value.entries)
    else:   # annotations do not change behaviour; a function rebuilt without them would differ
        fn.annotated = True
