"""A branch on a Python number that is a graph input, decided by a guard.

``if self.t % 100 == 0:`` where ``self.t`` changes every call: specialising
``self.t`` (a value guard) would translate once per value until the cache
limit. When the branch's condition was computed in the graph from one
number input only, the trace instead follows the way it went and guards the
outcome (guards/predicate.py); the number stays an input.
"""
from __future__ import annotations

from ..guards.predicate import PredicateGuard
from ..guards.tracker import Tracker
from ..ir.statement_ir import Statement, Symbol, map_symbols

__all__ = ["branch"]


def _source_tracker(deps):
    """The tracker of the one number input `deps` name, or None."""
    if len(deps) != 1:
        return None
    (source,) = deps
    if not (type(source) is tuple and len(source) == 2 and source[0] == "number"):
        return None
    tracker = source[1]
    # the guard program loads it: trackers without a C load (len()) specialise instead
    return tracker if type(tracker).load_op is not Tracker.load_op else None


def _predicate(ir, symbol: Symbol):
    """value -> the symbol's value computed from the one input, replaying the
    graph's statements; None if it reads anything else."""
    defined = {}
    for st in ir.statements:
        for out in st.outputs:
            defined[out.name] = st
    inputs = {s.name for s in ir.inputs}
    steps, seen, ok = [], set(), [True]

    def visit(sym):
        if sym.name in seen or sym.name in inputs:
            return
        st = defined.get(sym.name)
        if st is None or st.multi_output or len(st.outputs) != 1:
            ok[0] = False
            return
        map_symbols((st.args, st.kwargs), lambda s: visit(s) or s)
        seen.add(sym.name)
        steps.append(st)

    visit(symbol)
    used = set()
    for st in steps:
        map_symbols((st.args, st.kwargs), lambda s: used.add(s.name) or s)
    free = used & inputs
    if not ok[0] or len(free) != 1:
        return None
    (source,) = free
    steps = tuple(steps)

    def predicate(value):
        env = {source: value}
        for st in steps:
            args, kwargs = map_symbols((st.args, st.kwargs), lambda s: env[s.name])
            env[st.outputs[0].name] = st.op.call(args, kwargs)
        return env[symbol.name]
    return predicate, steps, source


class _Text:
    """Formats as the given text in a statement's listing."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _expression(steps, symbol: Symbol, source: str, name: str) -> str:
    """The condition as it reads: ``lt(k, 3)``, ``mod(add(self.t, 1), 5)``."""
    text = {source: name}
    for st in steps:
        args, kwargs = map_symbols((st.args, st.kwargs), lambda s: _Text(text[s.name]))
        text[st.outputs[0].name] = Statement(st.op, args, kwargs, st.outputs).expression()
    return text[symbol.name]


def branch(graph, var) -> bool | None:
    """The truth of SymScalarVariable `var` with its outcome guarded, or
    None when it is not computed from one number input alone."""
    tracker = _source_tracker(var.deps)
    if tracker is None:
        return None
    found = _predicate(graph.ir, var.symbol)
    if found is None:
        return None
    predicate, steps, source = found
    outcome = bool(var.meta.hint)
    if bool(predicate(_trace_value(graph, tracker))) is not outcome:
        return None   # the replay does not give the trace's own value: never guard on it
    text = "bool(%s)" % _expression(steps, var.symbol, source, tracker.name())
    graph.add_guard(PredicateGuard(tracker, predicate, outcome, text))
    return outcome


def _trace_value(graph, tracker):
    for t, v in graph.inputs:
        if t == tracker:
            return v.symbol.meta.hint
    raise KeyError(tracker)
