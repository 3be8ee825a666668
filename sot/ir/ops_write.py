"""Writes: statements that change the memory of an array that already exists.

A write statement has no result (``outputs == ()``); it changes the memory
of its *target*, exactly as the eager call does, and every later statement
reading that memory (the target, any view of it, any input sharing it) sees
the change because statements run in program order.  The kinds, each a
``WriteOp`` (an ``Op`` that is not in the lookup tables: the simulator
records them through ``sot.executor.writes``):

==================  ==============================  =========================
op                  listed / generated as           target
==================  ==============================  =========================
``setitem``         ``i0[0, ::-1] = t3``            ``args[0]``
``inplace_add`` …   ``i0 += t3`` (every ``op=``)    ``args[0]``
a ufunc, ``out=``   ``np.add(i0, i1, out=i2)``      ``kwargs["out"]``
``copyto``          ``np.copyto(i0, t1)``           ``args[0]``
``fill``            ``i0.fill(0.0)``                ``args[0]``
``putmask``         ``np.putmask(i0, t1, 0.0)``     ``args[0]``
``put``, ``place``  ``np.put(i0, [0, 2], t1)``      ``args[0]``
``put_along_axis``  ``np.put_along_axis(i0, t1, …)``  ``args[0]``
``add.at`` …        ``c0(i0, t1, 1.0)`` (c0:        ``args[0]``
                    ``np.add.at``)
``fill_diagonal``   ``np.fill_diagonal(i0, 1.0)``   ``args[0]``
``sort``            ``i0.sort(axis=-1)``            ``args[0]``
==================  ==============================  =========================

Inference checks what eager would check before writing (shapes broadcast
into the target, casting rules — by running the write on probes, as every
op does) and returns ``()``; where eager would raise, ``UnsupportedOp``.
A boolean mask index (``x[m] = 0``) is captured when the value broadcasts
to every possible count of selected elements: the write has a static shape
even though the count is data.
"""

from __future__ import annotations

import operator

import numpy as np

from .errors import UnsupportedOp
from .registry import Op, broadcast, call_quietly, lookup_operator, shape_of, substitute
from .statement_ir import Statement, Symbol, format_arg

__all__ = ["WriteOp", "SETITEM", "inplace_op", "ufunc_out_op", "ufunc_at_op", "function_write", "method_write",
           "allocation", "is_write", "write_target", "memory_roots", "write_roots", "written_roots", "INPLACE_SYMBOLS", "listing"]


class WriteOp(Op):
    """An Op whose statement writes into its target (see the module docstring)."""


#: in-place operator name (``operator`` module) -> its Python spelling
INPLACE_SYMBOLS = {
    "iadd": "+=", "isub": "-=", "imul": "*=", "itruediv": "/=", "ifloordiv": "//=", "imod": "%=",
    "ipow": "**=", "imatmul": "@=", "iand": "&=", "ior": "|=", "ixor": "^=", "ilshift": "<<=",
    "irshift": ">>=",
}


def is_write(st: Statement) -> bool:
    return isinstance(st.op, WriteOp)


def write_target(st: Statement) -> Symbol:
    """The array whose memory ``st`` changes."""
    if st.op.kind == "function" and isinstance(st.op.target, np.ufunc):
        return st.kwargs["out"]
    return st.args[0]


def _target(value) -> Symbol:
    if not isinstance(value, Symbol) or value.meta.is_python or value.meta.is_scalar:
        raise UnsupportedOp("only an ndarray traced by the graph is written in place")
    return value


def _probe_target(sym: Symbol):
    return np.ones(tuple(min(int(d), 1) for d in sym.meta.shape), sym.meta.dtype)


def _probe(tree):
    """Probes for the operands; the target gets a writable one."""
    return substitute(tree)


