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

from .errors import UnsupportedOp
from .meta import TensorMeta
from .symbolic import SHADOW_OFFSET, ScalarMeta

__all__ = ["UNBACKED_HINT", "SMALL_SIZES", "UnbackedSource", "UnbackedResult", "RAISES",
           "is_unbacked", "any_unbacked", "counted_mask", "fresh_metas", "small_meta", "agrees"]

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

    def items(self) -> tuple:
        return self.metas if isinstance(self.metas, tuple) else (self.metas,)

    def with_metas(self, metas: list) -> "UnbackedResult":
        return UnbackedResult(tuple(metas) if isinstance(self.metas, tuple) else metas[0], self.axes)


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
    """The name of the boolean mask whose count is the new size of ``op``'s
    result (``x[mask]``), or None.  Two selections by the same mask have the
    same count: they share one unbacked dim, so ``x[m] + y[m]`` broadcasts."""
    from .statement_ir import Symbol
    if op.name == "getitem" and not kwargs and len(args) == 2 and isinstance(args[1], Symbol):
        return args[1].name
    return None


def small_meta(result: UnbackedResult, size: int):
    """``result`` in the small world of ``size``."""
    out = []
    for meta, axes in zip(result.items(), result.axes):
        shape = list(meta.shape)
        for a in axes:
            shape[a] = size
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
    return "NumPy raises" in str(error)


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
