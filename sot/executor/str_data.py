"""A str from outside the frame that the trace only passes on.

A run name or tag that changes on every call (``tag = f"run{i}"`` passed
in) was value-guarded: one translation per string, up to the cache limit,
then native calls for good. As for numbers (scalar_policy.py), once the
same code was translated with another str at the same place, the str is
guarded by its exact type only and the trace holds it as a
`PassStrVariable`, an opaque value: it may be passed to inlined functions,
returned, stored (an attribute, a list, a key of a dict from outside read
key by key: dict_data.py), or reach a graph break; every one of those uses
reads the real object through its tracker when the call runs.  So do the
str operations that can be replayed when the call runs (str methods,
``+``, f-strings, ``format``, ``join``, ``len``: str_runtime.py) and the
reads of a dict from outside keyed by it (dict_runtime_reads.py).

Any other use needs the value (``==``, ``in``, hashing into a dict made by
the trace, ``split``, a NumPy argument, a branch on it): the instruction
that meets it fails, and `specialise_at` turns that failure into a redo of
the trace with the str (or the strs it was computed from: `sources`)
value-guarded again (``SpecializeDims`` with its number source; it stays
so in that code), so such code translates as it did before. The opaque value itself is never
read by the trace: OpaqueVariable's uses look at its type only.
"""
from __future__ import annotations

from ..guards.guard import TypeGuard
from ..guards.tracker import Tracker
from .scalar_policy import scalar_source
from .variables import OpaqueVariable
from .variables.modelled import ModelledObject


class PassStrVariable(ModelledObject, OpaqueVariable):
    """An exact str whose value the trace does not read (see module doc).
    Operations that can be replayed when the call runs give another one
    (str_runtime.py); `sources`: the strs from outside it was computed from."""

    sources = ()

    def describe(self) -> str:
        return f"str {self.tracker.name()} (passed through)"

    def attribute(self, executor, name):
        return _runtime("attribute", executor, self, name)

    def method(self, executor, name, args, kwargs):
        return _runtime("method", executor, self, name, args, kwargs)

    def binary(self, executor, name, other, left):
        return _runtime("binary", executor, self, name, other, left)

    def length(self, executor):
        return _runtime("length", executor, self)


def _runtime(hook, executor, *args):
    if executor is None:
        return NotImplemented
    from . import str_runtime   # (it imports this module)
    return getattr(str_runtime, hook)(executor.graph, *args)


def guardable(tracker) -> bool:
    """Whether guards can read `tracker` (the C guard program has a load for
    it and each of its bases): not a str computed when the call runs."""
    while tracker is not None:
        if type(tracker).load_op is Tracker.load_op:
            return False
        tracker = tracker.base
    return True


def str_input(graph, value, t, tracker):
    """The factory builder: a str that varied between translations of this code."""
    if t is not str or tracker is None or graph.numbers is None or not tracker.needs_guard():
        return None
    if graph.numbers.needs_value(tracker) or not graph.numbers.varied(tracker, value):
        return None
    graph.add_guard(TypeGuard(tracker, str))
    graph.pass_strs = True
    return PassStrVariable(value, tracker)


def specialise_at(stack, why: str) -> None:
    """An instruction failed with these stack values: if a pass-through str
    was among them, redo the trace with it value-guarded."""
    from ..ir.symbolic import SpecializeDims
    sources = {scalar_source(t) for v in stack if type(v) is PassStrVariable for t in v.sources or (v.tracker,)}
    if sources:
        raise SpecializeDims(sources, f"{why} needs the value of a str")
