"""Graph breaks inside the body of a `try` or `with` block, and at a `raise`.

A break at instruction *i* in such a body (outside any loop, not in an
except/finally handler) splits the frame so that the block keeps working:

* the replacement runs the graph before *i*, restores locals and stack, and
  enters the original code at *i* (resume.loop_region_code), so *i* runs
  natively inside the block: if it raises, the block's own handler runs
  (`except`, `finally`, `__exit__(type, value, tb)`) and the frame goes on
  natively, as eager. Right after *i* the replacement returns
  `Resume(resume function)`, a plain return that leaves the block without
  running its exit code;
* a data-dependent branch *i* needs no native instruction: the replacement
  runs the graph and calls the resume function entered at *i* itself, inside
  the block, with the condition's value (a Python bool) on the stack;
* the resume function enters the original code after *i*, inside the same
  block (the stack it receives holds a `with`'s bound `__exit__`), so an
  exception later in the body still reaches the handler and `__exit__` runs
  exactly once, when the body ends.

3.11+ find handlers by offset in the exception table, so entering the code
in the middle of the body is enough. 3.10 keeps a block stack that jumping
into the body skips: both codes set the blocks up again (SETUP_FINALLY to
each handler, at the stack level the simulation recorded) before they jump
to *i* (see opcode_table.VersionFacts.exception_table).

A break at a `raise` (where an exception raised in the trace first entered
the frame, when its handler cannot be simulated or it leaves the frame:
executor._located) enters the original code the same way, at the `raise`
itself, with no resume function: the raise, the handlers and the rest of the
frame run natively, so `sys.exc_info()`, bare `raise` and `__context__` are
eager's; only the graph before it is kept.
"""
from __future__ import annotations

import dataclasses
import dis
import math
import types

from ..executor.exceptions import SETUP, ExceptionVariable
from ..executor.opcode_table import FACTS, TRUTH_JUMPS, exception_entries
from .reasons import UNSUPPORTED_BREAK, FallbackError
from .resume import BreakPlan, plan_break


def in_try(code: types.CodeType, instr: dis.Instruction, executor) -> bool:
    """Whether `instr` is inside a try/with block of the frame being split."""
    if FACTS.exception_table:
        return any(e.start <= instr.offset < e.end for e in exception_entries(code))
    return bool(executor.blocks)


def plan_try(code: types.CodeType, instr: dis.Instruction, reason, stack_nulls: list[bool], executor):
    """A BreakPlan of kind "try" at `instr`, or a string saying why not."""
    if executor.exc_info is not None or any(kind != SETUP for kind, _, _ in executor.blocks):
        return "graph breaks inside except/finally handlers are not supported"
    plan = plan_break(code, instr, reason, stack_nulls)
    if isinstance(plan, str):
        return plan
    if not FACTS.exception_table and any(stack_nulls):
        return "a NULL call slot is live at a break inside a try/with block"
    blocks = tuple((handler, level) for _, handler, level in executor.blocks)
    if plan.kind == "bool":   # the resume function takes the branch, inside the block
        if _truth_may_raise(executor):
            # the replacement takes bool() of the condition outside the block:
            # an error it raises (an array of many elements) would miss the handler
            return "the truth value of the condition may raise inside a try/with block"
        return dataclasses.replace(plan, blocks=blocks)
    if plan.kind != "native":
        return f"a {plan.kind} break inside a try/with block is not split there"
    return BreakPlan(instr, "try", plan.resume_offset, plan.layout_before, plan.layout_after, plan.pushed,
                     blocks=blocks)


def _condition_size(executor):
    """The number of elements of the array condition on top of the stack
    (the same on every call: static shape), or None."""
    from ..executor.variables import TensorVariable
    top = executor.stack[-1] if executor.stack else None
    if not isinstance(top, TensorVariable) or top.meta.shadow is not None:
        return None
    return math.prod(top.meta.shape)


def _truth_may_raise(executor) -> bool:
    """Whether bool() of the condition on top of the stack may raise: anything
    but an array (or NumPy scalar) of one element on every call."""
    return _condition_size(executor) != 1


def truth_always_raises(executor, instr: dis.Instruction) -> bool:
    """bool() of the condition raises ValueError on every call (an array of
    several elements): a "bool" break would raise it in the runner, not at
    the user's line; the statement runs natively instead (a region break)."""
    if instr.opname not in TRUTH_JUMPS:
        return False
    size = _condition_size(executor)
    return size is not None and size > 1


def made_at(executor):
    """Where a break at a `raise` goes instead, when what it raises is an exception
    object the trace made (it cannot be handed to native code): the call that made
    it, whose native result the resume function raises natively; None: at the raise."""
    top = executor.stack[-1] if executor.stack else None
    if not isinstance(top, ExceptionVariable):
        return None
    if top.made_at is None:
        raise FallbackError(UNSUPPORTED_BREAK, "the exception raised was made outside the translated frame")
    return top.made_at


def in_block(plan, code: types.CodeType, executor):
    """`plan` (a loop or statement region that runs natively) where it starts
    inside a try/with body: with the blocks to set up again on 3.10 (the
    resume function after it re-enters the same blocks), or a string saying why not."""
    if isinstance(plan, str) or not in_try(code, plan.instr, executor):
        return plan
    if executor.exc_info is not None or any(kind != SETUP for kind, _, _ in executor.blocks):
        return "graph breaks inside except/finally handlers are not supported"
    return dataclasses.replace(plan, blocks=tuple((handler, level) for _, handler, level in executor.blocks))


def plan_raise(code: types.CodeType, instr: dis.Instruction, stack_nulls: list[bool], executor):
    """A BreakPlan entering the code at a `raise` (the rest runs natively), or a string saying why not."""
    if executor.exc_info is not None or any(kind != SETUP for kind, _, _ in executor.blocks):
        return "graph breaks inside except/finally handlers are not supported"
    if any(stack_nulls):
        return "a NULL call slot is live at the raise"
    blocks = tuple((handler, level) for _, handler, level in executor.blocks)
    return BreakPlan(instr, "try", None, stack_nulls, [], 0, blocks=blocks)
