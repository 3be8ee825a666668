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

from ..breaks.reasons import FallbackError
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


def specialise_at(executor, instr, handler, operands, why: str) -> None:
    """`instr` failed (FallbackError) with these operands ((stack, kw_names)
    before it ran): if a pass-through str was among them and the instruction
    succeeds with those strs as constants, redo the trace with them
    value-guarded. If it fails with them as constants too (a call of an
    unsupported object, such as ``pattern.findall(text.lower())``), their
    values do not help: the failure stands (a graph break there runs it
    natively with the real strs), and the code is not translated anew for
    every str."""
    from ..ir.symbolic import SpecializeDims
    stack, _kw_names = operands
    sources = {scalar_source(t) for v in stack if type(v) is PassStrVariable for t in v.sources or (v.tracker,)}
    if not sources:
        return
    graph = executor.graph
    if not graph.str_trial:       # (inside a trial: its outcome is all the outer trial asks)
        helps, more = _try_as_constants(executor, instr, handler, operands)
        if not helps:
            return
        sources |= more
    raise SpecializeDims(sources, f"{why} needs the value of a str")


def _try_as_constants(executor, instr, handler, operands) -> tuple:
    """(whether `instr` runs with the pass-through strs of `operands` as
    constants, sources of other strs the trial needs). Whatever the trial
    records is thrown away: the trace is redone or split either way."""
    from ..ir.symbolic import SpecializeDims
    from .variables import ConstVariable
    stack, kw_names = operands
    saved = executor.stack, executor.pc, executor.kw_names
    executor.stack = [ConstVariable(v.value, v.tracker) if type(v) is PassStrVariable else v for v in stack]
    executor.pc = executor.index_of[instr.offset] + 1
    executor.kw_names = kw_names
    executor.graph.str_trial = True
    try:
        handler(executor, instr)
    except FallbackError:
        return False, set()
    except SpecializeDims as e:
        return True, set(e.dims)
    except Exception:   # a signal (a raise, a return...) or anything else: it ran on
        return True, set()
    finally:
        executor.graph.str_trial = False
        executor.stack, executor.pc, executor.kw_names = saved
    return True, set()