def _fits(value_shape, target_shape, what: str) -> None:
    """``value`` broadcasts into ``target`` as a write needs (leading 1s dropped)."""
    vs = tuple(value_shape)
    while len(vs) > len(target_shape) and vs[0] == 1:
        vs = vs[1:]
    if len(vs) > len(target_shape) or broadcast(vs, target_shape) != tuple(target_shape):
        raise UnsupportedOp(f"{what}: a value of shape {tuple(value_shape)} does not fit "
                            f"into shape {tuple(target_shape)}")


# -- x[index] = value --------------------------------------------------------------

def _mask_selection(shape, index):
    """Selected shape of a single boolean-array index, with ``None`` for the
    data-dependent count; or None when ``index`` is no such mask."""
    if isinstance(index, Symbol) and not index.meta.is_python and index.meta.dtype.kind == "b":
        k = len(index.meta.shape)
        if index.meta.is_scalar or k == 0 or tuple(index.meta.shape) != tuple(shape[:k]):
            raise UnsupportedOp("a boolean index must have the shape of the leading axes it masks")
        return (None,) + tuple(shape[k:])
    items = index if type(index) is tuple else (index,)
    if any(isinstance(i, Symbol) and not i.meta.is_python and i.meta.dtype.kind == "b" for i in items):
        raise UnsupportedOp("a boolean mask combined with other indices is not captured")
    return None


def _setitem_infer(op, args, kwargs):
    if kwargs or len(args) != 3:
        raise UnsupportedOp("setitem takes (array, index, value)")
    target, index, value = args
    _target(target)
    from .ops_indexing import _probe_index_item, bool_lists_as_positions, getitem_shape
    shape = target.meta.shape
    index = bool_lists_as_positions(shape, index)
    selected = _mask_selection(shape, index)
    pvalue = None
    if selected is not None:
        pindex = np.zeros(tuple(min(int(d), 1) for d in index.meta.shape), bool)
        counted = _counted_value(value, selected)
        if counted is not None:
            # `a[m] = f(b[m])`: the value has an axis for the selected count
            # (data-dependent): NumPy checks at run time that the two agree
            # and raises as eagerly where not, as for an index out of bounds
            _fits((1,) + counted[1:], (2,) + selected[1:], "masked assignment")
            pvalue = np.ones((0,) + tuple(min(int(d), 1) for d in counted[1:]), value.meta.dtype)
        # otherwise, every count of selected elements: the value must fit 2 and 3 alike
        for n in (2, 3) if counted is None else ():
            _fits(shape_of(value), (n,) + selected[1:], "masked assignment")
    else:
        _fits(shape_of(value), getitem_shape(shape, index), "assignment")
        pindex = (tuple(_probe_index_item(it) for it in index) if type(index) is tuple
                  else _probe_index_item(index))
    call_quietly(op, (_probe_target(target), pindex, _probe(value) if pvalue is None else pvalue), {})
    return ()


def _counted_value(value, selected):
    """The shape of a traced array ``value`` (leading 1s dropped) when it
    has an axis of its own for the count of a masked assignment's selected
    elements, else None."""
    if not isinstance(value, Symbol) or value.meta.is_python or value.meta.is_scalar:
        return None
    vs = tuple(value.meta.shape)
    while len(vs) > len(selected) and vs[0] == 1:
        vs = vs[1:]
    return vs if len(vs) == len(selected) and vs[0] != 1 else None


SETITEM = WriteOp("setitem", "operator", operator.setitem, _setitem_infer)


# -- x op= y -----------------------------------------------------------------------

def _inplace_infer(op, args, kwargs):
    if kwargs or len(args) != 2:
        raise UnsupportedOp(f"{op.name} takes (target, value)")
    target = _target(args[0])
    base = lookup_operator(_base_name(op.name))
    if base is None:
        raise UnsupportedOp(f"{op.name} is not captured")
    meta = base.infer(args, {})
    # `z + 1` of a 0-d array is a NumPy scalar, but `z += 1` writes into z
    if tuple(meta.shape) != tuple(target.meta.shape) or (meta.is_scalar and target.meta.shape != ()):
        raise UnsupportedOp(f"{op.name}: the result's shape {meta.shape} is not the target's "
                            f"{target.meta.shape}")
    call_quietly(op, (_probe_target(target), _probe(args[1])), {})
    return ()


