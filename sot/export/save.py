"""`save(fn, path, input_spec)`: a function traced as one graph → an .onnx file.

The function is simulated (never run) over zero-filled probe arrays, once,
with the spec's dynamic dimensions as symbolic dims (``sot.ir.symbolic``; a
distinct size >= 2 each): sizes computed from them (``x.reshape(x.shape[0],
-1)``, ``x / x.shape[-1] ** 0.5``) are computed by the model from its
inputs' shapes.  The symbolic graph must also hold at the spec's bounds
(``check_sizes``: ``squeeze`` meeting a size 1 does not).

Where that fails — the trace needs a size in Python (a branch on a shape),
a statement lowers only at static sizes, the bounds leave no distinct sizes
— the function is simulated with every dynamic dimension at a first size,
once more for each dynamic dimension changed alone to a second size, and
once at each bound of the spec.  Every probe must then give the same ONNX
graph — same nodes, attributes and initializers — up to the sizes of the
dynamic dimensions; otherwise a size was baked into the graph and the model
would be wrong at other sizes, so ExportError names the statement and its
line.

The model is written with the dynamic dimensions of inputs and outputs as
``dim_param``s (the spec's names; ``<output>_dim<i>`` for a size computed
from them), the weights (arrays reached from attributes, globals, closures)
as initializers, and the spec in ``metadata_props`` (JSON) for `load` to
enforce.
"""
from __future__ import annotations

import logging
import os
import secrets
from typing import Callable, Sequence

import numpy as np

from sot.breaks.reasons import BreakReason
from sot.ir.symbolic import SpecializeDims
from sot.logs import vlog

from .spec import (FORMAT, FORMAT_KEY, OUTPUTS_KEY, SIGNATURE_KEY, ExportError, InputSpec,
                   dump_signature)
from .trace import SimulationFailed, resolve_target, trace

__all__ = ["save", "export_model"]

log = logging.getLogger("sot.export")

_HOW_TO = {
    "data-dependent": "keep the condition as an array (np.where(cond, a, b)) or move the branch out of "
                      "the exported function",
    "side-effect": "move the assignment/print/I-O out of the exported function; it must only compute "
                   "arrays from its inputs",
    "unsupported-call": "call only NumPy functions and Python functions that compute arrays, or do that "
                        "work before/after the exported function",
}


def _reason_text(reason) -> str:
    if isinstance(reason, BreakReason):
        text = str(reason)
        if not reason.hint and reason.category in _HOW_TO:
            text += f"\n  how to remove it: {_HOW_TO[reason.category]}"
        return text
    return str(reason)


def _probe_arrays(inputs, sizes: dict) -> list:
    arrays = []
    for spec in inputs:
        shape = tuple(sizes[d.param] if d.dynamic else d.size for d in spec.dims)
        count = int(np.prod(shape, dtype=np.int64))
        if count <= 1 << 20:
            arrays.append(np.zeros(shape, spec.dtype))
        else:   # a large bound: read-only, no memory (the simulation never reads data)
            arrays.append(np.broadcast_to(np.zeros((), spec.dtype), shape))
    return arrays


def _describe_sizes(sizes: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items()) or "the given shapes"


def _simulate(target, inputs, sizes, first: bool, symbolic=None):
    arrays = _probe_arrays(inputs, sizes)
    try:
        return trace(target, arrays, symbolic)
    except SimulationFailed as e:
        # Only the first reason: listing the later ones would mean running the
        # function (side effects, prints) and save never runs it.
        reasons = [e.reason]
        lines = "\n".join(f"- {_reason_text(r)}" for r in reasons)
        at = f" with {_describe_sizes(sizes)}" if sizes else ""
        hint = ""
        if len(sizes) > 1 and "broadcast" in lines:
            hint = ("\n  hint: each unnamed dynamic dimension may have its own size; dimensions that are "
                    "always the same size need one name, e.g. InputSpec(['batch', 64]) for every input")
        if first:
            hint += ("\n  sot.save stops at the first reason without running the function; "
                     "sot.explain(fn, *example_args) runs it once and lists every graph break")
        raise ExportError(f"{target.description} is not one graph{at}, so it cannot be exported:"
                          f"\n{lines}{hint}", reasons) from None


# ---------------------------------------------------------------------------
# lowering one trace

