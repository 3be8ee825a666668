"""StatementIR: a straight-line graph of NumPy operations.

A StatementIR holds

* **inputs** — ``Symbol``\\ s named ``i0, i1, …``; each is an ndarray or NumPy
  scalar passed to the compiled graph on every call.  An optional *hint*
  keeps the user's name for it (``x``, ``self.w``) for printing.
* **statements** — one ``Statement`` per captured operation, in program
  order.  ``Statement.op`` is an ``Op`` from the registry
  (``sot.ir.registry``); ``args``/``kwargs`` are nested tuples, lists and
  dicts of Symbols and constants; ``outputs`` is a tuple of result Symbols
  named ``t0, t1, …`` (one for most ops, several for ``split``).
  Every statement is of one of four kinds, given by ``op.kind``:

  ``operator``
      a Python operator applied with Python semantics (reflected operands,
      NumPy scalars vs 0-d arrays): binary ``add sub mul truediv floordiv mod
      pow matmul and_ or_ xor lshift rshift``, comparisons ``lt le eq ne gt
      ge``, unary ``neg pos invert abs``, in-place ``iadd isub … irshift``
      (``x += y``), and ``getitem`` (``x[index]``).  Listed as
      ``t0: f32[4, 8] = mul(i0, 0.5)``.
  ``function``
      a callable of the ``numpy`` namespace (``np.tanh``, ``np.sum``,
      ``np.concatenate``…), called with the statement's args and kwargs.
      Listed as ``t1: f32[4, 8] = np.tanh(t0)``.
  ``method``
      a method of the first argument (an ndarray or NumPy scalar), e.g.
      ``t2: f32[4, 1] = t1.sum(axis=-1, keepdims=True)``.
  ``attribute``
      an attribute of the only argument that yields an array (``T``,
      ``mT``, ``real``, ``imag``), e.g. ``t3: f32[8, 4] = t0.T``.

  A statement with no outputs is a *write* (``sot.ir.ops_write``): it
  changes the memory of an array that exists (``i0[0] = t1``, ``i0 += t1``,
  ``np.add(i0, i1, out=i2)``); later statements see the change.

* **outputs** — the Symbols the graph returns, in order (inputs and repeated
  Symbols allowed).

In a listing, ``f32[4, 8]`` is an ndarray of that shape, ``f32[]`` a 0-d
ndarray and a bare ``f32`` a NumPy scalar.  Constants appear by ``repr``.
"""

from __future__ import annotations

import numpy as np

from .errors import BroadcastError, UnsupportedOp
from .meta import TensorMeta, dtype_is_supported
from .symbolic import PYTHON_SCALARS, SHADOW_OFFSET, ScalarMeta, SpecializeDims
from . import unbacked as ub

__all__ = ["Symbol", "Statement", "StatementIR", "map_symbols", "symbols_in"]


class Symbol:
    """A value in a StatementIR: an input (``i*``) or an op result (``t*``)."""

    __slots__ = ("name", "meta")

    def __init__(self, name: str, meta: TensorMeta):
        self.name = name
        self.meta = meta

    def __repr__(self) -> str:
        return f"Symbol({self.name}: {self.meta})"

    def __str__(self) -> str:
        return self.name


