"""Tuple operations that CPython answers with an operand itself.

For an exact tuple `t`, `t + ()`, `() + t`, `t * 1`, `1 * t`, `t[:]` (any
slice that starts at 0 with step 1 and keeps every item) and `tuple(t)`
return `t`, not a copy (tupleconcat, tuplerepeat, tuplesubscript,
tuple_new_impl). The trace returns the same Variable there, so the outputs
rebuild one object and `is` answers as eagerly; a namedtuple (not an exact
tuple) gets a new plain tuple from each of them instead.
"""
from __future__ import annotations

from .variables import ConstVariable, TupleVariable


def _exact(v) -> bool:
    return isinstance(v, TupleVariable) and v.python_type() is tuple


def _empty(v) -> bool:
    if isinstance(v, TupleVariable):
        return not v.items
    return isinstance(v, ConstVariable) and isinstance(v.value, tuple) and not v.value


def concat(a, b):
    """The operand `a + b` is, or None when it is a new tuple."""
    if _exact(a) and _empty(b):
        return a
    if _empty(a) and _exact(b):
        return b
    return None


def repeat(seq, n: int):
    return seq if n == 1 and _exact(seq) else None


def sliced(seq, s: slice):
    n = len(seq.items)
    start, stop, step = s.indices(n)
    return seq if _exact(seq) and start == 0 and step == 1 and stop == n else None


def same_tuple(v):
    """`tuple(v)` when it is `v` itself."""
    return v if _exact(v) else None
