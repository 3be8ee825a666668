"""Unbacked dims: sizes known only when the graph runs.

``np.nonzero(x)``, ``x[mask]``, ``np.unique(x)``, ``np.bincount(x)``... give
a result whose size depends on the data.  Such a size is a symbolic dim
(``sot.ir.symbolic``) with no input behind it, as TorchDynamo's *unbacked*
SymInts: the trace goes on over it, nothing is guarded on it, and the
generated code computes it (NumPy runs the user's ops as they are).

In the two worlds of ``sot.ir.symbolic`` an unbacked dim *k* has the hint
``UNBACKED_HINT`` and its shadow.  Those two say the graph holds for large
sizes; an unbacked size may also be 0 or 1, where NumPy treats an axis
specially (a slice ``[:3]`` clamps, ``squeeze`` drops a 1, a reduction
without identity raises).  So every value that depends on an unbacked dim
is also inferred in two *small worlds*, where every unbacked dim is 0
(resp. 1), and a statement whose result there differs in kind (dtype,
ndim, NumPy scalar or array, Python type) or in a size the graph takes as
static does not enter the graph.  Where NumPy itself raises in a small
world (``x[mask].max()`` of an empty selection), eager raises at that size
too, and so does the graph (the value is ``RAISES`` there from then on).

What needs the value in Python (a branch, ``int()``, ``len()``, a shape
argument) breaks the graph instead of specialising: there is nothing to
guard.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import BroadcastError, UnsupportedOp
from .meta import TensorMeta
from .symbolic import SHADOW_OFFSET, ScalarMeta

__all__ = ["UNBACKED_HINT", "SMALL_SIZES", "UnbackedSource", "UnbackedResult", "RAISES",
           "is_unbacked", "any_unbacked", "counted_mask", "fresh_metas", "small_meta", "agrees",
           "broadcast_assumption", "with_sizes"]

#: the trace-time size of every unbacked dim (any size >= 2 would do: the
#: shadow world and the small worlds check what it cannot)
UNBACKED_HINT = 7
#: the small worlds
SMALL_SIZES = (0, 1)


@dataclass(frozen=True)
class UnbackedSource:
    """The source of unbacked dim ``k`` (what SpecializeDims would report)."""

    k: int
    op: str

    def name(self) -> str:
        return f"the size of {self.op}'s result"


def is_unbacked(source) -> bool:
    return isinstance(source, UnbackedSource)


def any_unbacked(sources) -> bool:
    return any(isinstance(s, UnbackedSource) for s in sources)


@dataclass(frozen=True)
class UnbackedResult:
    """What an op's inference returns when its result has a data-dependent
    size: ``metas`` (a TensorMeta or a tuple of them, the new size as
    ``UNBACKED_HINT``) and, per result, the axes that have the new size."""

    metas: object
    axes: tuple
    #: the least the new size can be (``np.bincount(x, minlength=8)``): the small
    #: worlds take it at no less
    least: int = 0

    def items(self) -> tuple:
        return self.metas if isinstance(self.metas, tuple) else (self.metas,)

    def with_metas(self, metas: list) -> "UnbackedResult":
        return UnbackedResult(tuple(metas) if isinstance(self.metas, tuple) else metas[0], self.axes, self.least)


def fresh_metas(result: UnbackedResult, k: int):
    """``result``'s metas with its new axes made unbacked dim ``k``."""
    out = []
    for meta, axes in zip(result.items(), result.axes):
        shape = list(meta.shape)
        shadow = list(meta.shadow or meta.shape)
        for a in axes:
            shape[a] = UNBACKED_HINT
            shadow[a] = UNBACKED_HINT + SHADOW_OFFSET * k
        out.append(TensorMeta(tuple(shape), meta.dtype, meta.is_scalar, tuple(shadow)))
    return tuple(out) if isinstance(result.metas, tuple) else out[0]


