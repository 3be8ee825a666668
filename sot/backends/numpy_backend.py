"""The reference backend: a StatementIR becomes readable NumPy source.

Each statement is replayed exactly as the user wrote it, so results are
bitwise identical to eager NumPy: operators as operators (``t0 = i0 * 0.5``,
``t1 = -t0``, ``t2 = i0[0, ::-1]``, ``t3 = i0`` then ``t3 += c0``), methods as
methods (``t4 = t3.sum(axis=-1, keepdims=True)``), functions through the
numpy module (``t5 = np.tanh(t4)``).  Constants live in the generated
function's namespace as ``c0, c1, …``; only literals whose source text is
exact (Python ints, finite floats, bools, None, str, ``...``) are written
inline.  An intermediate is deleted (``del t3``) after its last use so that
peak memory matches eager execution.
"""

from __future__ import annotations

import keyword
import linecache
import weakref
import math
import operator
import re
from itertools import count

import numpy as np

from sot.ir.statement_ir import StatementIR, Symbol

__all__ = ["compile_numpy", "CompiledGraph"]

_BINARY = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "matmul": "@", "and_": "&", "or_": "|", "xor": "^", "lshift": "<<",
    "rshift": ">>", "lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">=",
}
_INPLACE = {"i" + k.rstrip("_"): v + "=" for k, v in _BINARY.items() if k not in
            ("lt", "le", "eq", "ne", "gt", "ge")}
_UNARY = {"neg": "-{}", "pos": "+{}", "invert": "~{}", "abs": "abs({})"}
_COUNTER = count()


class CompiledGraph:
    """A StatementIR compiled to a Python function over NumPy.

    ``source`` is the generated code, ``graph`` the IR it came from; calling
    it with the input values returns the tuple of output values.
    """

    def __init__(self, graph: StatementIR, source: str, fn, constants: dict):
        self.graph = graph
        self.source = source
        self.constants = constants
        self._fn = fn

    def __call__(self, *inputs) -> tuple:
        return self._fn(*inputs)

    def __repr__(self) -> str:
        return f"<CompiledGraph {self.graph.name}: {len(self.graph)} ops>"


