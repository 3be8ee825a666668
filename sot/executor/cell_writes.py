"""`nonlocal` writes to the translated frame's own free variables.

A translated function that assigns a free variable (`nonlocal n; n += 1`,
directly or in a function it calls and that is inlined) writes a cell that
existed before the frame. The write is simulated: the cell's contents
become the new value for every later read in the trace, and the replacement
stores the final value into the real cell once the graph has run (the
runner returns it beside the frame's result, or beside the restored locals
at a graph break), as eager would have left it.

Only the frame's own free cells are written this way: the replacement code
holds them as its free variables. A cell reached another way (the closure
of a function made outside the frame) that is one of those same cells is
recognised by identity and read and written through the frame's cell; any
other preexisting cell still breaks the graph at the write.
"""
from __future__ import annotations


def register(graph, cells: dict) -> None:
    """Remember the frame's own free cells (name -> CellVariable with real_cell)."""
    graph.frame_cells = {id(c.real_cell): (name, c) for name, c in cells.items()
                         if getattr(c, "real_cell", None) is not None}
    graph.written_cells = {}


def frame_cell(graph, cell):
    """(name, the frame's CellVariable) for the same real cell as `cell`, or None."""
    real = getattr(cell, "real_cell", None)
    cells = getattr(graph, "frame_cells", None)
    if real is None or not cells:
        return None
    return cells.get(id(real))


def store(graph, cell, value) -> bool:
    """Simulate `cell = value` on a preexisting cell; False when it is not one
    of the frame's own free cells (the caller breaks the graph)."""
    found = frame_cell(graph, cell)
    if found is None:
        return False
    name, top = found
    top.contents = value
    cell.contents = value
    graph.written_cells[name] = top
    return True


def written(graph, code) -> list[str]:
    """The frame's free variables the trace wrote, in co_freevars order."""
    names = getattr(graph, "written_cells", {})
    return [n for n in code.co_freevars if n in names]


def contents(graph, name: str):
    return graph.written_cells[name].contents
