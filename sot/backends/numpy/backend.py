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

Large intermediates computed by an elementwise ufunc are written into
buffers the graph keeps between calls (``buffer_plan`` says which and
why the result is the same; ``buffers`` keeps them).  Such a graph
takes a set of buffers on entry and gives it back on exit::

    def softmax(i0):
        bufs = pool.acquire()
        try:
            (b0,) = bufs
            t0 = i0.max(-1, keepdims=True)
            t1 = np.subtract(i0, t0, out=b0) if c_ordered(i0) and c_ordered(t0) else i0 - t0
            ...
        finally:
            pool.release(bufs)
"""

from __future__ import annotations

import keyword
import linecache
import weakref
import math
import operator
import re
import types
from itertools import count

import numpy as np

from sot import _hook
from sot._linetable import relocate
from sot.ir.ops_write import is_write
from sot.ir.statement_ir import StatementIR, Symbol

from .buffer_plan import BufferPlan, Write, plan_buffers
from .buffers import BufferPool, c_ordered
from .writes import GraphWriteError, first_commit, guard_commit, write_source

__all__ = ["compile_numpy", "NumpyCompiledGraph"]

_BINARY = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "matmul": "@", "and_": "&", "or_": "|", "xor": "^", "lshift": "<<",
    "rshift": ">>", "lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">=",
}
_INPLACE = {"i" + k.rstrip("_"): v + "=" for k, v in _BINARY.items() if k not in
            ("lt", "le", "eq", "ne", "gt", "ge")}
_UNARY = {"neg": "-{}", "pos": "+{}", "invert": "~{}", "abs": "abs({})"}
_COUNTER = count()


class NumpyCompiledGraph:
    """A StatementIR compiled to a Python function over NumPy (a
    ``backends.CompiledGraph``).

    ``source`` is the generated code, ``graph`` the IR it came from, ``fn``
    the generated function; calling either with the input values returns
    the tuple of output values.  ``buffers`` is the ``BufferPool`` of the
    intermediates it keeps between calls (``None`` when it keeps none).
    ``not_lowered``: set where it runs a graph compiled for onnxruntime of
    which nothing lowered, with why (``explain``).
    """

    backend = "numpy"
    not_lowered = None

    def __init__(self, graph: StatementIR, source: str, fn, constants: dict,
                 buffers: BufferPool | None = None):
        self.graph = graph
        self.source = source
        self.constants = constants
        self.buffers = buffers
        self.fn = fn

    def __call__(self, *inputs) -> tuple:
        return self.fn(*inputs)

    def explain(self) -> dict:
        report = {"backend": "numpy", "device": "cpu", "statements": len(self.graph)}
        if self.not_lowered is not None:
            report["not_lowered"] = self.not_lowered
        return report

    def __repr__(self) -> str:
        return f"<CompiledGraph {self.graph.name}: {len(self.graph)} ops>"


class _Emitter:
    def __init__(self):
        self.constants: dict[str, object] = {}
        self._bound: dict[int, str] = {}  # within one statement: a value bound once
        self.numpy: dict[str, object] = {}  # np.<name> the source uses -> the object it means

    def begin_statement(self) -> None:
        self._bound = {}

    def bind(self, value) -> str:
        name = self._bound.get(id(value))
        if name is None:
            name = self._bound[id(value)] = f"c{len(self.constants)}"
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
            return self.numpy_name(v.__name__, v)
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
            return self.numpy_name(name, target)
        return self.bind(target)

    def numpy_name(self, name: str, value) -> str:
        """``np.<name>`` in the source, bound to the object seen now: the
        one the guards checked (a later ``numpy.<name> = ...`` must not
        change what a compiled graph calls)."""
        self.numpy[name] = value
        return f"np.{name}"

    def statement(self, st, write: Write | None = None) -> list[str]:
        op, args = st.op, st.args
        lhs = ", ".join(s.name for s in st.outputs)
        if st.multi_output:
            lhs = f"({lhs},)" if len(st.outputs) == 1 else f"({lhs})"
        if not st.outputs and is_write(st):
            return [write_source(self, st)]
        if op.kind == "operator" and op.name in _INPLACE:
            return [f"{lhs} = {self.atom(args[0])}", f"{lhs} {_INPLACE[op.name]} {self.atom(args[1])}"]
        if op.kind == "operator" and op.name == "imatmul":
            return [f"{lhs} = {self.atom(args[0])}", f"{lhs} @= {self.atom(args[1])}"]
        rhs = self.expression(st)
        if write is not None:
            rhs = self.buffered(write, rhs)
        return [f"{lhs} = {rhs}"]

    def expression(self, st) -> str:
        """The statement's right-hand side, as the user wrote it."""
        op, args, kwargs = st.op, st.args, st.kwargs
        if op.kind == "operator":
            if op.name in _BINARY:
                return f"{self.atom(args[0])} {_BINARY[op.name]} {self.atom(args[1])}"
            if op.name in _UNARY:
                return _UNARY[op.name].format(self.atom(args[0]))
            if op.name == "getitem":
                return f"{self.receiver(args[0])}[{self.subscript(args[1])}]"
            if op.name == "dim":  # a symbolic dim, read from the runtime shape
                return f"{args[0].name}.shape[{args[1]}]"
            return f"{self.bind(op.target)}({self.call_args(args, kwargs)})"
        if op.kind == "function":
            return f"{self.function(op.target, op.name)}({self.call_args(args, kwargs)})"
        if op.kind == "method":
            return f"{self.receiver(args[0])}.{op.target}({self.call_args(args[1:], kwargs)})"
        return f"{self.receiver(args[0])}.{op.target}"

    def buffered(self, write: Write, as_written: str) -> str:
        """The ufunc writing into its buffer, and the statement as written
        for calls whose result eager would not make C-contiguous (``c_ordered``)."""
        call = (f"{self.function(write.ufunc, write.ufunc.__name__)}"
                f"({self.call_args(write.operands, write.kwargs)}, out={write.out})")
        if not write.checks:
            return call
        condition = " and ".join(f"c_ordered({name})" for name in write.checks)
        return f"{call} if {condition} else {as_written}"


