"""Code objects from abstract bytecode, with the stack size we can bound.

``Bytecode.to_code()`` builds a control-flow graph to find the stack size
(and, 3.11+, each exception handler's depth): a third of a first call's
assembly time. The code we generate is either straight-line code of our
own or an original code with instructions inserted or replaced (resume
functions, native prefixes, loop bodies), so a safe bound is known without
that analysis: the original's ``co_stacksize`` plus every push the inserted
instructions can make. Any path through the new code is a path through the
original with new instructions on it; the original's instructions move the
depth as they did there, so the depth never exceeds the original's maximum
by more than what the new instructions pushed. An over-estimate only costs
a few frame slots; too small a size would corrupt the frame, hence the
bound counts each new instruction's largest push and ``CHECK`` (tests)
compares it with the exact analysis.

The handlers' depths must be known already (the original's, decoded with
``conserve_exception_block_stackdepth``): a try block of our own (depth
unset) takes the full analysis.
"""
from __future__ import annotations

import types

from bytecode import Bytecode, Instr
from bytecode.instr import TryBegin

CHECK = False   # tests: compare each bound with bytecode's exact stack size


def to_code(bc: Bytecode, original: types.CodeType | None = None, kept: list = ()) -> types.CodeType:
    """``bc.to_code()``. `kept`: the items decoded from `original` (held
    alive, so their ids stay theirs); instructions of `bc` not among them are
    new, and each may push its largest stack effect on top of the original's
    depth. Without `original`, all of `bc` is new."""
    bound = stack_bound(bc, original, kept)
    if bound is None:
        return bc.to_code()
    code = bc.to_code(stacksize=bound, compute_exception_stack_depths=False)
    if CHECK:
        try:
            exact = bc.to_code()
        except RuntimeError:  # a jump from the head into a try range: the analysis cannot follow it
            return code
        assert bound >= exact.co_stacksize, f"stack bound {bound} < {exact.co_stacksize} for {bc.name}"
        assert getattr(code, "co_exceptiontable", b"") == getattr(exact, "co_exceptiontable", b""), \
            f"handler depths differ from the analysis' in {bc.name}"
    return code


def stack_bound(bc: Bytecode, original: types.CodeType | None, kept) -> int | None:
    """An upper bound of `bc`'s stack depth, or None where the analysis must run."""
    old = {id(i) for i in kept}
    bound = original.co_stacksize if original is not None else 0
    for item in bc:
        if isinstance(item, Instr):
            if id(item) not in old:
                try:
                    bound += max(0, item.stack_effect(jump=True), item.stack_effect(jump=False))
                except (ValueError, TypeError):   # an instruction dis cannot size
                    return None
        elif _unset(item):
            return None
    return bound


def _unset(item) -> bool:
    """A try block whose handler depth nobody set (the analysis computes it)."""
    if not isinstance(item, TryBegin):
        return False
    return type(item.stack_depth).__name__ == "_UNSET"