class Statement:
    """One captured operation: ``outputs = op(*args, **kwargs)``.

    ``multi_output`` is True when the op returns a sequence of arrays (its
    ``outputs`` are the items), False when it returns the one array.
    ``where`` is the user code that ran it, innermost frame first:
    ``((filename, lineno, globals), ...)`` (or None), so that what NumPy
    reports from it (warnings) names the user's file, line and module.
    """

    __slots__ = ("op", "args", "kwargs", "outputs", "multi_output", "where")

    def __init__(self, op, args: tuple, kwargs: dict, outputs: tuple[Symbol, ...],
                 multi_output: bool = False):
        self.op = op
        self.args = tuple(args)
        self.kwargs = dict(kwargs)
        self.outputs = tuple(outputs)
        self.multi_output = multi_output
        self.where = None

    def symbols_used(self) -> list[Symbol]:
        """Symbols read by this statement, in order of appearance."""
        return symbols_in((self.args, self.kwargs))

    def expression(self) -> str:
        """The right-hand side as it reads in a listing."""
        op = self.op
        args = [format_arg(a) for a in self.args]
        kwargs = [f"{k}={format_arg(v)}" for k, v in self.kwargs.items()]
        if op.kind == "function":
            return f"np.{op.name}({', '.join(args + kwargs)})"
        if op.kind == "method":
            return f"{args[0]}.{op.target}({', '.join(args[1:] + kwargs)})"
        if op.kind == "attribute":
            return f"{args[0]}.{op.target}"
        return f"{op.name}({', '.join(args + kwargs)})"

    def __str__(self) -> str:
        if not self.outputs:  # a write (sot.ir.ops_write)
            from .ops_write import listing
            return listing(self) or self.expression()
        lhs = ", ".join(f"{s.name}: {s.meta}" for s in self.outputs)
        if self.multi_output:
            lhs = f"[{lhs}]"
        return f"{lhs} = {self.expression()}"

    __repr__ = __str__


# ----------------------------------------------------------------------------
# the nested arguments of a statement: the one walk over them

def map_symbols(tree, fn, slices: bool = True):
    """``tree`` (a statement's args or kwargs: nested tuples, lists, dict
    values and, with ``slices``, the fields of slices) with every Symbol
    replaced by ``fn(symbol)``; everything else is kept as it is."""
    if isinstance(tree, Symbol):
        return fn(tree)
    if isinstance(tree, tuple):
        return tuple([map_symbols(v, fn, slices) for v in tree])
    if isinstance(tree, list):
        return [map_symbols(v, fn, slices) for v in tree]
    if isinstance(tree, dict):
        return {k: map_symbols(v, fn, slices) for k, v in tree.items()}
    if slices and isinstance(tree, slice):
        return slice(map_symbols(tree.start, fn), map_symbols(tree.stop, fn), map_symbols(tree.step, fn))
    return tree


def symbols_in(tree) -> list[Symbol]:
    """The Symbols of ``tree`` (as ``map_symbols`` walks it), in order of appearance."""
    found: list[Symbol] = []
    map_symbols(tree, found.append)
    return found