class NotSymbolicExport(Exception):
    """The symbolic trace does not give one model for every size (why)."""


class Lowered:
    """The ONNX graph of one Trace, before dims are made symbolic.  With
    ``names`` ((hint, shadow) of a symbolic dim -> its dim_param), the trace
    is symbolic: a statement lowered only at static sizes raises
    NotSymbolicExport."""

    def __init__(self, tr, target, inputs, output_names, fuse=True, names=None):
        from onnx import helper, numpy_helper
        from sot.backends.onnx import to_model
        from sot.backends.onnx.model import NotOneModel

        ir = tr.graph.ir
        _copy_returned_views(tr)
        unique = list(dict.fromkeys(tr.outputs))
        ir.set_outputs(unique)
        _refuse_writes(tr, target)
        try:
            model, finals = to_model(ir, names, fuse=fuse, outputs=tr.outputs)
        except NotOneModel as e:
            if e.not_lowered:
                lines = [f"- {_location(tr, st)}: {st.expression()}: {why}" for st, why in e.not_lowered]
                raise ExportError(f"{target.description} has {len(e.not_lowered)} operation(s) with no exact "
                                  f"ONNX lowering, so it cannot be exported:\n" + "\n".join(lines)) from None
            if e.segments > 1:   # pragma: no cover - all lowered gives one segment
                raise ExportError(f"{target.description}: {e}") from None
            raise NotSymbolicExport(str(e)) from None
        g = model.graph
        # names: arguments from the spec, weights from where they were reached
        renames = {}
        taken = {o for n in g.node for o in list(n.output) + list(n.input)} | {i.name for i in g.initializer}
        wanted = {}
        for sym_name, index in tr.args.items():
            wanted[sym_name] = inputs[index].name
        first_of, same = {}, {}   # one initializer for an array reached twice (tied weights)
        for sym_name, (where, _value, key) in tr.weights.items():
            if key in first_of:
                same[sym_name] = first_of[key]
                continue
            first_of[key] = sym_name
            wanted[sym_name] = where
        for i, v in enumerate(finals):
            wanted[v] = output_names[i]
        used = set()
        for old, new in wanted.items():
            candidate, k = new, 1
            while candidate in used or (candidate in taken and candidate not in wanted):
                candidate, k = f"{new}_{k}", k + 1
            used.add(candidate)
            renames[old] = candidate
        for dup, first_sym in same.items():
            renames[dup] = renames[first_sym]
        for n in g.node:
            n.input[:] = [renames.get(x, x) for x in n.input]
            n.output[:] = [renames.get(x, x) for x in n.output]
        graph_inputs = {vi.name: vi for vi in g.input}
        new_inputs, initializers = [], []
        for sym_name, (where, value, _key) in tr.weights.items():
            if sym_name in graph_inputs and sym_name not in same:
                initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), renames[sym_name]))
        self.input_dims = []
        for k, spec in enumerate(inputs):
            sym_name = next((s for s, i in tr.args.items() if i == k), None)
            shape = _probe_shape(tr, sym_name) if sym_name else None
            if shape is None:   # unused by the graph: still part of the signature
                shape = tuple(d.size for d in spec.dims)
            self.input_dims.append(shape)
            vi = helper.make_tensor_value_info(spec.name, helper.np_dtype_to_tensor_dtype(spec.dtype),
                                               [0 if d is None else d for d in shape])
            new_inputs.append(vi)
        del g.input[:]
        g.input.extend(new_inputs)
        g.initializer.extend(initializers)
        for vi in g.output:
            vi.name = renames.get(vi.name, vi.name)
        self.output_dims = [tuple(d.dim_value for d in vi.type.tensor_type.shape.dim) for vi in g.output]
        _drop_identity_reshapes(model)
        self.model = model
        self.trace = tr
        self.scalars = [bool(s.meta.is_scalar) for s in tr.outputs]

    def structure(self) -> tuple:
        """Everything that must be identical between probes."""
        g = self.model.graph
        nodes = tuple(n.SerializeToString(deterministic=True) for n in g.node)
        inits = tuple(sorted((i.name, i.SerializeToString(deterministic=True)) for i in g.initializer))
        ins = tuple((vi.name, vi.type.tensor_type.elem_type, len(d)) for vi, d in zip(g.input, self.input_dims))
        outs = tuple((vi.name, vi.type.tensor_type.elem_type, len(d)) for vi, d in zip(g.output, self.output_dims))
        return nodes, inits, ins, outs


