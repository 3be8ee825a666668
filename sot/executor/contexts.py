"""Context managers the simulator models itself, rather than inlining their
library code: `contextlib.contextmanager` functions and `np.errstate`.

A `@contextmanager` function called in the trace makes a
`GeneratorContextVariable` over its generator (simulated, executor/generators.py):
entering runs the generator to its `yield` (the `as` value); a normal exit
runs it on and expects it to end; an exit with an exception raised in the
trace throws it in at the `yield` (its `try`/`except`/`finally` run) and
suppresses the exception when the generator returns, as
`contextlib._GeneratorContextManager` does. What eager turns into a
RuntimeError (a generator that does not yield, or yields twice) runs the
frame natively.

`np.errstate(...)` as a `with` block marks the graph *strict*: NumPy's error
state is not modelled per statement, so the whole graph runs with every
floating-point error raising (on NumPy; an onnxruntime graph runs its NumPy
twin). When no error happens the values are eager's whatever the block's
settings were; when one does, the frame reruns natively, under the user's
own `errstate` (runner.py). A graph that writes into memory from outside
cannot be rerun: such a frame runs natively.
"""
from __future__ import annotations

import builtins
import contextlib

import numpy as np

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from ..guards.tracker import AttrTracker, ItemTracker
from .exceptions import ExceptionVariable
from .signals import RaiseSignal
from .variables import ConstVariable, Variable

_EXCEPTION_GROUP = getattr(builtins, "BaseExceptionGroup", ())   # 3.11+ suppress() splits groups: natively
_CONTEXTMANAGER_HELPER = contextlib.contextmanager(lambda: None).__code__
_ERRSTATE_KEYS = frozenset(("all", "divide", "over", "under", "invalid"))
_ERRSTATE_MODES = frozenset(("ignore", "warn", "raise", "print", "log", None))


def is_contextmanager_call(fn: Variable) -> bool:
    return getattr(getattr(fn, "value", None), "__code__", None) is _CONTEXTMANAGER_HELPER


def contextmanager_call(executor, fn: Variable, args, kwargs) -> Variable:
    """`cm(*args)` for `cm = contextmanager(func)`: func's generator, entered later."""
    if fn.tracker is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{fn.describe()} is not reachable from the frame")
    index = _CONTEXTMANAGER_HELPER.co_freevars.index("func")
    func = fn.value.__closure__[index].cell_contents  # identity-guarded through the helper's cell
    tracker = AttrTracker(ItemTracker(AttrTracker(fn.tracker, "__closure__"), index), "cell_contents")
    gen = executor.call_function(executor.graph.wrap(func, tracker), args, kwargs)
    if type(gen).__name__ != "GeneratorVariable":
        raise FallbackError(UNSUPPORTED_OBJECT, "a @contextmanager function that is not a generator function")
    return GeneratorContextVariable(gen)


class GeneratorContextVariable(Variable):
    def __init__(self, gen):
        super().__init__(None)
        self.gen = gen

    def python_type(self):
        return contextlib._GeneratorContextManager

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"context manager over {self.gen.describe()}"

    def enter(self, executor, args, kwargs) -> Variable:
        item = self.gen.next()
        if item is None:
            raise FallbackError(UNSUPPORTED_OBJECT, "the @contextmanager generator did not yield (eager raises)")
        return item

    def exit(self, executor, args, kwargs) -> Variable:
        kind, value, _ = args
        if isinstance(value, ConstVariable) and value.value is None:
            if self.gen.next() is not None:
                raise FallbackError(UNSUPPORTED_OBJECT, "the @contextmanager generator yielded twice (eager raises)")
            return ConstVariable(False)
        if not isinstance(value, ExceptionVariable):
            raise FallbackError(UNSUPPORTED_OBJECT, f"__exit__ with {value.describe()}")
        try:
            item = self.gen.throw(value)
        except RaiseSignal as sig:
            if sig.exc is value:
                return ConstVariable(False)  # not suppressed: `with` re-raises it
            raise  # another exception replaces it
        if item is not None:
            raise FallbackError(UNSUPPORTED_OBJECT, "the @contextmanager generator yielded after throw() "
                                "(eager raises)")
        return ConstVariable(True)  # the generator caught it: suppressed


def is_errstate_call(fn: Variable) -> bool:
    return getattr(fn, "value", None) is np.errstate


