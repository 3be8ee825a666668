"""A Python list of numbers from outside the frame used as array data.

Token ids passed as a list and used as an index (`wte[inputs]`) or given to
`np.asarray`: guarding each element's value would retranslate for every new
list. Instead the list becomes a graph input, converted by the runner on each
call exactly as NumPy converts it, and the guards check only its length and
each element's exact type. The conversion is strict: an int outside int64
(where NumPy would pick another dtype) makes the frame rerun natively.

Once the same code was translated with another length (a decode loop's
growing token list), the length is a symbolic dim (shape_policy.py, as for
an array argument): the guards then check only the list's type, and the
conversion checks the length (>= 2, what a symbolic dim stands for) and
each element's exact type, rerunning natively where they do not hold.
"""
from __future__ import annotations

import numpy as np

from .. import _hook
from ..guards.guard import LenGuard, TypeGuard
from ..guards.tracker import ItemTracker, Tracker, _short
from ..ir import TensorMeta, registry
from .variables import ConstVariable, ListVariable, SymScalarVariable, TensorVariable, TupleVariable

#: element type -> the dtype np.asarray gives a list of them
_DTYPES = {int: np.dtype(np.int64), float: np.dtype(np.float64), bool: np.dtype(np.bool_)}


def _as_array(items, dtype):
    try:
        return np.array(items, dtype=dtype) if type(items) is list else _rerun()
    except OverflowError:
        _rerun()


def _as_array_checked(items, dtype, kind):
    """_as_array for a list of symbolic length, which no guard checked."""
    if type(items) is not list or len(items) < 2:
        _rerun()
    for v in items:
        if type(v) is not kind:
            _rerun()
    return _as_array(items, dtype)


def _list_length(items):
    if type(items) is not list:
        raise TypeError("not a list")
    return len(items)


def _rerun():
    raise _hook.RerunNatively


class AsArrayTracker(Tracker):
    """``np.asarray(<base>)`` of a list whose element type the guards fixed
    (or, with `kind`, one the conversion checks: a symbolic length)."""

    __slots__ = ("base", "dtype", "kind")

    def __init__(self, base: Tracker, dtype: np.dtype, kind: type | None = None):
        self.base = base
        self.dtype = dtype
        self.kind = kind

    def expr(self, ctx):
        if self.kind is not None:
            return "%s(%s, %s, %s)" % (ctx.helper("_as_array_checked", _as_array_checked), ctx.ref(self.base),
                                       ctx.bind(self.dtype), ctx.bind(self.kind))
        return "%s(%s, %s)" % (ctx.helper("_as_array", _as_array), ctx.ref(self.base), ctx.bind(self.dtype))

    def name(self):
        return "np.asarray(%s)" % self.base.name()

    def dim_source(self, axis: int):
        """(base, list -> its length): how a guard reads this 1-d array's dim
        without converting it (guards/guard.py DimEqualGuard)."""
        assert axis in (0, -1)
        return self.base, _list_length

    def load(self, g, args, cells):
        items = self.base.load(g, args, cells)
        return _as_array(items, self.dtype) if self.kind is None else _as_array_checked(items, self.dtype, self.kind)

    def _key(self):
        return (self.base, self.dtype.str, self.kind)

    def __repr__(self):
        return "AsArrayTracker(%s)" % _short(self.base.name())


class LenTracker(Tracker):
    """``len(<base>)`` of a list whose type the guards fixed: a graph input,
    never guarded itself (its type is always int)."""

    __slots__ = ("base",)

    def __init__(self, base: Tracker):
        self.base = base

    def expr(self, ctx):
        return "%s(%s)" % (ctx.helper("_len", len), ctx.ref(self.base))

    def name(self):
        return "len(%s)" % self.base.name()

    def load(self, g, args, cells):
        return len(self.base.load(g, args, cells))

    def _key(self):
        return (self.base,)


def source_length(graph, var: ListVariable):
    """len() of a list from outside the frame whose items the trace has not
    read, or None when that does not apply. Guarded by length only; once the
    same code was translated with another length (a history list that grows
    every call), the length is a Python-number graph input instead
    (scalar_policy.py), so a list that grows does not retranslate every
    call; the trace specialises it where it needs the value (a branch,
    range(), a shape)."""
    value = getattr(var, "source_value", None)
    if value is None or var.loaded:
        return None
    growth = var.pending_growth()   # what the trace added (side_effects.py)
    tracker = LenTracker(var.tracker)
    numbers = graph.numbers
    if numbers is not None and (numbers.is_input(tracker, len(value)) or (   # a list read at a run-time
            var.tracker.runtime_key and not numbers.needs_value(tracker))):  # key: no guard can read it
        n = graph._memo.get(tracker)
        if n is None:
            n = graph._memo[tracker] = graph._number_input(len(value), tracker, guard=False)
        if not growth:
            return n
        return graph.call_op(registry.lookup_operator("add"), (n, ConstVariable(growth, None)))
    graph.add_guard(LenGuard(var.tracker, value))
    return len(value) + growth


#: item types read through a constant index without loading the whole list:
#: immutable values and arrays (whose writes go through the graph), never a
#: container whose own mutations a replay would have to order
_ITEM_TYPES = (np.ndarray, int, float, bool, np.generic)


