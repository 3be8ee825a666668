"""Functions made in the trace that outlive the graph, made again by the
output code: an autograd node's `_backward` closure stored on a node the
caller gets back.

Eagerly MAKE_FUNCTION made a function over its code, globals, defaults and
closure cells. `function_expr` makes the same with `types.FunctionType`
and `cell_expr` a new cell per simulated cell, shared by every function
rebuilt over it (output.py builds each Variable once). That is exact only
for cells nothing else holds once the graph ends: cells made by a call the
trace inlined, which has returned (`CellVariable.inlined`). A cell of the
translated frame itself lives on in the code after the graph (a break's
resume function makes its own: breaks/split.py), and a cell from before
the frame is a real object elsewhere: a function over either is not
rebuilt here, and the region runs natively as before.

A cell is made empty and filled after its contents are built, so a cycle
(the node holds the closure, the closure's cell holds the node) is made
as eager made it.
"""
from __future__ import annotations

import types

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .variables import CellVariable, UserFunctionVariable

#: the state of a UserFunctionVariable that function_expr remakes; any other
#: (update_wrapper's attributes, annotations, a code guard) means it is not rebuilt
_REMADE = frozenset(("tracker", "code", "globals", "name", "defaults", "kwdefaults", "closure", "value",
                     "globals_tracker", "qualname"))


def _make_function(code, globals_, name, qualname, defaults, kwdefaults, closure):
    fn = types.FunctionType(code, globals_, name, defaults, closure)
    fn.__qualname__ = qualname
    if kwdefaults:
        fn.__kwdefaults__ = kwdefaults
    return fn


def function_expr(builder, var: UserFunctionVariable) -> str:
    """An expression making `var` again (see the module doc), or a FallbackError."""
    extra = set(vars(var)) - _REMADE
    if var.value is not None or var.tracker is not None or extra:
        raise FallbackError(UNSUPPORTED_OBJECT, f"function {var.name} created during the trace cannot be rebuilt"
                            + (f" (it has {', '.join(sorted(extra))})" if extra else ""))
    cells = "".join(cell_expr(builder, c, var.name) + ", " for c in var.closure)
    defaults = "(" + "".join(builder.expr(v) + ", " for v in var.defaults) + ")" if var.defaults else "None"
    kwdefaults = "{" + ", ".join(f"{builder._bind(k)}: {builder.expr(v)}" for k, v in var.kwdefaults.items()) + "}"
    qualname = getattr(var, "qualname", None) or var.name
    return (f"{builder._bind(_make_function)}({builder._bind(var.code)}, {builder._bind(var.globals)}, "
            f"{builder._bind(var.name)}, {builder._bind(qualname)}, {defaults}, {kwdefaults}, ({cells}))")


def cell_expr(builder, cell: CellVariable, fn_name: str) -> str:
    if id(cell) in builder._built:
        return builder._built[id(cell)]
    if not getattr(cell, "inlined", False) or cell.tracker is not None or cell.preexisting:
        raise FallbackError(UNSUPPORTED_OBJECT, f"function {fn_name} created during the trace cannot be rebuilt "
                            "(a cell of its closure is the frame's own or from before it)")
    name = f"b{len(builder._built)}"
    builder._built[id(cell)] = name
    builder.prelude.append(f"{name} = {builder._bind(types.CellType)}()")
    if cell.contents is not None:
        contents = builder.expr(cell.contents)
        builder.prelude.append(f"{name}.cell_contents = {contents}")
    return name
