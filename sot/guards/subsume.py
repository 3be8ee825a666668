"""Whether one cache entry's guards hold wherever another's do.

A symbolic entry (``x: ndarray float32 (?, 16)``) translated after a static
one (``x: ndarray float32 (8, 16)``) of the same code serves every input the
static one does: the static entry is then dead weight (its compiled graph,
onnxruntime sessions, frozen weight copies and buffers), and the cache drops
it (``cache.add_entry``).

``implies(old, new)``: every guard of ``new`` is implied by a guard of
``old`` on the same tracker -- equal guards, a TensorGuard whose static
sizes fall inside the other's symbolic dims (a symbolic dim holds for sizes
>= 2), or a DimEqualGuard between two dims ``old`` pins to the same size.  Anything else is "no" (never a wrong "yes": dropping an entry whose
inputs the new one does not cover would only cost a retranslation, but it
is still not done).
"""
from __future__ import annotations

from .guard import DimEqualGuard, TensorGuard

__all__ = ["implies"]


def _tensor_implies(old: TensorGuard, new: TensorGuard) -> bool:
    if (old.type, old.dtype) != (new.type, new.dtype):
        return False
    if old.shape is None or new.shape is None:
        return old.shape is new.shape
    if len(old.shape) != len(new.shape):
        return False
    for o, n in zip(old.shape, new.shape):
        if n is None:
            if o is not None and o < 2:
                return False
        elif o != n:
            return False
    return True


def implies(old_guards, new_guards) -> bool:
    """Every frame that passes ``old_guards`` passes ``new_guards``."""
    old_set = set(old_guards)
    tensors: dict = {}
    for g in old_guards:
        if type(g) is TensorGuard:
            tensors.setdefault(g.tracker, []).append(g)
    for g in new_guards:
        if g in old_set:
            continue
        if type(g) is TensorGuard and any(_tensor_implies(o, g) for o in tensors.get(g.tracker, ())):
            continue
        if type(g) is DimEqualGuard and _static_dim(tensors, g.tracker, g.axis) is not None and \
                _static_dim(tensors, g.tracker, g.axis) == _static_dim(tensors, g.other, g.other_axis):
            continue
        return False
    return True


def _static_dim(tensors: dict, tracker, axis: int):
    """The size ``old`` pins ``tracker``'s value's ``axis`` to, or None."""
    for g in tensors.get(tracker, ()):
        if g.shape is not None and -len(g.shape) <= axis < len(g.shape) and g.shape[axis] is not None:
            return g.shape[axis]
    return None