def _copy_returned_views(tr) -> None:
    """A returned view (``return x.T``) must share memory with its base when
    run by sot, so the backend keeps it on NumPy; an exported model returns
    fresh arrays anyway, so the view is returned through an ``np.copy``."""
    from sot.ir import registry
    producer = {s.name: st for st in tr.graph.ir.statements for s in st.outputs}
    inputs = {s.name for s in tr.graph.ir.inputs}
    copy = registry.lookup_function(np.copy)
    if copy is None:   # pragma: no cover
        return
    copies = {}
    for k, sym in enumerate(tr.outputs):
        st = producer.get(sym.name)
        if sym.name in inputs or st is None or not st.op.aliases:
            continue
        if sym.name not in copies:
            copies[sym.name] = tr.graph.ir.add_op(copy, (sym,))
        tr.outputs[k] = copies[sym.name]


_SHAPE_OPS = ("Reshape", "Expand")


def _drop_identity_reshapes(model) -> None:
    """Remove Reshape/Expand nodes whose input already has the target shape
    (at this probe's static sizes).  The lowering writes the size-specific
    target shape even when the op changes nothing (a MatMul result reshaped
    to its own shape), which would make every probe's graph differ."""
    import onnx
    from onnx import numpy_helper
    g = model.graph
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
    except Exception:  # noqa: BLE001 - keep the graph as it is
        return
    shapes = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        dims = vi.type.tensor_type.shape.dim
        if vi.type.tensor_type.HasField("shape") and all(d.HasField("dim_value") for d in dims):
            shapes[vi.name] = tuple(d.dim_value for d in dims)
    for init in g.initializer:
        shapes[init.name] = tuple(init.dims)
    consts = {init.name: init for init in g.initializer}
    outputs = {vi.name for vi in g.output}
    rename = {}
    keep = []
    changed = False
    for n in g.node:
        n.input[:] = [rename.get(x, x) for x in n.input]
        if n.op_type in _SHAPE_OPS and n.domain in ("", "ai.onnx") and len(n.input) == 2 \
                and n.input[1] in consts and not n.attribute:
            target = tuple(int(v) for v in numpy_helper.to_array(consts[n.input[1]]).reshape(-1))
            if shapes.get(n.input[0]) is not None and shapes[n.input[0]] == target:
                changed = True
                if n.output[0] in outputs:
                    del n.input[1:]
                    n.op_type = "Identity"
                else:
                    rename[n.output[0]] = n.input[0]
                    continue
        keep.append(n)
    if not changed:
        return
    del g.node[:]
    g.node.extend(keep)
    used = {x for n in g.node for x in n.input} | outputs
    kept = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)


def _generalize_reshapes(models) -> None:
    """A Reshape whose constant target differs between the probes in one
    position only gets -1 there, in every probe (at each probe that is the
    same reshape: the total size fixes the -1).  ``x.reshape(n, 2, 2)`` with
    ``n = x.shape[0]`` becomes ``Reshape(x, [-1, 2, 2])``."""
    from onnx import numpy_helper
    if len(models) < 2 or len({len(m.graph.node) for m in models}) != 1:
        return
    consts = [{i.name: i for i in m.graph.initializer} for m in models]
    changed = False
    for k, base_node in enumerate(models[0].graph.node):
        nodes = [m.graph.node[k] for m in models]
        if any(n.op_type != "Reshape" or len(n.input) != 2 or n.input[1] not in c
               for n, c in zip(nodes, consts)):
            continue
        targets = [numpy_helper.to_array(c[n.input[1]]).reshape(-1) for n, c in zip(nodes, consts)]
        if len({t.shape for t in targets}) != 1 or any(-1 in t or 0 in t for t in targets):
            continue
        differ = [p for p in range(targets[0].size) if len({int(t[p]) for t in targets}) > 1]
        if len(differ) != 1:
            continue
        for m, n, t in zip(models, nodes, targets):
            t = t.astype(np.int64).copy()
            t[differ[0]] = -1
            name = f"reshape_target_{k}"
            m.graph.initializer.append(numpy_helper.from_array(t, name))
            n.input[1] = name
        changed = True
    if changed:
        for m in models:
            g = m.graph
            used = {x for n in g.node for x in n.input} | {o.name for o in g.output}
            kept = [i for i in g.initializer if i.name in used]
            del g.initializer[:]
            g.initializer.extend(kept)


