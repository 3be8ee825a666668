"""onnxruntime sessions: a planned StatementIR becomes a callable.

Each ONNX segment of the plan (``lowering.plan``) becomes one checked
``ModelProto`` and one ``InferenceSession``, created when the graph is
compiled and reused on every call (graph optimisation level ALL).  NumPy
segments replay their statements exactly as the NumPy backend does.

Results have the Python types eager NumPy gives: a value whose meta says
NumPy scalar is unwrapped from ORT's 0-d array, an output that is a graph
input is that very object, and an output repeated (or two symbols that are
one object eagerly, after an in-place operator) is one array.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from sot import _env
from sot.ir.statement_ir import StatementIR, Symbol, map_symbols

from ..disk_cache import create_session
from .buffers import OutputSlots
from ..gpu_check import check_session
from ..numpy.writes import GraphWriteError
from .writes import split_at_commit, writeback
from .lowering import NumpySegment, OnnxSegment, plan
from .lowering_array import matmul_prefers_numpy
from .prebound import PreboundInputs, available as prebound_available
from .threads import ThreadChoice, wants_choice

__all__ = ["OnnxCompiledGraph", "compile_onnxruntime", "providers_for", "GPU_HELP"]

GPU_HELP = ("device='gpu' needs onnxruntime's CUDA execution provider and a CUDA GPU. Install the "
            "GPU build in place of the CPU one:  pip uninstall onnxruntime && pip install "
            "onnxruntime-gpu  (see README, 'GPU').")


def providers_for(device: str) -> list[str]:
    try:
        import onnxruntime as ort
    except ImportError as e:
        raise ImportError("backend='onnxruntime' (and 'auto') needs the onnxruntime and onnx packages: "
                          "pip install onnx onnxruntime  (onnxruntime-gpu for device='gpu')") from e
    if device == "cpu":
        return ["CPUExecutionProvider"]
    if device == "gpu":
        available = ort.get_available_providers()
        if "CUDAExecutionProvider" not in available:
            raise RuntimeError(f"onnxruntime {ort.__version__} has no CUDAExecutionProvider "
                               f"(available: {', '.join(available)}). {GPU_HELP}")
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    raise ValueError(f"unknown device {device!r}; expected 'cpu' or 'gpu'")


#: results of at least this many bytes in all are written by onnxruntime
#: into arrays of ours (IO binding) rather than copied out of its own: 20 %
#: less time for a 16 MB softmax, but 7 us more per call; the arrays are
#: reused across calls when no one else can see them (``buffers``)
BIND_BYTES = 1 << 20

#: below this many multiply-adds (or elements) in its largest statement, a
#: segment runs on one thread: onnxruntime's thread pool costs more than it
#: saves (a 42-layer MLP at batch 1: 5 ms on one thread, 13 ms on two)
SMALL_WORK = 1 << 20


def statement_work(st) -> int:
    """Elements written, times the contracted length for a matmul."""
    out = st.outputs[0].meta if st.outputs else None
    if out is None:
        return 0
    n = math.prod(out.shape)
    if st.op.name in ("matmul", "imatmul", "dot") and st.args and isinstance(st.args[0], Symbol):
        a = st.args[0].meta.shape
        n *= a[-1] if a else 1
    return n


def threads_for(statements) -> int:
    """intra-op threads of a segment: SOT_ORT_THREADS if set, else 1 for
    small work and onnxruntime's default (one per core) otherwise."""
    threads = _env.integer("SOT_ORT_THREADS", -1, 0)
    if threads >= 0:
        return threads
    work = max((statement_work(st) for st in statements), default=0)
    return 1 if work < SMALL_WORK else 0