def format_arg(value) -> str:
    if isinstance(value, Symbol):
        return value.name
    if isinstance(value, tuple):
        inner = ", ".join(format_arg(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(format_arg(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {format_arg(v)}" for k, v in value.items()) + "}"
    if value is Ellipsis:
        return "..."
    if isinstance(value, slice):
        parts = ["" if p is None else format_arg(p) for p in (value.start, value.stop, value.step)]
        return ":".join(parts if value.step is not None else parts[:2])
    if isinstance(value, type) and issubclass(value, np.generic):
        return f"np.{value.__name__}"
    return repr(value)


# ----------------------------------------------------------------------------
# constants

_SCALAR_CONSTANTS = (bool, int, float, complex, str, type(None), type(Ellipsis))


def check_constant(value, where: str = "argument") -> None:
    """Raise UnsupportedOp unless ``value`` is a constant the IR can hold."""
    if isinstance(value, Symbol):
        return
    if isinstance(value, _SCALAR_CONSTANTS):
        return
    if type(value) in (tuple, list):
        for v in value:
            check_constant(v, where)
        return
    if type(value) is dict:
        for k, v in value.items():
            if not isinstance(k, str):
                raise UnsupportedOp(f"dict {where} with non-str key {k!r}")
            check_constant(v, where)
        return
    if isinstance(value, slice):
        for v in (value.start, value.stop, value.step):
            if isinstance(v, Symbol) and v.meta.is_python and v.meta.type in (int, bool):
                continue  # a bound computed from symbolic dims
            if isinstance(v, Symbol) or not isinstance(v, (int, type(None), np.integer)):
                raise UnsupportedOp(f"slice with non-constant field {v!r}")
        return
    if isinstance(value, np.dtype):
        if not dtype_is_supported(value):
            raise UnsupportedOp(f"dtype {value} is not supported")
        return
    if isinstance(value, type) and issubclass(value, np.generic):
        try:
            dtype = np.dtype(value)
        except TypeError:
            raise UnsupportedOp(f"abstract scalar type {value.__name__}") from None
        if not dtype_is_supported(dtype):
            raise UnsupportedOp(f"dtype {value.__name__} is not supported")
        return
    if isinstance(value, type) and value in (bool, int, float, complex):
        return
    if isinstance(value, np.generic):
        if not dtype_is_supported(value.dtype):
            raise UnsupportedOp(f"constant of dtype {value.dtype} is not supported")
        return
    raise UnsupportedOp(f"{where} of type {type(value).__name__} is not a supported constant")


# ----------------------------------------------------------------------------
# the graph

class StatementIR:
    """A straight-line graph of NumPy operations (see the module docstring)."""

    def __init__(self, name: str = "graph"):
        self.name = name
        self._inputs: list[Symbol] = []
        self._hints: dict[str, str | None] = {}
        self._statements: list[Statement] = []
        self._outputs: tuple[Symbol, ...] = ()
        self._n_temps = 0
        self._dims: list = []                       # symbolic dim k -> its source
        self._deps: dict[str, frozenset] = {}       # symbol name -> sources it depends on
        self._input_dims: dict[tuple, object] = {}  # (input name, axis) -> its source
        self._dim_of_size: dict[int, int] = {}      # trace-time size -> symbolic dim k
        self._mask_counts: dict[str, object] = {}   # mask symbol name -> the unbacked source of its count
        self.dim_ties: list[tuple] = []             # (source, source of the dim it shares)
        self._number_sources: set = set()           # sources of add_number_input's inputs
        #: (symbol name, axis): static dims of computed values the trace read
        #: as Python ints while inputs had symbolic dims (sot/ir/floor.py checks them)
        self.static_reads: list[tuple[str, int]] = []
        #: per small world (sot.ir.unbacked): symbol name -> its meta, number or RAISES there
        self._small: tuple[dict, ...] = tuple({} for _ in ub.SMALL_SIZES)
        #: input name -> its value, for inputs fixed for the graph's life
        #: (to_static(freeze=True), sot/executor/freeze.py): a backend may
        #: take them as constants
        self.frozen: dict[str, object] = {}
        #: pairs of input names whose memory overlapped when the graph was
        #: recorded and that a write reaches (executor/writes.py guards them)
        self.shared: list[tuple[str, str]] = []

    # -- building -----------------------------------------------------------

    def add_input(self, meta: TensorMeta, hint: str | None = None, symbolic=()) -> Symbol:
        """A graph input.  ``symbolic``: ``(axis, source)`` pairs, the axes
        whose size is symbolic (each >= 2 at trace time); ``source`` is an
        opaque key that ``SpecializeDims`` reports back."""
        if not dtype_is_supported(meta.dtype):
            raise UnsupportedOp(f"input dtype {meta.dtype} is not supported")
        sources = []
        if symbolic:
            shadow = list(meta.shape)
            for axis, source in symbolic:
                if meta.is_scalar or not -len(shadow) <= axis < len(shadow) or meta.shape[axis] < 2:
                    raise ValueError(f"axis {axis} of {meta} cannot be symbolic")
                # Duck sizing: symbolic dims of equal trace-time size are one
                # dim (x + y with both batches varying is valid for every
                # size); the caller guards that they stay equal (dim_ties).
                size = meta.shape[axis]
                k = self._dim_of_size.get(size)
                if k is None:
                    self._dims.append(source)
                    k = self._dim_of_size[size] = len(self._dims)
                else:
                    self.dim_ties.append((source, self._dims[k - 1]))
                shadow[axis] += SHADOW_OFFSET * k
                sources.append(source)
                self._input_dims[(f"i{len(self._inputs)}", axis % len(shadow))] = source
            meta = TensorMeta(meta.shape, meta.dtype, meta.is_scalar, tuple(shadow))
        sym = Symbol(f"i{len(self._inputs)}", meta)
        self._inputs.append(sym)
        self._hints[sym.name] = hint
        if sources:
            self._deps[sym.name] = frozenset(sources)
        return sym

    def add_number_input(self, value, source, hint: str | None = None) -> Symbol:
        """A Python int/float input whose value may change between calls
        (sot/executor/scalar_policy.py): a ScalarMeta symbol, inferred with
        ``value`` and, in the shadow world, a far-away value, so an op that
        holds only for this value raises SpecializeDims with ``source``."""
        k = len(self._dims) + 1
        self._dims.append(source)
        self._number_sources.add(source)
        shadow = type(value)(value + SHADOW_OFFSET * k)
        sym = Symbol(f"i{len(self._inputs)}", ScalarMeta(type(value), value, shadow))
        self._inputs.append(sym)
        self._hints[sym.name] = hint
        self._deps[sym.name] = frozenset([source])
        return sym

    @property
    def has_number_inputs(self) -> bool:
        return any(s.meta.is_python for s in self._inputs)

    def add_op(self, op, args, kwargs=None):
        """Record ``op(*args, **kwargs)``; returns its result Symbol(s).

        Raises UnsupportedOp (and records nothing) when the combination is
        not captured, and SpecializeDims when it is captured only for the
        trace-time size of a symbolic dim.
        """
        args = _ranges_as_lists(tuple(args))
        kwargs = _ranges_as_lists(dict(kwargs or {}))
        check_constant(args)
        check_constant(kwargs, "keyword argument")
        recorded, args = args, _run_time_indices(op, args)
        used = symbols_in((args, kwargs))
        deps = frozenset().union(*(self._deps.get(s.name, ()) for s in used))
        # (a NumPy scalar operand makes the result a NumPy scalar: inferred as an array op's)
        python = bool(deps) and all(s.meta.is_python for s in used) and op.kind == "operator" and \
            not any(isinstance(a, np.generic) for a in args)
        try:
            if not deps:
                metas = op.infer(args, kwargs)
            elif python:
                from .data_numbers import check_python_op   # (it imports the registry, which imports this module)
                check_python_op(op, args, deps)
                metas = _python_scalar_meta(op, args, kwargs, deps)
            else:
                metas = _two_world_metas(op, args, kwargs, deps, self._dims)
                self._check_numbers_steer(op, args, kwargs, metas, used)
                if ub.any_unbacked(deps):
                    from .data_numbers import check_array_op
                    check_array_op(op, args, kwargs, deps, metas, self.deps)
        except (SpecializeDims, UnsupportedOp) as e:
            metas = self._broadcast_unbacked(op, args, kwargs, deps, e)
        from .ops_write import WriteOp   # (it imports this module)
        source = None
        if isinstance(op, WriteOp):   # a mask written in place may count otherwise
            self._mask_counts.clear()
        elif isinstance(metas, ub.UnbackedResult):
            mask = ub.counted_mask(op, args, kwargs)
            known = self._mask_counts.get(mask)
            if known is None:
                source = known = ub.UnbackedSource(len(self._dims) + 1, op.name)
                if mask is not None:
                    self._mask_counts[mask] = known
            metas = ub.fresh_metas(metas, known.k)
            deps = deps | {known}
        small = None
        if ub.any_unbacked(deps):
            small = [ub.infer_small(op, args, kwargs, table, size, python)
                     for table, size in zip(self._small, ub.SMALL_SIZES)]
            for found, size in zip(small, ub.SMALL_SIZES):
                ub.check_small(op, metas, found, size)
        if source is not None:
            self._dims.append(source)
        multi = not isinstance(metas, (TensorMeta, ScalarMeta))
        if multi:
            outputs = tuple(self._new_temp(m, deps) for m in metas)
            result = outputs
        else:
            outputs = (self._new_temp(metas, deps),)
            result = outputs[0]
        if small is not None:
            for table, found in zip(self._small, small):
                items = found if multi and found is not ub.RAISES else (found,) * len(outputs)
                for sym, value in zip(outputs, items):
                    table[sym.name] = value
        self._statements.append(Statement(op, recorded, kwargs, outputs, multi))
        return result

    def _check_numbers_steer(self, op, args, kwargs, metas, used) -> None:
        """SpecializeDims where a result size the two worlds left static
        moves with a Python number that changes between calls, or with a
        dim made from one being 1 (ir/number_probe.py)."""
        if not self._number_sources:
            return
        # numbers computed from number inputs alone, that no other argument
        # shares a source with: moving one of them alone is a value it can
        # take (`x.shape[0]` moves with x's dim, not alone)
        numbers = [s for s in used if s.meta.is_python and self._deps.get(s.name)
                   and self._deps[s.name] <= self._number_sources
                   and not any(o.name != s.name and self._deps[s.name] & self._deps.get(o.name, frozenset())
                               for o in used)]
        arrays = [s for s in used if not s.meta.is_python and s.meta.symbolic_axes
                  and self._deps.get(s.name, frozenset()) & self._number_sources]
        from .number_probe import check_numbers_steer, check_size_one  # (it imports this module)
        if numbers:
            check_numbers_steer(op, args, kwargs, metas, list({s.name: s for s in numbers}.values()),
                                lambda s: self._deps[s.name])
        if arrays:
            check_size_one(op, args, kwargs, metas, arrays)

    def _broadcast_unbacked(self, op, args, kwargs, deps, error):
        """The metas of an op that broadcasts a data-dependent size against a
        static one (``sot.ir.unbacked.broadcast_assumption``); else ``error``
        raised (a SpecializeDims over a data-dependent size as UnsupportedOp:
        there is nothing to guard)."""
        why = error.why if isinstance(error, SpecializeDims) else str(error)
        unbacked = ub.any_unbacked(deps)
        if isinstance(error, SpecializeDims) and not ub.any_unbacked(error.dims):
            raise error
        # only where the operands do not broadcast at the trace-time hint
        broadcasting = isinstance(error, BroadcastError) or "do not broadcast" in why
        plan = ub.broadcast_assumption(op, args, kwargs, self._dims) if unbacked and broadcasting else None
        if plan is not None:
            sized = ub.with_sizes((args, kwargs), plan, self._dims)
            try:
                metas = _two_world_metas(op, sized[0], sized[1], deps, self._dims)
            except (SpecializeDims, UnsupportedOp):
                metas = None
            merged = plan[1]
            if isinstance(metas, TensorMeta) and merged is not None and merged[0] <= metas.ndim:
                # equal sizes, or one of them 1: the result's size there is a new data-dependent one
                return ub.UnbackedResult(metas, ((metas.ndim - merged[0],),))
            if metas is not None and merged is None:
                return metas
        if isinstance(error, SpecializeDims):  # nothing to guard: the op does not enter the graph
            raise UnsupportedOp(f"{why}; a size known only at run time") from None
        raise error

    def add_dim(self, symbol: Symbol, axis: int):
        """``symbol.shape[axis]``: an int when the size is static, else a
        Python-int Symbol computed from the runtime shape."""
        meta = symbol.meta
        size = meta.shape[axis]
        if axis % len(meta.shape) not in meta.symbolic_axes:
            self.note_static_read(symbol, [axis % len(meta.shape)])
            return size
        from .registry import DIM_OP
        source = self._input_dims.get((symbol.name, axis % len(meta.shape)))
        deps = frozenset([source]) if source is not None else self._deps[symbol.name]
        out = self._new_temp(ScalarMeta(int, size, meta.shadow[axis]), deps)
        if ub.any_unbacked(deps):
            for table in self._small:
                value = table.get(symbol.name, meta)
                table[out.name] = value if value is ub.RAISES else value.shape[axis]
        self._statements.append(Statement(DIM_OP, (symbol, axis), {}, (out,)))
        return out

    def add_data_number(self, op, symbol: Symbol, kind: type) -> Symbol:
        """``op(symbol)``: a Python ``kind`` (float or int) read from array
        data, known only when the graph runs (sot/ir/data_numbers.py)."""
        from . import data_numbers as dn
        source = dn.DataNumberSource(len(self._dims) + 1, op.name)
        self._dims.append(source)
        out = self._new_temp(dn.number_meta(kind, source.k), frozenset([source]))
        for table in self._small:   # nothing to read where the array is never made
            if table.get(symbol.name) is ub.RAISES:
                table[out.name] = ub.RAISES
        self._statements.append(Statement(op, (symbol,), {}, (out,)))
        return out

    def note_static_read(self, symbol: Symbol, axes) -> None:
        """The trace used these static dims of ``symbol`` as Python ints."""
        if self._dims and symbol.name not in self._hints:  # an input's static dims are guarded
            self.static_reads += [(symbol.name, axis) for axis in axes]

    def _new_temp(self, meta, deps=frozenset()) -> Symbol:
        sym = Symbol(f"t{self._n_temps}", meta)
        self._n_temps += 1
        if deps and (meta.is_python or meta.shadow is not None):
            self._deps[sym.name] = deps
        return sym

    def deps(self, symbol: Symbol) -> frozenset:
        """The sources of the symbolic dims ``symbol`` may depend on."""
        return self._deps.get(symbol.name, frozenset())

    def symbolic_sources(self) -> list:
        """The sources of the inputs' symbolic dims."""
        return list(dict.fromkeys(self._input_dims.values()))

    @property
    def is_symbolic(self) -> bool:
        """Whether some input has a symbolic dim."""
        return bool(self._dims)

    def set_outputs(self, symbols) -> None:
        symbols = tuple(symbols)
        for s in symbols:
            if not isinstance(s, Symbol):
                raise TypeError(f"graph outputs must be Symbols, got {type(s).__name__}")
        self._outputs = symbols

    # -- reading ------------------------------------------------------------

    @property
    def inputs(self) -> tuple[Symbol, ...]:
        return tuple(self._inputs)

    @property
    def outputs(self) -> tuple[Symbol, ...]:
        return self._outputs

    @property
    def statements(self) -> tuple[Statement, ...]:
        return tuple(self._statements)

    def hint(self, symbol: Symbol) -> str | None:
        return self._hints.get(symbol.name)

    def __len__(self) -> int:
        return len(self._statements)

    def __str__(self) -> str:
        params = []
        # symbolic dims show as ``?``: the graph holds for any size >= 2 there
        for s in self._inputs:
            hint = self._hints.get(s.name)
            params.append(f"{s.name}: {s.meta}" + (f" ({hint})" if hint else ""))
        lines = [f"graph {self.name}({', '.join(params)}):"]
        lines += [f"    {st}" for st in self._statements]
        lines.append(f"    return {format_arg(self._outputs)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<StatementIR {self.name}: {len(self._inputs)} inputs, {len(self)} ops>"


# ----------------------------------------------------------------------------
# inference with symbolic dims (see sot.ir.symbolic)

def _in_world(tree, shadow: bool, memo: dict, pin: int = 0):
    """``tree`` as inference sees it in one world: Python-number Symbols
    become their value there; in the shadow world, arrays with symbolic dims
    become stand-in Symbols of their shadow shape.  ``pin`` (k >= 1): in the
    shadow world, what moved with symbolic dim k alone keeps its hint."""
    return map_symbols(tree, lambda s: _symbol_in_world(s, shadow, memo, pin))


def _symbol_in_world(sym: Symbol, shadow: bool, memo: dict, pin: int):
    meta = sym.meta
    if meta.is_python:
        return _pinned(meta.shadow, meta.hint, pin) if shadow else meta.hint
    if not shadow or meta.shadow is None:
        return sym
    proxy = memo.get(sym.name)
    if proxy is None:
        shadow_meta = meta.shadow_meta()
        if pin:
            dims = tuple(_pinned(s, h, pin) for s, h in zip(meta.shadow, meta.shape))
            shadow_meta = TensorMeta(dims, meta.dtype, meta.is_scalar)
        proxy = memo[sym.name] = Symbol(sym.name, shadow_meta)
    return proxy


def _pinned(shadow, hint, pin: int):
    """A shadow size that differs from its hint by symbolic dim ``pin``'s
    offset alone, back at its hint (the dim taken as static)."""
    if pin and type(shadow) is int and type(hint) is int and shadow - hint == SHADOW_OFFSET * pin:
        return hint
    return shadow


def _fewest_dims(op, args, kwargs, deps, dims) -> frozenset:
    """The symbolic dims to make static so that ``op`` holds: one alone when
    one suffices (``x @ w`` with ``w`` static: x's contracted dim, not its
    batch), else all of ``deps``.  A guess, never trusted: the trace is redone
    and specialises further if the op still fails."""
    if len(deps) < 2:
        return deps
    for k, source in enumerate(dims, 1):
        if source not in deps:
            continue
        memo: dict = {}
        try:
            op.infer(_in_world(args, True, memo, k), _in_world(kwargs, True, memo, k))
        except UnsupportedOp:
            continue
        return frozenset([source])
    return deps


_INDEXING = frozenset({"getitem", "setitem"})
_INDEX_INT = TensorMeta((), np.dtype(np.intp), True)


def _ranges_as_lists(value):
    """``value`` with each ``range`` (``x[rows, range(k)]``) as the list of
    its ints: NumPy takes a range as that sequence of ints everywhere."""
    if type(value) is range:
        return list(value)
    if type(value) in (tuple, list):
        return type(value)(_ranges_as_lists(v) for v in value) if any(
            type(v) in (range, tuple, list, dict) for v in value) else value
    if type(value) is dict:
        return {k: _ranges_as_lists(v) for k, v in value.items()}
    return value


def _run_time_indices(op, args):
    """``args`` as inference sees them: an int index item of ``x[i]`` /
    ``x[i] = v`` that is a Python-number graph input (a loop's counter) is
    an int known only at run time, as a NumPy integer index is
    (sot.ir.ops_indexing): the result's shape does not depend on its value,
    and an out-of-bounds value raises IndexError when the graph runs, as
    eagerly.  So the number is not specialised (one translation of a loop
    body serves every iteration)."""
    if op.name not in _INDEXING or op.kind != "operator" or len(args) < 2:
        return args
    index = args[1]
    items = index if type(index) is tuple else (index,)
    if not any(isinstance(it, Symbol) and it.meta.is_python and it.meta.type is int for it in items):
        return args
    stand_in = tuple(Symbol(f"{it.name}#index", _INDEX_INT)
                     if isinstance(it, Symbol) and it.meta.is_python and it.meta.type is int else it
                     for it in items)
    return (args[0], stand_in if type(index) is tuple else stand_in[0]) + tuple(args[2:])


def _two_world_metas(op, args, kwargs, deps, dims=()):
    """Infer in both worlds; the result's dims are symbolic where they differ.
    ``dims``: the sources of symbolic dims 1, 2, ... (``StatementIR._dims``)."""
    hint = op.infer(_in_world(args, False, {}), _in_world(kwargs, False, {}))
    memo: dict = {}
    try:
        shadow = op.infer(_in_world(args, True, memo), _in_world(kwargs, True, memo))
    except UnsupportedOp as e:
        raise SpecializeDims(_fewest_dims(op, args, kwargs, deps, dims),
                             f"{op.name} holds only for the traced sizes ({e})") from None
    if isinstance(hint, ub.UnbackedResult):  # a data-dependent size (sot.ir.unbacked)
        if not isinstance(shadow, ub.UnbackedResult) or shadow.axes != hint.axes:
            raise SpecializeDims(deps, f"{op.name}: which size is data-dependent depends on a symbolic dim")
        merged = _merged_metas(op, hint.metas, shadow.metas, deps)
        return hint.with_metas(list(merged) if isinstance(merged, tuple) else [merged])
    return _merged_metas(op, hint, shadow, deps)


def _merged_metas(op, hint, shadow, deps):
    if isinstance(hint, TensorMeta):
        return _merge(op, hint, shadow, deps)
    if isinstance(shadow, TensorMeta) or len(hint) != len(shadow):
        raise SpecializeDims(deps, f"{op.name}: the number of results depends on a symbolic dim")
    return tuple(_merge(op, h, s, deps) for h, s in zip(hint, shadow))


def _merge(op, hint: TensorMeta, shadow, deps) -> TensorMeta:
    if not isinstance(shadow, TensorMeta) or (hint.dtype, hint.is_scalar, hint.ndim) != \
            (shadow.dtype, shadow.is_scalar, shadow.ndim):
        raise SpecializeDims(deps, f"{op.name}: the result's kind depends on a symbolic dim")
    # A result dim of 0 or 1 that varies is fine: an op that treats it as
    # broadcastable (or squeezable) disagrees in the shadow world.
    return TensorMeta(hint.shape, hint.dtype, hint.is_scalar, shadow.shape)


_GROWING_OPS = frozenset({"pow", "ipow", "lshift", "ilshift"})


def _huge_exponent(args) -> bool:
    """Whether an exponent or shift count is too large to compute with: on
    an int base only (a float power is one float, whatever the exponent:
    an optimizer's ``beta ** t``)."""
    return len(args) == 2 and type(args[1]) is int and abs(args[1]) > 1024 and type(args[0]) in (int, bool)


def _python_scalar_meta(op, args, kwargs, deps) -> ScalarMeta:
    """A Python operator on Python numbers computed from symbolic dims."""
    from .registry import call_quietly
    hint = call_quietly(op, _in_world(args, False, {}), _in_world(kwargs, False, {}))
    shadow_args = _in_world(args, True, {})
    if op.name in _GROWING_OPS and _huge_exponent(shadow_args):
        # The shadow world's far-away values would make `n ** n` a number of
        # millions of digits (seconds of translation): the value is needed.
        raise SpecializeDims(deps, f"{op.name} of a number that changes between calls")
    try:
        shadow = call_quietly(op, shadow_args, _in_world(kwargs, True, {}))
    except UnsupportedOp as e:
        from .data_numbers import is_data_number
        if not all(is_data_number(s) for s in deps):
            raise SpecializeDims(deps, f"{op.name} holds only for the traced sizes ({e})") from None
        # numbers read from data only (no size to specialise): check_python_op took the
        # op as giving one result type for every value, and its error (math.exp of a
        # large value) raises at run time, as eagerly
        shadow = hint
    if type(hint) not in PYTHON_SCALARS:
        raise UnsupportedOp(f"{op.name} of shape values gives a {type(hint).__name__}")
    if type(shadow) is not type(hint):
        raise SpecializeDims(deps, f"{op.name}: the result type depends on a symbolic dim")
    return ScalarMeta(type(hint), hint, shadow)