def counted_mask(op, args, kwargs):
    """The name of the array whose count of nonzero elements is the new
    size of ``op``'s result (``x[mask]``, ``S[mask, t]``,
    ``np.flatnonzero(mask)``), or None.  Two selections by the same mask have
    the same count: they share one unbacked dim, so ``x[m] + y[m]`` broadcasts
    and ``np.flatnonzero(m)[x[m] > 0]`` selects."""
    from .statement_ir import Symbol
    if kwargs:
        return None
    if op.name == "getitem" and len(args) == 2:
        items = args[1] if type(args[1]) is tuple else (args[1],)
        masks = [it for it in items if isinstance(it, Symbol) and not it.meta.is_python and it.meta.dtype.kind == "b"]
        return masks[0].name if len(masks) == 1 else None
    if len(args) == 1 and isinstance(args[0], Symbol) and op.name in _NONZERO_COUNTS:
        return args[0].name
    return None


#: ops whose result's new size is the count of their one argument's nonzero elements
_NONZERO_COUNTS = frozenset(("nonzero", "flatnonzero", "argwhere", "where"))


def small_meta(result: UnbackedResult, size: int):
    """``result`` in the small world of ``size``."""
    out = []
    for meta, axes in zip(result.items(), result.axes):
        shape = list(meta.shape)
        for a in axes:
            shape[a] = max(size, result.least)
        out.append(TensorMeta(tuple(shape), meta.dtype, meta.is_scalar))
    return tuple(out) if isinstance(result.metas, tuple) else out[0]


class _Raises:
    def __repr__(self) -> str:
        return "RAISES"


#: a value's entry in a small world where NumPy raises before computing it
RAISES = _Raises()


def raises_eagerly(error: UnsupportedOp) -> bool:
    """Whether inference failed because NumPy itself raised on the probe
    (so eager raises at those sizes too), rather than a capture limit."""
    return "NumPy raises" in str(error) or isinstance(error, BroadcastError)


def agrees(meta, small) -> bool:
    """Whether the small world's ``small`` is ``meta`` up to its symbolic dims."""
    if isinstance(meta, ScalarMeta):
        return type(small) is meta.type
    if not isinstance(small, TensorMeta) or (meta.dtype, meta.is_scalar, meta.ndim) != \
            (small.dtype, small.is_scalar, small.ndim):
        return False
    symbolic = meta.symbolic_axes
    return all(i in symbolic or d == s for i, (d, s) in enumerate(zip(meta.shape, small.shape)))


class _RaisesHere(Exception):
    pass


def _in_small(tree, table: dict):
    """``tree`` as inference sees it in a small world: values that depend on
    an unbacked dim as they are there, the rest at their hint."""
    from .statement_ir import Symbol, map_symbols

    def value(sym):
        found = table.get(sym.name, _in_small)
        if found is RAISES:
            raise _RaisesHere
        if found is _in_small:   # depends on no unbacked dim
            meta = sym.meta
            if meta.is_python:
                return meta.hint
            return sym if meta.shadow is None else Symbol(sym.name, TensorMeta(meta.shape, meta.dtype,
                                                                               meta.is_scalar))
        return Symbol(sym.name, found) if isinstance(found, TensorMeta) else found
    return map_symbols(tree, value)


def infer_small(op, args, kwargs, table: dict, size: int, python: bool):
    """``op``'s result (a meta, a Python number, or a tuple of metas) in the
    small world of ``size``, or RAISES where NumPy raises there.  Raises
    UnsupportedOp where the op is not captured there."""
    try:
        args, kwargs = _in_small(args, table), _in_small(kwargs, table)
    except _RaisesHere:
        return RAISES
    try:
        if python:
            from .registry import call_quietly
            return call_quietly(op, args, kwargs)
        found = op.infer(args, kwargs)
    except UnsupportedOp as e:
        if raises_eagerly(e):
            return RAISES
        raise UnsupportedOp(f"{op.name} where a data-dependent size is {size}: {e}") from None
    return small_meta(found, size) if isinstance(found, UnbackedResult) else found


def check_small(op, metas, found, size: int) -> None:
    """Raise UnsupportedOp unless ``found`` (a small world's) agrees with ``metas``."""
    if found is RAISES:
        return
    many = isinstance(metas, tuple)
    if many != isinstance(found, tuple) or (many and len(found) != len(metas)):
        raise UnsupportedOp(f"{op.name}: the number of results depends on a data-dependent size")
    for meta, small in zip(metas if many else (metas,), found if many else (found,)):
        if not agrees(meta, small):
            raise UnsupportedOp(f"{op.name}: its result ({meta}) depends on a data-dependent size "
                                f"(which may be {size})")


