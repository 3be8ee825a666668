"""An iterator the trace made, made again when it outlives the graph
(returned, stored, or live across a break) as an object of its own type.

What is left of it is known (`remaining()`); rebuilt as `iter((...))` it
would be a tuple_iterator whatever it was. One with an `origin` (iter() or
reversed() of a str, range, bytes, frozenset or tuple constant or of an Enum
class; itertools.product/combinations/permutations over known pools;
np.ndindex) is made again the way it was made and advanced past what the
trace took; reversed, enumerate, zip and itertools.repeat over known items
are made again over what is left.
"""
from __future__ import annotations

import itertools

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .variables import ConstVariable, TupleVariable

TUPLE_ITERATOR = type(iter(()))
REVERSED = type(reversed(()))


def _advance(it, n: int):
    for _ in range(n):
        next(it)
    return it


def from_constant(items: list, make, value):
    """The IteratorVariable over `items` that `make(value)` (iter or reversed
    of a constant) is."""
    return made_by(items, type(make(value)), lambda b: f"{b._bind(make)}({b._bind(value)})")


def made_by(items: list, kind: type, origin):
    """An IteratorVariable over `items`, of type `kind`; `origin(builder)`:
    the source of a fresh one, before any item was taken."""
    from .variables import IteratorVariable
    var = IteratorVariable(items, kind)
    var.origin = origin
    return var


def sequence(builder, values) -> str:
    return "(" + "".join(builder.expr(v) + ", " for v in values) + ")"


def rebuild(builder, var) -> str:
    rest = var.remaining()
    if rest is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{var.describe()} (lazy) cannot be rebuilt")
    bind, expr = builder._bind, builder.expr
    if var.origin is not None:
        return f"{bind(_advance)}({var.origin(builder)}, {var.pos})"
    kind = var.kind

    def seq(values) -> str:
        return sequence(builder, values)
    if kind is REVERSED:
        return f"{bind(reversed)}({seq(rest[::-1])})"
    if kind is enumerate and all(isinstance(t, TupleVariable) and len(t.items) == 2 for t in rest) \
            and all(isinstance(t.items[0], ConstVariable) for t in rest):
        start = rest[0].items[0].value if rest else 0
        return f"{bind(enumerate)}({bind(iter)}({seq(t.items[1] for t in rest)}), {start!r})"
    if kind is zip and all(isinstance(t, TupleVariable) for t in rest):
        columns = list(zip(*[t.items for t in rest]))
        return f"{bind(zip)}(" + "".join(f"{bind(iter)}({seq(c)}), " for c in columns) + ")"
    if kind is itertools.repeat and all(v is rest[0] for v in rest):
        return f"{bind(itertools.repeat)}({expr(rest[0]) if rest else None}, {len(rest)})"
    return f"{bind(iter)}({seq(rest)})"
