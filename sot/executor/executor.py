"""The opcode simulator: runs a frame's bytecode over Variables.

`OpcodeExecutor` holds one simulated frame (locals, cells, value stack,
instruction pointer) and dispatches each instruction to the handler
registered for its opname in `sot.executor.handlers`. User functions called
from the frame are simulated by a child executor sharing the same
FunctionGraph (inlining). Anything that cannot be captured raises
FallbackError with a reason located at the user's source line.
"""
from __future__ import annotations

import inspect
import logging

from ..breaks.reasons import INTERNAL, LIMIT, UNSUPPORTED_OBJECT, UNSUPPORTED_OPCODE, FallbackError
from ..ir.symbolic import SpecializeDims
from ..guards.guard import GlobalAbsentGuard
from ..guards.invariants import KeyAbsentGuard
from ..guards.tracker import AttrTracker, BuiltinTracker, GlobalTracker, ItemTracker, builtins_of
from ..logs import verbosity
from . import cell_writes, str_data
from .calls import call
from .opcode_table import FACTS, instructions, line_table
from .exceptions import UNSET, set_context, unwind
from .signals import BreakHere, RaiseSignal, ReturnSignal, YieldSignal
from .variables import (
    CellVariable, ConstVariable, DictVariable, TupleVariable, UserFunctionVariable, Variable,
)

log = logging.getLogger("sot.executor")

MAX_INLINE_DEPTH = 24
MAX_STEPS = 200_000


