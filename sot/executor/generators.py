"""Generators consumed in the frame that made them, simulated lazily.

Calling a generator function (or evaluating a generator expression) during
the trace makes a `GeneratorVariable`: a lazy iterator whose next item comes
from running the generator's own executor up to its next YIELD_VALUE. So the
body runs interleaved with the consumer exactly as eager runs it (side
effects keep their order; `any` stops it early). A generator that escapes
the trace (returned, alive across a graph break) cannot be rebuilt: that
region runs natively, where eager's generator object has eager's lifetime.
"""
from __future__ import annotations

import types

from .signals import YieldSignal
from .variables import ConstVariable, LazyIteratorVariable


class GeneratorVariable(LazyIteratorVariable):
    def __init__(self, executor, name: str):
        self.executor = executor  # the generator's own frame, not started yet
        self.name = name
        self._started = False
        super().__init__(self._resume, types.GeneratorType)

    def _resume(self):
        if self._started:
            self.executor.push(ConstVariable(None))  # what `yield` evaluates to under next()
        self._started = True
        try:
            self.executor.run()
        except YieldSignal as y:
            return y.value
        return None  # returned: exhausted (its return value is StopIteration's, unused by for/next)

    def describe(self) -> str:
        return f"generator {self.name}"