class _Emitter:
    def __init__(self):
        self.constants: dict[str, object] = {}

    def bind(self, value) -> str:
        name = f"c{len(self.constants)}"
        self.constants[name] = value
        return name

    def value(self, v) -> str:
        """Source text for an argument value."""
        if isinstance(v, Symbol):
            return v.name
        if v is None or v is True or v is False:
            return repr(v)
        if v is Ellipsis:
            return "..."
        if type(v) is int:
            return repr(v)
        if type(v) is float and math.isfinite(v):
            return repr(v)
        if type(v) is str:
            return repr(v)
        if isinstance(v, type) and issubclass(v, np.generic) and getattr(np, v.__name__, None) is v:
            return f"np.{v.__name__}"
        if type(v) is tuple:
            inner = ", ".join(self.value(x) for x in v)
            return f"({inner},)" if len(v) == 1 else f"({inner})"
        if type(v) is list:
            return "[" + ", ".join(self.value(x) for x in v) + "]"
        if type(v) is dict:
            return "{" + ", ".join(f"{k!r}: {self.value(x)}" for k, x in v.items()) + "}"
        if isinstance(v, slice) and any(isinstance(x, Symbol) for x in (v.start, v.stop, v.step)):
            return f"slice({self.value(v.start)}, {self.value(v.stop)}, {self.value(v.step)})"
        return self.bind(v)

    def atom(self, v) -> str:
        """Source text safe as an operand of a Python operator."""
        text = self.value(v)
        if text.startswith("-"):
            return f"({text})"
        return text

    def receiver(self, v) -> str:
        return v.name if isinstance(v, Symbol) else self.bind(v)

    def subscript_item(self, v) -> str:
        if isinstance(v, slice) and all(
                x is None or type(x) is int or isinstance(x, Symbol) for x in (v.start, v.stop, v.step)):
            parts = ["" if x is None else self.value(x) for x in (v.start, v.stop, v.step)]
            return ":".join(parts) if v.step is not None else ":".join(parts[:2])
        return self.value(v)

    def subscript(self, index) -> str:
        if type(index) is tuple:
            if not index:
                return "()"
            items = [self.subscript_item(x) for x in index]
            return ", ".join(items) + ("," if len(items) == 1 else "")
        return self.subscript_item(index)

    def call_args(self, args, kwargs) -> str:
        parts = [self.value(a) for a in args] + [f"{k}={self.value(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def function(self, target, name) -> str:
        if getattr(np, name, None) is target:
            return f"np.{name}"
        return self.bind(target)

    def statement(self, st) -> list[str]:
        op, args, kwargs = st.op, st.args, st.kwargs
        lhs = ", ".join(s.name for s in st.outputs)
        if st.multi_output:
            lhs = f"({lhs},)" if len(st.outputs) == 1 else f"({lhs})"
        if op.kind == "operator":
            if op.name in _BINARY:
                return [f"{lhs} = {self.atom(args[0])} {_BINARY[op.name]} {self.atom(args[1])}"]
            if op.name in _INPLACE:
                return [f"{lhs} = {self.atom(args[0])}",
                        f"{lhs} {_INPLACE[op.name]} {self.atom(args[1])}"]
            if op.name == "imatmul":
                return [f"{lhs} = {self.atom(args[0])}", f"{lhs} @= {self.atom(args[1])}"]
            if op.name in _UNARY:
                return [f"{lhs} = " + _UNARY[op.name].format(self.atom(args[0]))]
            if op.name == "getitem":
                return [f"{lhs} = {self.receiver(args[0])}[{self.subscript(args[1])}]"]
            if op.name == "dim":  # a symbolic dim, read from the runtime shape
                return [f"{lhs} = {args[0].name}.shape[{args[1]}]"]
            return [f"{lhs} = {self.bind(op.target)}({self.call_args(args, kwargs)})"]
        if op.kind == "function":
            return [f"{lhs} = {self.function(op.target, op.name)}({self.call_args(args, kwargs)})"]
        if op.kind == "method":
            return [f"{lhs} = {self.receiver(args[0])}.{op.target}({self.call_args(args[1:], kwargs)})"]
        return [f"{lhs} = {self.receiver(args[0])}.{op.target}"]


def _short_repr(value, limit: int = 40) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _function_name(name: str) -> str:
    ident = re.sub(r"\W", "_", name) or "graph"
    if ident[0].isdigit() or keyword.iskeyword(ident):
        ident = "_" + ident
    if ident in ("np", "operator", "abs") or re.fullmatch(r"[ict]\d+", ident):
        ident += "_graph"  # would shadow a name the generated code uses
    return ident


def compile_numpy(graph: StatementIR) -> CompiledGraph:
    """Generate and compile the NumPy source of ``graph``."""
    emitter = _Emitter()
    statements = graph.statements
    outputs = {s.name for s in graph.outputs}
    last_use: dict[str, int] = {}
    for i, st in enumerate(statements):
        for s in st.symbols_used():
            last_use[s.name] = i
    body = []
    for i, st in enumerate(statements):
        first_constant = len(emitter.constants)
        lines = emitter.statement(st)
        bound = list(emitter.constants.items())[first_constant:]
        if bound:  # show what the bound constants are (a comment: never code)
            note = ", ".join(f"{name} = {_short_repr(value)}" for name, value in bound)
            lines[-1] += f"  # {note}"
        body += lines
        dead = [s.name for st2 in [st] for s in st2.symbols_used()
                if s.name.startswith("t") and last_use.get(s.name) == i and s.name not in outputs]
        dead += [s.name for s in st.outputs if s.name not in last_use and s.name not in outputs]
        dead = list(dict.fromkeys(dead))
        if dead:
            body.append("del " + ", ".join(dead))
    ret = ", ".join(s.name for s in graph.outputs)
    body.append(f"return ({ret},)" if len(graph.outputs) == 1 else f"return ({ret})")
    fname = _function_name(graph.name)
    params = ", ".join(s.name for s in graph.inputs)
    source = f"def {fname}({params}):\n" + "".join(f"    {line}\n" for line in body)
    filename = f"<sot numpy graph {fname} #{next(_COUNTER)}>"
    namespace = {"np": np, "operator": operator, **emitter.constants}
    exec(compile(source, filename, "exec"), namespace)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    fn = namespace[fname]
    weakref.finalize(fn, linecache.cache.pop, filename, None)  # the source lives as long as the graph
    return CompiledGraph(graph, source, fn, dict(emitter.constants))