class OpcodeExecutor:
    def __init__(self, code, graph, globals_: dict, *, locals_=None, lazy_locals=None,
                 cells=None, globals_tracker=None, depth: int = 0, budget=None, break_at=None,
                 dynamic_names=frozenset()):
        self.code = code
        self.graph = graph
        self.globals = globals_
        self.builtins = builtins_of(globals_)
        self.globals_tracker = globals_tracker  # tracker of the globals dict, None = frame globals
        self.locals: dict[str, Variable] = dict(locals_ or {})
        self.lazy_locals = dict(lazy_locals or {})  # name -> (value, tracker), wrapped on first load
        self.cells: dict[str, CellVariable] = dict(cells or {})
        self.stack: list[Variable] = []
        self.depth = depth
        self.budget = budget if budget is not None else [MAX_STEPS]
        self.instrs = instructions(code)
        self.index_of = {ins.offset: i for i, ins in enumerate(self.instrs)}
        self.lines = line_table(code)
        self.pc = 0
        self.kw_names = None  # 3.11/3.12 KW_NAMES for the next CALL
        self.current = None
        self.break_at = break_at  # offset to stop at, before running it
        self.dynamic_names = dynamic_names  # arguments computed from array data
        self.exc_info = None      # the exception raised in the trace being handled (exceptions.py)
        self.blocks: list = []    # 3.10's block stack (exceptions.py)
        self.first_raise = None   # the instruction where an exception first entered the frame

    # -- running -------------------------------------------------------------
    def run(self) -> Variable:
        from .handlers import HANDLERS

        trace = verbosity() >= 4
        self.graph.frames.append(self)
        try:
            while True:
                instr = self.instrs[self.pc]
                if instr.offset == self.break_at:
                    raise BreakHere()
                self.current = instr
                self.budget[0] -= 1
                if self.budget[0] < 0:
                    raise FallbackError(LIMIT, f"simulation exceeded {MAX_STEPS} instructions (long unrolled loop?)")
                if trace:
                    log.info("%s%s:%s %s %s | stack: %s", "  " * self.depth, self.code.co_name,
                             self.lines.get(instr.offset), instr.opname, instr.argrepr,
                             ", ".join(v.describe() for v in self.stack[-4:]))
                handler = HANDLERS.get(instr.opname)
                if handler is None:
                    raise FallbackError(UNSUPPORTED_OPCODE, f"opcode {instr.opname} is not supported")
                self.pc += 1
                operands = (list(self.stack), self.kw_names) if self.graph.pass_strs else None
                try:
                    handler(self, instr)
                except FallbackError as e:
                    if operands is not None:
                        str_data.specialise_at(self, instr, handler, operands, e.args[0] if e.args else instr.opname)
                    raise
                except RaiseSignal as sig:
                    if sig.exc.context is UNSET:   # raised here by an operation: chained as CPython does
                        set_context(self, sig.exc)
                    if self.first_raise is None:
                        self.first_raise = instr
                    if not unwind(self, sig.exc):
                        raise
        except ReturnSignal as ret:
            return ret.value
        except RaiseSignal as sig:
            if self.depth > 0:
                sig.exc.left_a_call = True
                raise  # the caller's call site may catch it
            raise self._located(FallbackError(UNSUPPORTED_OBJECT, "the frame raises "
                                              f"{sig.exc.python_type().__name__} (eager raises it)"),
                                raised=True) from None
        except (BreakHere, SpecializeDims, YieldSignal):
            raise
        except FallbackError as e:
            raise self._located(e)
        except RecursionError:
            raise self._located(FallbackError(LIMIT, "recursion too deep while simulating")) from None
        except Exception as e:  # a simulator bug must never become a wrong result
            log.debug("internal error while simulating", exc_info=True)
            raise self._located(FallbackError(INTERNAL, f"{type(e).__name__}: {e}")) from e
        finally:
            self.graph.frames.pop()

    def location(self) -> tuple:
        """(filename, lineno, globals, function name) of the instruction being simulated."""
        line = self.lines.get(self.current.offset) if self.current is not None else None
        return self.code.co_filename, line, self.globals, self.code.co_name

    def _located(self, err: FallbackError, raised: bool = False) -> FallbackError:
        if self.current is not None:
            err.reason.located(self.code.co_filename, self.lines.get(self.current.offset))
            if self.depth == 0 and err.top_instr is None:
                err.top_instr = self.current  # where a graph break would go
                if (raised or self.exc_info is not None) and self.first_raise is not None:
                    # An exception raised in the trace leaves the frame, or its handler
                    # cannot be simulated: the graph break goes where the first exception
                    # entered the frame, so that it is raised natively and everything from
                    # there (handlers, `finally`, __exit__, sys.exc_info(), chaining) is eager's.
                    err.top_instr = self.first_raise
                elif self.exc_info is not None:
                    err.no_break = True
                err.top_line = self.lines.get(err.top_instr.offset)
        return err

    def jump_to(self, offset: int) -> None:
        self.pc = self.index_of[offset]

    # -- stack -------------------------------------------------------------------
    def push(self, v: Variable) -> None:
        self.stack.append(v)

    def pop(self) -> Variable:
        return self.stack.pop()

    def popn(self, n: int) -> list[Variable]:
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def peek(self, n: int = 1) -> Variable:
        return self.stack[-n]

    # -- names -------------------------------------------------------------------
    def load_local(self, name: str) -> Variable:
        var = self.locals.get(name)
        if var is None and name in self.lazy_locals:
            value, tracker = self.lazy_locals.pop(name)
            wrap = self.graph.wrap_dynamic if name in self.dynamic_names else self.graph.wrap
            var = self.locals[name] = wrap(value, tracker)
        if var is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"local variable {name!r} is unbound here (eager raises)")
        return var

    def store_local(self, name: str, value: Variable) -> None:
        self.drop_local(name)
        self.locals[name] = value

    def drop_local(self, name: str) -> None:
        """The local's binding goes (rebound or deleted): its value may be released."""
        old = self.locals.pop(name, None)
        lazy = self.lazy_locals.pop(name, None)
        # the root frame's last reference (an inlined callee's caller still holds what it passed)
        last = not self.depth and not any(v is old for v in (*self.stack, *self.locals.values()))
        if old is not None:
            self.graph.effects.drop(old, last=last)
        elif lazy is not None:
            self.graph.effects.drop(value=lazy[0], tracker=lazy[1], last=last)

    def cell(self, name: str) -> CellVariable:
        cell = self.cells.get(name)
        if cell is None:
            raise FallbackError(INTERNAL, f"no cell for {name!r}")
        return cell

    def load_cell_contents(self, name: str) -> Variable:
        cell = self.cell(name)
        if cell.preexisting:  # one of the frame's own cells, reached through another closure
            found = cell_writes.frame_cell(self.graph, cell)
            if found is not None and found[1] is not cell and found[1].contents is not None:
                cell.contents = found[1].contents
        if cell.contents is None and cell.preexisting:
            real = getattr(cell, "real_cell", None)
            try:
                value = real.cell_contents
            except (ValueError, AttributeError):
                raise FallbackError(UNSUPPORTED_OBJECT, f"free variable {name!r} is unbound (eager raises)") from None
            cell.contents = self.graph.wrap(value, cell.tracker)
        if cell.contents is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"free variable {name!r} is unbound (eager raises)")
        return cell.contents

    def global_tracker(self, name: str):
        if self.globals_tracker is None:
            return GlobalTracker(name)
        return ItemTracker(self.globals_tracker, name)

    def load_global(self, name: str) -> Variable:
        stored = self.graph.effects.globals.load(self.globals, name)
        if stored is not None:   # stored by the trace (global_stores.py)
            return stored
        if name in self.globals:
            return self.graph.wrap(self.globals[name], self.global_tracker(name))
        if name in self.builtins:
            # the builtin only while no global of that name shadows it
            if self.globals_tracker is None:
                self.graph.add_guard(GlobalAbsentGuard(name))
            else:
                self.graph.add_guard(KeyAbsentGuard(self.globals_tracker, name))
            return self.graph.wrap(self.builtins[name], BuiltinTracker(name))
        raise FallbackError(UNSUPPORTED_OBJECT, f"name {name!r} is not defined (eager raises NameError)")

    # -- calls ---------------------------------------------------------------------
    def call_function(self, fn: Variable, args, kwargs) -> Variable:
        return call(self, fn, list(args), dict(kwargs))

    def inline_call(self, fn: UserFunctionVariable, args, kwargs) -> Variable:
        if self.depth >= MAX_INLINE_DEPTH:
            raise FallbackError(LIMIT, f"inlining {fn.name} exceeds depth {MAX_INLINE_DEPTH} (recursion?)")
        code = fn.code
        if code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE):
            raise FallbackError(UNSUPPORTED_OBJECT, f"{fn.name} is a coroutine")
        bound = bind_arguments(self, fn, args, kwargs)
        cells = {}
        for name, cell in zip(code.co_freevars, fn.closure):
            cells[name] = cell
        if not FACTS.cells_made_by_instruction:
            for name in code.co_cellvars:
                cells[name] = CellVariable(bound.pop(name, None))
                cells[name].inlined = True   # a cell of a call the trace inlines (function_rebuild.py)
        globals_tracker = None
        if fn.globals is not self.globals or self.globals_tracker is not None:
            globals_tracker = fn.globals_tracker or (
                AttrTracker(fn.tracker, "__globals__") if fn.tracker is not None else None)
            if globals_tracker is None and fn.globals is not self.globals:
                raise FallbackError(UNSUPPORTED_OBJECT, f"globals of {fn.name} are not reachable")
            if fn.globals is self.globals:
                globals_tracker = self.globals_tracker
        child = OpcodeExecutor(code, self.graph, fn.globals, locals_=bound, cells=cells,
                               globals_tracker=globals_tracker, depth=self.depth + 1, budget=self.budget)
        child.exc_info = self.exc_info  # a callee sees the exception its caller handles
        if code.co_flags & inspect.CO_GENERATOR:
            from .generators import GeneratorVariable
            return GeneratorVariable(child, fn.name)  # runs as it is consumed
        return child.run()


