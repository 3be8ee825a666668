"""A branch on a value that changes between calls, decided by a guard.

``if self.t % 100 == 0:`` where ``self.t`` changes every call (a Python
number made a graph input, scalar_policy.py), or ``if x.shape[0] > 512:``
where that dim is symbolic (shape_policy.py): specialising the value would
translate once per value until the cache limit. When the condition was
computed in the graph from one input alone, through Python-number ops and
that input's dims, the trace instead follows the way it went and guards
the outcome (guards/predicate.py); the number or dim stays symbolic.
"""
from __future__ import annotations

from ..guards.predicate import PredicateGuard
from ..guards.tracker import Tracker
from ..ir.registry import DIM_OP
from ..ir.statement_ir import Statement, Symbol, map_symbols
from ..ir.unbacked import any_unbacked

__all__ = ["branch"]


def _steps(ir, symbol: Symbol):
    """The statements computing `symbol` from the graph's inputs, in order,
    and the input symbols they read; None if one is not a Python-number
    op (an array op would have to be rerun by the guard)."""
    defined = {}
    for st in ir.statements:
        for out in st.outputs:
            defined[out.name] = st
    inputs = {s.name for s in ir.inputs}
    steps, seen, free = [], set(), set()

    def visit(sym) -> bool:
        if sym.name in inputs:
            free.add(sym.name)
            return True
        if sym.name in seen:
            return True
        st = defined.get(sym.name)
        if st is None or st.multi_output or len(st.outputs) != 1 or not st.outputs[0].meta.is_python:
            return False
        if not all(visit(s) for s in st.symbols_used()):
            return False
        seen.add(sym.name)
        steps.append(st)
        return True

    return (tuple(steps), free) if visit(symbol) else None


def _replay(steps, symbol: Symbol, source: str):
    """value -> the symbol's value: the statements' own callables, nested in
    one generated function (the guard runs it on every call), or replayed
    one by one where a statement is not a plain operator call."""
    namespace, text = {}, {source: "v"}

    def bind(value):
        name = "k%d" % len(namespace)
        namespace[name] = value
        return name

    for st in steps:
        if st.op.kind != "operator" or st.kwargs or any(
                not isinstance(a, Symbol) and type(a) not in (int, float, bool) for a in st.args):
            return _replay_slowly(steps, symbol, source)
        args = [text[a.name] if isinstance(a, Symbol) else bind(a) for a in st.args]
        text[st.outputs[0].name] = "%s(%s)" % (bind(st.op.target), ", ".join(args))
    code = "def predicate(v, _same=None):\n    return %s\n" % text[symbol.name]
    exec(compile(code, "<sot-branch-predicate>", "exec"), namespace)
    return namespace["predicate"]


def _replay_slowly(steps, symbol: Symbol, source: str):
    def predicate(value, _same=None):
        env = {source: value}
        for st in steps:
            args, kwargs = map_symbols((st.args, st.kwargs), lambda s: env[s.name])
            env[st.outputs[0].name] = st.op.call(args, kwargs)
        return env[symbol.name]
    return predicate


class _Text:
    """Formats as the given text in a statement's listing."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


_INFIX = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
          "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _expression(steps, symbol: Symbol, source: str, name: str) -> str:
    """The condition as it reads: ``(k < 3)``, ``(((self.t + 1) % 5) == 0)``, ``(x.shape[0] > 6)``."""
    text = {source: name}
    for st in steps:
        args, kwargs = map_symbols((st.args, st.kwargs), lambda s: _Text(text[s.name]))
        if st.op is DIM_OP:
            line = "%r.shape[%r]" % tuple(args)
        elif st.op.kind == "operator" and st.op.name in _INFIX and len(args) == 2 and not kwargs:
            line = "(%r %s %r)" % (args[0], _INFIX[st.op.name], args[1])
        else:
            line = Statement(st.op, args, kwargs, st.outputs).expression()
        text[st.outputs[0].name] = line
    return text[symbol.name]


def _input(graph, name: str):
    """(tracker, value at trace time) of the graph input symbol `name`."""
    for tracker, var in graph.inputs:
        symbol = getattr(var, "symbol", None)
        if symbol is not None and symbol.name == name:
            value = graph.trace_values.get(name, symbol.meta.hint if symbol.meta.is_python else None)
            return tracker, value
    return None, None


def branch(graph, var) -> bool | None:
    """The truth of SymScalarVariable `var` with its outcome guarded, or
    None when it is not computed from one input alone."""
    if not graph.effects.enabled:
        return None   # an export trace: a saved model has no guards (the value is baked, and save says so)
    if any_unbacked(var.deps):
        return None   # known only at run time (a count, a float read from data): nothing to guard
    found = _steps(graph.ir, var.symbol)
    if found is None or len(found[1]) != 1:
        return None
    steps, (source,) = found
    tracker, value = _input(graph, source)
    # the guard program loads it: trackers without a C load (len()) specialise instead
    if tracker is None or value is None or type(tracker).load_op is Tracker.load_op:
        return None
    predicate = _replay(steps, var.symbol, source)
    outcome = bool(var.meta.hint)
    try:
        same = bool(predicate(value)) is outcome
    except Exception:  # noqa: BLE001 - then it is not this guard's to decide
        same = False
    if not same:
        return None   # the replay does not give the trace's own value: never guard on it
    text = _expression(steps, var.symbol, source, tracker.name())
    graph.add_guard(PredicateGuard(tracker, predicate, outcome, text))
    return outcome