def _probe_shape(tr, sym_name):
    for s in tr.graph.ir.inputs:
        if s.name == sym_name:
            return s.meta.shape
    return None


def _refuse_writes(tr, target) -> None:
    """A write (sot.ir.ops_write) into an argument or a weight has no ONNX
    form: the file has no memory to write into.  A write into an array the
    function made (``np.empty`` then filled, ``out=`` into a local, ``y[m] =
    v`` on a copy) is lowered as computing the array's new value
    (``onnx_lowering_writes``); one that does not lower is refused by the
    plan like any other statement with no exact lowering."""
    from sot.ir.ops_write import write_roots
    ir = tr.graph.ir
    lines = []
    for st, roots in write_roots(ir):
        names = [ir.hint(s) or s.name for s in ir.inputs if s.name in roots]
        if names:
            lines.append(f"- {_location(tr, st)}: {st}: writes in place into {', '.join(names)}, which the "
                         f"exported file has no memory for")
    if lines:
        raise ExportError(f"{target.description} has {len(lines)} in-place write(s) into its arguments or "
                          f"weights, so it cannot be exported (write into a copy made in the function "
                          f"instead):\n" + "\n".join(lines))


def _location(tr, st) -> str:
    loc = tr.locations.get(st.outputs[0].name) if st.outputs else tr.locations.get(id(st))
    if not loc or loc[1] is None:
        return "<unknown location>"
    import linecache
    source = linecache.getline(loc[0], loc[1]).strip()
    return f"{loc[0]}:{loc[1]}" + (f" ({source})" if source else "")


# ---------------------------------------------------------------------------
# comparing probes

def _per_statement(tr) -> list:
    """Each statement lowered alone, in order: (expression, nodes, {initializer: array})."""
    from sot.backends.onnx.builder import GraphBuilder, NotLowered
    from sot.backends.onnx.lowering import lower_statement
    from sot.ir.errors import UnsupportedOp
    b = GraphBuilder("probe")
    out = []
    for st in tr.graph.ir.statements:
        n, inits = len(b.nodes), set(b.initializers)
        try:
            lower_statement(b, st)
            nodes = b.nodes[n:]
            new = {k: b.initializers[k] for k in b.initializers if k not in inits}
            out.append((st.expression(), nodes, new))
        except (NotLowered, UnsupportedOp) as e:
            out.append((st.expression(), str(e), {}))
    return out


def _same_lowering(x, y) -> bool:
    """Two lowerings of one statement at two sizes are the same graph (a
    Reshape target may differ in one position: it is generalized to -1)."""
    if repr(x[1]) != repr(y[1]) or set(x[2]) != set(y[2]):
        return False
    targets = {n[1][1] for n in x[1] if isinstance(n, tuple) and n[0] == "Reshape" and len(n[1]) == 2}
    for k, a in x[2].items():
        c = y[2][k]
        if a.dtype == c.dtype and a.shape == c.shape and np.array_equal(a, c):
            continue
        if k in targets and a.ndim == 1 and a.shape == c.shape and int((a != c).sum()) == 1:
            continue
        return False
    return True


def _difference(a, b, sizes_a, sizes_b) -> str:
    """Where the graphs of two probes differ, in words, with the line."""
    sa, sb = _per_statement(a.trace), _per_statement(b.trace)
    stmts_a = a.trace.graph.ir.statements
    for i, (x, y) in enumerate(zip(sa, sb)):
        if not _same_lowering(x, y):
            st = stmts_a[i]
            if x[0] != y[0]:
                what = (f"with {_describe_sizes(sizes_a)} it records {x[0]}, with {_describe_sizes(sizes_b)} "
                        f"{y[0]}")
            else:
                what = (f"its ONNX lowering uses the size itself ({x[0]} at {_describe_sizes(sizes_a)}, "
                        f"{y[0]} at {_describe_sizes(sizes_b)})")
            return f"at {_location(a.trace, st)}: {what}"
    if len(sa) != len(sb):
        longer = a if len(sa) > len(sb) else b
        st = longer.trace.graph.ir.statements[min(len(sa), len(sb))]
        return (f"the number of operations changes with the size ({len(sa)} at {_describe_sizes(sizes_a)}, "
                f"{len(sb)} at {_describe_sizes(sizes_b)}); the first extra one is at "
                f"{_location(longer.trace, st)}: {st.expression()} — a branch or loop on a shape")
    return "the graphs differ (their inputs, outputs or how the result is returned)"


