"""Graphs with symbolic dims (``sot.ir.symbolic``) at the sizes they meet.

A symbolic graph holds for every size of its symbolic dims as far as the
IR can tell; a given tuple of input shapes may still be one where it does
not (an op raises there, a derived dim is 0, ``squeeze`` meets a 1), so
``check_sizes`` replays the IR's inference at those shapes and compares
every value with the symbolic graph.  It gives the Python numbers of the
graph at those shapes (``x.shape[0] // 2``), computed by Python, or None
where the symbolic graph does not apply there: those sizes run on the NumPy
backend, which replays the user's ops exactly (and raises as they do).

The onnxruntime and auto backends run a symbolic graph as one ONNX model
for every size (``onnx.symbolic``) when it lowers with symbolic dims, and
check each new tuple of shapes once.  Otherwise (a statement is not
lowered symbolically, the log says which) the graph is compiled once per
tuple of input shapes (``PerShapeCompiledGraph``): the IR is replayed at
those shapes (``concretize``), every shape value becoming a constant, and
compiled as a static graph.  Up to ``MAX_SHAPES`` compiled shapes are kept,
and the least recently used are dropped (their sessions freed) while the
others hold more than ``MAX_SHAPES_BYTES`` (``memory.held_bytes`` of each
entry at its compilation, frozen weights counted per entry: each session
may pre-pack its own copy); ``explain()`` gives each entry's bytes.

The Python trace is not redone for a new shape: only the replay.
"""

from __future__ import annotations

from collections import OrderedDict

from sot.ir.errors import UnsupportedOp
from sot.ir.meta import TensorMeta
from sot.ir.registry import DIM_OP
from sot.ir.statement_ir import StatementIR, Symbol, map_symbols

__all__ = ["PerShapeCompiledGraph", "concretize", "check_sizes", "infer_at", "MAX_SHAPES", "MAX_SHAPES_BYTES",
           "PYTHON_INT_LIMIT"]

MAX_SHAPES = 16
#: the most bytes the compiled shapes other than the newest may hold
MAX_SHAPES_BYTES = 1 << 30
#: a Python int of a graph beyond this runs on NumPy: the ONNX model
#: computes in int64, and converts ints to float64 exactly below it
PYTHON_INT_LIMIT = 2 ** 53


def _map(tree, env):
    """``tree`` with each Symbol replaced by its value in ``env``."""
    return map_symbols(tree, lambda s: env[s.name])


def concretize(graph: StatementIR, inputs) -> tuple[StatementIR, list]:
    """``graph`` replayed with the shapes of ``inputs``: a static StatementIR,
    and for each output of ``graph`` either ``("out", k)`` (the k-th output
    of the static graph) or ``("const", value)`` (a Python number computed
    from the shapes).  Raises UnsupportedOp when an op is not captured at
    these shapes."""
    ir = StatementIR(graph.name)
    ir.frozen = dict(graph.frozen)   # frozen inputs have static dims: same names, same values
    env: dict = {}
    for sym, value in zip(graph.inputs, inputs):
        env[sym.name] = ir.add_input(TensorMeta.of(value), graph.hint(sym))
    for st in graph.statements:
        if st.op is DIM_OP:
            env[st.outputs[0].name] = env[st.args[0].name].meta.shape[st.args[1]]
            continue
        args, kwargs = _map(st.args, env), _map(st.kwargs, env)
        if all(s.meta.is_python for s in st.outputs):  # Python arithmetic on shape values
            env[st.outputs[0].name] = st.op.call(args, kwargs)
            continue
        result = ir.add_op(st.op, args, kwargs)
        for sym, new in zip(st.outputs, result if st.multi_output else (result,)):
            env[sym.name] = new
    outputs, plan = [], []
    for sym in graph.outputs:
        value = env[sym.name]
        if isinstance(value, Symbol):
            plan.append(("out", len(outputs)))
            outputs.append(value)
        else:
            plan.append(("const", value))
    ir.set_outputs(outputs)
    return ir, plan


def check_sizes(graph: StatementIR, inputs) -> dict | None:
    """The Python numbers of ``graph`` (symbol name -> value) at the shapes of
    ``inputs``, or None when the symbolic graph does not hold there: an op
    raises or differs at those sizes (ndim, dtype, a static size), a value
    has no elements (zero-size arrays run on NumPy), a Python number changes
    type or leaves ±PYTHON_INT_LIMIT."""
    try:
        metas = [TensorMeta.of(value) for value in inputs]
    except Exception:  # noqa: BLE001 - a subclass: NumPy replays it exactly
        return None
    found = infer_at(graph, metas)
    return None if found is None else found[0]


