"""Which intermediates of a NumPy graph are written into kept buffers.

A fresh multi-megabyte intermediate costs page faults on every call (glibc
hands large blocks back to the OS when they are freed).  The NumPy backend
therefore computes some intermediates with ``ufunc(..., out=buffer)`` into
memory a compiled graph keeps between calls (``buffers``).  This
module decides, at compile time, which statements may do so and into which
buffer; the rules that keep results bitwise equal to eager NumPy:

* **Only elementwise ufuncs.**  A ``np.<ufunc>(...)`` call, or a Python
  operator that NumPy implements as one ufunc call.  Which ufunc an operator
  calls is asked of NumPy itself, on stand-ins that report the call instead
  of computing (``x ** 2`` is ``np.square(x)``, ``x ** 0.5`` ``np.sqrt(x)``,
  depending on the NumPy version); ``**`` with a traced exponent is left
  alone (NumPy 2.2 picks the ufunc by the exponent's *value*).  A ufunc's
  values do not depend on where its result is written, and writing into a
  buffer of the result's own dtype selects the same loop (checked on a probe
  at compile time).
* **Large results only** (``numpy_buffers.MIN_BYTES``), so never a NumPy
  scalar or a 0-d array.
* **Never memory the caller can see.**  Results are grouped with every view
  taken of them (``Op.aliases``: slices, reshapes, in-place operators...);
  a group that reaches a graph output is never buffered, so outputs, views
  and containers of them are always fresh arrays.  Inputs are never written.
* **A buffer is reused only when nothing that can see it is live**: the
  group of its last occupant has had its last use.  A ufunc may write over a
  dying operand of its own shape and dtype (as NumPy's temporary elision
  does for ``a * b * c``); the operand must be a buffered result itself, not
  a view of one, and no other operand may share its memory.
* **The same memory layout as eager.**  A ufunc result has its operands'
  layout (``order='K'``); a buffer is C-contiguous.  So a statement writes
  into its buffer only when eager's result would be C-contiguous too: its
  array operands are C-contiguous or C-ordered slices of such arrays
  (``numpy_buffers.c_ordered``: ``4.0 * u[1:-1, 1:-1]``), checked at run
  time unless known (buffered results are); otherwise it runs as written.

The plan is data for the code generator: ``writes`` maps a statement index
to a ``Write``; ``slots`` are the buffers' byte sizes; ``views`` the typed
arrays over them, named ``b0, b1, ...`` in the generated code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sot._quiet import quietly
from sot.ir.registry import probe_shape, probe_value, substitute
from sot.ir.statement_ir import StatementIR, Statement, Symbol, symbols_in

from . import buffers as numpy_buffers

__all__ = ["BufferPlan", "Write", "plan_buffers"]

_OPERATORS = frozenset(["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_",
                        "xor", "lshift", "rshift", "lt", "le", "eq", "ne", "gt", "ge",
                        "neg", "pos", "invert", "abs"])
_UFUNC_KWARGS = frozenset(["dtype", "casting", "out"])
_NUMERIC_CONSTANTS = (bool, int, float, complex)
#: ops whose result may alias only their first argument (the others are read)
_FIRST_ARG_ALIASES = frozenset(["getitem", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod",
                                "ipow", "imatmul", "iand", "ior", "ixor", "ilshift", "irshift"])


@dataclass(frozen=True)
class Write:
    """``ufunc(*operands, **kwargs, out=out)`` for statement ``index``, when
    every array named in ``checks`` is C-contiguous."""

    index: int
    ufunc: np.ufunc
    operands: tuple           # Symbols and constants, in call order
    kwargs: dict
    out: str                  # a view name (``b0``) or the dying operand written over
    checks: tuple[str, ...]   # symbols whose layout is only known at run time


@dataclass
class BufferPlan:
    writes: dict[int, Write] = field(default_factory=dict)
    slots: list[int] = field(default_factory=list)                # byte size of each buffer
    views: list[tuple[int, tuple, np.dtype]] = field(default_factory=list)  # (slot, shape, dtype)

    @property
    def nbytes(self) -> int:
        return sum(self.slots)


# ----------------------------------------------------------------------------
# which ufunc a statement is

class _Dispatched(Exception):
    def __init__(self, ufunc, method, inputs, kwargs):
        super().__init__(ufunc)
        self.ufunc, self.method, self.inputs, self.kwargs = ufunc, method, inputs, kwargs


class _Recorder(np.ndarray):
    """A probe array that reports the ufunc NumPy calls on it instead of computing."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise _Dispatched(ufunc, method, inputs, kwargs)


