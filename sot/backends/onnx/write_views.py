"""Writes through views, lowered functionally: the memory as one ONNX value.

A written *memory class* (``writes``: symbols joined by aliasing ops)
is lowered functionally, as one value — its *root* — when

* it has exactly one root: a graph input (overlapping no other input, not
  frozen) or an array a statement made (``np.empty``, ``x.copy()``, ``x *
  2``...), and
* every other member is a *box view* of the root: ``getitem`` with
  constant ints, step-1 slices, ``None`` and ``...`` (of the root or of
  another box view; ``u[1:-1, 1:-1]``, ``out[i]``), so that it is a box
  ``root[a0:b0, a1:b1, ...]`` up to a reshape.

A write into a member (or into a box of it: ``t[1:, 0] = v``) then computes
the new value of the box, puts it into the root's value (``Concat`` of the
root's slices around it: exact, any dtype) and rebinds the root; every
member read after the write is sliced again from the new root
(``refresh``).  A root that is a graph input is written back into the
caller's array when its segment ends (``writes.writeback``).  Where a
class does not qualify (a transposed or reshaped view, a flip, an index
computed by the graph...), its writes run in place on NumPy as before.

Boxes are computed from shapes only: the view chain is replayed by NumPy
itself on a zero-memory stand-in of the root (``as_strided`` over one byte;
basic indexing computes offsets and never reads elements), and the box is
read back from the view's offset and strides.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sot.ir.ops_write import is_write, write_target
from sot.ir.registry import statement_aliases
from sot.ir.statement_ir import Statement, StatementIR, Symbol

__all__ = ["Box", "ViewClass", "view_classes", "box_of", "class_of", "rebound"]


@dataclass(frozen=True)
class Box:
    """``root[starts[0]:stops[0], ...]``, seen with ``shape`` (the view's)."""
    starts: tuple
    stops: tuple
    shape: tuple

    @property
    def box_shape(self) -> tuple:
        return tuple(b - a for a, b in zip(self.starts, self.stops))


@dataclass
class ViewClass:
    root: Symbol
    boxes: dict = field(default_factory=dict)        # member name -> Box (the root's: the whole)
    chains: dict = field(default_factory=dict)       # member name -> indices from the root
    members: dict = field(default_factory=dict)      # member name -> Symbol
    refresh: dict = field(default_factory=dict)      # id(write) -> members read after it


def _c_strides(shape) -> tuple:
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(int(d), 1)
    return tuple(reversed(strides))


def _constant_basic(index) -> bool:
    items = index if type(index) is tuple else (index,)
    for i in items:
        if i is None or i is Ellipsis or type(i) is int:
            continue
        if type(i) is slice and all(v is None or type(v) is int for v in (i.start, i.stop, i.step)):
            continue
        return False
    return True


def box_of(shape, chain) -> Box | None:
    """The box of ``root[chain[0]][chain[1]]...`` in a root of ``shape``, or
    None (not a box, or not constant basic indexing)."""
    shape = tuple(int(d) for d in shape)
    if not shape or 0 in shape or not all(_constant_basic(ix) for ix in chain):
        return None
    strides = _c_strides(shape)
    base = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), shape, strides, writeable=False)
    view = base
    try:
        for index in chain:
            items = index if type(index) is tuple else (index,)
            if not any(i is Ellipsis for i in items):
                items = items + (Ellipsis,)   # a view, never an element read
            view = view[items]
    except (IndexError, TypeError, ValueError):
        return None
    offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    lens = [1] * len(shape)
    last = -1
    for n, s in zip(view.shape, view.strides):
        if n == 1:
            continue
        k = next((k for k in range(len(shape)) if shape[k] > 1 and strides[k] == s), None)
        if k is None or k <= last:
            return None
        lens[k], last = n, k
    starts = []
    for k in range(len(shape)):
        a = 0 if shape[k] == 1 else offset // strides[k]
        offset -= a * strides[k]
        if a + lens[k] > shape[k]:
            return None
        starts.append(a)
    if offset != 0 or view.size == 0 or int(np.prod(lens)) != view.size:
        return None
    return Box(tuple(starts), tuple(a + n for a, n in zip(starts, lens)), tuple(view.shape))


