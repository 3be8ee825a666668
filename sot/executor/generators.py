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

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .signals import RaiseSignal, YieldSignal
from .variables import ConstVariable, LazyIteratorVariable


class GeneratorVariable(LazyIteratorVariable):
    def __init__(self, executor, name: str):
        self.executor = executor  # the generator's own frame, not started yet
        self.name = name
        self._started = False
        self.returned = None  # its return value once it returned (what `yield from` evaluates to)
        super().__init__(self._resume, types.GeneratorType)

    def _resume(self, sent=None):
        if self._started:
            # what `yield` evaluates to: None under next(), the value under send()
            self.executor.push(sent if sent is not None else ConstVariable(None))
        self._started = True
        try:
            self.returned = self.executor.run()
        except YieldSignal as y:
            return y.value
        except RaiseSignal:
            self._done = True  # an exception it raised ends it, as eager's
            raise
        return None  # returned: exhausted

    def send(self, value) -> Variable:
        """g.send(value): resume with `value` as the result of the paused yield."""
        if self._done:
            raise FallbackError(UNSUPPORTED_OBJECT, "send() to an exhausted generator (eager raises StopIteration)")
        if not self._started and not (isinstance(value, ConstVariable) and value.value is None):
            raise FallbackError(UNSUPPORTED_OBJECT, "send() of a value to a just-started generator (eager raises)")
        item = self._resume(value)
        if item is None:
            self._done = True
            raise FallbackError(UNSUPPORTED_OBJECT, "the generator returned under send() (eager raises StopIteration)")
        return item

    def describe(self) -> str:
        return f"generator {self.name}"