def _elementwise(ufunc) -> bool:
    return isinstance(ufunc, np.ufunc) and ufunc.signature is None and ufunc.nout == 1


def _operator_ufunc(st: Statement):
    """(ufunc, operands) that NumPy calls for an operator statement, or None."""
    if st.op.name == "pow" and isinstance(st.args[1], Symbol):
        return None  # NumPy 2.2 chooses square/sqrt/... by the traced exponent's value
    stand_ins = []
    for a in st.args:
        if isinstance(a, Symbol):
            a = (probe_value(a.meta) if a.meta.is_scalar
                 else np.ones(probe_shape(a.meta.shape), a.meta.dtype).view(_Recorder))
        stand_ins.append(a)
    try:
        st.op.call(stand_ins, {})
    except _Dispatched as d:
        call = d.with_traceback(None)  # its frames would hold this one: a reference cycle
    except Exception:
        return None
    else:
        return None  # answered without calling a ufunc on the probe
    if call.method != "__call__" or call.kwargs or not _elementwise(call.ufunc):
        return None
    operands = []
    for x in call.inputs:
        sources = {id(arg): arg for arg, stand_in in zip(st.args, stand_ins) if stand_in is x}
        if len(sources) != 1:
            return None  # NumPy made a new object, or two operands look alike
        operands.append(next(iter(sources.values())))
    return call.ufunc, tuple(operands)


def _ufunc_call(st: Statement):
    """(ufunc, operands, kwargs) of an elementwise statement, or None."""
    if st.multi_output:
        return None
    op = st.op
    if op.kind == "function" and _elementwise(op.target):
        if len(st.args) != op.target.nin or not set(st.kwargs) <= _UFUNC_KWARGS:
            return None
        if st.kwargs.get("out") is not None:
            return None
        kwargs = {k: v for k, v in st.kwargs.items() if k != "out"}
        found = op.target, st.args, kwargs
    elif op.kind == "operator" and op.name in _OPERATORS:
        found = _operator_ufunc(st)
        if found is None:
            return None
        found = found + ({},)
    else:
        return None
    if not all(isinstance(a, Symbol) or type(a) in _NUMERIC_CONSTANTS or isinstance(a, np.generic)
               for a in found[1]):
        return None
    return found if _same_on_probe(st, *found) else None


def _same_on_probe(st: Statement, ufunc, operands, kwargs) -> bool:
    """The ufunc with ``out=`` accepts a buffer of the result's dtype and gives
    the statement's own value on a one-element probe."""
    meta = st.outputs[0].meta
    try:
        expected = st.op.call(substitute(st.args), substitute(st.kwargs))
        out = np.empty(probe_shape(meta.shape), meta.dtype)
        got = ufunc(*substitute(operands), out=out, **kwargs)
    except Exception:
        return False
    return (got is out and type(expected) is np.ndarray and expected.dtype == meta.dtype
            and expected.shape == out.shape and expected.tobytes() == out.tobytes())


# ----------------------------------------------------------------------------
# groups of memory and their lifetimes

