"""The runner: the Python function a replacement calls.  It loads the
graph's inputs through their trackers, runs the compiled graph (with the
careful NumPy twin where floating-point state asks for it), replays side
effects and rebuilds the values the frame returns or hands on."""
from __future__ import annotations

from . import _hook, _skip
from .backends import GraphWriteError, compile_graph, fp_state
from .backends.numpy.writes import first_commit
from .breaks.reasons import SIDE_EFFECT, UNSUPPORTED_OBJECT, FallbackError
from .entry import EntryInfo, Options, phase
from .executor import cell_writes, writes
from .executor.codegen import uniform_arg_names
from .executor.function_graph import FunctionGraph
from .executor.output import OutputBuilder
from .guards.compile import load_statements
from .guards.tracker import CellTracker
from .ir.floor import check_floor
from .ir.run_errors import INPUT_BITS, cannot_raise, int_bits


def make_runner(code, graph: FunctionGraph, builder: OutputBuilder, ret: str, info: EntryInfo,
                options: Options):
    """The Python function a replacement calls: loads inputs through their
    trackers, runs the compiled graph, rebuilds the values in `ret`."""
    check_floor(graph.ir)   # a clamp the traced sizes hide (x[:3]): SpecializeDims
    graph.ir.set_outputs(builder.symbols)
    nargs, ncells = len(uniform_arg_names(code)), len(code.co_freevars)
    # A frozen input is the object its identity guard names: bound, not loaded.
    frozen = {k: graph.ir.frozen[sym.name] for k, sym in enumerate(graph.ir.inputs) if sym.name in graph.ir.frozen}
    loaded = [t for k, t in enumerate(builder.trackers) if k not in frozen]
    load_lines, exprs, load_namespace = load_statements(loaded, nargs, ncells)
    exprs = iter(exprs)
    load_exprs = [f"__frozen{k}" if k in frozen else next(exprs) for k in range(len(builder.trackers))]
    load_namespace.update({f"__frozen{k}": v for k, v in frozen.items()})
    _counter[0] += 1
    filename = f"{_skip.GENERATED_PREFIX}-runner-{_counter[0]} {code.co_name}>"
    params = ", ".join(["g"] + [f"a{i}" for i in range(nargs)] + [f"c{i}" for i in range(ncells)])
    lines = [f"def runner({params}):"] + [f"    {line}" for line in load_lines]
    lines += [f"    I{k} = {expr}" for k, expr in enumerate(load_exprs)]
    namespace = dict(load_namespace, **builder.namespace)
    if len(graph.ir) or builder.symbols:
        writes.finish(graph)  # guards the aliasing its writes were recorded with
        with phase(info, "backend compile"):
            # (Python-number inputs: the NumPy backend hands NumPy the Python
            # objects themselves, NEP 50 weak scalars, bitwise as eager; on
            # onnxruntime they are 0-d inputs, see backends/__init__.py)
            backend = options.backend
            compiled = compile_graph(graph.ir, backend, options.device if backend != "numpy" else "cpu")
        run = compiled.fn  # the backend's function itself: one call less
        if hasattr(run, "__code__"):
            _hook.skip_code(run.__code__)
        namespace["__graph"] = run
        inputs = ", ".join(f"I{i}" for i in range(len(graph.inputs)))
        # NumPy's error state or the warnings filters not plain: the careful
        # path (fp_state), so that nothing is emitted twice and onnxruntime
        # does not skip NumPy's floating-point errors.
        ir = graph.ir
        namespace.update(__fp_plain=fp_state.fp_plain, __fp_token=fp_state.TOKEN, __careful=fp_state.run_careful(
            run, None if compiled.backend == "numpy" else lambda: _numpy_twin(ir)))
        # An error inside the graph: the hook runs the frame natively instead
        # (the runner is the replacement's first step and nothing before the
        # graph is observable), so the user's own code raises it, at the
        # user's line, with no sot frame in the traceback.
        # Once the graph has written into memory from outside it, a rerun
        # would write twice: its error is raised as it is (GraphWriteError).
        namespace["__rerun"] = _hook.RerunNatively
        namespace["__written"] = GraphWriteError
        if graph.fp_strict:
            # an np.errstate block in the frame (executor/contexts.py): every
            # error raises and the frame reruns natively, under its errstate
            if first_commit(ir) is not None:
                raise FallbackError(UNSUPPORTED_OBJECT, "a graph with an np.errstate block writes into "
                                    "memory from outside (it could not be rerun natively)")
            namespace["__fp_plain"] = fp_state.never_plain
            namespace["__careful"] = fp_state.run_strict(run if compiled.backend == "numpy" else _numpy_twin(ir))
        elif exposed := _exposed(graph, ir, builder.effects or cell_writes.written(graph, code)):
            if isinstance(exposed, dict):   # int inputs that must stay within INPUT_BITS
                lines += _bound_int_inputs(ir, exposed)
                namespace["__int_bound"] = 1 << INPUT_BITS
            # An error after its write is raised as it is, from the runner:
            # without the side effects eager made before it (they are replayed
            # after the graph), and past the frame's own handlers (the runner
            # is not inside the user's `try`). Only graphs whose ops cannot
            # raise there; a call where NumPy's error state could make one
            # raise runs natively, untouched.
            namespace["__careful"] = _unless_raising(run if compiled.backend == "numpy" else _numpy_twin(ir))
        elif first_commit(ir) is not None:
            # never rerun once it wrote: errors are not made to raise; NumPy
            # handles them as eagerly (warn, call, log, raise), in order
            # (the twin is built here: building it during a call would offer
            # sot's own code to the hook)
            namespace["__careful"] = run if compiled.backend == "numpy" else _numpy_twin(ir)
        lines += ["    try:", "        if __fp_plain(__fp_token):", f"            O = __graph({inputs})",
                  "        else:", f"            O = __careful({inputs})",
                  "    except __written as e:", "        raise e.error from None",
                  "    except Exception:", "        raise __rerun from None"]
        info.graphs.append((len(graph.ir), compiled.backend, compiled.source))
        info.compiled.append(compiled)
    # read-only: the arrays whose values the graph reads (not only a shape)
    read = {s.name for st in graph.ir.statements for s in st.symbols_used()} | {s.name for s in builder.symbols}
    held = [k for k, sym in enumerate(graph.ir.inputs) if k in frozen and sym.name in read]
    info.frozen += [builder.trackers[k].name() for k in held]
    info.frozen_values += [frozen[k] for k in held]
    info.not_frozen += graph.not_frozen
    lines += [f"    {stmt}" for stmt in builder.prelude]
    lines += [f"    {stmt}" for stmt in builder.effects]  # side effects on outside objects, in eager's final state
    lines.append(f"    return {ret}")
    source = "\n".join(lines) + "\n"
    info.runner_source = source
    exec(compile(source, filename, "exec"), namespace)
    runner = namespace.pop("runner")  # not kept in its own globals: no reference cycle
    runner.source = source
    _hook.skip_code(runner.__code__)
    return runner


