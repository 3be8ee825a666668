"""Does an op's result meta rely on the value of a Python number the trace
keeps symbolic?

The two worlds of ``sot.ir.symbolic`` call a result dim symbolic when it
differs between them. A Python number that changes between calls (a number
input, scalar_policy.py, or a number computed from symbolic dims) can give
the same result size in both worlds and still steer it: a clamp
(``x[:n]`` with ``n`` past the end in both worlds), or a number whose two
values coincide (``n // 2 % 2`` is 0 for the traced ``n`` and for its
far-away shadow). The trace would take that size as static and bake it in
(``np.ones(k + 3).shape[0]`` read as the constant 3 for every later ``k``).

So an op given such a number is inferred again with the number moved to a
few nearby values (the rest at their traced values): where a dim the two
worlds left static, or the result's dtype or rank, moves with it, the op
relies on the value, and ``SpecializeDims`` redoes the trace with that
number (or the dims it came from) specialised. A probe NumPy rejects proves
nothing (at run time NumPy raises there as eagerly) and is skipped.

A symbolic dim made from such a number (``x[:n]``, ``np.ones((n, 3))``) has
no ``size >= 2`` guard, unlike an input's: at run time it may be 1, where
squeezing and broadcasting decide differently (``x[:n].squeeze()`` drops
it). An op given an array with such dims is inferred once more with them
all 1; where that differs the op is not captured (the graph breaks there
and NumPy runs it on the real sizes), rather than specialising the number:
a decode loop's `scores[:pos].squeeze()` would translate once per `pos`.
"""
from __future__ import annotations

from .meta import TensorMeta
from .statement_ir import Symbol, map_symbols
from .errors import UnsupportedOp
from .symbolic import SpecializeDims

__all__ = ["check_numbers_steer", "check_size_one"]


def _probes(value) -> tuple:
    if type(value) is int:
        return tuple(v for v in dict.fromkeys((value - 1, value + 1, 1, 2)) if v != value)
    if type(value) is float:
        return (value + 1.0, -value - 1.0)
    return ()


def _metas(result) -> list | None:
    if isinstance(result, TensorMeta):
        return [result]
    if isinstance(result, (tuple, list)) and all(isinstance(m, TensorMeta) for m in result):
        return list(result)
    return None


def _moves_static(merged: TensorMeta, probed) -> bool:
    """Whether ``probed`` differs from ``merged`` in kind or in a dim the two worlds left static."""
    if not isinstance(probed, TensorMeta) or (probed.dtype, probed.is_scalar, probed.ndim) != \
            (merged.dtype, merged.is_scalar, merged.ndim):
        return True
    shadow = merged.shadow or merged.shape
    return any(h == s and p != h for h, s, p in zip(merged.shape, shadow, probed.shape))


def check_numbers_steer(op, args, kwargs, metas, numbers, deps_of) -> None:
    """Raise SpecializeDims when ``metas`` (the two-world result of ``op``)
    relies on the value of one of ``numbers`` (Python-number Symbols among
    the arguments); ``deps_of(symbol)`` gives the sources to specialise."""
    merged = _metas(metas)
    if merged is None:
        return
    for number in numbers:
        for value in _probes(number.meta.hint):
            def world(sym: Symbol, number=number, value=value):
                if sym.name == number.name:
                    return value
                return sym.meta.hint if sym.meta.is_python else sym
            try:
                probed = _metas(op.infer(map_symbols(args, world), map_symbols(kwargs, world)))
            except Exception:  # noqa: BLE001 - NumPy rejects this value: it raises there at run time too
                continue
            if probed is None or len(probed) != len(merged) or \
                    any(_moves_static(m, p) for m, p in zip(merged, probed)):
                raise SpecializeDims(deps_of(number), f"{op.name}: a result size depends on the "
                                                      "value of a number that changes between calls")


def check_size_one(op, args, kwargs, metas, arrays) -> None:
    """Raise UnsupportedOp when ``metas`` (the two-world result of ``op``)
    differs in kind or in a static dim once the symbolic dims of ``arrays``
    (Symbols whose dims come from changing numbers) are 1."""
    merged = _metas(metas)
    if merged is None:
        return
    names = {a.name for a in arrays}

    def world(sym: Symbol):
        if sym.meta.is_python:
            return sym.meta.hint
        if sym.name not in names:
            return sym
        meta = sym.meta
        shape = tuple(1 if axis in meta.symbolic_axes else n for axis, n in enumerate(meta.shape))
        return Symbol(sym.name, TensorMeta(shape, meta.dtype, meta.is_scalar))
    try:
        probed = _metas(op.infer(map_symbols(args, world), map_symbols(kwargs, world)))
    except Exception:  # noqa: BLE001 - NumPy rejects size 1 here: it raises there at run time too
        return
    if probed is None or len(probed) != len(merged) or any(_moves_static(m, p) for m, p in zip(merged, probed)):
        raise UnsupportedOp(f"{op.name}: a size made from a number that changes between "
                            "calls decides differently when it is 1")
