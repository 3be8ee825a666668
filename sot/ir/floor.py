"""The smallest sizes a symbolic dim admits: does the trace still hold there?

The two worlds of ``sot.ir.symbolic`` (the traced sizes, and the same plus a
huge prime) see every size a symbolic dim can take *above* the traced one,
but not the sizes between the guard's floor (a symbolic dim matches any
size >= 2) and the traced size.  A clamp decides differently there:
``x[:3]`` is 3 long in both worlds when ``x`` was traced with 4 and 5 rows,
so the trace takes ``x[:3].shape[0]`` as the constant 3, yet for 2 rows it is
2.  Arrays are right anyway (NumPy computes their shapes at run time, and
a symbolic onnxruntime graph re-checks every static dim per new shape), but
a static dim the trace *read as a Python int* (``StatementIR.static_reads``:
``.shape``, ``len``, ``.size``) was baked into the trace.  So before a graph
with symbolic dims is used, its statements are inferred once more at the
floor (every symbolic input dim 2, then 3 where NumPy raises at 2); a dim
read that way, or a Python number the trace took as static, that comes out
different there means the trace relies on the traced sizes:
``SpecializeDims`` for the dims it depends on (the trace is redone with
them static, as for any other reliance on a size).
"""
from __future__ import annotations

from .meta import TensorMeta
from .registry import DIM_OP
from .statement_ir import StatementIR, Symbol, map_symbols
from .symbolic import SpecializeDims
from . import unbacked as ub

__all__ = ["check_floor", "FLOORS"]

#: the sizes tried, in order, until one replays the whole graph
FLOORS = (2, 3)


def check_floor(ir: StatementIR) -> None:
    """Raise SpecializeDims when a static dim or number of ``ir`` differs at
    the floor of its symbolic input dims."""
    if not ir.static_reads or not any(sym.meta.symbolic_axes for sym in ir.inputs if not sym.meta.is_python):
        return
    for floor in FLOORS:
        mismatch, complete = _replay(ir, floor)
        if mismatch is not None:
            raise SpecializeDims(mismatch, "a size the trace took as static is different for "
                                           f"{floor}-long symbolic dims (a clamp such as x[:3])")
        if complete:
            return


def _floor_meta(meta, floor: int):
    if meta.is_python or not meta.symbolic_axes:
        return meta
    shape = tuple(floor if axis in meta.symbolic_axes else n for axis, n in enumerate(meta.shape))
    return TensorMeta(shape, meta.dtype, meta.is_scalar)


def _replay(ir: StatementIR, floor: int):
    """(sources to specialise or None, whether every statement replayed)."""
    world = StatementIR(ir.name)
    env: dict = {}
    read: dict = {}
    for name, axis in ir.static_reads:
        read.setdefault(name, set()).add(axis)
    try:
        for sym in ir.inputs:
            if sym.meta.is_python:
                env[sym.name] = sym.meta.hint
            else:
                env[sym.name] = world.add_input(_floor_meta(sym.meta, floor))
        for st in ir.statements:
            args = map_symbols(st.args, lambda s: env.get(s.name, s))
            kwargs = map_symbols(st.kwargs, lambda s: env.get(s.name, s))
            if st.op is DIM_OP:
                values = [env[st.args[0].name].meta.shape[st.args[1]]]
            elif st.outputs and all(s.meta.is_python for s in st.outputs):
                values = [st.op.call(args, kwargs)]
            else:
                result = world.add_op(st.op, args, kwargs)
                values = list(result) if st.multi_output else [result]
            for sym, value in zip(st.outputs, values):
                if _changed(sym.meta, value, read.get(sym.name, ())):
                    return _sources(ir, sym), False
                env[sym.name] = value
    except Exception:  # noqa: BLE001 - NumPy raises at this size: the graph raises there as eagerly
        return None, False
    return None, True


def _changed(meta, value, axes_read) -> bool:
    """Whether what the trace took as static, and used, differs in the floor world."""
    if meta.is_python:
        static = type(meta.hint) is type(meta.shadow) and meta.hint == meta.shadow
        return static and not isinstance(value, Symbol) and value != meta.hint
    if not axes_read or not isinstance(value, Symbol) or not isinstance(value.meta, TensorMeta):
        return False
    return any(meta.shape[axis] != value.meta.shape[axis] for axis in axes_read)


def _sources(ir: StatementIR, sym: Symbol) -> frozenset:
    """The symbolic input dims ``sym`` depends on (all of them where unknown:
    a value whose dims are all static keeps no record of its sources)."""
    found = ir.deps(sym) or frozenset(ir.symbolic_sources())
    return frozenset(s for s in found if not ub.any_unbacked([s]))