def _bound_int_inputs(ir, bits) -> list[str]:
    """Runner lines that rerun the frame natively, before the graph writes,
    where an int input is past the bound `cannot_raise` took for it
    (ir/run_errors.py int_bits): an int meeting a float there may raise."""
    lines = []
    for k, sym in enumerate(ir.inputs):
        if sym.name in bits:
            lines += [f"    if not -__int_bound < I{k} < __int_bound:", "        raise __rerun"]
    return lines


def _exposed(graph, ir, replays):
    """Whether an error after the graph's first write into memory from
    outside would be seen otherwise than eagerly (see make_runner): false,
    true, or the int inputs (a dict) to keep within bounds for it not to
    raise; raises FallbackError where an op there may raise."""
    commit = first_commit(ir)
    if commit is None:
        return False
    late = ir.statements[commit:]
    seen = [st for st in late if replays or id(st) in graph.handled]
    ints = [s.name for s in ir.inputs if s.meta.is_python and s.meta.type is int]
    bits = int_bits(ir, ints) if ints else {}
    raising = next((st for st in seen if not cannot_raise(st, bits)), None)
    if raising is not None:
        error = FallbackError(SIDE_EFFECT, f"`{raising}` may raise after the graph wrote into memory from "
                              "outside, and neither the side effects replayed after the graph nor the "
                              "function's own except/finally would see it as eagerly")
        if raising.where:
            error.reason.located(*raising.where[0][:2])
        raise error
    if any(not cannot_raise(st) for st in seen):   # safe only within the bounds: checked per call
        return {name: bits[name] for name in ints}
    return bool(seen)


def _unless_raising(run):
    """`run`, or a native run of the frame where an error could raise."""
    def careful(*inputs):
        if fp_state.may_raise():
            raise _hook.RerunNatively
        return run(*inputs)
    _hook.skip_code(careful.__code__)
    return careful


def _numpy_twin(ir):
    """The NumPy backend's function for ``ir`` (an onnxruntime graph run on
    NumPy where onnxruntime cannot reproduce NumPy's error handling)."""
    from .backends import compile_numpy
    fn = compile_numpy(ir).fn
    _hook.skip_code(fn.__code__)
    return fn


def used_cell_indices(trackers) -> set:
    roots = [r for t in trackers for r in (t.roots() if hasattr(t, "roots") else (t.root(),))]  # (str_runtime)
    return {r.index for r in roots if isinstance(r, CellTracker)}


_counter = [0]

