"""A graph with symbolic dims on onnxruntime: one model for every size.

``SymbolicOnnxGraph`` plans the graph with symbolic dims
(``lowering.plan``: sizes the model computes from its inputs' shapes,
see ``lowering_shapes``) and creates one session per ONNX segment,
once.  Each new tuple of input shapes is checked once (cached): by the
graph's size relations compiled at the first accepted shapes
(``size_check``, microseconds), else by ``check_sizes``.  Where the
symbolic graph does not hold at those sizes, the call runs on the NumPy
backend (exact, and it raises as eager does); elsewhere
the sessions run, and the graph's Python numbers (returned ones, those
NumPy segments read) are the ones the check computed, by Python.

``compile_symbolic`` raises ``NotSymbolicGraph`` when a statement lowers
only at static sizes: the caller compiles per shape instead.  Results are
fresh arrays (no IO binding: their shapes change from call to call).
"""

from __future__ import annotations

import logging
from collections import OrderedDict

import numpy as np

from sot.ir.meta import TensorMeta
from sot.ir.statement_ir import StatementIR

from .lowering import NumpySegment, OnnxSegment, plan
from .lowering_array import matmul_prefers_numpy
from .session import (_as_input, _as_numpys, _run_numpy, _session, plan_report, providers_for, steps_source,
                      threads_for)
from ..size_check import compile_size_check
from ..symbolic_shapes import check_sizes, infer_at

log = logging.getLogger("sot.backends")

__all__ = ["SymbolicOnnxGraph", "NotSymbolicGraph", "MAX_CHECKED"]

#: tuples of input shapes whose check is kept (least recently used dropped)
MAX_CHECKED = 256


class NotSymbolicGraph(Exception):
    """Some statements lower only at static sizes; ``reasons`` says which."""

    def __init__(self, reasons):
        self.reasons = list(reasons)
        super().__init__("; ".join(f"{st}: {why}" for st, why in self.reasons))


class _Segment:
    """One ONNX segment and its session: reads env, writes its exports."""

    def __init__(self, seg: OnnxSegment, providers):
        self.segment = seg
        unique = list(dict.fromkeys(v for _, v in seg.exports))
        self.model, self.output_names = seg.builder.to_model(unique)
        self.threads = threads_for(seg.statements)
        self.frozen = seg.builder.frozen_used
        self.session = _session(self.model, providers, self.threads, self.frozen)
        position = {v: i for i, v in enumerate(unique)}
        self.exports = [(sym.name, position[v], sym.meta.is_scalar) for sym, v in seg.exports]
        self.inputs = [(onnx_name, sym.name) for onnx_name, sym in seg.builder.inputs]
        b = seg.builder
        self.metas = [(None, b.dtype[n]) for n in self.output_names]

    def call(self, values) -> list:
        feed = {n: _as_input(v) for (n, _), v in zip(self.inputs, values)}
        return _as_numpys(self.session.run(self.output_names, feed), self.metas)

    def run(self, env: dict) -> None:
        results = self.call([env[name] for _, name in self.inputs])
        for name, i, scalar in self.exports:
            env[name] = results[i][()] if scalar else results[i]


_REFERENCE = object()


