"""`with` blocks.

Entering calls the context manager's `__enter__` and keeps its bound
`__exit__` on the stack, as CPython does; leaving normally is the ordinary
call `__exit__(None, None, None)` the compiler emits, and an exception
raised in the trace reaches the handler code, whose WITH_EXCEPT_START calls
`__exit__(type, value, tb)` (handlers/exceptions.py). Both are looked up on
the type (special-method lookup), and only for plain Python classes whose
methods are Python functions (inlined); `@contextmanager` functions and
`np.errstate` are modelled (executor/contexts.py). An error raised by a
graph op at run time reruns the frame natively, and an uncapturable step
inside the block splits the frame there, the resume function re-entering
the block (breaks/tries.py).
"""
import inspect
import types

from ...breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .. import classes, contexts, exceptions
from ..variables import ObjectVariable
from ._registry import handler


def _special(ex, manager, name: str):
    if isinstance(manager, classes.NewObjectVariable):
        cls = manager.cls
    elif isinstance(manager, ObjectVariable):
        cls = type(manager.value)
    else:
        raise FallbackError(UNSUPPORTED_OBJECT, f"`with` over {manager.describe()} is not simulated")
    try:
        attr = inspect.getattr_static(cls, name)
    except AttributeError:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{manager.describe()} has no {name} (eager raises)") from None
    if not isinstance(attr, types.FunctionType):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{name} of {manager.describe()} is not a Python function")
    return classes.class_level(ex, cls, name, attr, manager)


def _enter(ex, instr, setup_block: bool):
    manager = ex.pop()
    if isinstance(manager, contexts.MODELLED):
        exit_ = contexts.ContextMethodVariable(manager, "exit")
        enter = contexts.ContextMethodVariable(manager, "enter")
    else:
        exit_ = _special(ex, manager, "__exit__")
        enter = _special(ex, manager, "__enter__")
    ex.push(exit_)
    entered = ex.call_function(enter, [], {})
    if setup_block:  # 3.10: the handler block starts above __exit__
        ex.blocks.append((exceptions.SETUP, instr.argval, len(ex.stack)))
    ex.push(entered)


@handler("BEFORE_WITH")
def before_with(ex, instr):
    _enter(ex, instr, False)


@handler("SETUP_WITH")
def setup_with(ex, instr):
    _enter(ex, instr, True)
