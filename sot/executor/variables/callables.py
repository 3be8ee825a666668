"""Things that can be called: user functions (inlined), builtins, NumPy
callables (graph ops), bound methods, user classes and instances."""
from __future__ import annotations

import types

from .base import RealObjectVariable, Variable


class UserFunctionVariable(Variable):
    """A Python function defined in user code: calls are inlined.

    `closure` holds CellVariables; `defaults`/`kwdefaults` hold Variables.
    Functions made by MAKE_FUNCTION during the trace have no `value`.
    `by_code`: guarded by its code, not its identity (executor/closures.py):
    `value` is the traced function, not every function it stands for.
    """

    by_code = False

    def __init__(self, code: types.CodeType, globals_: dict, name: str,
                 defaults=(), kwdefaults=None, closure=(), value=None, tracker=None,
                 globals_tracker=None):
        super().__init__(tracker)
        self.code = code
        self.globals = globals_
        self.name = name
        self.defaults = tuple(defaults)
        self.kwdefaults = dict(kwdefaults or {})
        self.closure = tuple(closure)
        self.value = value
        self.globals_tracker = globals_tracker  # None: same globals as the translated frame

    def python_type(self):
        return types.FunctionType

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"function {self.name}"


class BuiltinVariable(RealObjectVariable):
    """A builtin or other C callable the simulator knows how to model."""

    def describe(self) -> str:
        return f"builtin {getattr(self.value, '__qualname__', self.value)!s}"


class NumpyCallableVariable(RealObjectVariable):
    """A NumPy function or ufunc; `op` is its IR registry entry (or None)."""

    def __init__(self, value, op, tracker=None):
        super().__init__(value, tracker)
        self.op = op

    def describe(self) -> str:
        return f"numpy.{getattr(self.value, '__name__', self.value)}"


class BoundMethodVariable(Variable):
    """`obj.method` where method is a user function: calls inline fn(obj, ...)."""

    def __init__(self, func: Variable, self_var: Variable, tracker=None):
        super().__init__(tracker)
        self.func = func
        self.self_var = self_var

    def python_type(self):
        return types.MethodType

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"bound method {self.func.describe()}"


class BuiltinMethodVariable(Variable):
    """A method of a modelled value: ndarray methods (graph ops), list.append…"""

    def __init__(self, self_var: Variable, name: str):
        super().__init__(None)
        self.self_var = self_var
        self.name = name

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"method {self.name} of {self.self_var.describe()}"


class ClassVariable(RealObjectVariable):

    def describe(self) -> str:
        return f"class {self.value.__qualname__}"


class ObjectVariable(RealObjectVariable):
    """An instance of a user-defined class, read through plain attributes."""

    def truth(self) -> bool:
        cls = type(self.value)
        if hasattr(cls, "__bool__") or hasattr(cls, "__len__"):
            return Variable.truth(self)  # that would run user code
        return True

    def describe(self) -> str:
        name = self.tracker.name() if self.tracker is not None else "?"
        return f"{type(self.value).__name__} object {name}"
