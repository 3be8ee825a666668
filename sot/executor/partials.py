"""functools.partial objects made during the trace: called as CPython calls
them, and their .func/.args/.keywords read as the same objects on every
access (`p.keywords` is one dict: a store into it changes later calls)."""
from __future__ import annotations

import functools

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .variables import DictVariable, TupleVariable, Variable


class PartialVariable(Variable):
    """functools.partial(fn, *args, **kwargs) made during the trace."""

    def __init__(self, func: Variable, args: list, kwargs: dict):
        super().__init__(None)
        self.func = func
        self.args_var = TupleVariable(list(args))
        self.keywords_var = DictVariable(kwargs)

    @property
    def args(self) -> list:
        return list(self.args_var.items)

    @property
    def kwargs(self) -> dict:
        return dict(self.keywords_var.entries)

    def python_type(self):
        return functools.partial

    def truth(self) -> bool:
        return True

    def attribute(self, name: str) -> Variable:
        if name == "func":
            return self.func
        if name == "args":
            return self.args_var
        if name == "keywords":
            return self.keywords_var
        raise FallbackError(UNSUPPORTED_OBJECT, f"attribute .{name} of partial is not captured")

    def call(self, executor, args, kwargs):
        return executor.call_function(self.func, self.args + list(args), {**self.kwargs, **kwargs})