_BAKED_HINT = ("to keep it dynamic, do not compute with the size as a Python number: use -1 in "
               "reshape (x.reshape(-1, 64)), axis= arguments and keepdims=True instead of x.shape[i]; "
               "or give the dimension a fixed size in the InputSpec")


def _probe_plan(inputs) -> tuple[dict, dict, list]:
    """The bounds of each dynamic dimension, the first probe's sizes, and the
    further probes [(dimensions changed, sizes)]: each dimension changed
    alone first, then all at their lower bounds, then all at their upper
    finite bounds (the others at their first size)."""
    params = {}
    for spec in inputs:
        for d in spec.dims:
            if d.dynamic:
                lo, hi = params.get(d.param, (d.min, d.max))
                lo = max(lo, d.min)
                hi = d.max if hi is None else (hi if d.max is None else min(hi, d.max))
                params[d.param] = (lo, hi)
    for p, (lo, hi) in params.items():
        if hi is not None and hi < lo:
            raise ExportError(f"dimension {p!r} has no size: its bounds across inputs are {lo}..{hi}")
    names = list(params)
    k = len(names)
    first, second = {}, {}
    for j, p in enumerate(names):
        lo, hi = params[p]
        a, b = max(lo, 2) + j, max(lo, 2) + j + k
        if hi is not None:
            a = min(a, hi)
            b = min(b, hi) if min(b, hi) != a else max(lo, a - 1)
        first[p], second[p] = a, b
    probes = []
    for p in names:
        if second[p] != first[p]:
            probes.append(([p], dict(first, **{p: second[p]})))
    lows = {p: max(params[p][0], 1) for p in names}   # size 0 stays on NumPy: not probed
    if lows != first:
        probes.append((names, lows))
    highs = {p: first[p] if params[p][1] is None else params[p][1] for p in names}
    if highs not in (first, lows):
        probes.append(([p for p in names if params[p][1] is not None], highs))
    return params, first, probes


def export_model(fn, input_spec, output_names=None, fuse: bool = True):
    """The checked ModelProto of ``fn`` (see the module docstring)."""
    if input_spec is None:
        raise ExportError("save needs input_spec=[InputSpec(...), ...], one per array argument")
    specs = list(input_spec) if isinstance(input_spec, (list, tuple)) else [input_spec]
    # An example array stands for its own shape and dtype, every dim static.
    specs = [InputSpec.from_array(s) if isinstance(s, (np.ndarray, np.generic)) else s for s in specs]
    for s in specs:
        if not isinstance(s, InputSpec):
            raise TypeError(f"input_spec items must be sot.InputSpec or example arrays, got {type(s).__name__}")
    target = resolve_target(fn, len(specs))
    inputs = [s.resolve(param) for s, param in zip(specs, target.params)]
    names = [i.name for i in inputs]
    if len(set(names)) != len(names):
        raise ExportError(f"input names must differ: {names}")
    params, first, probes = _probe_plan(inputs)
    if params:
        try:
            return _export_symbolic(target, inputs, params, output_names, fuse)
        except NotSymbolicExport as e:
            vlog(1, log, "%s: exported by comparing probes, not with symbolic dims: %s", target.description, e)
    return _export_probes(target, inputs, first, probes, output_names, fuse)


def _output_names(output_names, n_out: int, inputs) -> list:
    names = [i.name for i in inputs]
    if output_names is None:
        output_names = ["output"] if n_out == 1 else [f"output_{i}" for i in range(n_out)]
    output_names = list(output_names)
    if len(output_names) != n_out:
        raise ExportError(f"{len(output_names)} output name(s) for {n_out} output(s)")
    if set(output_names) & set(names):
        raise ExportError(f"output names {output_names} must differ from input names {names}")
    return output_names