def _base_name(inplace_name: str) -> str:
    name = inplace_name[len("inplace_"):]
    return name + "_" if name in ("and", "or") else name


_INPLACE_OPS: dict[str, WriteOp] = {}


def inplace_op(name: str) -> WriteOp:
    """The write for the in-place operator ``name`` (``iadd``…)."""
    op = _INPLACE_OPS.get(name)
    if op is None:
        if name not in INPLACE_SYMBOLS:
            raise UnsupportedOp(f"in-place operator {name} is not captured")
        op = _INPLACE_OPS[name] = WriteOp("inplace_" + name[1:].rstrip("_"), "operator",
                                          getattr(operator, name), _inplace_infer)
    return op


# -- np.ufunc(a, b, out=c [, where=m]) -----------------------------------------------

_UFUNC_WRITE_KWARGS = frozenset({"out", "where", "casting", "dtype"})


def _ufunc_out_infer(op, args, kwargs):
    ufunc = op.target
    if len(args) != ufunc.nin:
        raise UnsupportedOp(f"{op.name}: expects {ufunc.nin} operands")
    if set(kwargs) - _UFUNC_WRITE_KWARGS:
        raise UnsupportedOp(f"{op.name}: keyword {sorted(set(kwargs) - _UFUNC_WRITE_KWARGS)[0]}= not captured")
    out = _target(kwargs["out"])
    shapes = [shape_of(a) for a in args]
    if "where" in kwargs:
        shapes.append(shape_of(kwargs["where"]))
    if broadcast(*shapes, out.meta.shape) != tuple(out.meta.shape):
        raise UnsupportedOp(f"{op.name}: operands of shapes {shapes} do not broadcast to out's "
                            f"shape {out.meta.shape}")
    pkwargs = dict(_probe({k: v for k, v in kwargs.items() if k != "out"}), out=_probe_target(out))
    call_quietly(op, _probe(args), pkwargs)
    return ()


_UFUNC_OPS: dict[int, WriteOp] = {}


def ufunc_out_op(ufunc: np.ufunc) -> WriteOp:
    """The write ``ufunc(*operands, out=target)``."""
    if ufunc.nout != 1 or ufunc.signature is not None or ufunc.nin not in (1, 2):
        raise UnsupportedOp(f"{ufunc.__name__} with out= is not captured")
    op = _UFUNC_OPS.get(id(ufunc))
    if op is None:
        op = _UFUNC_OPS[id(ufunc)] = WriteOp(ufunc.__name__, "function", ufunc, _ufunc_out_infer)
    return op


# -- np.ufunc.at(a, indices, b) ------------------------------------------------------

def _ufunc_at_infer(op, args, kwargs):
    ufunc = op.target.__self__
    if kwargs or len(args) != 1 + ufunc.nin:
        raise UnsupportedOp(f"{op.name}: takes (a, indices{', b' if ufunc.nin == 2 else ''})")
    target, index = _target(args[0]), args[1]
    from .ops_indexing import _probe_index_item, getitem_shape
    if _mask_selection(target.meta.shape, index) is not None:
        raise UnsupportedOp(f"{op.name} with a boolean mask")
    selected = getitem_shape(target.meta.shape, index)   # constant indices checked here
    if ufunc.nin == 2:
        _fits(shape_of(args[2]), selected, op.name)
    pindex = (tuple(_probe_index_item(it) for it in index) if type(index) is tuple
              else _probe_index_item(index))
    call_quietly(op, (_probe_target(target), pindex) + _probe(tuple(args[2:])), {})
    return ()


def ufunc_at_op(ufunc: np.ufunc) -> WriteOp:
    """The write ``ufunc.at(a, indices[, b])``: unbuffered, repeated indices
    applied in order (the NumPy backend runs it as it is)."""
    if ufunc.nout != 1 or ufunc.signature is not None or ufunc.nin not in (1, 2):
        raise UnsupportedOp(f"{ufunc.__name__}.at is not captured")
    return WriteOp(f"{ufunc.__name__}.at", "function", ufunc.at, _ufunc_at_infer)