def bind_arguments(executor, fn: UserFunctionVariable, args, kwargs) -> dict[str, Variable]:
    """Bind call arguments to parameter names the way CPython does."""
    code = fn.code
    names = code.co_varnames
    argcount, kwonly, posonly = code.co_argcount, code.co_kwonlyargcount, code.co_posonlyargcount
    has_varargs = bool(code.co_flags & inspect.CO_VARARGS)
    has_varkw = bool(code.co_flags & inspect.CO_VARKEYWORDS)
    pos_names = names[:argcount]
    kwonly_names = names[argcount:argcount + kwonly]
    bound: dict[str, Variable] = {}

    def fail(msg):
        return FallbackError(UNSUPPORTED_OBJECT, f"{fn.name}() {msg} (eager raises TypeError)")

    for name, value in zip(pos_names, args):
        bound[name] = value
    extra = list(args[argcount:])
    if extra and not has_varargs:
        raise fail(f"takes {argcount} positional arguments but {len(args)} were given")
    rest = {}
    for key, value in kwargs.items():
        if key in pos_names[posonly:] or key in kwonly_names:
            if key in bound:
                raise fail(f"got multiple values for argument {key!r}")
            bound[key] = value
        elif has_varkw:
            rest[key] = value
        else:
            raise fail(f"got an unexpected keyword argument {key!r}")
    defaults = fn.defaults
    first_default = argcount - len(defaults)
    for i, name in enumerate(pos_names):
        if name not in bound:
            if i < first_default:
                raise fail(f"missing required argument {name!r}")
            bound[name] = _default(executor, fn, defaults[i - first_default], ("__defaults__", i - first_default))
    for name in kwonly_names:
        if name not in bound:
            if name not in fn.kwdefaults:
                raise fail(f"missing required keyword-only argument {name!r}")
            bound[name] = _default(executor, fn, fn.kwdefaults[name], ("__kwdefaults__", name))
    i = argcount + kwonly
    if has_varargs:
        bound[names[i]] = TupleVariable(extra)
        i += 1
    if has_varkw:
        bound[names[i]] = DictVariable(rest)
    return bound


def _default(executor, fn, value, where) -> Variable:
    if isinstance(value, Variable):
        return value
    attr, key = where
    tracker = ItemTracker(AttrTracker(fn.tracker, attr), key) if fn.tracker is not None else None
    if tracker is None:
        return ConstVariable(value)
    return executor.graph.wrap(value, tracker)