def _symbolic_sizes(inputs, params) -> dict:
    """A distinct trace size >= 2 per dynamic dimension (duck sizing takes
    equal sizes as one dim), within its bounds, unlike every static size."""
    taken = {d.size for i in inputs for d in i.dims if not d.dynamic}
    sizes = {}
    for p, (lo, hi) in params.items():
        size = max(lo, 2)
        while size in taken:
            size += 1
        if hi is not None and size > hi:
            raise NotSymbolicExport(f"the bounds of {p!r} leave no distinct size >= 2 to trace it with")
        sizes[p] = size
        taken.add(size)
    return sizes


def _export_symbolic(target, inputs, params, output_names, fuse: bool):
    """One trace with the dynamic dimensions symbolic (see the module
    docstring); NotSymbolicExport says why not."""
    from sot.backends.symbolic_shapes import check_sizes
    sizes = _symbolic_sizes(inputs, params)
    axes = [[j for j, d in enumerate(i.dims) if d.dynamic] for i in inputs]
    try:
        tr = trace(target, _probe_arrays(inputs, sizes), axes)
    except SpecializeDims as e:
        raise NotSymbolicExport(f"the trace needs a size: {e.why}") from None
    except (SimulationFailed, ExportError) as e:
        raise NotSymbolicExport(f"the symbolic trace failed: {e}") from None
    ir = tr.graph.ir
    names = {}
    for sym in ir.inputs:
        k = tr.args.get(sym.name)
        for j in axes[k] if k is not None else ():
            if j not in sym.meta.symbolic_axes:
                raise NotSymbolicExport(f"dimension {j} of {inputs[k].name!r} is not symbolic in the trace")
            names[(sym.meta.shape[j], sym.meta.shadow[j])] = inputs[k].dims[j].param
    output_names = _output_names(output_names, len(tr.outputs), inputs)
    base = Lowered(tr, target, inputs, output_names, fuse, names)
    for bound in _bounds(params, sizes):   # the symbolic graph holds at the bounds of the spec
        arrays = _probe_arrays(inputs, bound)
        values = [arrays[tr.args[s.name]] if s.name in tr.args else _weight(tr, s) for s in ir.inputs]
        if check_sizes(ir, values) is None:
            raise NotSymbolicExport(f"the graph does not hold at {_describe_sizes(bound)}")
    out_params = []
    for j, vi in enumerate(base.model.graph.output):
        dims = vi.type.tensor_type.shape.dim
        out_params.append([d.dim_param if d.dim_param else (None if d.HasField("dim_value")
                                                            else f"{output_names[j]}_dim{i}")
                           for i, d in enumerate(dims)])
    try:
        return _finish(base, tr, target, inputs, output_names, out_params)
    except ExportError as e:
        raise NotSymbolicExport(str(e)) from None


def _weight(tr, sym):
    """A weight's value as the graph takes it (a NumPy scalar stays one)."""
    value = tr.weights[sym.name][1]
    return value[()] if sym.meta.is_scalar else value


def _bounds(params, sizes) -> list:
    """The sizes at the spec's bounds that differ from ``sizes`` (size 0
    stays on NumPy: not checked)."""
    lows = {p: max(lo, 1) for p, (lo, _hi) in params.items()}
    highs = {p: sizes[p] if hi is None else hi for p, (_lo, hi) in params.items()}
    return [b for b in (lows, highs) if b != sizes]