# -- functions and methods that write their first argument ------------------------------

def _copyto_infer(op, args, kwargs):
    from .registry import bind
    bound = bind("copyto", ("dst", "src", "casting", "where"), args, kwargs,
                 {"dst", "src", "casting", "where"})
    dst = _target(bound.get("dst"))
    shapes = [shape_of(bound["src"])] + ([shape_of(bound["where"])] if "where" in bound else [])
    if broadcast(*shapes, dst.meta.shape) != tuple(dst.meta.shape):
        raise UnsupportedOp(f"copyto: {shapes} do not broadcast to {dst.meta.shape}")
    pargs = (_probe_target(dst),) + _probe(tuple(args[1:]))
    call_quietly(op, pargs, _probe(kwargs))
    return ()


def _first_arg_infer(check):
    def infer(op, args, kwargs):
        if not args:
            raise UnsupportedOp(f"{op.name}: no array to write")
        target = _target(args[0])
        check(target, args[1:], kwargs)
        call_quietly(op, (_probe_target(target),) + _probe(tuple(args[1:])), _probe(kwargs))
        return ()
    return infer


def _check_fill(target, rest, kwargs):
    if kwargs or len(rest) != 1 or shape_of(rest[0]) not in ((), (1,)):
        raise UnsupportedOp("fill takes one scalar value")


def _check_putmask(target, rest, kwargs):
    if kwargs or len(rest) != 2:
        raise UnsupportedOp("putmask takes (a, mask, values)")
    if tuple(shape_of(rest[0])) != tuple(target.meta.shape):
        raise UnsupportedOp("putmask: the mask must have the array's shape")
    if 0 in shape_of(rest[1]):
        raise UnsupportedOp("putmask: empty values")


def _check_fill_diagonal(target, rest, kwargs):
    if len(rest) != 1 or set(kwargs) - {"wrap"}:
        raise UnsupportedOp("fill_diagonal takes (a, val, wrap=)")
    shape = target.meta.shape
    if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) != 1):
        raise UnsupportedOp("fill_diagonal: the array must be 2-d or have equal dims")
    if 0 in shape_of(rest[0]):
        raise UnsupportedOp("fill_diagonal: empty values")


def _check_sort(target, rest, kwargs):
    if rest or set(kwargs) - {"axis", "kind"} or not target.meta.shape:
        raise UnsupportedOp("sort: only axis= and kind= are captured")
    axis = kwargs.get("axis", -1)
    if type(axis) is not int or not -len(target.meta.shape) <= axis < len(target.meta.shape):
        raise UnsupportedOp(f"sort: axis {axis!r}")


def _put_infer(op, args, kwargs):
    """``np.put(a, ind, v, mode='raise')``: constant indices are checked
    here; traced ones raise at run time as eagerly (an error after a write
    into memory from outside the graph is raised as it is)."""
    from .registry import bind
    bound = bind("put", ("a", "ind", "v", "mode"), args, kwargs, {"a", "ind", "v", "mode"})
    target = _target(bound.get("a"))
    ind, v = bound.get("ind"), bound.get("v")
    if ind is None or v is None or 0 in shape_of(v):
        raise UnsupportedOp("put: needs indices and non-empty values")
    size = int(np.prod(target.meta.shape, dtype=np.int64))
    if isinstance(ind, Symbol):
        if ind.meta.is_python or ind.meta.dtype.kind not in "iu":
            raise UnsupportedOp("put: indices must be integers")
        pind = np.zeros(tuple(min(int(d), 1) for d in ind.meta.shape), ind.meta.dtype)
    else:
        values = np.asarray(ind)
        if values.dtype.kind not in "iu" and values.size:
            raise UnsupportedOp("put: indices must be integers")
        if bound.get("mode", "raise") == "raise" and values.size and (values.min() < -size or values.max() >= size):
            raise UnsupportedOp("put: an index is out of bounds")
        pind = np.zeros(values.shape, np.intp)
    call_quietly(op, (_probe_target(target), pind, _probe(v)), _probe({k: x for k, x in kwargs.items()
                                                                       if k == "mode"}))
    return ()


