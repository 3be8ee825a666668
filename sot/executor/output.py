"""Rebuilding the frame's return value from graph outputs and sources.

`OutputBuilder.expr(var)` returns a Python expression over `I<k>` (values
loaded through trackers), `O` (graph outputs) and bound constants. A value that
existed before the frame and is returned unchanged is reloaded through its
tracker, so object identity is kept (`return x` returns the caller's array).
"""
from __future__ import annotations

import types

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.tracker import literal
from . import function_rebuild, iterator_rebuild, local_classes
from .variables import (
    BoundMethodVariable, BuiltinMethodVariable, ConstVariable, IteratorVariable, DictVariable, ListVariable,
    SymScalarVariable, TensorVariable, TupleVariable, UserFunctionVariable, Variable,
)


class OutputBuilder:
    def __init__(self, input_trackers: list):
        self.trackers = list(input_trackers)   # loaded into I, graph inputs first
        self.symbols: list = []                # graph outputs, in O
        self.namespace: dict = {}
        self.prelude: list[str] = []           # statements building containers once
        self.effects: list[str] = []           # statements replaying side effects (side_effects.py)
        self._built: dict = {}                 # id(Variable) -> name: one object per Variable

    def _load(self, tracker) -> str:
        if tracker not in self.trackers:
            local_classes.check_tracker(tracker)  # a class made in the trace never leaves it
            self.trackers.append(tracker)
        return f"I{self.trackers.index(tracker)}"

    def _bind(self, value) -> str:
        lit = literal(value)
        if lit is not None:
            return lit
        local_classes.check_value(value)
        name = f"r{len(self.namespace)}"  # k<n>, v<n> are the loads' names
        self.namespace[name] = value
        return name

    def _output(self, symbol) -> str:
        if symbol not in self.symbols:
            self.symbols.append(symbol)
        return f"O[{self.symbols.index(symbol)}]"

    def expr(self, var: Variable) -> str:
        if isinstance(var, TensorVariable):
            if var.is_unchanged_input():
                return self._load(var.tracker)
            return self._output(var.symbol)
        if isinstance(var, SymScalarVariable):  # a Python number computed from runtime shapes
            return self._output(var.symbol)
        if isinstance(var, ConstVariable) and (var.tracker is None or
                                               local_classes.rooted_in_trace_class(var.tracker)):
            return self._bind(var.value)   # (or held by a class the trace made: the same each call)
        if var.tracker is not None:  # from outside the frame, and never mutated by it
            return self._load(var.tracker)
        if id(var) in self._built:
            return self._built[id(var)]
        if isinstance(var, BuiltinMethodVariable):  # a fresh bound method, as eager makes
            return f"{self._bind(getattr)}({self.expr(var.self_var)}, {self._bind(var.name)})"
        if isinstance(var, BoundMethodVariable):
            return f"{self._bind(types.MethodType)}({self.expr(var.func)}, {self.expr(var.self_var)})"
        if hasattr(var, "rebuild"):  # e.g. an object created in the trace (classes.py), a list iterator
            text = var.rebuild(self)
        elif isinstance(var, UserFunctionVariable):   # made in the trace (function_rebuild.py)
            text = function_rebuild.function_expr(self, var)
        elif getattr(var, "rebuilt_as", None) is not None and not var._done:  # zip/enumerate of rebuildable ones
            text = var.rebuilt_as(lambda v: self.expr(v) if isinstance(v, Variable) else self._bind(v))
        elif isinstance(var, IteratorVariable):  # an iterator over what is left, of its own type
            text = iterator_rebuild.rebuild(self, var)
        elif isinstance(var, TupleVariable):
            text = "(" + "".join(self.expr(v) + ", " for v in var.items) + ")"
        elif isinstance(var, ListVariable):
            text = "[" + ", ".join(self.expr(v) for v in var.items) + "]"
        elif isinstance(var, DictVariable):
            text = "{" + ", ".join(f"{self._bind(k)}: {self.expr(v)}" for k, v in var.entries.items()) + "}"
        else:
            raise FallbackError(UNSUPPORTED_OBJECT, f"{var.describe()} created during the trace cannot be rebuilt")
        if id(var) in self._built:   # built while building its parts (a cycle through a cell)
            return self._built[id(var)]
        name = f"b{len(self._built)}"
        self._built[id(var)] = name
        self.prelude.append(f"{name} = {text}")
        return name