def _is_box_getitem(st: Statement) -> bool:
    return (st.op.kind == "operator" and st.op.name == "getitem" and len(st.args) == 2
            and statement_aliases(st.op, st.args) and _constant_basic(st.args[1]))


def view_classes(graph: StatementIR, find, written: set) -> dict:
    """class root id (``find``'s) -> ViewClass, for the written classes that
    qualify (see the module docstring)."""
    producer = {}
    for i, st in enumerate(graph.statements):
        for s in st.outputs:
            producer[s.name] = i
    shared = {n for pair in graph.shared for n in pair}
    members: dict = {}
    for s in graph.inputs:
        if find(s.name) in written:
            members.setdefault(find(s.name), {})[s.name] = s
    for st in graph.statements:
        for s in st.outputs:
            if find(s.name) in written and not s.meta.is_scalar:   # x[i, j] is a NumPy scalar: a copy
                members.setdefault(find(s.name), {})[s.name] = s
    found = {}
    for cid, syms in members.items():
        vc = _qualify(graph, syms, producer, shared)
        if vc is not None:
            found[cid] = vc
    return found


def _qualify(graph, syms: dict, producer: dict, shared: set) -> ViewClass | None:
    roots = []
    for name, s in syms.items():
        st = graph.statements[producer[name]] if name in producer else None
        if st is None or not statement_aliases(st.op, st.args):
            roots.append(s)
        elif not _is_box_getitem(st) or not isinstance(st.args[0], Symbol) or st.args[0].name not in syms:
            return None
    if len(roots) != 1:
        return None
    root = roots[0]
    if root.name in shared or any(n in graph.frozen for n in syms) or root.meta.is_scalar:
        return None
    vc = ViewClass(root, members=dict(syms))
    if len(syms) == 1 and graph.is_symbolic:
        return vc    # the root alone, written as a whole (its writes lower as before)
    if graph.is_symbolic:
        return None
    vc.chains[root.name] = ()
    vc.boxes[root.name] = Box((0,) * len(root.meta.shape), tuple(int(d) for d in root.meta.shape),
                              tuple(int(d) for d in root.meta.shape))
    for st in graph.statements:   # program order: a view's base comes first
        if st.outputs and st.outputs[0].name in syms and st.outputs[0].name != root.name:
            base = st.args[0].name
            if base not in vc.chains:
                return None
            chain = vc.chains[base] + (st.args[1],)
            box = box_of(root.meta.shape, chain)
            if box is None:
                return None
            vc.chains[st.outputs[0].name], vc.boxes[st.outputs[0].name] = chain, box
    _plan_refresh(graph, vc, producer)
    return vc


def _plan_refresh(graph, vc: ViewClass, producer: dict) -> None:
    last_use: dict = {s.name: len(graph.statements) for s in graph.outputs}
    for i, st in enumerate(graph.statements):
        for s in st.symbols_used():
            last_use[s.name] = max(last_use.get(s.name, -1), i)
    for i, st in enumerate(graph.statements):
        if is_write(st) and write_target(st).name in vc.members:
            vc.refresh[id(st)] = [s for name, s in vc.members.items()
                                  if name != vc.root.name and producer.get(name, -1) < i
                                  and last_use.get(name, -1) > i]


def class_of(views, target: Symbol) -> ViewClass | None:
    """The ViewClass of a written symbol; ``views``: (find, view_classes(...))."""
    if views is None:
        return None
    find, classes = views
    return classes.get(find(target.name))


def rebound(views, st: Statement) -> list:
    """The symbols that name a new value once the write ``st`` is lowered:
    its target, the root of its memory, the members read after it."""
    target = write_target(st)
    vc = class_of(views, target)
    if vc is None:
        return [target]
    return [target, vc.root] + list(vc.refresh.get(id(st), ()))