def infer_at(graph: StatementIR, metas) -> tuple[dict, dict] | None:
    """``check_sizes`` on input metas: (the Python numbers, every value's
    meta or number by symbol name), or None."""
    ir = StatementIR(graph.name)
    env: dict = {}
    numbers: dict = {}
    try:
        for sym, meta in zip(graph.inputs, metas):
            env[sym.name] = ir.add_input(meta)
            if not _agrees(sym.meta, env[sym.name].meta):
                return None
        for st in graph.statements:
            if st.op is DIM_OP:
                value = env[st.args[0].name].meta.shape[st.args[1]]
            elif st.outputs and all(s.meta.is_python for s in st.outputs):
                value = st.op.call(_map(st.args, env), _map(st.kwargs, env))
            else:
                result = ir.add_op(st.op, _map(st.args, env), _map(st.kwargs, env))
                for sym, new in zip(st.outputs, result if st.multi_output else (result,)):
                    if not _agrees(sym.meta, new.meta):
                        return None
                    env[sym.name] = new
                continue
            sym = st.outputs[0]
            if type(value) is not sym.meta.type or (type(value) is int and abs(value) > PYTHON_INT_LIMIT):
                return None
            env[sym.name] = numbers[sym.name] = value
    except Exception:  # noqa: BLE001 - eager raises here too: NumPy replays it exactly
        return None
    return numbers, {k: (v.meta if isinstance(v, Symbol) else v) for k, v in env.items()}


def _agrees(meta, concrete) -> bool:
    if not isinstance(concrete, TensorMeta) or (meta.dtype, meta.is_scalar, meta.ndim) != \
            (concrete.dtype, concrete.is_scalar, concrete.ndim):
        return False
    symbolic = meta.symbolic_axes
    return all(c >= 1 if i in symbolic else c == d
               for i, (d, c) in enumerate(zip(meta.shape, concrete.shape)))


_REFERENCE = object()


def _held(compiled) -> int:
    from .memory import held_bytes
    try:
        return held_bytes(compiled)["total"]
    except Exception:  # noqa: BLE001 - an estimate: never a reason to fail a call
        return 0


class PerShapeCompiledGraph:
    """A symbolic graph compiled by ``compile_static`` per input shapes."""

    def __init__(self, graph: StatementIR, compile_static, backend: str):
        from . import numpy_compiled
        self.graph = graph
        self._compile_static = compile_static
        self.reference = numpy_compiled(graph)
        self._reference_fn = self.reference.fn
        self._compiled: OrderedDict = OrderedDict()
        self._bytes: dict = {}   # shapes -> bytes its entry held when compiled
        self.backend = f"{backend} (per shape)"

    def __call__(self, *inputs) -> tuple:
        key = tuple(v.shape for v in inputs)
        entry = self._compiled.get(key)
        if entry is None:
            entry = self._build(inputs)
            self._compiled[key] = entry
            self._bytes[key] = 0 if entry is _REFERENCE else _held(entry[0])
            self._evict()
        else:
            self._compiled.move_to_end(key)
        if entry is _REFERENCE:
            return self._reference_fn(*inputs)
        compiled, plan = entry
        results = compiled(*inputs)
        return tuple(results[x] if kind == "out" else x for kind, x in plan)

    def _evict(self) -> None:
        """Drop least recently used shapes past MAX_SHAPES or MAX_SHAPES_BYTES
        (the newest is always kept)."""
        while len(self._compiled) > 1 and (len(self._compiled) > MAX_SHAPES or
                                           sum(self._bytes.values()) > MAX_SHAPES_BYTES):
            key, _ = self._compiled.popitem(last=False)
            del self._bytes[key]

    def _build(self, inputs):
        from sot import _hook
        # called from a running graph: the frame hook may be on, and no
        # compiler frame (dataclass __init__s...) is user code to translate
        with _hook.callback_set(None):
            try:
                ir, plan = concretize(self.graph, inputs)
            except UnsupportedOp:
                return _REFERENCE   # raises (or differs) at these sizes: NumPy replays the user's ops exactly
            return self._compile_static(ir), plan

    @property
    def fn(self):
        return self   # no plain function: each call dispatches on its shapes

    @property
    def compiled_graphs(self) -> list:
        """The graphs compiled for the shapes kept, least recently used first."""
        return [entry[0] for entry in self._compiled.values() if entry is not _REFERENCE]

    @property
    def source(self) -> str:
        return ("# symbolic dims: compiled for each input shape; the graph at symbolic shapes:\n"
                + self.reference.source)

    def explain(self) -> dict:
        shapes = [list(k) for k, v in self._compiled.items() if v is not _REFERENCE]
        return {"backend": self.backend, "statements": len(self.graph), "compiled_shapes": shapes,
                "per_shape": {str(k): {**(v[0].explain() if v is not _REFERENCE else {"backend": "numpy"}),
                                       "held_bytes": self._bytes[k]}
                              for k, v in self._compiled.items()},
                "per_shape_bytes": {"held": sum(self._bytes.values()), "limit": MAX_SHAPES_BYTES,
                                    "max_shapes": MAX_SHAPES}}

    def __repr__(self) -> str:
        return f"<PerShapeCompiledGraph {self.graph.name}: {len(self.graph)} ops, {len(self._compiled)} shapes>"
