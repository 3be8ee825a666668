"""`contextlib.ExitStack` made in the trace, modelled rather than inlined
(its library code keeps a deque of closures and reads sys.exc_info()).

`ExitStackVariable` holds what was pushed, in order: exit functions
(`enter_context(cm)`'s `__exit__`, `push(exit)`) and callbacks
(`callback(fn, *args, **kwds)`). Leaving the `with` block, or `close()`,
runs them last-in first-out as `ExitStack.__exit__` does: an exit function
gets the exception details and, returning true, suppresses the exception
(later ones then see none); a callback gets nothing and never suppresses.
`pop_all()` moves them to a new stack.

Where one of them raises, CPython chains the exceptions through the rest
of the stack; that is not modelled: the frame runs natively. A stack that
outlives the graph (returned, stored, alive across a break) cannot be
rebuilt either: output.py then runs the region natively.
"""
from __future__ import annotations

import contextlib

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from .exceptions import ExceptionVariable
from .signals import RaiseSignal
from .variables import BoundMethodVariable, BuiltinMethodVariable, ConstVariable, UserFunctionVariable, Variable
from .variables.modelled import ModelledObject

_METHODS = frozenset(("enter_context", "callback", "push", "pop_all", "close"))


class ExitStackVariable(ModelledObject, Variable):
    def __init__(self, pushed=None):
        Variable.__init__(self, None)
        # ("exit", fn): fn(exc_type, exc, tb); ("callback", fn, args, kwargs): fn(*args, **kwargs)
        self.pushed: list[tuple] = list(pushed or [])

    def python_type(self):
        return contextlib.ExitStack

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return "contextlib.ExitStack()"

    # -- the `with` statement (handlers/blocks.py, through contexts.MODELLED) --------------

    def enter(self, executor, args, kwargs) -> Variable:
        return self

    def exit(self, executor, args, kwargs) -> Variable:
        kind, value, tb = args
        received = not (isinstance(value, ConstVariable) and value.value is None)
        if received and not isinstance(value, ExceptionVariable):
            raise FallbackError(UNSUPPORTED_OBJECT, f"ExitStack.__exit__ with {value.describe()}")
        details = [kind, value, tb]
        suppressed = False
        while self.pushed:
            entry = self.pushed.pop()
            try:
                if entry[0] == "callback":
                    executor.call_function(entry[1], list(entry[2]), dict(entry[3]))
                    continue
                result = executor.call_function(entry[1], list(details), {})
            except RaiseSignal:
                raise FallbackError(UNSUPPORTED_OBJECT, "an ExitStack exit function raised (eager chains it "
                                    "through the rest of the stack)") from None
            if not isinstance(result, ConstVariable):
                raise FallbackError(UNSUPPORTED_OBJECT, f"the truth of {result.describe()} an exit function returned")
            if result.value:   # suppressed: later ones see no exception
                suppressed, details = True, [ConstVariable(None)] * 3
        return ConstVariable(received and suppressed)

    # -- its methods ----------------------------------------------------------------

    def attribute(self, executor, name: str):
        if name in _METHODS or name in ("__enter__", "__exit__"):
            return BuiltinMethodVariable(self, name)
        raise FallbackError(UNSUPPORTED_OBJECT, f"attribute .{name} of {self.describe()} is not captured")

    def method(self, executor, name: str, args, kwargs):
        if name == "__enter__" and not args and not kwargs:
            return self
        if name in ("__exit__", "close"):
            if name == "close" and (args or kwargs):
                raise FallbackError(UNSUPPORTED_CALL, "ExitStack.close() takes no arguments (eager raises)")
            self.exit(executor, list(args) if name == "__exit__" else [ConstVariable(None)] * 3, {})
            return ConstVariable(None) if name == "close" else ConstVariable(False)
        if name == "callback" and args and "callback" not in kwargs:
            self.pushed.append(("callback", args[0], tuple(args[1:]), dict(kwargs)))
            return args[0]
        if kwargs or name == "callback":
            raise FallbackError(UNSUPPORTED_CALL, f"ExitStack.{name} with these arguments")
        if name == "pop_all" and not args:
            moved = ExitStackVariable(self.pushed)
            self.pushed = []
            return moved
        if name == "enter_context" and len(args) == 1:
            enter, exit_ = _manager_methods(executor, args[0])
            result = executor.call_function(enter, [], {})
            self.pushed.append(("exit", exit_))
            return result
        if name == "push" and len(args) == 1 and isinstance(args[0], (UserFunctionVariable, BoundMethodVariable)):
            self.pushed.append(("exit", args[0]))   # a plain callable: an exit function
            return args[0]
        raise FallbackError(UNSUPPORTED_CALL, f"ExitStack.{name} with these arguments")


def _manager_methods(executor, manager: Variable):
    """The bound __enter__ and __exit__ of a context manager, as `with` takes them."""
    from . import contexts
    from .handlers.blocks import _special   # the handlers import the executor's modules
    if isinstance(manager, contexts.MODELLED):
        return contexts.ContextMethodVariable(manager, "enter"), contexts.ContextMethodVariable(manager, "exit")
    return _special(executor, manager, "__enter__"), _special(executor, manager, "__exit__")


def b_exit_stack(executor, *args, **kwargs):
    if args or kwargs:
        raise FallbackError(UNSUPPORTED_CALL, "ExitStack() takes no arguments (eager raises)")
    return ExitStackVariable()