def _short_repr(value, limit: int = 40) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _function_name(name: str) -> str:
    ident = re.sub(r"\W", "_", name) or "graph"
    if ident[0].isdigit() or keyword.iskeyword(ident):
        ident = "_" + ident
    if ident in ("np", "operator", "abs", "pool", "bufs", "c_ordered") or re.fullmatch(r"[ictb]\d+", ident):
        ident += "_graph"  # would shadow a name the generated code uses
    return ident


def compile_numpy(graph: StatementIR, min_buffer_bytes: int | None = None) -> NumpyCompiledGraph:
    """Generate and compile the NumPy source of ``graph``; intermediates of
    ``min_buffer_bytes`` or more (default ``numpy_buffers.MIN_BYTES``) may be
    kept in buffers between calls."""
    plan = plan_buffers(graph, min_buffer_bytes)
    emitter = _Emitter()
    statements = graph.statements
    outputs = {s.name for s in graph.outputs}
    last_use: dict[str, int] = {}
    for i, st in enumerate(statements):
        for s in st.symbols_used():
            last_use[s.name] = i
    body = []
    lines_of: list[int] = []  # the statement each line of body comes from
    commit, commit_line = first_commit(graph), None
    for i, st in enumerate(statements):
        if i == commit:
            commit_line = len(body)
        first_constant = len(emitter.constants)
        emitter.begin_statement()
        lines = emitter.statement(st, plan.writes.get(i))
        bound = list(emitter.constants.items())[first_constant:]
        if bound:  # show what the bound constants are (a comment: never code)
            note = ", ".join(f"{name} = {_short_repr(value)}" for name, value in bound)
            lines[-1] += f"  # {note}"
        body += lines
        lines_of += [i] * len(lines)
        dead = [s.name for st2 in [st] for s in st2.symbols_used()
                if s.name.startswith("t") and last_use.get(s.name) == i and s.name not in outputs]
        dead += [s.name for s in st.outputs if s.name not in last_use and s.name not in outputs]
        dead = list(dict.fromkeys(dead))
        if dead:
            body.append("del " + ", ".join(dead))
            lines_of.append(i)
    if commit_line is not None:
        body = guard_commit(body, commit_line)
        lines_of = lines_of[:commit_line] + [commit] + lines_of[commit_line:] + [len(statements) - 1] * 2
    ret = ", ".join(s.name for s in graph.outputs)
    body.append(f"return ({ret},)" if len(graph.outputs) == 1 else f"return ({ret})")
    lines_of.append(len(statements) - 1)
    pool = None
    if plan.writes:
        pool = BufferPool(plan.slots, plan.views)
        body = _with_buffers(body, plan)
        lines_of = [0] * 3 + lines_of + [len(statements) - 1] * 2
    fname = _function_name(graph.name)
    params = ", ".join(s.name for s in graph.inputs)
    source = f"def {fname}({params}):\n" + "".join(f"    {line}\n" for line in body)
    namespace = {"np": types.SimpleNamespace(**emitter.numpy), "operator": operator, "pool": pool,
                 "c_ordered": c_ordered, "__GraphWriteError": GraphWriteError, **emitter.constants}
    user = user_locations(statements)
    if user is not None:
        # Compiled as the user's code: a warning NumPy raises in it names the
        # user's file, line and module, and goes through that module's
        # registry (filters by module, de-duplication per line).
        filename, globals_, lines = user
        code = _at_user_lines(source, filename, [lines[i] if i >= 0 else lines[0] for i in lines_of])
        namespace["__name__"] = globals_.get("__name__", "<string>")
        namespace["__warningregistry__"] = globals_.setdefault("__warningregistry__", {})
        exec(code, namespace)
        fn = namespace.pop(fname)
        _hook.skip_code(fn.__code__)   # at a user's file, but never intercepted by the hook
    else:
        statement_at_line = {k + 2: i for k, i in enumerate(lines_of)}   # def on line 1, body from 2
        filename = f"<sot numpy graph {fname} #{next(_COUNTER)}>"
        exec(compile(source, filename, "exec"), namespace)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        fn = namespace.pop(fname)  # no cycle through its globals: the graph, and its buffers, go as soon as unused
        weakref.finalize(fn, linecache.cache.pop, filename, None)  # the source lives as long as the graph
    compiled = NumpyCompiledGraph(graph, source, fn, dict(emitter.constants), pool)
    if user is None:   # its own file: which statement each line is (sot/graph_frames.py)
        compiled.statement_at_line = statement_at_line
    return compiled