class _Groups:
    """Union-find over symbol names: results with the values they may view."""

    def __init__(self):
        self.parent: dict[str, str] = {}

    def find(self, name: str) -> str:
        root = name
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        self.parent[name] = root
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _groups_and_lifetimes(graph: StatementIR):
    groups = _Groups()
    last: dict[str, int] = {}
    for i, st in enumerate(graph.statements):
        for s in st.symbols_used():
            last[s.name] = i
        for o in st.outputs:
            last.setdefault(o.name, i)
        if st.op.aliases:
            viewed = st.args[:1] if st.op.name in _FIRST_ARG_ALIASES else (st.args, st.kwargs)
            found = symbols_in(viewed)
            for o in st.outputs:
                for s in found:
                    groups.union(o.name, s.name)
    group_last: dict[str, int] = {}
    for name, i in last.items():
        root = groups.find(name)
        group_last[root] = max(group_last.get(root, -1), i)
    escaping = {groups.find(s.name) for s in graph.outputs}
    return groups, group_last, escaping


# ----------------------------------------------------------------------------
# the plan

def plan_buffers(graph: StatementIR, min_bytes: int | None = None) -> BufferPlan:
    """Decide which statements of ``graph`` write into which buffer."""
    with quietly():  # probes may overflow, divide by 0...
        return _plan(graph, min_bytes)


def _plan(graph: StatementIR, min_bytes: int | None) -> BufferPlan:
    min_bytes = numpy_buffers.MIN_BYTES if min_bytes is None else min_bytes
    groups, group_last, escaping = _groups_and_lifetimes(graph)
    plan = BufferPlan()
    busy_until: list[int] = []          # per slot: last use of the groups written there
    slot_of: dict[str, int] = {}        # buffered result -> its slot
    view_names: dict[tuple, str] = {}
    known_c: set[str] = set()           # results that are C-contiguous on every call
    for i, st in enumerate(graph.statements):
        if len(st.outputs) != 1:
            continue
        result = st.outputs[0]
        meta = result.meta
        if meta.is_scalar or meta.size * meta.dtype.itemsize < max(min_bytes, 1):
            continue
        if meta.shadow is not None:  # a symbolic dim: its size is known only at run time
            continue
        root = groups.find(result.name)
        if root in escaping:
            continue
        call = _ufunc_call(st)
        if call is None:
            continue
        ufunc, operands, kwargs = call
        arrays = list({a.name: a for a in operands if isinstance(a, Symbol) and a.meta.shape != ()}.values())
        target = _dying_operand(i, st, arrays, result, slot_of, groups, group_last)
        if target is not None:
            slot, out = slot_of[target.name], target.name
        else:
            slot = _free_slot(i, meta.size * meta.dtype.itemsize, busy_until, plan.slots)
            key = (slot, meta.shape, meta.dtype)
            if key not in view_names:
                view_names[key] = f"b{len(plan.views)}"
                plan.views.append(key)
            out = view_names[key]
        plan.slots[slot] = max(plan.slots[slot], meta.size * meta.dtype.itemsize)
        busy_until[slot] = max(busy_until[slot], group_last[root])
        slot_of[result.name] = slot
        checks = tuple(a.name for a in arrays if a.name not in known_c)
        if not checks:
            known_c.add(result.name)
        plan.writes[i] = Write(i, ufunc, tuple(operands), kwargs, out, checks)
    return plan


def _dying_operand(i, st, arrays, result, slot_of, groups, group_last):
    """A buffered operand of the result's shape and dtype whose memory nothing
    reads after statement ``i``, and that no other operand shares."""
    used = st.symbols_used()
    for a in arrays:
        if a.name not in slot_of or a.meta.shape != result.meta.shape or a.meta.dtype != result.meta.dtype:
            continue
        root = groups.find(a.name)
        if group_last[root] != i:
            continue
        if all(s.name == a.name or groups.find(s.name) != root for s in used):
            return a
    return None


def _free_slot(i: int, nbytes: int, busy_until: list[int], sizes: list[int]) -> int:
    """A slot whose groups are all dead before statement ``i`` (the smallest
    that fits, else the largest, grown), or a new one."""
    free = [k for k, until in enumerate(busy_until) if until < i]
    fitting = [k for k in free if sizes[k] >= nbytes]
    if fitting:
        return min(fitting, key=lambda k: sizes[k])
    if free:
        return max(free, key=lambda k: sizes[k])
    busy_until.append(-1)
    sizes.append(0)
    return len(sizes) - 1