def _session(model, providers, threads: int = 0, frozen: dict | None = None, spin_in_run: bool = False):
    """``frozen``: onnx name -> array, the data of the model's external
    initializers; the session reads it in place (CPU) while it lives, so the
    caller keeps the arrays alive (they are read-only: executor/freeze.py).
    ``spin_in_run``: a pool's threads spin between kernels and stop when
    the run returns (``threads``), not sleep."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    values = [ort.OrtValue.ortvalue_from_numpy(a) for a in (frozen or {}).values()]
    if values:
        options.add_external_initializers(list(frozen), values)
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    options.intra_op_num_threads = threads
    if spin_in_run:
        options.add_session_config_entry("session.force_spinning_stop", "1")
    elif threads != 1:
        # idle pool threads sleep instead of spinning: a spinning pool of one
        # graph slows the next graph's (and NumPy's own) threads
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # optimised once for all processes sharing a cache directory (disk_cache)
    session = create_session(model, options, providers, cacheable=not values)
    check_session(session, providers)   # no silent fallback from the GPU to the CPU
    session.sot_frozen = values   # they must outlive the session
    return session


def _runner(session, cpu: bool):
    """``run(output_names, feed)`` of the session.  On the CPU, the binding's
    own ``run``: the public one checks every input name and ownership in
    Python first (60 us for the 85 inputs of the 42-layer MLP), which the
    feed we build cannot fail; elsewhere the public one, which also falls
    back from a failing execution provider."""
    inner = getattr(session, "_sess", None)
    if cpu and inner is not None and hasattr(inner, "run"):
        return lambda names, feed: inner.run(names, feed, None)
    return session.run


def _as_input(v):
    if type(v) is np.ndarray and v.flags.c_contiguous:
        return v
    return np.array(v, order="C")


def plan_report(compiled) -> dict:
    """What every onnxruntime-compiled graph's explain() starts with: where
    it runs and which statements did not lower, and why."""
    return {
        "backend": compiled.backend,
        "device": compiled.device,
        "providers": list(compiled.providers),
        "statements": len(compiled.graph),
        "lowered": compiled.plan.lowered,
        "not_lowered": [{"statement": str(st), "op": st.op.name, "reason": why}
                        for st, why in compiled.plan.not_lowered],
    }


def steps_source(steps, segment_type, header=()) -> str:
    """Readable text of a compiled graph's steps: each ONNX model printed,
    each NumPy part as its statements."""
    import onnx.printer
    parts = list(header)
    for step in steps:
        if isinstance(step, segment_type):
            parts.append(onnx.printer.to_text(step.model))
        else:
            parts.append("# on NumPy:\n" + "\n".join(f"    {st}" for st in step.statements))
    return "\n\n".join(parts)


class _RunnableSegment:
    """One ONNX segment with its session: reads env, writes its exports."""

    writeback = ()   # graph inputs it writes (``writes.writeback``)

    def __init__(self, seg: OnnxSegment, providers, choose_threads: bool = False):
        self.segment = seg
        unique = list(dict.fromkeys(v for _, v in seg.exports))
        for sym, v in seg.exports:   # the IR knows every shape
            seg.builder.shape[v] = sym.meta.shape
        self.model, names = seg.builder.to_model(unique)
        self.threads = threads_for(seg.statements)
        self.frozen = seg.builder.frozen_used
        self.session = _session(self.model, providers, self.threads, self.frozen)
        self.output_names = names
        position = {v: i for i, v in enumerate(unique)}
        self.exports = [(sym.name, position[v], sym.meta.is_scalar, sym.meta.dtype)
                        for sym, v in seg.exports]
        self.inputs = [(onnx_name, sym.name) for onnx_name, sym in seg.builder.inputs]
        b = seg.builder
        self.output_metas = [(b.shape[n], b.dtype[n]) for n in names]
        out_bytes = sum(math.prod(shape) * dtype.itemsize for shape, dtype in self.output_metas)
        cpu = providers == ["CPUExecutionProvider"]
        # a result with a symbolic dim has its trace-time shape in the
        # builder: it is bound without a shape, onnxruntime allocates it
        self.static_shapes = not any(sym.meta.symbolic_axes for sym, _ in seg.exports)
        self.bind = cpu and out_bytes >= BIND_BYTES and self.static_shapes
        self.outputs = OutputSlots(self.output_metas)
        self._cpu = cpu
        self.use_session(self.session)
        self._keeping = False
        self.device_type = "cpu" if cpu else "cuda"
        #: positions of the results handed to a later onnxruntime segment
        #: only: kept as OrtValues on the device (OnnxCompiledGraph._keep)
        self.kept: frozenset = frozenset()
        #: a small segment's measured choice of threads (``threads``)
        self.thread_choice = None
        if choose_threads and wants_choice(self.threads, cpu):
            make = functools.partial(_session, self.model, providers, frozen=self.frozen, spin_in_run=True)
            self.thread_choice = ThreadChoice(self, make)

    def use_session(self, session) -> None:
        """Run on ``session`` (one of this segment's model) from now on."""
        self.session = session
        names = self.output_names
        self._run = _runner(session, self._cpu)
        # functions of the session and names, not bound methods: the segment
        # holds them, and a cycle through it would keep its session alive
        # after its graph is dropped, until the collector's next full pass
        self._call = functools.partial(_call_plain, self._run, names, self.inputs)
        self.call = functools.partial(_call_bound, session, self.inputs, names, self.outputs) \
            if self.bind else self._call
        if not self.bind and self._cpu and prebound_available(session):   # inputs re-bound only when changed
            self.call = PreboundInputs(session, [n for n, _ in self.inputs], names, self._call,
                                       self.static_shapes)

    @property
    def settling(self) -> bool:
        """Its threads are still being timed (``threads``)."""
        return self.thread_choice is not None and self.thread_choice.settling

    def keep(self, positions, reads_kept: bool) -> None:
        self.kept = frozenset(positions)
        self._keeping = bool(self.kept or reads_kept)
        if self._keeping and self.settling:   # runs through its own binding, not ``call``: no timing
            self.call = self.thread_choice._call
            self.thread_choice = None

    def run(self, env: dict) -> None:
        if self._keeping:
            return self._run_keeping(env)
        results = _as_numpys(self.call([env[name] for _, name in self.inputs]), self.output_metas)
        for name, i, scalar, dtype in self.exports:
            env[name] = results[i][()] if scalar else results[i]

    def _run_keeping(self, env: dict) -> None:
        """``run`` through an IO binding: OrtValue inputs (kept by an earlier
        segment) are bound as they are, and the kept results stay
        onnxruntime's, on its device; the others are written into arrays of
        ours, as in ``_call_bound``."""
        from onnxruntime import OrtValue
        binding = self.session.io_binding()
        for n, name in self.inputs:
            v = env[name]
            if isinstance(v, OrtValue):
                binding.bind_ortvalue_input(n, v)
            else:
                binding.bind_cpu_input(n, _as_input(v))
        results = {}
        for k, n in enumerate(self.output_names):
            if k in self.kept:
                binding.bind_output(n, self.device_type, 0)
            elif self.static_shapes:
                results[k] = _bind_slot(self.outputs, self.output_names, binding, k)
            else:
                binding.bind_output(n, "cpu")
        self.session.run_with_iobinding(binding)
        kept = binding.get_outputs()
        for name, i, scalar, dtype in self.exports:
            if i in self.kept:
                env[name] = kept[i]
            elif i not in results:
                r = _as_numpy(kept[i].numpy(), dtype)
                env[name] = r[()] if scalar else r
            else:
                r = _as_numpy(results[i], dtype)
                env[name] = r[()] if scalar else r


def _call_plain(run, output_names, inputs, values) -> list:
    return run(output_names, {n: _as_input(v) for (n, _), v in zip(inputs, values)})


def _call_bound(session, inputs, output_names, outputs, values) -> list:
    """Inputs read and outputs written in place through an IO binding: the
    results are arrays of ours that onnxruntime fills (no copy), fresh or
    unreachable ones of an earlier call (``OutputSlots``)."""
    binding = session.io_binding()
    for (n, _), v in zip(inputs, values):
        binding.bind_cpu_input(n, _as_input(v))   # the binding holds the array
    results = [_bind_slot(outputs, output_names, binding, k) for k in range(len(output_names))]
    session.run_with_iobinding(binding)
    return results


def _bind_slot(outputs, output_names, binding, k: int) -> np.ndarray:
    """Result k bound to be written into an array of ours (``OutputSlots``)."""
    r = outputs.take(k)
    binding.bind_output(output_names[k], "cpu", 0, r.dtype, r.shape, r.ctypes.data)
    return r


def _as_numpy(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """An ORT result as eager NumPy has it: onnxruntime makes int64 arrays of
    C ``long long`` (``np.longlong``, not ``np.int64`` on Linux): each is
    viewed once as the dtype NumPy gives, so that scalars taken from it have
    NumPy's type and two names of one result stay one object."""
    return value if value.dtype.type is dtype.type else value.view(dtype)


def _as_numpys(results, metas) -> list:
    return [_as_numpy(value, dtype) for value, (_shape, dtype) in zip(results, metas)]


def _run_numpy(statements, env: dict) -> None:
    for st in statements:
        fn = env.__getitem__   # slices too: a bound may be a Python number of a symbolic graph
        args = map_symbols(st.args, lambda s: fn(s.name))
        kwargs = map_symbols(st.kwargs, lambda s: fn(s.name))
        result = st.op.call(args, kwargs)
        if not st.outputs:  # a write (sot.ir.ops_write): done in place
            continue
        if st.multi_output:
            for s, v in zip(st.outputs, result):
                env[s.name] = v
        else:
            env[st.outputs[0].name] = result


class OnnxCompiledGraph:
    """A StatementIR run by onnxruntime (partly by NumPy when partitioned).

    ``backend`` is "onnxruntime", or "numpy+onnxruntime" when some statements
    run on NumPy; ``source`` prints the ONNX graph(s) and NumPy statements;
    ``explain()`` lists the statements not lowered and why.
    """

    def __init__(self, graph: StatementIR, device: str = "cpu", fuse=True, cuts: frozenset | None = None):
        self.graph = graph
        self.device = device
        providers = providers_for(device)
        self.providers = providers
        fuser = None
        if fuse:
            from .fusion import fuse_patterns
            fuser = fuse_patterns
        # ``cuts`` (segments): the segments are measured, not preferred
        self.plan = plan(graph, fuser, prefer=matmul_prefers_numpy) if cuts is None else \
            plan(graph, fuser, cuts=cuts)
        self._steps = []
        for seg in self.plan.segments:
            if isinstance(seg, OnnxSegment):
                if seg.exports:   # a segment nothing reads is dead code: dropped
                    self._steps.append(_RunnableSegment(seg, providers, choose_threads=cuts is None))
                    self._steps[-1].writeback = writeback(graph, seg)
            else:
                self._steps.append(seg)
        if not self.plan.any_onnx:
            self.backend = "numpy"
        elif self.plan.all_onnx:
            self.backend = "onnxruntime"
        else:
            self.backend = "numpy+onnxruntime"
        self._input_names = [s.name for s in graph.inputs]
        self._outputs = [(s.name, s.meta.is_scalar) for s in graph.outputs]
        self.kept = self._keep()
        from .checked import rerun_on_numpy_when_onnxruntime_fails
        from ..numpy.backend import compile_numpy
        self.fn = rerun_on_numpy_when_onnxruntime_fails(graph, self._build_fn(), lambda: compile_numpy(graph).fn)

    def _keep(self) -> list[str]:
        """Values one onnxruntime segment hands to a later one, which no NumPy
        segment reads and the graph does not return, stay onnxruntime's
        (OrtValues: on the GPU, on the device) between the two; their names."""
        numpy_reads = {s.name for step in self._steps if isinstance(step, NumpySegment)
                       for st in step.statements for s in st.symbols_used()}
        leaving = numpy_reads | {name for name, _ in self._outputs} | {
            name for step in self._steps for name in getattr(step, "writeback", ())}   # copied to the caller
        kept_names: list[str] = []
        for step in self._steps:
            if not isinstance(step, _RunnableSegment):
                continue
            names_of: dict[int, list[str]] = {}
            for name, i, _scalar, _dtype in step.exports:
                names_of.setdefault(i, []).append(name)
            kept = [i for i, names in names_of.items() if not leaving.intersection(names)]
            step.keep(kept, reads_kept=any(name in kept_names for _, name in step.inputs))
            kept_names += [n for i in kept for n in names_of[i]]
        return kept_names

    def _build_fn(self):
        steps = self._steps
        input_names = self._input_names
        outputs = self._outputs
        if len(steps) == 1 and isinstance(steps[0], _RunnableSegment) and not steps[0].writeback:
            seg = steps[0]
            feed_index = [input_names.index(name) for _, name in seg.inputs]
            by_name = {name: i for name, i, _scalar, _dtype in seg.exports}
            plan_out = []
            for name, scalar in outputs:
                if name in by_name:
                    plan_out.append((0, by_name[name], scalar))
                else:
                    plan_out.append((1, input_names.index(name), scalar))
            metas = seg.output_metas

            def run_graph(*inputs):
                # ``seg.call`` looked up per call: a thread choice replaces it
                results = _as_numpys(seg.call([inputs[i] for i in feed_index]), metas)
                out = []
                for kind, i, scalar in plan_out:
                    if kind:
                        out.append(inputs[i])
                    else:
                        v = results[i]
                        out.append(v[()] if scalar else v)
                return tuple(out)
            return run_graph

        def run_steps(steps, env):
            for step in steps:
                if isinstance(step, NumpySegment):
                    _run_numpy(step.statements, env)
                elif step.writeback:   # the caller's arrays it wrote take their new values (``writes``)
                    callers = [(name, env[name]) for name in step.writeback]
                    step.run(env)
                    if not all(array.flags.writeable for _, array in callers):
                        raise ValueError("assignment destination is read-only")   # all or none: rerun natively
                    for name, array in callers:
                        np.copyto(array, env[name])
                        env[name] = array
                else:
                    step.run(env)

        before, after = split_at_commit(self.graph, steps, NumpySegment)

        def run_graph(*inputs):
            env = dict(zip(input_names, inputs))
            run_steps(before, env)
            if after:  # from the first write into memory from outside the graph on (``writes``)
                try:
                    run_steps(after, env)
                except Exception as e:
                    raise GraphWriteError(e) from e
            out = []
            for name, scalar in outputs:
                v = env[name]
                if scalar and type(v) is np.ndarray:
                    v = v[()]
                out.append(v)
            return tuple(out)
        return run_graph

    def __call__(self, *inputs) -> tuple:
        return self.fn(*inputs)

    @property
    def settling(self) -> bool:
        """Some segment still times its threads: ``auto`` waits for it."""
        return any(getattr(s, "settling", False) for s in self._steps)

    @property
    def steps(self) -> tuple:
        """The plan's steps in order: ONNX segments with their sessions, NumPy segments."""
        return tuple(self._steps)

    @property
    def models(self) -> list:
        return [s.model for s in self._steps if isinstance(s, _RunnableSegment)]

    @property
    def source(self) -> str:
        return steps_source(self._steps, _RunnableSegment)

    def explain(self) -> dict:
        return {
            **plan_report(self),
            "segments": [("onnxruntime" if isinstance(s, _RunnableSegment) else "numpy",
                          len(s.segment.statements if isinstance(s, _RunnableSegment) else s.statements))
                         for s in self._steps],
            "fused": [p.kind for s in self._steps if isinstance(s, _RunnableSegment)
                      for p in s.segment.patterns],
            "threads": [s.threads for s in self._steps if isinstance(s, _RunnableSegment)],
            "thread_choices": [s.thread_choice.report() for s in self._steps
                               if isinstance(s, _RunnableSegment) and s.thread_choice is not None],
            "kept_in_onnxruntime": list(self.kept),
        }

    def __repr__(self) -> str:
        return f"<OnnxCompiledGraph {self.graph.name}: {len(self.graph)} ops on {self.backend}>"


def _rejected(e: Exception) -> bool:
    """onnxruntime (or onnx's checker) refused a model we built."""
    from ..._skip import in_package
    module = type(e).__module__
    return in_package(module, "onnxruntime") or in_package(module, "onnx")


def compile_onnxruntime(graph: StatementIR, device: str = "cpu", fuse: bool = True):
    """The graph on onnxruntime; should onnxruntime refuse the model (a kernel
    missing from this build), again without fused patterns, and then the
    whole graph on NumPy with onnxruntime's message as the reason."""
    providers_for(device)   # a missing CUDA provider is the caller's error, not a fallback
    try:
        return OnnxCompiledGraph(graph, device, fuse)
    except Exception as e:
        if not _rejected(e):
            raise
        first = e
    if fuse:
        try:
            return OnnxCompiledGraph(graph, device, fuse=False)
        except Exception as e:
            if not _rejected(e):
                raise
    return _NumpyOnly(graph, device, f"onnxruntime rejected the model: {type(first).__name__}: {first}")


class _NumpyOnly:
    """What compile_graph turns into the NumPy backend: nothing runs on ORT."""

    backend = "numpy"

    def __init__(self, graph, device, reason):
        self.graph, self.device, self.reason = graph, device, reason

    def explain(self) -> dict:
        return {"backend": "numpy", "device": self.device, "statements": len(self.graph), "lowered": 0,
                "not_lowered": [{"statement": str(st), "op": st.op.name, "reason": self.reason}
                                for st in self.graph.statements]}
