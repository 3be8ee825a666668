"""Symbolic dimensions: how the IR keeps a graph valid for every size of a dim.

A graph input may have *symbolic* axes: the compiled graph must be right for
any size >= 2 there (0 and 1 are never symbolic: broadcasting and squeezing
treat them specially, so the guard of a symbolic dim is ``size >= 2``).

The IR does not build symbolic expressions.  It infers every statement in
two worlds at once:

* the **hint** world, the sizes seen at trace time (``TensorMeta.shape``);
* the **shadow** world, where symbolic dim number *k* is its hint plus
  ``SHADOW_OFFSET * (k + 1)`` (``TensorMeta.shadow``).

A result dim is symbolic exactly when its two sizes differ; an op whose
inference succeeds in the hint world but not in the shadow world relies on
a particular size (``s0 == 7``, ``s0 % 3 == 0``): the trace raises
``SpecializeDims`` and is redone with those dims static.  The offset is a
large prime, so a dim computed from a symbol by +, -, *, //, % by small
constants, or a product of dims, never coincides in the two worlds.

A Python number computed from symbolic dims (``x.shape[0] * 2``,
``x.shape[-1] ** 0.5``) is a graph value with a ``ScalarMeta`` (its type and
its value in both worlds); an op receiving it as an argument is inferred with
its hint (resp. shadow) in its place, and the generated code computes it from
the runtime shapes.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SHADOW_OFFSET", "ScalarMeta", "SpecializeDims", "PYTHON_SCALARS"]

SHADOW_OFFSET = 1_000_003

#: Python types a ScalarMeta value may have
PYTHON_SCALARS = (bool, int, float)


@dataclass(frozen=True)
class ScalarMeta:
    """A Python int/float/bool computed in the graph from symbolic dims."""

    type: type
    hint: object
    shadow: object

    def __post_init__(self):
        if self.type not in PYTHON_SCALARS or type(self.hint) is not self.type \
                or type(self.shadow) is not self.type:
            raise TypeError(f"ScalarMeta of {self.type.__name__} with {self.hint!r}, {self.shadow!r}")

    is_python = True
    is_scalar = True
    shape = ()
    # 0-d: no axes, one element (a graph input of this kind: executor/scalar_policy.py)
    symbolic_axes = ()
    ndim = 0
    size = 1

    def __str__(self) -> str:
        return self.type.__name__


class SpecializeDims(Exception):
    """The trace relies on the size of these symbolic dims: redo it with them
    static.  ``dims`` holds the opaque sources given to ``add_input``."""

    def __init__(self, dims, why: str):
        super().__init__(why)
        self.dims = frozenset(dims)
        self.why = why