def _put_along_axis_infer(op, args, kwargs):
    """``np.put_along_axis(arr, indices, values, axis)`` with an int axis:
    the index shape is ``indices`` broadcast with the other axes of ``arr``,
    ``values`` broadcast to it; traced indices out of bounds raise at run
    time, as for ``put``."""
    from .registry import bind, const_axes
    bound = bind("put_along_axis", ("arr", "indices", "values", "axis"), args, kwargs,
                 {"arr", "indices", "values", "axis"})
    target = _target(bound.get("arr"))
    ind, values = bound.get("indices"), bound.get("values")
    if not isinstance(ind, Symbol) or ind.meta.is_python or ind.meta.dtype.kind not in "iu" or values is None:
        raise UnsupportedOp("put_along_axis: needs traced integer indices and values")
    if bound.get("axis") is None or ind.meta.ndim != target.meta.ndim:
        raise UnsupportedOp("put_along_axis: needs an int axis and indices of the array's ndim")
    (axis,) = const_axes(bound["axis"], target.meta.ndim)
    index_shape = tuple(i if d == axis else broadcast((i,), (a,))[0]
                        for d, (i, a) in enumerate(zip(ind.meta.shape, target.meta.shape)))
    if broadcast(shape_of(values), index_shape) != index_shape:
        raise UnsupportedOp(f"put_along_axis: values of shape {shape_of(values)} do not fit {index_shape}")
    pind = np.zeros(tuple(min(int(d), 1) for d in ind.meta.shape), ind.meta.dtype)
    call_quietly(op, (_probe_target(target), pind, _probe(values)), {"axis": axis})
    return ()


def _check_place(target, rest, kwargs):
    if kwargs or len(rest) != 2:
        raise UnsupportedOp("place takes (arr, mask, vals)")
    if int(np.prod(shape_of(rest[0]))) != int(np.prod(target.meta.shape)):
        raise UnsupportedOp("place: mask and data must be the same size")
    if 0 in shape_of(rest[1]):
        raise UnsupportedOp("place: empty values (NumPy raises if the mask selects anything)")


_FUNCTION_WRITES = {
    id(np.put): WriteOp("put", "function", np.put, _put_infer),
    id(np.place): WriteOp("place", "function", np.place, _first_arg_infer(_check_place)),
    id(np.put_along_axis): WriteOp("put_along_axis", "function", np.put_along_axis, _put_along_axis_infer),
    id(np.copyto): WriteOp("copyto", "function", np.copyto, _copyto_infer),
    id(np.putmask): WriteOp("putmask", "function", np.putmask, _first_arg_infer(_check_putmask)),
    id(np.fill_diagonal): WriteOp("fill_diagonal", "function", np.fill_diagonal,
                                  _first_arg_infer(_check_fill_diagonal)),
}
_METHOD_WRITES = {
    "fill": WriteOp("fill", "method", "fill", _first_arg_infer(_check_fill)),
    "sort": WriteOp("sort", "method", "sort", _first_arg_infer(_check_sort)),
}


def function_write(fn) -> WriteOp | None:
    """The write a NumPy function performs on its first argument, if captured."""
    op = _FUNCTION_WRITES.get(id(fn))
    return op if op is not None and op.target is fn else None


def method_write(name: str) -> WriteOp | None:
    """The write an ndarray method performs on its array, if captured."""
    return _METHOD_WRITES.get(name)


# -- allocation to write into -------------------------------------------------------
# ``np.empty``/``empty_like``, the first step of preallocate-then-fill, are
# not in the registry (an op there must agree with eager on its values):
# the simulator records them for a program that writes (executor/writes.py).
# The NumPy backend allocates exactly as eagerly, and an element the program
# never writes is as undefined as eagerly; no backend lowers them to ONNX.

