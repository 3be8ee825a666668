"""Exceptions raised and caught inside the trace.

An exception the frame itself creates (`raise ValueError("bad")`, a
`StopIteration` from `next()` of an exhausted simulated iterator, the error
of a builtin operation on values the trace guards: a missing dict key or
attribute, an index out of range, a division by zero, `int("x")`; see
`raised_by_operation`, `missing_attribute`) is an `ExceptionVariable`. Raising it unwinds the simulated frame the way CPython
does: to the innermost handler around the raising instruction (the code's
exception table on 3.11+, the block stack on 3.10; see
`opcode_table.VersionFacts.exception_table`), so `except`, `else`, `finally`
and `with`'s `__exit__(type, value, tb)` are simulated code like any other.
An exception no handler in the frame catches leaves the executor as
`RaiseSignal` and is handled at the caller's call site (inlining); out of the
translated frame itself it becomes a graph break where the first exception
entered the frame (`OpcodeExecutor.first_raise`; breaks/tries.py), as does
a handler the simulation cannot follow: from there the frame runs natively,
so eager raises it with eager's traceback, `sys.exc_info()` and chaining.

The exception object never leaves the trace (it has no rebuild): returning
it, storing it outside the frame or reading more than its class and `args`
runs the frame natively. Its traceback is `TracebackVariable`, which may be
passed along (to `__exit__`) and compared with None, nothing else.

Errors of NumPy operations at run time (a singular matrix, an index out of
bounds) are not known to the trace: the graph raises, and the frame reruns
natively (runner.py), where the user's own `except` sees them.
"""
from __future__ import annotations

import builtins
import inspect

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.invariants import ClassUnchangedGuard
from ..guards.tracker import ConstTracker
from .opcode_table import FACTS, exception_entries
from .signals import RaiseSignal
from .variables import ConstVariable, TupleVariable, Variable

# Builtin exception classes whose construction only stores `args` (no extra
# fields; StopIteration's `value` is args[0]): instances are modelled by class and args alone.
# (str() of them is not modelled, so an own __str__, as KeyError's, is fine.)
_SIMPLE_BUILTIN = frozenset(
    c for c in vars(builtins).values()
    if isinstance(c, type) and issubclass(c, BaseException) and (
        c is BaseException or c is StopIteration or not [k for k in c.__dict__ if not k.startswith("__")]))