def user_locations(statements):
    """(filename, globals, line of each statement) of the user code the
    statements come from, or None when unknown.  One code object has one
    file and one module: the file most statements ran in; a statement of a
    function inlined from another file gets the line of its call there."""
    wheres = [st.where for st in statements]
    if not wheres or any(w is None for w in wheres):
        return None
    votes: dict = {}
    for w in wheres:
        key = (w[0][0], id(w[0][2]))
        votes[key] = votes.get(key, 0) + 1
    filename, globals_id = max(votes, key=votes.get)
    lines = []
    for w in wheres:
        frame = next((f for f in w if f[0] == filename and id(f[2]) == globals_id and f[1]), None)
        if frame is None:
            return None
        lines.append(frame[1])
        globals_ = frame[2]
    return filename, globals_, lines


def _at_user_lines(source: str, filename: str, user_lines: list[int]):
    """``source`` compiled with each body line (source line k+2 is body line
    k) at the user line given, under the user's file name."""
    last = len(user_lines) - 1
    return relocate(compile(source, filename, "exec"), lambda ln: user_lines[min(max(ln - 2, 0), last)])


def _with_buffers(body: list[str], plan: BufferPlan) -> list[str]:
    """``body`` between taking a set of buffers and giving it back."""
    names = [f"b{k}" for k in range(len(plan.views))]
    unpack = f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"
    return (["bufs = pool.acquire()", "try:", f"    {unpack} = bufs"]
            + [f"    {line}" for line in body]
            + ["finally:", "    pool.release(bufs)"])