def _export_probes(target, inputs, first, probes, output_names, fuse: bool):
    """Traces at several sizes that must give one graph (the module docstring)."""
    base_trace = _simulate(target, inputs, first, True)
    output_names = _output_names(output_names, len(base_trace.outputs), inputs)
    base = Lowered(base_trace, target, inputs, output_names, fuse)
    others = [Lowered(_simulate(target, inputs, sizes, False), target, inputs, output_names, fuse)
              for _changed, sizes in probes]
    _generalize_reshapes([base.model] + [o.model for o in others])
    structure = base.structure()
    out_params = [[None] * len(d) for d in base.output_dims]
    for (changed, sizes), other in zip(probes, others):
        dims = " and ".join(repr(p) for p in changed)
        if other.structure() != structure or other.trace.kind != base_trace.kind or \
                other.scalars != base.scalars:
            where = _difference(base, other, first, sizes)
            which = [f"dimension {j} of {i.name!r}" for i in inputs for j, d in enumerate(i.dims) if d.param in changed]
            raise ExportError(f"dynamic dimension {dims} ({', '.join(which)}) is baked into the graph of "
                              f"{target.description}: the graph is not the same at every size, so the model "
                              f"would be wrong at other sizes; {where}.\n  hint: {_BAKED_HINT}")
        for o, (da, db) in enumerate(zip(base.output_dims, other.output_dims)):
            for j, (x, y) in enumerate(zip(da, db)):
                if x == y:
                    continue
                derived = f"{output_names[o]}_dim{j}"
                known = out_params[o][j]
                if len(changed) == 1:   # the probes changing one dimension come first
                    name = changed[0] if (x, y) == (first[changed[0]], sizes[changed[0]]) else derived
                    out_params[o][j] = name if known in (None, name) else derived
                elif known is None or known not in sizes or sizes[known] != y:
                    out_params[o][j] = derived
    return _finish(base, base_trace, target, inputs, output_names, out_params)


def _finish(base, base_trace, target, inputs, output_names, out_params):
    """The model with its dim_params, names and metadata, checked."""
    import onnx
    from onnx import helper
    model = base.model
    g = model.graph
    for vi, spec in zip(g.input, inputs):
        for dim, d in zip(vi.type.tensor_type.shape.dim, spec.dims):
            if d.dynamic:
                dim.Clear()
                dim.dim_param = d.param
    for vi, ps in zip(g.output, out_params):
        for dim, p in zip(vi.type.tensor_type.shape.dim, ps):
            if p is not None:
                dim.Clear()
                dim.dim_param = p
    g.name = target.function.__qualname__
    g.doc_string = f"exported by sot from {target.description}"
    import sot
    model.producer_name = "sot"
    model.producer_version = getattr(sot, "__version__", "")
    meta = {
        FORMAT_KEY: FORMAT,
        SIGNATURE_KEY: dump_signature(inputs),
        OUTPUTS_KEY: _json({"kind": base_trace.kind, "scalar": base.scalars,
                            "names": output_names}),
    }
    helper.set_model_props(model, meta)
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # noqa: BLE001 - a bug here is ours, say so
        raise ExportError(f"the exported model of {target.description} does not pass onnx.checker "
                          f"(a bug in sot's export, please report it): {e}") from None
    return model


def _json(value) -> str:
    import json
    return json.dumps(value)


def _create_temporary(directory: str):
    """A new file beside the target, created with mode 0666 less the umask
    (as ``open(path, "wb")`` would), not mkstemp's 0600."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(directory, f".sot-export-{secrets.token_hex(8)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"cannot create a temporary file in {directory!r}")


def save(fn: Callable, path: str | os.PathLike, input_spec: Sequence[InputSpec] | None = None, *,
         output_names: Sequence[str] | None = None, fuse: bool = True) -> str:
    """Trace ``fn`` (a function, method or callable object) with
    ``input_spec`` and write it as one ONNX model to ``path`` (``.onnx`` is
    added when missing).  Returns the path written.  Raises ExportError when
    ``fn`` is not one graph (the first reason, with file:line; the function
    is never run) or a dynamic
    dimension is baked into it.  ``fuse=False`` writes only standard ONNX
    ops (no onnxruntime contrib ops such as ``com.microsoft.FastGelu``), for
    runtimes other than onnxruntime."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not os.path.basename(path):   # "" or "out/": ".onnx" would make a hidden file
        raise ValueError(f"sot.save() needs a file name, not {path!r}")
    if not path.lower().endswith(".onnx"):
        path += ".onnx"
    model = export_model(fn, input_spec, output_names, fuse)
    try:
        data = model.SerializeToString()
    except ValueError as e:   # protobuf's 2 GiB limit
        raise ExportError(f"the model is too large for one .onnx file ({e}); external weight files "
                          f"are not supported") from None
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = _create_temporary(directory)
    except OSError as e:   # named by the user's path, not the temporary one
        raise type(e)(e.errno, f"cannot write {path!r}: {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            os.replace(tmp, path)
        except OSError as e:
            raise type(e)(e.errno, f"cannot write {path!r}: {e.strerror}") from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path
