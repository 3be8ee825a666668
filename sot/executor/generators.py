"""Generators consumed in the frame that made them, simulated lazily.

Calling a generator function (or evaluating a generator expression) during
the trace makes a `GeneratorVariable`: a lazy iterator whose next item comes
from running the generator's own executor up to its next YIELD_VALUE. So the
body runs interleaved with the consumer exactly as eager runs it (side
effects keep their order; `any` stops it early). A generator that escapes
the trace (returned, alive across a graph break) cannot be rebuilt: that
region runs natively, where eager's generator object has eager's lifetime.

One left paused inside a `try`/`with` is closed by eager when dropped
(`del g`, the end of the frame, a loop's `break`): its `finally` or
`__exit__` runs then, at a moment the trace does not model; such a
translation falls back (`check_left_open`).
"""
from __future__ import annotations

import types

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .exceptions import ExceptionVariable, handler_covers, unwind
from .opcode_table import FACTS, INTRINSIC_STOPITERATION_ERROR
from .signals import RaiseSignal, YieldSignal
from .variables import ConstVariable, LazyIteratorVariable, Variable


def _is_none(v) -> bool:
    return v is None or (isinstance(v, ConstVariable) and v.value is None)


class GeneratorVariable(LazyIteratorVariable):
    METHODS = ("send", "throw", "close")

    def __init__(self, executor, name: str):
        self.executor = executor  # the generator's own frame, not started yet
        self.name = name
        self._started = False
        self.returned = None  # its return value once it returned (what `yield from` evaluates to)
        self._unreported = False  # returned in the current step (its StopIteration carries the value)
        self.running = False  # gi_running: inside its own frame
        super().__init__(self._resume, types.GeneratorType)
        executor.graph.generators.append(self)

    def next(self) -> Variable | None:
        self._unreported = False
        return super().next()

    def _resume(self, sent=None):
        self._unreported = False
        if self._started:
            # what `yield` evaluates to: None under next(), the value under send()
            self.executor.push(sent if sent is not None else ConstVariable(None))
        self._started = True
        self.running = True
        try:
            self.returned = self.executor.run()
            self._unreported = True
        except YieldSignal as y:
            return y.value
        except RaiseSignal as sig:
            self._raised(sig)
        finally:
            self.running = False
        return None  # returned: exhausted

    def _raised(self, sig):
        """An exception the generator's frame did not catch ends it, as eager's."""
        self._done = True
        if issubclass(sig.exc.python_type(), StopIteration):
            raise FallbackError(UNSUPPORTED_OBJECT, "StopIteration raised inside a generator "
                                "(eager turns it into RuntimeError)") from None
        raise sig

    def send(self, value) -> Variable:
        """g.send(value): resume with `value` as the result of the paused yield."""
        if self._done:
            raise FallbackError(UNSUPPORTED_OBJECT, "send() to an exhausted generator (eager raises StopIteration)")
        if not self._started and not (isinstance(value, ConstVariable) and value.value is None):
            raise FallbackError(UNSUPPORTED_OBJECT, "send() of a value to a just-started generator (eager raises)")
        item = self._resume(value)
        if item is None:
            self._done = True
            raise self.stop_iteration()
        return item

    def throw(self, exc) -> Variable | None:
        """g.throw(exc): `exc` raised at the paused yield. The next item it
        yields, or None when it returned; what it raises propagates."""
        ex = self.executor
        at = ex.instrs[ex.index_of[ex.current.offset] - 1] if self._started else None
        if at is not None and (ex.current.opname == "YIELD_FROM" or at.opname == "SEND"):
            raise FallbackError(UNSUPPORTED_OBJECT, "throw() into a generator paused in `yield from`")
        if not self._started or self._done or not unwind(ex, exc):
            self._done = True
            raise RaiseSignal(exc)
        self.running = True
        try:
            self.returned = ex.run()
        except YieldSignal as y:
            return y.value
        except RaiseSignal as sig:
            self._raised(sig)
        finally:
            self.running = False
        self._done = True
        return None

    def method(self, executor, name: str, args, kwargs) -> Variable:
        """g.send(v), g.throw(exc), g.close() called in the trace."""
        if kwargs or len(args) != (0 if name == "close" else 1):
            raise FallbackError(UNSUPPORTED_OBJECT, f"generator.{name}() with these arguments is not modelled")
        if name == "send":
            return self.send(args[0])
        if self.running:
            raise FallbackError(UNSUPPORTED_OBJECT, f"{name}() of a running generator (eager raises ValueError)")
        if name == "throw":
            from .exceptions import exception_of
            item = self.throw(exception_of(executor, args[0]))
            if item is None:     # it returned: throw() raises its StopIteration
                self._unreported = True
                raise self.stop_iteration()
            return item
        return self.close()

    def close(self) -> Variable:
        """GeneratorExit at the paused yield (gen_close): returning or letting
        it through ends the generator; yielding again is eager's RuntimeError."""
        if not self._started or self._done:
            self._done = True
            return ConstVariable(None)
        exit_ = ExceptionVariable(GeneratorExit, [])
        try:
            item = self.throw(exit_)
        except RaiseSignal as sig:
            if sig.exc is not exit_:
                raise
            return ConstVariable(None)
        if item is not None:
            raise FallbackError(UNSUPPORTED_OBJECT, "the generator ignored GeneratorExit (eager raises RuntimeError)")
        returned = self.returned if FACTS.gen_close_returns_value else None
        return returned if returned is not None else ConstVariable(None)

    def stop_iteration(self) -> RaiseSignal:
        """The StopIteration `next()` raises at the end: the one of the step in
        which it returned carries the return value (`e.value`), later ones
        (and those after a loop took the end) none, as eager's."""
        value, self._unreported = (self.returned if self._unreported else None), False
        return RaiseSignal(ExceptionVariable(StopIteration, [] if _is_none(value) else [value]))

    def describe(self) -> str:
        return f"generator {self.name}"

    def closing_runs_code(self) -> bool:
        """Whether closing it now runs its own code: paused at a yield that
        a `try`/`with` handler covers (not 3.12's implicit one that turns a
        StopIteration into RuntimeError). A generator it delegates to is
        one of the trace's too: checked on its own."""
        ex = self.executor
        if not self._started or self._done or not handler_covers(ex):
            return False
        if not FACTS.exception_table:
            return True
        offset = ex.current.offset
        while True:
            entry = next((e for e in ex._exception_entries if e.start <= offset < e.end), None)
            if entry is None:
                return False
            target = ex.instrs[ex.index_of[entry.target]]
            if target.opname != "CLEANUP_THROW":   # `yield from`'s: it passes GeneratorExit on
                return not (target.opname == "CALL_INTRINSIC_1" and target.argrepr == INTRINSIC_STOPITERATION_ERROR)
            offset = target.offset


def check_left_open(graph) -> None:
    """Fall back where a generator of the trace was left paused in a
    `try`/`with`: eager closes it when it is dropped, running its cleanup
    at a point of the frame the trace does not know (see module doc)."""
    for gen in graph.generators:
        if gen.closing_runs_code():
            raise FallbackError(UNSUPPORTED_OBJECT, f"generator {gen.name} left paused inside a try/with: "
                                "eager runs its cleanup when it is dropped")