_PLAIN_CLASS_KEYS = frozenset(("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                               "__firstlineno__", "__static_attributes__"))


class _Unset:
    """An exception's __context__ before it is raised, or one the trace cannot know."""

    def __init__(self, why: str):
        self.why = why


UNSET = _Unset("it was never raised in the trace")
UNKNOWN = _Unset("it comes from the exception the caller was handling")
CHAIN_ATTRS = ("__context__", "__cause__", "__suppress_context__")


def chain_attribute(exc, name: str) -> Variable:
    if name == "__cause__":
        return exc.cause
    if name == "__suppress_context__":
        return ConstVariable(exc.suppress_context)
    if isinstance(exc.context, _Unset):
        raise FallbackError(UNSUPPORTED_OBJECT, f"__context__ of {exc.describe()}: {exc.context.why}")
    return exc.context


def set_context(ex, exc) -> None:
    """What raising `exc` does to its __context__ (CPython's _PyErr_SetObject):
    the exception being handled, unless it is `exc` itself; a cycle through
    the handled exception's chain is cut where `exc` appears in it."""
    handled = ex.exc_info
    if handled is exc:
        return
    if not isinstance(handled, ExceptionVariable):   # None/OUTER: whatever the caller handles
        exc.context = UNKNOWN
        return
    link = handled
    while isinstance(link, ExceptionVariable):
        if link.context is exc:
            link.context = ConstVariable(None)
            break
        link = link.context
    exc.context = handled


class ExceptionVariable(Variable):
    def __init__(self, cls: type, args: list[Variable]):
        super().__init__(None)
        self.cls = cls
        self.args = list(args)
        self.made_at = None  # the call of the translated frame that made it (breaks/tries.py)
        self.left_a_call = False  # raised out of an inlined call (side_effects.plain)
        # chaining (set_context): set when raised; UNSET until then
        self.context = UNSET
        self.cause: Variable = ConstVariable(None)
        self.suppress_context = False

    def python_type(self):
        return self.cls

    def truth(self) -> bool:
        return True

    def attribute(self, name: str) -> Variable:
        if name == "args":
            return TupleVariable(list(self.args))
        if name == "value" and issubclass(self.cls, StopIteration):
            return self.args[0] if self.args else ConstVariable(None)
        if name in CHAIN_ATTRS:
            return chain_attribute(self, name)
        raise FallbackError(UNSUPPORTED_OBJECT, f"attribute .{name} of {self.describe()} is not modelled")

    def describe(self) -> str:
        return f"{self.cls.__name__} raised in the trace"


class TracebackVariable(Variable):
    """The traceback of an exception raised in the trace (never built)."""

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return "traceback of an exception raised in the trace"


class OuterExceptionVariable(Variable):
    """Whatever exception the caller was handling when the frame started
    (what PUSH_EXC_INFO saves and POP_EXCEPT restores): passed along only."""

    def describe(self) -> str:
        return "the exception being handled outside the frame"


OUTER = OuterExceptionVariable()


def can_model(cls: type) -> bool:
    """Instances of `cls` are its class and args and nothing else."""
    for k in cls.__mro__:
        if k is object:
            continue
        if k.__module__ == "builtins":
            if k not in _SIMPLE_BUILTIN:
                return False
        elif type(k) is not type or set(k.__dict__) - _PLAIN_CLASS_KEYS:
            return False
    return True


# What a builtin operation on Python values raises, simulated (executor/dispatch.py
# `python_op`): errors whose message depends only on the operands. Not
# FloatingPointError or warnings (NumPy's error state and the warning filters decide those).
RAISED_BY_OPERATIONS = (LookupError, ArithmeticError, ValueError, TypeError)
_ARG_TYPES = (str, int, float, bool, type(None))


def raised_by_operation(error: BaseException) -> ExceptionVariable | None:
    """The model of `error`, raised by a builtin operation the trace decided on
    guarded values (so eager raises the same there), or None where not modelled."""
    cls = type(error)
    if not isinstance(error, RAISED_BY_OPERATIONS) or isinstance(error, FloatingPointError) \
            or not can_model(cls) or not all(type(a) in _ARG_TYPES for a in error.args):
        return None
    return ExceptionVariable(cls, [ConstVariable(a) for a in error.args])


def missing_attribute(obj, name: str) -> ExceptionVariable | None:
    """The AttributeError of `obj.name` where neither the instance nor its
    class has the name and plain object.__getattribute__ looks it up (no
    __getattr__ to call instead); None otherwise. Its .name and .obj are not
    modelled (reading them runs the frame natively)."""
    cls = type(obj)
    if cls.__getattribute__ is not object.__getattribute__:
        return None
    try:
        inspect.getattr_static(cls, "__getattr__")
        return None
    except AttributeError:
        pass
    return ExceptionVariable(AttributeError, [ConstVariable(f"'{cls.__name__}' object has no attribute '{name}'")])


def instance(exc: Variable) -> BaseException | None:
    """A fresh instance equal to a modelled exception whose args are constants,
    for str(), repr() and formatting (can_model: no own __init__, __str__ or
    __repr__, so the text is its class's and args'); None where there is none."""
    if not isinstance(exc, ExceptionVariable) or \
            not all(isinstance(a, ConstVariable) and type(a.value) in _ARG_TYPES for a in exc.args):
        return None
    return exc.cls(*[a.value for a in exc.args])


def create(executor, cls: type, args, kwargs) -> ExceptionVariable:
    if cls.__module__ != "builtins":
        executor.graph.add_guard(ClassUnchangedGuard(cls))  # e.g. no __init__ added later
    if kwargs:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__name__}() takes no keyword arguments (eager raises)")
    exc = ExceptionVariable(cls, list(args))
    if executor.depth == 0:
        exc.made_at = executor.current
    return exc


def exception_of(executor, value: Variable) -> ExceptionVariable:
    """What `raise value` raises: an instance, or a class called with no arguments."""
    if isinstance(value, ExceptionVariable):
        return value
    cls = getattr(value, "value", None)
    if isinstance(cls, type) and issubclass(cls, BaseException) and can_model(cls):
        return create(executor, cls, [], {})
    raise FallbackError(UNSUPPORTED_OBJECT, f"raise of {value.describe()} is not simulated")


def matches(raised: type, classinfo: Variable) -> bool:
    """`except classinfo:` catches an exception of class `raised`."""
    if isinstance(classinfo, TupleVariable):
        return any(matches(raised, c) for c in classinfo.items)
    cls = getattr(classinfo, "value", None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise FallbackError(UNSUPPORTED_OBJECT, f"except {classinfo.describe()} (not an exception class)")
    return issubclass(raised, cls)


def stop_iteration() -> RaiseSignal:
    return RaiseSignal(ExceptionVariable(StopIteration, []))


def unwind(ex, exc: ExceptionVariable) -> bool:
    """Move the frame to the handler that catches an exception raised by the
    instruction being simulated; False when no handler in the frame covers it."""
    if FACTS.exception_table:
        return _unwind_table(ex, exc)
    return _unwind_blocks(ex, exc)


def _unwind_table(ex, exc) -> bool:
    entries = ex.__dict__.get("_exception_entries")
    if entries is None:
        entries = ex._exception_entries = exception_entries(ex.code)
    offset = ex.current.offset
    entry = next((e for e in entries if e.start <= offset < e.end), None)
    if entry is None:
        return False
    del ex.stack[entry.depth:]
    if entry.lasti:
        ex.push(ConstVariable(offset))  # RERAISE's f_lasti, never looked at here
    ex.push(exc)
    ex.jump_to(entry.target)
    return True


# 3.10 block stack entries: (kind, handler offset, stack level)
SETUP, EXCEPT_HANDLER = "setup", "except-handler"


def handler_covers(ex) -> bool:
    """Whether an exception raised by the instruction being simulated would
    enter a handler of the frame (an `except`, a `finally`, a `with`'s exit)."""
    if ex.current is None:
        return False
    if not FACTS.exception_table:
        return any(kind == SETUP for kind, _, _ in ex.blocks)
    entries = ex.__dict__.get("_exception_entries")
    if entries is None:
        entries = ex._exception_entries = exception_entries(ex.code)
    offset = ex.current.offset
    return any(e.start <= offset < e.end for e in entries)


def _unwind_blocks(ex, exc) -> bool:
    while ex.blocks:
        kind, target, level = ex.blocks.pop()
        if kind == EXCEPT_HANDLER:  # leaving an except clause: restore the exception it saved
            del ex.stack[level + 3:]
            ex.exc_info = restored(ex.popn(3)[1])
            continue
        del ex.stack[level:]
        ex.blocks.append((EXCEPT_HANDLER, None, len(ex.stack)))
        ex.push(TracebackVariable())   # the previous exception: tb, value, type
        ex.push(ex.exc_info if ex.exc_info is not None else OUTER)
        ex.push(OUTER)
        ex.exc_info = exc
        ex.push(TracebackVariable())
        ex.push(exc)
        ex.push(class_variable(ex, exc))
        ex.jump_to(target)
        return True
    return False


def restored(saved: Variable):
    """What the frame handles again after an except clause: None for the frame's entry state."""
    return None if saved is OUTER else saved


def pop_except_310(ex) -> None:
    kind, _, level = ex.blocks.pop()
    if kind != EXCEPT_HANDLER:
        raise FallbackError(UNSUPPORTED_OBJECT, "POP_EXCEPT outside an except handler")
    ex.exc_info = restored(ex.popn(3)[1])


def class_variable(ex, exc: Variable) -> Variable:
    """type(exc), as a Variable."""
    return class_variable_of(ex, exc.python_type())


def class_variable_of(ex, cls: type) -> Variable:
    return ex.graph.wrap(cls, ConstTracker(cls))