class SymbolicOnnxGraph:
    """See the module docstring; ``backend`` is "onnxruntime (symbolic)", or
    "numpy+onnxruntime (symbolic)" when some statements run on NumPy."""

    def __init__(self, graph: StatementIR, device: str = "cpu", fuse: bool = True):
        from .. import numpy_compiled
        self.graph = graph
        self.device = device
        self.providers = providers_for(device)
        fuser = None
        if fuse:
            from .fusion import fuse_patterns
            fuser = fuse_patterns
        self.plan = plan(graph, fuser, prefer=matmul_prefers_numpy)
        if self.plan.not_symbolic:
            raise NotSymbolicGraph(self.plan.not_symbolic)
        self.reference = numpy_compiled(graph)
        self._reference_fn = self.reference.fn
        self._steps = []
        for seg in self.plan.segments:
            if isinstance(seg, OnnxSegment):
                if seg.exports:
                    self._steps.append(_Segment(seg, self.providers))
            else:
                self._steps.append(seg)
        if not self.plan.any_onnx:
            self.backend = "numpy"
        else:
            self.backend = ("onnxruntime" if self.plan.all_onnx else "numpy+onnxruntime") + " (symbolic)"
        self._checked: OrderedDict = OrderedDict()
        self._size_check = None          # size_check.SizeCheck, compiled at the first accepted shapes
        self._size_check_tried = False
        self.full_checks = 0             # shapes checked by replaying the graph's inference
        self._input_names = [s.name for s in graph.inputs]
        self._outputs = [(s.name, s.meta.is_scalar) for s in graph.outputs]

    @property
    def fn(self):
        """The function the runner calls; the graph holds no reference to
        it (no cycle: a replaced entry's sessions are freed at once)."""
        from .checked import rerun_on_numpy_when_onnxruntime_fails
        state = self

        def run_graph(*inputs):
            return state._run(inputs)
        return rerun_on_numpy_when_onnxruntime_fails(self.graph, run_graph, lambda: state._reference_fn)

    def _numbers(self, inputs):
        key = tuple(v.shape for v in inputs)
        numbers = self._checked.get(key)
        if numbers is None:
            numbers = self._size_check(inputs) if self._size_check is not None else None
            if numbers is None:
                numbers = self._full_check(inputs)
            self._checked[key] = numbers
            if len(self._checked) > MAX_CHECKED:
                self._checked.popitem(last=False)
        else:
            self._checked.move_to_end(key)
        return numbers

    def _full_check(self, inputs):
        """``check_sizes`` at these shapes; the first shapes it accepts are the
        base of the compiled check (``size_check``) of later shapes."""
        from sot import _hook
        # called from a running graph: no compiler frame is user code to translate
        with _hook.callback_set(None):
            self.full_checks += 1
            if self._size_check_tried:
                numbers = check_sizes(self.graph, inputs)
                return _REFERENCE if numbers is None else numbers
            try:
                metas = [TensorMeta.of(v) for v in inputs]
            except Exception:  # noqa: BLE001 - a subclass: NumPy replays it exactly
                return _REFERENCE
            found = infer_at(self.graph, metas)
            if found is None:
                return _REFERENCE
            self._size_check_tried = True
            try:
                self._size_check = compile_size_check(self.graph, metas, found)
            except Exception:  # noqa: BLE001 - a bug here must only cost the speed-up
                log.warning("graph %s: compiling its size check failed", self.graph.name, exc_info=True)
        return found[0]

    def prepare(self, *inputs) -> None:
        """Check these input shapes now (backend='auto' times calls without it)."""
        self._numbers(inputs)

    def _run(self, inputs) -> tuple:
        numbers = self._numbers(inputs)
        if numbers is _REFERENCE:
            return self._reference_fn(*inputs)
        env = dict(zip(self._input_names, inputs))
        env.update(numbers)
        for step in self._steps:
            if isinstance(step, NumpySegment):
                _run_numpy(step.statements, env)
            else:
                step.run(env)
        out = []
        for name, scalar in self._outputs:
            v = env[name]
            if scalar and type(v) is np.ndarray:
                v = v[()]
            out.append(v)
        return tuple(out)

    def __call__(self, *inputs) -> tuple:
        return self.fn(*inputs)

    def size_check_report(self) -> dict:
        """How new input shapes were checked: by the compiled check, by replaying the inference."""
        sc = self._size_check
        return {"compiled": sc is not None, "compiled_checks": sc.calls if sc is not None else 0,
                "full_checks": self.full_checks,
                "base": list(sc.base) if sc is not None else None}

    @property
    def steps(self) -> tuple:
        """The plan's steps in order: ONNX segments with their sessions, NumPy segments."""
        return tuple(self._steps)

    @property
    def sessions(self) -> int:
        return sum(isinstance(s, _Segment) for s in self._steps)

    @property
    def models(self) -> list:
        return [s.model for s in self._steps if isinstance(s, _Segment)]

    @property
    def source(self) -> str:
        return steps_source(self._steps, _Segment, ["# symbolic dims: one ONNX model for every size"])

    def explain(self) -> dict:
        checked = [list(k) for k, v in self._checked.items() if v is not _REFERENCE]
        return {
            **plan_report(self),
            "sessions": self.sessions,
            "checked_shapes": checked,
            "size_check": self.size_check_report(),
            "numpy_shapes": [list(k) for k, v in self._checked.items() if v is _REFERENCE],
            "fused": [p.kind for s in self._steps if isinstance(s, _Segment) for p in s.segment.patterns],
        }

    def __repr__(self) -> str:
        return f"<SymbolicOnnxGraph {self.graph.name}: {len(self.graph)} ops on {self.backend}>"
