"""StatementIR → ONNX: which statements lower, and the plan of segments.

``plan(graph)`` walks the statements in program order and lowers each one
into the current ONNX segment (a ``GraphBuilder``).  A statement that has
no exact lowering — or must keep NumPy's memory semantics — is rolled back
and runs on NumPy; the plan is then a sequence of segments, alternately
ONNX and NumPy, each ONNX segment reading the values it needs from the
ones before.  Every statement left on NumPy has its reason.

What lowers (with NumPy's dtypes, checked op by op and dtype by dtype in
tests/test_onnx_lowering.py):

* ufuncs and operators: + - * / // % ** (integer powers by a constant
  exponent), comparisons, & | ^ ~ << >>, maximum/minimum, fmax/fmin, fmod,
  logical_*, negative, positive, absolute, sign, square, reciprocal (floats),
  sqrt, exp, exp2, log, log2, log10, trigonometric and hyperbolic functions
  and their inverses (not in float64 where onnxruntime lacks the kernel),
  floor, ceil, rint, trunc, isnan, isinf, isfinite; in-place operators on
  fresh arrays; where, clip, round (decimals 0), nan_to_num;
* reductions: sum, mean, max, min, argmax, argmin, var, std, any, all (axis,
  keepdims, dtype=, ddof), cumsum; prod of floats;
* matmul/@, dot of vectors and matrices, outer;
* shape ops: reshape/ravel/flatten (C order), squeeze, expand_dims,
  atleast_*d, transpose/T/mT/swapaxes/moveaxis, broadcast_to, copy,
  astype, basic indexing (ints, slices, None, ...), concatenate, stack,
  hstack, vstack, the split family, flip/fliplr/flipud, roll, tile, repeat,
  tril/triu, column_stack, kron, select; creation ops whose value depends on no array (a fill is
  ConstantOfShape).

What does not, and why (``explain()`` gives each reason): expm1, log1p,
cbrt, hypot, arctan2, logaddexp (no exact ONNX form), integer prod
(onnxruntime 1.32 saturates), integer powers by a traced exponent (NumPy
raises on negatives), advanced indexing (bounds are checked at run time),
sort/argsort/median, the nan-reductions, cumprod, diff, einsum, tensordot,
trace/diagonal, isclose, complex values, large float64 matmuls (faster on
NumPy's BLAS), zero-size arrays.  Casting NaN, inf or out-of-range floats to
integers is undefined in C; NumPy and onnxruntime may then give different
integers (NumPy warns "invalid value encountered in cast").

Memory semantics that an ONNX value cannot have, and so stay on NumPy:

* a **view returned** by the graph (``return x.T``, ``x[1:]``,
  ``broadcast_to``): eagerly it shares memory with its base, and the view
  chain back to that base runs on NumPy too;
* an **in-place operator** on a graph input, on a view, or on an array that
  something views: the mutation must reach the real object.  An in-place
  operator on a fresh intermediate is lowered as its out-of-place op, and the
  target's name is rebound to the result (they are one object eagerly);
* a **write** (``x[i] = v``, ``out=``...) and the memory it changes
  (``writes``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from sot.ir.errors import UnsupportedOp
from sot.ir.statement_ir import Statement, StatementIR, Symbol

from sot.ir.registry import DIM_OP, statement_aliases

from .builder import GraphBuilder, NotLowered, NotSymbolic, meta_dtype
from .lowering_shapes import lower_dim, lower_python_operator, statement_is_symbolic
from .lowering_writes import lower_empty, lower_write
from .rules import rule_for
from .unbacked import forced_by_unbacked
from .write_views import rebound
from .writes import fallen_back, forced_by_writes, functional_classes, writeback
from sot.ir.ops_write import allocation, is_write

__all__ = ["lower_statement", "try_lower", "plan", "Plan", "OnnxSegment", "NumpySegment", "INPLACE_OPERATORS"]

INPLACE_OPERATORS = frozenset(
    ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior", "ixor",
     "ilshift", "irshift", "imatmul"])


def is_inplace(st: Statement) -> bool:
    return st.op.kind == "operator" and st.op.name in INPLACE_OPERATORS


def lower_statement(b: GraphBuilder, st: Statement) -> list[str]:
    """ONNX values of the statement's outputs (nodes added to ``b``): by its
    rule in the table (``rules``); writes and allocations by their kind."""
    op = st.op
    if is_write(st):
        return lower_write(b, st, lower_statement)
    if op.kind == "function" and allocation(op.target) is op:
        return lower_empty(b, st)
    if statement_is_symbolic(st):
        return _lower_symbolic(b, st)
    rule = rule_for(op)
    if rule is None:
        raise NotLowered(f"no ONNX lowering for {op.kind} {op.name}")
    return rule.lower(b, st)


def _lower_symbolic(b: GraphBuilder, st: Statement) -> list[str]:
    """A statement touching symbolic dims: only through the rules that are
    size independent (``Rule.symbolic``, see lowering_shapes); Python numbers
    of the graph are taken as sizes only by the ops that take sizes, and as
    operands of ufuncs (weak, as NumPy takes them): ``Rule.python_numbers``."""
    op = st.op
    if op is DIM_OP:
        return lower_dim(b, st)
    if st.outputs and all(s.meta.is_python for s in st.outputs):
        return lower_python_operator(b, st)
    rule = rule_for(op)
    if any(s.meta.is_python for s in st.symbols_used()) and not (rule is not None and rule.python_numbers):
        raise NotSymbolic(f"{op.name} of a Python number computed from shapes")
    if rule is None:
        raise NotLowered(f"no ONNX lowering for {op.kind} {op.name}")
    if not rule.symbolic:
        raise NotSymbolic(f"{op.name} with symbolic dims is not lowered")  # pragma: no cover
    return rule.lower(b, st)


# ----------------------------------------------------------------------------
# memory semantics

def _is_view(statements, i: int, forced) -> bool:
    """Whether statement i's result may share memory with something else: a
    view op, or an in-place operator that itself stays on NumPy (its target
    is then a view).  A lowered in-place result is its fresh target."""
    st = statements[i]
    return statement_aliases(st.op, st.args) and (not is_inplace(st) or i in forced)


def numpy_only(graph: StatementIR) -> dict[int, str]:
    """Statements that must run on NumPy for memory semantics, with why."""
    statements = graph.statements
    producer: dict[str, int] = {}
    for i, st in enumerate(statements):
        for s in st.outputs:
            producer[s.name] = i
    outputs = {s.name for s in graph.outputs}
    inputs = {s.name for s in graph.inputs}
    viewed: dict[str, list[int]] = {}   # symbol -> aliasing statements reading it
    for i, st in enumerate(statements):
        if statement_aliases(st.op, st.args) and not is_inplace(st):
            for s in st.symbols_used()[:1]:
                viewed.setdefault(s.name, []).append(i)
    forced: dict[int, str] = {}

    def force_chain(i: int, why: str) -> None:
        while i is not None and i not in forced:
            st = statements[i]
            if not statement_aliases(st.op, st.args):
                return
            forced[i] = why
            used = st.symbols_used()
            i = producer.get(used[0].name) if used else None

    for i, st in enumerate(statements):
        if statement_aliases(st.op, st.args) and not is_inplace(st) and any(s.name in outputs for s in st.outputs):
            force_chain(i, "returns a view: it must share memory with its base, as eagerly")
    for i, st in enumerate(statements):
        if not is_inplace(st):
            continue
        target = st.args[0]
        if not isinstance(target, Symbol) or target.meta.is_scalar:
            continue
        why = None
        if target.name in inputs:
            why = "an in-place operator on a graph input mutates the caller's array"
        elif producer.get(target.name) is not None and _is_view(statements, producer[target.name], forced):
            why = "an in-place operator on a view mutates its base"
        elif target.name in viewed:
            why = "an in-place operator on an array that a view shares"
        if why:
            forced[i] = why
            if target.name in producer:
                force_chain(producer[target.name], why)
            for j in viewed.get(target.name, []):
                force_chain(j, why)
    return forced


# ----------------------------------------------------------------------------
# the plan

@dataclass
class OnnxSegment:
    builder: GraphBuilder
    statements: list = field(default_factory=list)
    defined: dict = field(default_factory=dict)     # symbol name -> Symbol (incl. rebound targets)
    exports: list = field(default_factory=list)     # [(Symbol, onnx value)] filled by plan
    patterns: list = field(default_factory=list)    # fused patterns emitted
    groups: dict = field(default_factory=dict)      # symbol name -> Symbols that are one object


@dataclass
class NumpySegment:
    statements: list = field(default_factory=list)


@dataclass
class Plan:
    segments: list
    not_lowered: list      # [(Statement, reason)]
    lowered: int
    #: statements of Python numbers (of a symbolic graph) left out of every
    #: segment, with why: the runner supplies their values (symbolic_shapes)
    seeded: list = field(default_factory=list)
    #: statements not lowered only because a dim is symbolic
    not_symbolic: list = field(default_factory=list)

    @property
    def all_onnx(self) -> bool:
        return not self.not_lowered

    @property
    def any_onnx(self) -> bool:
        return self.lowered > 0


def _zero_size(graph: StatementIR):
    for s in graph.inputs:
        if s.meta.size == 0:
            return s
    for st in graph.statements:
        for s in st.outputs:
            if not s.meta.is_python and s.meta.size == 0:
                return s
    return None


def dim_names(graph: StatementIR) -> dict:
    """(hint, shadow) of each symbolic input dim -> ``s0, s1...`` (in order
    of appearance), the ``dim_param`` names of a symbolic model."""
    names: dict = {}
    for s in graph.inputs:
        for axis in s.meta.symbolic_axes:
            key = (s.meta.shape[axis], s.meta.shadow[axis])
            names.setdefault(key, f"s{len(names)}")
    return names


def _is_python_statement(st) -> bool:
    return bool(st.outputs) and all(s.meta.is_python for s in st.outputs)


def plan(graph: StatementIR, fuse=None, names: dict | None = None, *, prefer=None,
         cuts: frozenset = frozenset()) -> Plan:
    """See ``_plan``; redone with the memory of a write that did not lower
    on NumPy (``writes``).

    ``prefer`` (statement -> reason or None): statements that lower but are
    left to NumPy for speed (the runtime's choice, never export's: ``sot.save``
    lowers everything that has an exact form).  ``cuts``: indices of
    statements that start a new ONNX segment (``segments``)."""
    on_numpy: frozenset = frozenset()
    not_symbolic = []   # a write that did not lower only because of symbolic dims stays reported
    while True:
        p = _plan(graph, fuse, names, on_numpy, prefer, cuts)
        not_symbolic += [item for item in p.not_symbolic if item not in not_symbolic]
        fallen = fallen_back(graph, p.not_lowered) - on_numpy
        if not fallen:
            p.not_symbolic = not_symbolic
            return p
        on_numpy |= fallen


def _plan(graph: StatementIR, fuse, names, on_numpy, prefer=None, cuts: frozenset = frozenset()) -> Plan:
    """Lower what lowers; see the module docstring.  ``fuse`` (optional) maps
    the statements to items, each a Statement or a fused pattern (with
    ``statements``, ``outputs`` and ``lower(builder)``); a pattern that does
    not lower is retried statement by statement.

    In a graph with symbolic dims, the statements computing Python numbers
    (``x.shape[0] // 2``) are lowered where an ONNX segment reads them and
    are otherwise left to the runner (``Plan.seeded``): they never split a
    segment.  ``names``: the dim_params of symbolic dims (``dim_names``)."""
    statements = list(graph.statements)
    if names is None and graph.is_symbolic:
        names = dim_names(graph)
    read = {s.name for st in statements for s in st.symbols_used()}
    empty = _zero_size(graph)
    if empty is not None:
        reason = f"{empty.name} has no elements (zero-size arrays stay on NumPy)"
        return Plan([NumpySegment(statements)] if statements else [],
                    [(st, reason) for st in statements], 0)
    forced = {**forced_by_writes(graph, on_numpy), **numpy_only(graph), **forced_by_unbacked(graph)}
    if prefer is not None:
        forced = {**{i: why for i, st in enumerate(statements) if st.outputs and (why := prefer(st))}, **forced}
    views = functional_classes(graph)   # read by lower_write (write_views)
    groups = object_groups(statements)
    index = {id(st): i for i, st in enumerate(statements)}
    if fuse is None:
        queue = deque(statements)
    elif cuts:
        queue = deque(_fuse_between_cuts(fuse, statements, forced, graph.outputs, cuts))
    else:
        queue = deque(fuse(statements, forced, graph.outputs))
    segments: list = []
    not_lowered = []
    not_symbolic = []
    seeded = []
    lowered = 0
    current: OnnxSegment | None = None
    # Python arithmetic on Python-number inputs (executor/scalar_policy.py)
    # runs first, in Python, as eagerly (big ints, ZeroDivisionError); the
    # segments read its results as 0-d inputs.
    numbers = {s.name for s in graph.inputs if s.meta.is_python}
    first: list = []
    while queue:
        item = queue.popleft()
        fused = not isinstance(item, Statement)
        group = list(item.statements) if fused else [item]
        if current is not None and current.statements and any(index[id(st)] in cuts for st in group):
            segments.append(current)
            current = None
        if not fused and numbers and _is_python_statement(item) and \
                all(s.name in numbers for s in item.symbols_used()):
            first.append(item)
            numbers.update(s.name for s in item.outputs)
            continue
        if not fused and _is_python_statement(item):
            if not any(s.name in read for s in item.outputs):
                seeded.append((item, "not read by any statement"))
                continue
            if current is None:
                current = _segment(graph, segments, names, groups, views)
            e = try_lower(current, item)
            if e is None:
                current.statements.append(item)
                lowered += 1
            else:
                seeded.append((item, str(e) or type(e).__name__))
                if isinstance(e, NotSymbolic):
                    not_symbolic.append((item, str(e)))
            continue
        reason = next((forced[index[id(st)]] for st in group if index[id(st)] in forced), None)
        if reason is None:
            if current is None:
                current = _segment(graph, segments, names, groups, views)
            e = try_lower(current, item)
            if e is None:
                current.statements.extend(group)
                current.patterns += [item] if fused else []
                lowered += len(group)
                continue
            if fused:
                queue.extendleft(reversed(group))
                continue
            reason = str(e) or type(e).__name__
            if isinstance(e, NotSymbolic):
                not_symbolic.append((item, reason))
        if current is not None and current.statements:
            segments.append(current)
        current = None
        for st in group:
            if segments and isinstance(segments[-1], NumpySegment):
                segments[-1].statements.append(st)
            else:
                segments.append(NumpySegment([st]))
            not_lowered.append((st, reason))
    if current is not None and current.statements:
        segments.append(current)
    if first:
        segments.insert(0, NumpySegment(first))
    _exports(segments, graph)
    return Plan(segments, not_lowered, lowered, seeded, not_symbolic)


def _fuse_between_cuts(fuse, statements, forced, outputs, cuts) -> list:
    """``fuse`` on each run of statements between two cuts, so that no
    pattern joins two segments; what a later or earlier run reads counts as
    returned (never fused away)."""
    bounds = [0, *sorted(cuts), len(statements)]
    items: list = []
    for lo, hi in zip(bounds, bounds[1:]):
        region = statements[lo:hi]
        outside = {s.name for st in statements[:lo] + statements[hi:] for s in st.symbols_used()}
        escaping = [s for st in region for s in st.outputs if s.name in outside]
        items += fuse(region, {i - lo: why for i, why in forced.items() if lo <= i < hi}, [*outputs, *escaping])
    return items


def try_lower(segment: OnnxSegment, item) -> Exception | None:
    """Lower ``item`` (a Statement, or a fused pattern with ``outputs`` and
    ``lower(builder)``) into ``segment`` and bind its outputs: None when it
    lowered; else the NotLowered/UnsupportedOp, and ``segment`` is as it
    was before (nodes, inputs, names)."""
    b = segment.builder
    snap = b.snapshot(), dict(segment.defined)
    try:
        if isinstance(item, Statement):
            _bind(segment, item, list(item.outputs), lower_statement(b, item))
        else:
            _bind(segment, None, list(item.outputs), item.lower(b))
    except (NotLowered, UnsupportedOp) as e:
        b.restore(snap[0])
        segment.defined = snap[1]
        return e
    return None


def _segment(graph, segments, names, groups, views) -> OnnxSegment:
    builder = GraphBuilder(f"{graph.name}_{len(segments)}", names, graph.frozen)
    builder.write_views = views
    return OnnxSegment(builder, groups=groups)


def _bind(segment: OnnxSegment, st, outs, values) -> None:
    b = segment.builder
    if len(values) != len(outs):
        raise NotLowered("internal: output count")
    for s, v in zip(outs, values):
        if b.dtype[v] != meta_dtype(s.meta):
            raise NotLowered(f"internal: lowered dtype {b.dtype[v]} != {meta_dtype(s.meta)}")
        b.env[s.name] = v
        b.meta[v] = s.meta
        segment.defined[s.name] = s
    if st is not None and is_write(st):   # its target (its root, views of it) now name new values (lower_write)
        for s in rebound(getattr(b, "write_views", None), st):
            segment.defined[s.name] = s
    if st is not None and is_inplace(st):
        target = st.args[0]
        if isinstance(target, Symbol) and not target.meta.is_scalar:
            # the target and every symbol that is the same object eagerly (an
            # earlier in-place chain) now name the result
            group = segment.groups.get(target.name, [target])
            names = [s.name for s in group]
            earlier = group[:names.index(outs[0].name)] if outs[0].name in names else [target]
            for s in earlier:
                if s.name not in segment.defined:
                    raise NotLowered("an in-place operator on an array made in another segment")
                b.env[s.name] = values[0]


def object_groups(statements) -> dict:
    """symbol name -> the Symbols that are one object with it eagerly (an
    in-place operator's result is its target), in order of definition."""
    groups: dict[str, list] = {}
    for st in statements:
        if is_inplace(st) and isinstance(st.args[0], Symbol) and not st.args[0].meta.is_scalar:
            target, out = st.args[0], st.outputs[0]
            group = groups.get(target.name, [target])
            group.append(out)
            for s in group:
                groups[s.name] = group
    return groups


def _exports(segments, graph: StatementIR) -> None:
    needed = {s.name for s in graph.outputs}
    for seg in reversed(segments):
        if isinstance(seg, OnnxSegment):
            # a Python number is never exported: its value is Python's (the runner's)
            written = set(writeback(graph, seg))   # always exported: copied into the caller's array
            seg.exports = [(sym, seg.builder.env[name]) for name, sym in seg.defined.items()
                           if (name in needed or name in written) and not sym.meta.is_python]
            for name, _ in seg.builder.inputs:
                needed.add(name)
            for name in seg.defined:
                if name not in {n for n, _ in seg.builder.inputs}:
                    needed.discard(name)
        else:
            for st in seg.statements:
                for s in st.symbols_used():
                    needed.add(s.name)