# -- broadcasting against a data-dependent size ------------------------------------

def broadcast_assumption(op, args, kwargs, dims):
    """``(sizes, merged)`` for operands that do not broadcast at the hint
    only because of data-dependent sizes, or None.

    ``sizes`` ``{k: n}``: unbacked dims that meet a static size ``n != 1``
    in NumPy's broadcasting alignment (``sums / counts[:, None]`` with
    ``counts = np.bincount(labels, minlength=k)``).  Such an op is valid only
    where dim *k* is ``n`` or 1: at ``n`` it is inferred (the result has the
    static size), at 1 and 0 the small worlds check it, and at any other size
    NumPy raises its own broadcasting error when the graph runs the op (the
    statement stays on NumPy: ``backends/onnx/unbacked``).

    ``merged``: ``(position, {k: k0})`` where only unbacked dims meet, at one
    position from the end (``np.bincount(inv) / counts``): valid where they
    are equal or 1, and then the result's size there is one of them, which
    the caller makes a new unbacked dim.  Only when those dims appear nowhere
    else in the operands.  None when two sizes are claimed for one dim."""
    from .statement_ir import symbols_in
    metas = [s.meta for s in symbols_in((args, kwargs)) if not s.meta.is_python]
    ndim = max((len(m.shape) for m in metas), default=0)
    sizes: dict = {}
    merged = None
    for pos in range(1, ndim + 1):
        at = [m for m in metas if len(m.shape) >= pos]
        static = {m.shape[-pos] for m in at if _static_dim(m, -pos)} - {1}
        ks = [_unbacked_dim(m, -pos, dims) for m in at]
        if static:
            n = next(iter(static))
            for k in ks:
                if k is not None and (len(static) > 1 or sizes.get(k, n) != n):
                    return None
                if k is not None:
                    sizes[k] = n
        elif len({k for k in ks if k is not None}) > 1:
            others = [m for m, k in zip(at, ks) if k is None and not (_static_dim(m, -pos) and m.shape[-pos] == 1)]
            if merged is not None or others:
                return None
            k0 = min(k for k in ks if k is not None)
            merged = (pos, {k: k0 for k in ks if k is not None and k != k0})
    if merged is not None:
        group = set(merged[1]) | set(merged[1].values())
        if group & set(sizes) or any(_unbacked_dim(m, -p, dims) in group for m in metas
                                     for p in range(1, len(m.shape) + 1) if p != merged[0]):
            return None
    return (sizes, merged) if sizes or merged else None


def _static_dim(meta, axis: int) -> bool:
    return meta.shadow is None or meta.shadow[axis] == meta.shape[axis]


def _unbacked_dim(meta, axis: int, dims):
    """k when ``meta``'s ``axis`` is exactly unbacked dim k, else None."""
    if meta.shadow is None or meta.shape[axis] != UNBACKED_HINT:
        return None
    k, rest = divmod(meta.shadow[axis] - UNBACKED_HINT, SHADOW_OFFSET)
    if rest or not 1 <= k <= len(dims) or not isinstance(dims[k - 1], UnbackedSource):
        return None
    return k


def with_sizes(tree, plan, dims):
    """``tree`` under a ``broadcast_assumption``: each unbacked dim of its
    ``sizes`` made that static size, each merged dim made the dim it merges into."""
    from .statement_ir import Symbol, map_symbols
    sizes, merged = plan
    same = merged[1] if merged else {}

    def sized(sym):
        meta = sym.meta
        if meta.is_python or meta.shadow is None:
            return sym
        shape, shadow = list(meta.shape), list(meta.shadow)
        for i in range(len(shape)):
            k = _unbacked_dim(meta, i, dims)
            if k in sizes:
                shape[i] = shadow[i] = sizes[k]
            elif k in same:
                shadow[i] = UNBACKED_HINT + SHADOW_OFFSET * same[k]
        shadow = None if shadow == shape else tuple(shadow)
        return Symbol(sym.name, TensorMeta(tuple(shape), meta.dtype, meta.is_scalar, shadow))
    return map_symbols(tree, sized)