def errstate_call(args, kwargs) -> Variable:
    settings = {}
    for key, v in kwargs.items():
        if key not in _ERRSTATE_KEYS or not isinstance(v, ConstVariable) or v.value not in _ERRSTATE_MODES:
            raise FallbackError(UNSUPPORTED_CALL, f"np.errstate({key}=...) is not modelled")
        settings[key] = v.value
    if args:
        raise FallbackError(UNSUPPORTED_CALL, "np.errstate() takes keyword arguments only (eager raises)")
    return ErrstateVariable(settings)


class ErrstateVariable(Variable):
    def __init__(self, settings: dict):
        super().__init__(None)
        self.settings = settings

    def python_type(self):
        return np.errstate

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"np.errstate({', '.join(f'{k}={v!r}' for k, v in self.settings.items())})"

    def enter(self, executor, args, kwargs) -> Variable:
        executor.graph.fp_strict = True
        return ConstVariable(None)

    def exit(self, executor, args, kwargs) -> Variable:
        return ConstVariable(False)


class SuppressVariable(Variable):
    """`contextlib.suppress(*classes)`: its __exit__ suppresses an exception
    raised in the trace whose class is a subclass of one of them."""

    def __init__(self, classes: list):
        super().__init__(None)
        self.classes = classes

    def python_type(self):
        return contextlib.suppress

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return "contextlib.suppress(...)"

    def enter(self, executor, args, kwargs) -> Variable:
        return ConstVariable(None)

    def exit(self, executor, args, kwargs) -> Variable:
        from .exceptions import matches
        kind, value, _ = args
        if isinstance(value, ConstVariable) and value.value is None:
            return ConstVariable(False)
        if not isinstance(value, ExceptionVariable) or issubclass(value.cls, _EXCEPTION_GROUP):
            raise FallbackError(UNSUPPORTED_OBJECT, f"suppress.__exit__ with {value.describe()}")
        return ConstVariable(any(matches(value.cls, c) for c in self.classes))


class NullContextVariable(Variable):
    """`contextlib.nullcontext(enter_result)`: `as` binds enter_result; nothing else."""

    def __init__(self, result: Variable):
        super().__init__(None)
        self.result = result

    def python_type(self):
        return contextlib.nullcontext

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return "contextlib.nullcontext(...)"

    def enter(self, executor, args, kwargs) -> Variable:
        return self.result

    def exit(self, executor, args, kwargs) -> Variable:
        return ConstVariable(False)


class ContextFactoryVariable(Variable):
    """`contextlib.contextmanager(func)` of a function made in the trace:
    calling it makes the GeneratorContextVariable over func's generator."""

    def __init__(self, func: Variable):
        super().__init__(None)
        self.func = func

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"contextmanager({self.func.describe()})"

    def call(self, executor, args, kwargs) -> Variable:
        gen = executor.call_function(self.func, args, kwargs)
        if type(gen).__name__ != "GeneratorVariable":
            raise FallbackError(UNSUPPORTED_OBJECT, "a @contextmanager function that is not a generator function")
        return GeneratorContextVariable(gen)


def b_suppress(executor, *classes):
    from .exceptions import matches
    for c in classes:   # eager checks them only when an exception arrives: a bad one runs natively
        matches(BaseException, c)
    return SuppressVariable(list(classes))


def b_nullcontext(executor, enter_result=None):
    return NullContextVariable(enter_result if enter_result is not None else ConstVariable(None))


def b_contextmanager(executor, func):
    from .variables import UserFunctionVariable
    if not isinstance(func, UserFunctionVariable) or func.tracker is not None:
        raise FallbackError(UNSUPPORTED_CALL, "contextmanager() of a function from outside the frame")
    return ContextFactoryVariable(func)


def register(table: dict) -> None:
    table.update({contextlib.suppress: b_suppress, contextlib.nullcontext: b_nullcontext,
                  contextlib.contextmanager: b_contextmanager, contextlib.ExitStack: exit_stacks.b_exit_stack})


from . import exit_stacks   # noqa: E402 (it reads MODELLED from here when called)
from .exit_stacks import ExitStackVariable   # noqa: E402

MODELLED = (GeneratorContextVariable, ErrstateVariable, SuppressVariable, NullContextVariable, ExitStackVariable)


class ContextMethodVariable(Variable):
    """The bound `__enter__`/`__exit__` of a modelled context manager."""

    def __init__(self, manager, name: str):
        super().__init__(None)
        self.manager = manager
        self.name = name

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"{self.name} of {self.manager.describe()}"

    def call(self, executor, args, kwargs) -> Variable:
        return getattr(self.manager, self.name)(executor, args, kwargs)