def source_item(graph, var: ListVariable, index: int):
    """``xs[i]`` of a list from outside whose items the trace has not read
    (it may have appended to it): that one item, reached as ``xs[i]`` (a
    shorter list makes the guard's load fail: a miss), so ``states[-1]`` of
    a list that grows every call (an RNN's hidden states, a loss history)
    does not guard the length. None when that does not apply."""
    value = getattr(var, "source_value", None)
    if value is None or var.loaded:
        return None
    added = []   # what the trace appended (at the end, whatever the length)
    for name, args in var.pending:
        if name not in ("append", "extend"):
            return None
        added += args if name == "append" else args[0]
    if index < 0 and -index <= len(added):
        return added[index]
    if index < 0:
        index += len(added)
    if not -len(value) <= index < len(value):
        return None
    item = value[index]
    if type(item) not in _ITEM_TYPES and not isinstance(item, np.generic):
        return None
    return graph.wrap(item, ItemTracker(var.tracker, index))


#: NumPy functions that read their first argument as array data (np.asarray
#: of it): a list of numbers there is the same as its array
#: (ufuncs read every operand as data: isinstance(fn, np.ufunc))
_DATA_FIRST = frozenset(("mean", "sum", "prod", "std", "var", "max", "min", "amax", "amin", "median",
                         "average", "cumsum", "cumprod", "argmax", "argmin", "ptp", "nanmean", "nansum",
                         "nanmax", "nanmin", "diff", "sort", "argsort", "any", "all", "nanstd", "nanvar",
                         "nanmedian"))


def numpy_data_args(graph, fn, args) -> list:
    """`args` of NumPy function `fn` with a list of numbers from outside in
    a data position (a ufunc's operands, the first argument of a reduction)
    as a graph input (`as_graph_input`): np.mean(hist) of a list that grows
    between calls does not guard its length and items."""
    if isinstance(fn, np.ufunc):
        positions = range(min(len(args), fn.nin))
    elif getattr(fn, "__name__", None) in _DATA_FIRST and getattr(fn, "__module__", "").startswith("numpy"):
        positions = range(min(len(args), 1))
    elif isinstance(getattr(fn, "__self__", None), np.ufunc) and fn.__name__ in ("reduce", "accumulate"):
        positions = range(min(len(args), 1))
    else:
        return args
    out = list(args)
    for k in positions:
        out[k] = as_graph_input(graph, out[k]) or traced_sequence(graph, out[k]) or out[k]
    return out


def traced_sequence(graph, var) -> TensorVariable | None:
    """``np.mean([a, b], axis=0)``, ``np.maximum.reduce([x, y, z])``: a list or
    tuple of arrays and numbers computed in the graph, in a data position, is
    ``np.asarray`` of it, as NumPy converts it; None for anything else."""
    if not isinstance(var, (ListVariable, TupleVariable)) or not var.items:
        return None
    numbers = (bool, int, float)
    if not all(isinstance(v, (TensorVariable, SymScalarVariable)) or
               (isinstance(v, ConstVariable) and type(v.value) in numbers) for v in var.items) or \
            all(isinstance(v, ConstVariable) for v in var.items):
        return None
    return graph.call_op(registry.lookup_function(np.asarray), [var])


def source_slice(graph, var: ListVariable, key: slice):
    """``xs[-3:]`` / ``xs[:2]`` of a list from outside whose items the trace
    has not read or grown: the items ``xs[-3], xs[-2], xs[-1]`` (or
    ``xs[0], xs[1]``) each read alone (`source_item`), valid while the list
    has at least that many items (a shorter one fails a guard's load), so
    the length is not guarded. None when that does not apply."""
    value = getattr(var, "source_value", None)
    if value is None or var.loaded or var.pending or key.step is not None:
        return None
    start, stop = key.start, key.stop
    if type(start) is int and start < 0 and stop is None and -start <= len(value):
        indices = range(start, 0)
    elif start in (None, 0) and type(stop) is int and 0 < stop <= len(value):
        indices = range(0, stop)
    else:
        return None
    items = []
    for i in indices:
        item = source_item(graph, var, i)
        if item is None:
            return None
        items.append(item)
    return ListVariable(items)


def as_graph_input(graph, var, kinds=tuple(_DTYPES)) -> TensorVariable | None:
    """The list as a graph input (see module doc), or None when it is not a
    non-empty list from outside of numbers of one exact type among `kinds`."""
    if not isinstance(var, ListVariable):
        return None
    value = getattr(var, "source_value", None)
    if not value or var.loaded or var.pending:
        return None
    kind = type(value[0])
    dtype = _DTYPES.get(kind) if kind in kinds else None
    if dtype is None or any(type(v) is not kind for v in value):
        return None
    if kind is int and not all(-(1 << 63) <= v < (1 << 63) for v in value):
        return None
    sample = np.empty(len(value), dtype)
    policy_key = AsArrayTracker(var.tracker, dtype)      # what the shape policy remembers sizes by
    axes = graph.shapes.symbolic_axes(policy_key, sample) if graph.shapes is not None else ()
    if axes:
        tracker = AsArrayTracker(var.tracker, dtype, kind)   # the conversion checks length and types
    else:
        tracker = policy_key
        graph.add_guard(LenGuard(var.tracker, value))
        for i in range(len(value)):
            graph.add_guard(TypeGuard(ItemTracker(var.tracker, i), kind))
    cached = graph._memo.get(tracker)
    if cached is not None:
        return cached
    symbol = graph.ir.add_input(TensorMeta.of(sample), hint=tracker.name(),
                                symbolic=[(a, (policy_key, a)) for a in axes])
    out = TensorVariable(symbol, tracker)
    out.has_views = True  # an in-place update could not be written back to the list: it breaks
    graph.inputs.append((tracker, out))
    graph._memo[tracker] = out
    return out
