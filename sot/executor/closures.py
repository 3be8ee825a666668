"""Closures from outside the frame, guarded by their code rather than their identity.

A closure is made anew by each run of its ``def`` (an autograd node's
``_backward``, a callback made per call, a recursive helper defined in the
caller): pinned by identity, each new one failed the guard and the code
that calls it was translated again on every call, up to the cache limit.
What an inlined closure runs is its code, its defaults, its globals and
the contents of its cells; its cells are read through trackers
(``f.__closure__[i].cell_contents``, guarded as any value), so the trace
holds for every function of that code with those globals and defaults
(what TorchDynamo's CLOSURE_MATCH guards).

Its identity is not pinned, so what depends on which function object it is
is not decided from the traced one: ``is`` against another value guards
the relation (dispatch.is_op, as for user objects). A closure whose cell
is one of the frame's own cells keeps its identity guard: writes through
such a cell are modelled as the frame's own (cell_writes.py), which holds
only for that very cell. A function with attributes of its own
(``f.__dict__``) keeps it too.
"""
from __future__ import annotations

import types

from .. import _skip
from ..guards.guard import DictKeysGuard, IdGuard, TypeGuard
from ..guards.tracker import AttrTracker


def closure_input(graph, value, t, tracker):
    """The Variable of closure `value` guarded by code, or None where it
    is pinned by identity instead (see the module doc)."""
    from .function_graph import function_variable
    if t is not types.FunctionType or tracker is None or not value.__closure__:
        return None
    code = value.__code__
    if not _skip.is_user_code(code) or _skip.is_not_to_static(code) or value.__dict__:
        return None
    own = getattr(graph, "frame_cells", None) or {}
    if any(id(cell) in own for cell in value.__closure__):
        return None
    graph.add_guard(TypeGuard(tracker, types.FunctionType))
    graph.add_guard(DictKeysGuard(AttrTracker(tracker, "__dict__"), {}))
    graph.add_guard(IdGuard(AttrTracker(tracker, "__globals__"), value.__globals__))
    graph.guard_inlined(value, tracker)   # its code, the count of its defaults
    var = function_variable(value, tracker)
    var.by_code = True
    return var