def _allocations():
    from .ops_creation import _filled_infer, _like_infer
    return {
        id(np.empty): Op("empty", "function", np.empty,
                         _filled_infer(("shape", "dtype", "order"), {"shape", "dtype", "order"})),
        id(np.empty_like): Op("empty_like", "function", np.empty_like,
                              _like_infer(("a", "dtype", "order", "subok", "shape"))),
    }


_ALLOCATIONS = _allocations()


def allocation(fn) -> Op | None:
    """The Op for ``np.empty``/``np.empty_like``, None for anything else."""
    op = _ALLOCATIONS.get(id(fn))
    return op if op is not None and op.target is fn else None


# -- reading a graph's writes ---------------------------------------------------------

def listing(st: Statement) -> str:
    """How a write reads in a graph listing."""
    args = st.args
    if st.op is SETITEM:
        index = args[1]
        text = ", ".join(format_arg(i) for i in index) if type(index) is tuple and index else format_arg(index)
        return f"{format_arg(args[0])}[{text}] = {format_arg(args[2])}"
    symbol = INPLACE_SYMBOLS.get(getattr(st.op.target, "__name__", ""))
    if st.op.kind == "operator" and symbol:
        return f"{format_arg(args[0])} {symbol} {format_arg(args[1])}"
    return None


def memory_roots(graph, allocated: bool = False) -> dict[str, frozenset]:
    """Symbol name -> the inputs whose memory it is or views (through the
    views the graph makes: ``Op.aliases``); a symbol missing here is memory
    the graph allocated.  ``allocated``: the arrays the graph allocated are
    roots too (every array symbol is then here)."""
    root: dict[str, frozenset] = {s.name: frozenset([s.name]) for s in graph.inputs}
    _fold_roots(root, graph.statements, allocated)
    return root


def _fold_roots(root: dict, statements, allocated: bool = False) -> None:
    """``memory_roots``' fold over `statements` into `root`."""
    for st in statements:
        if allocated and not st.op.aliases:
            for s in st.outputs:
                root[s.name] = frozenset([s.name])
        if st.op.aliases and not is_write(st):
            bases: frozenset = frozenset()
            for s in st.symbols_used():
                bases |= root.get(s.name, frozenset())
            if bases:
                for s in st.outputs:
                    root[s.name] = bases


def last_write_roots(graph) -> frozenset:
    """``write_roots(graph)[-1][1]`` (the roots of the last write), without
    folding the whole graph again: a StatementIR only appends inputs and
    statements, so the fold done for the previous write is kept on it
    (``_write_fold``; started afresh if the statement it ended at is not
    where it was) and continued. A trace of many writes (a Thomas sweep)
    folded the whole graph at each one."""
    inputs, statements = graph.inputs, graph.statements
    fold = getattr(graph, "_write_fold", None)
    if fold is None or fold[1] > len(statements) or (fold[1] and statements[fold[1] - 1] is not fold[3]):
        fold = graph._write_fold = [0, 0, {}, None]
    n_in, n_st, root, _ = fold
    for s in inputs[n_in:]:
        root[s.name] = frozenset([s.name])
    _fold_roots(root, statements[n_st:])
    fold[0], fold[1], fold[3] = len(inputs), len(statements), statements[-1] if statements else None
    last = next(st for st in reversed(statements) if is_write(st))
    return root.get(write_target(last).name, frozenset())


def write_roots(graph) -> list[tuple[Statement, frozenset]]:
    """Each write of ``graph`` with the inputs whose memory it writes into
    (``memory_roots``); an empty set for a write into arrays the graph
    allocated."""
    root = memory_roots(graph)
    return [(st, root.get(write_target(st).name, frozenset())) for st in graph.statements if is_write(st)]


def written_roots(graph) -> dict[str, Statement]:
    """Input name -> the first statement writing into its memory."""
    found: dict[str, Statement] = {}
    for st, roots in write_roots(graph):
        for name in sorted(roots):
            found.setdefault(name, st)
    return found
