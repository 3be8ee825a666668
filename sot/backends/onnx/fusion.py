"""Fused patterns: chains of statements recognised in the IR and emitted as
the one ONNX op onnxruntime has a fast kernel for.

=============  =========================================================  ==========================
pattern        statements (any spelling: operator, ufunc, method)         emitted
=============  =========================================================  ==========================
softmax        ``e = exp(x - x.max(a, keepdims=True))``;                  ``Softmax(axis=a)``
               ``e / e.sum(a, keepdims=True)``
layernorm      ``m = x.mean(-1, keepdims=True)``; ``(x - m) / sqrt(v +    ``LayerNormalization``
               eps)`` with ``v = ((x - m) ** 2).mean(-1, keepdims=True)``   (axis -1, epsilon)
               (or ``x.var(-1, keepdims=True)``), then ``* w`` ``+ b``
gelu (tanh)    ``0.5 * x * (1 + tanh(c * (x + 0.044715 * x**3)))``,      ``com.microsoft.FastGelu``
               ``x**3`` also as ``x*x*x``, ``c`` = sqrt(2/pi)
attention      ``softmax(q @ k' / s) @ v`` (``k'`` any transpose)          MatMul, Div, ``Softmax``,
                                                                           MatMul (one item)
gemm           ``a @ w + b``, ``a`` and ``w`` 2-d, ``b`` broadcast to the  ``Gemm``
               result's shape
=============  =========================================================  ==========================

A pattern is fused only when every intermediate is used by the pattern
alone (not returned, not read elsewhere), every statement may leave NumPy
(``forced`` is empty for them) and the dtypes are the float dtypes the kernel
has; each rewrite is exact up to float rounding.  (The erf form of gelu
needs ``erf``, which NumPy does not have, so it never reaches the IR.)  A
fused item that fails to lower is retried statement by statement.

Numerical note: onnxruntime 1.23's LayerNormalization computes the variance
in one pass, E[x²] − E[x]², in float32, which gives NaN for rows offset by
1000; there the rows are centred first (one ReduceMean and Sub more), as
NumPy's two passes do.  1.32's kernel is as accurate as NumPy's own float32
computation (tests/test_onnx_fusion.py checks rows offset by 1000).
"""

from __future__ import annotations

import math

import numpy as np

from sot.ir.ops_reduction import REDUCTIONS
from sot.ir.registry import bind, const_axes
from sot.ir.ops_write import is_write
from sot.ir.statement_ir import Statement, Symbol

from .builder import F32, F64, GraphBuilder, NotLowered
from .lowering_array import matmul_prefers_numpy
from .lowering_elementwise import OPERATOR_UFUNCS

__all__ = ["fuse_patterns", "Fused", "PATTERNS"]


class Fused:
    """A matched pattern: its statements (in program order), its one output,
    and how to emit it."""

    def __init__(self, kind: str, statements, output: Symbol, emit):
        self.kind = kind
        self.statements = list(statements)
        self.outputs = (output,)
        self._emit = emit

    def lower(self, b: GraphBuilder) -> list[str]:
        return [self._emit(b)]

    def __repr__(self) -> str:
        return f"<Fused {self.kind}: {len(self.statements)} statements -> {self.outputs[0].name}>"


# ----------------------------------------------------------------------------
# reading the IR

def canonical(st: Statement) -> str:
    """The ufunc name of an elementwise statement ('add', 'multiply',
    'power', 'exp'…), or the op name."""
    op = st.op
    if op.kind == "operator" and op.name in OPERATOR_UFUNCS and not op.name.startswith("i"):
        return OPERATOR_UFUNCS[op.name].__name__
    if op.kind == "function" and isinstance(op.target, np.ufunc):
        return op.target.__name__
    return op.name


class Graph:
    """Def-use facts of a statement list."""

    def __init__(self, statements, outputs, forced):
        self.statements = list(statements)
        self.index = {id(st): i for i, st in enumerate(self.statements)}
        self.producer: dict[str, Statement] = {}
        self.uses: dict[str, list[Statement]] = {}
        for st in self.statements:
            for s in st.outputs:
                self.producer[s.name] = st
            for s in st.symbols_used():
                self.uses.setdefault(s.name, []).append(st)
        self.returned = {s.name for s in outputs}
        self.forced = forced

    def prod(self, v, *names):
        """The statement producing ``v`` when its canonical name is one of ``names``."""
        if not isinstance(v, Symbol):
            return None
        st = self.producer.get(v.name)
        if st is None or (names and canonical(st) not in names):
            return None
        return st

    def only_used_by(self, sym: Symbol, allowed) -> bool:
        if sym.name in self.returned:
            return False
        ids = {id(s) for s in allowed}
        return all(id(u) in ids for u in self.uses.get(sym.name, []))

    def movable(self, group) -> bool:
        """Whether the group may run as one op where its last statement is:
        none of it must stay on NumPy, and no in-place operator between its
        first and last statement may change what the earlier ones read."""
        if any(self.index[id(st)] in self.forced for st in group):
            return False
        positions = sorted(self.index[id(st)] for st in group)
        members = set(positions)
        for i in range(positions[0], positions[-1]):
            st = self.statements[i]
            if i not in members and (is_write(st) or st.op.kind == "operator" and st.op.name.startswith("i")
                                     and st.op.name not in ("invert",)):
                return False
        return True


def _float(meta, dtypes=(F32, F64)) -> bool:
    return not meta.is_scalar and meta.dtype in dtypes


def _binary_operands(st):
    if len(st.args) != 2 or st.kwargs:
        return None
    return st.args


def _reduction(st, name):
    """(operand, axes, keepdims) of a reduction statement ``name``."""
    if st is None or st.op.name != name or st.op.kind not in ("function", "method"):
        return None
    try:
        bound = bind(name, ("a",) + REDUCTIONS[name], st.args, st.kwargs,
                     {"a", "axis", "keepdims", "ddof"}, ("keepdims",))
    except Exception:
        return None
    a = bound["a"]
    if not isinstance(a, Symbol) or bound.get("ddof", 0) != 0:
        return None
    axes = const_axes(bound.get("axis"), a.meta.ndim) if bound.get("axis") is not None else None
    return a, axes, bool(bound.get("keepdims", False))


def _const_value(v):
    if isinstance(v, Symbol) or isinstance(v, bool):
        return None
    if isinstance(v, (int, float, np.floating, np.integer)):
        return float(v)
    return None


def _other(args, sym):
    """The operand of a binary statement that is not ``sym`` (by identity)."""
    a, b = args
    if a is sym:
        return b
    if b is sym:
        return a
    return None


# ----------------------------------------------------------------------------
# softmax

def match_softmax(g: Graph, div: Statement):
    if canonical(div) != "divide" or _binary_operands(div) is None:
        return None
    e, s = div.args
    exp = g.prod(e, "exp")
    red = _reduction(g.prod(s), "sum")
    if exp is None or red is None or red[0] is not e or not red[2] or red[1] is None or len(red[1]) != 1:
        return None
    (axis,) = red[1]
    sub = g.prod(exp.args[0], "subtract")
    if sub is None or len(exp.args) != 1 or exp.kwargs or _binary_operands(sub) is None:
        return None
    x, m = sub.args
    mx = _reduction(g.prod(m), "max") or _reduction(g.prod(m), "amax")
    if mx is None or mx[0] is not x or not mx[2] or mx[1] != (axis,):
        return None
    stmts = [g.prod(m), sub, exp, g.prod(s), div]
    out = div.outputs[0]
    if not (isinstance(x, Symbol) and _float(x.meta) and x.meta.dtype == out.meta.dtype
            and x.meta.shape == out.meta.shape):
        return None
    if not (g.only_used_by(m, [sub]) and g.only_used_by(sub.outputs[0], [exp])
            and g.only_used_by(e, [g.prod(s), div]) and g.only_used_by(s, [div])):
        return None
    return stmts, x, axis


def fuse_softmax(g: Graph, st: Statement):
    found = match_softmax(g, st)
    if found is None:
        return None
    stmts, x, axis = found
    out = st.outputs[0]

    def emit(b: GraphBuilder):
        return b.node("Softmax", [b.value(x)], out.meta.dtype, out.meta.shape, axis=axis)
    return Fused("softmax", stmts, out, emit)


# ----------------------------------------------------------------------------
# attention: softmax(q @ k' / s) @ v

def fuse_attention(g: Graph, st: Statement):
    if canonical(st) != "matmul" or _binary_operands(st) is None:
        return None
    p, v = st.args
    soft_div = g.prod(p, "divide")
    if soft_div is None or not g.only_used_by(p, [st]):
        return None
    found = match_softmax(g, soft_div)
    if found is None:
        return None
    soft_stmts, scores, axis = found
    if axis != scores.meta.ndim - 1:
        return None
    scale_st = g.prod(scores, "divide", "multiply")
    if scale_st is None or _binary_operands(scale_st) is None or not g.only_used_by(scores, soft_stmts):
        return None
    raw, scale = scale_st.args
    if isinstance(scale, Symbol) and scale.meta.shape != ():
        return None
    mm = g.prod(raw, "matmul")
    if mm is None or _binary_operands(mm) is None or not g.only_used_by(raw, [scale_st]):
        return None
    q, k = mm.args
    if not all(isinstance(a, Symbol) and a.meta.ndim >= 2 for a in (q, k, v)):
        return None
    if matmul_prefers_numpy(st) or matmul_prefers_numpy(mm):
        return None   # the softmax alone is fused; the matmuls run on NumPy
    stmts = [mm, scale_st] + soft_stmts + [st]
    if isinstance(scale, Symbol) and g.producer.get(scale.name) is not None:
        scale_src = g.producer[scale.name]
        if scale_src.symbols_used() or not g.only_used_by(scale, [scale_st]):
            return None
        stmts = [scale_src] + stmts   # np.sqrt(d) of a constant
    stmts.sort(key=lambda s: g.index[id(s)])
    out = st.outputs[0]
    if not (_float(out.meta) and _float(scores.meta)):
        return None
    op_scale = "Div" if canonical(scale_st) == "divide" else "Mul"

    def emit(b: GraphBuilder):
        from .lowering import lower_statement
        r = lower_statement(b, mm)[0]                       # q @ k' in NumPy's dtype
        b.env[mm.outputs[0].name] = r
        sdt = scores.meta.dtype
        if isinstance(scale, Symbol) and scale.name not in b.env:
            b.env[scale.name] = lower_statement(b, g.producer[scale.name])[0]
        r = b.cast(r, sdt)
        sc = b.operand(scale, sdt)
        r = b.node(op_scale, [r, sc] if scale_st.args[0] is raw else [sc, r], sdt, scores.meta.shape)
        r = b.node("Softmax", [r], sdt, scores.meta.shape, axis=axis)
        vd = out.meta.dtype
        return b.node("MatMul", [b.cast(r, vd), b.operand(v, vd)], vd, out.meta.shape)
    return Fused("attention", stmts, out, emit)


# ----------------------------------------------------------------------------
# layer normalisation

def fuse_layernorm(g: Graph, st: Statement):
    stmts = []
    out = st.outputs[0]
    node = st
    bias = weight = None
    if canonical(node) == "add" and _binary_operands(node):
        for cand in node.args:
            inner = g.prod(cand, "multiply", "divide")
            if inner is not None and g.only_used_by(cand, [node]):
                bias = _other(node.args, cand)
                stmts.append(node)
                node = inner
                break
    if canonical(node) == "multiply" and _binary_operands(node):
        for cand in node.args:
            inner = g.prod(cand, "divide")
            if inner is not None and g.only_used_by(cand, [node]):
                weight = _other(node.args, cand)
                stmts.append(node)
                node = inner
                break
    if canonical(node) != "divide" or _binary_operands(node) is None:
        return None
    stmts.append(node)
    centered, sd = node.args
    sqrt = g.prod(sd, "sqrt")
    if sqrt is None or len(sqrt.args) != 1:
        return None
    plus = g.prod(sqrt.args[0], "add")
    if plus is None or _binary_operands(plus) is None:
        return None
    var, eps = (plus.args if not isinstance(plus.args[1], Symbol) else plus.args[::-1])
    eps = _const_value(eps)
    sub = g.prod(centered, "subtract")
    if eps is None or sub is None or _binary_operands(sub) is None:
        return None
    x, mean = sub.args
    mean_red = _reduction(g.prod(mean), "mean")
    if not isinstance(x, Symbol) or mean_red is None or mean_red[0] is not x or not mean_red[2]:
        return None
    last = (x.meta.ndim - 1,)
    if mean_red[1] != last:
        return None
    var_st = g.prod(var)
    var_stmts = _match_variance(g, var_st, x, mean, last)
    if var_stmts is None:
        return None
    stmts += [sqrt, plus, sub, g.prod(mean)] + var_stmts
    stmts = list({id(s): s for s in stmts}.values())
    members = stmts
    # intermediates used only inside the pattern
    for s in members:
        if s is st:
            continue
        if not g.only_used_by(s.outputs[0], members):
            return None
    dtype = x.meta.dtype
    if not (_float(x.meta) and out.meta.dtype == dtype and out.meta.shape == x.meta.shape):
        return None
    d = x.meta.shape[-1]
    for p in (weight, bias):
        if p is not None and not (isinstance(p, Symbol) and p.meta.shape == (d,) and p.meta.dtype == dtype):
            return None
    stmts.sort(key=lambda s: g.index[id(s)])

    def emit(b: GraphBuilder):
        scale = b.value(weight) if weight is not None else b.const(np.ones(d, dtype))
        shift = b.value(bias) if bias is not None else b.const(np.zeros(d, dtype))
        xv = b.value(x)
        if not layernorm_kernel_is_two_pass():
            # centre first (NumPy's two passes), so the kernel's one-pass
            # variance E[x²] - E[x]² is taken of rows whose mean is ~0
            mean_v = b.node("ReduceMean", [xv, b.ints([-1])], dtype, keepdims=1)
            xv = b.node("Sub", [xv, mean_v], dtype, x.meta.shape)
        return b.node("LayerNormalization", [xv, scale, shift], dtype, x.meta.shape,
                      axis=-1, epsilon=float(np.float32(eps)))
    return Fused("layernorm", stmts, out, emit)


def layernorm_kernel_is_two_pass() -> bool:
    """onnxruntime 1.23's LayerNormalization takes E[x²] - E[x]² in float32 and
    gives NaN for rows offset by 1000; 1.32's is as accurate as NumPy's two
    passes (both measured by tests/test_onnx_fusion.py)."""
    import onnxruntime
    major, minor = (int(p) for p in onnxruntime.__version__.split(".")[:2])
    return (major, minor) >= (1, 32)


def _match_variance(g: Graph, var_st, x, mean, axes):
    """The statements computing the variance of ``x`` over ``axes`` (keepdims)."""
    if var_st is None:
        return None
    direct = _reduction(var_st, "var")
    if direct is not None:
        return [var_st] if direct[0] is x and direct[1] == axes and direct[2] else None
    red = _reduction(var_st, "mean")
    if red is None or red[1] != axes or not red[2]:
        return None
    sq = g.prod(red[0], "power", "multiply", "square")
    if sq is None:
        return None
    if canonical(sq) == "power":
        base, p = sq.args
        if _const_value(p) != 2.0:
            return None
    elif canonical(sq) == "square":
        base = sq.args[0]
    else:
        base, other = sq.args
        if other is not base:
            return None
    sub = g.prod(base, "subtract")
    if sub is None or _binary_operands(sub) is None or sub.args[0] is not x or sub.args[1] is not mean:
        return None
    return [var_st, sq, sub]


# ----------------------------------------------------------------------------
# gelu, tanh form

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def _near(value, target, rel=1e-6):
    return value is not None and abs(value - target) <= rel * abs(target)


def _scaled(g, v, want):
    """``v`` is ``c * y`` (either order) with c ≈ want: return (statement, y)."""
    st = g.prod(v, "multiply")
    if st is None or _binary_operands(st) is None:
        return None
    a, b = st.args
    if _near(_const_value(a), want) and isinstance(b, Symbol):
        return st, b
    if _near(_const_value(b), want) and isinstance(a, Symbol):
        return st, a
    return None


def _cube_term(g, v, x):
    """``v`` is 0.044715 * x**3 in any grouping: the statements, or None."""
    scaled = _scaled(g, v, 0.044715)
    if scaled is not None:
        st, y = scaled
        cube = g.prod(y, "power")
        if cube is not None and cube.args[0] is x and _const_value(cube.args[1]) == 3.0:
            return [st, cube]
        m2 = g.prod(y, "multiply")            # c * (x * x * x)
        if m2 is not None:
            inner = _times_x(g, m2, x)
            if inner is not None:
                m1 = g.prod(inner, "multiply")
                if m1 is not None and m1.args[0] is x and m1.args[1] is x:
                    return [st, m2, m1]
        return None
    # ((c * x) * x) * x
    m3 = g.prod(v, "multiply")
    if m3 is None:
        return None
    inner = _times_x(g, m3, x)
    m2 = g.prod(inner, "multiply") if inner is not None else None
    inner2 = _times_x(g, m2, x) if m2 is not None else None
    if inner2 is None:
        return None
    first = _scaled(g, inner2, 0.044715)
    if first is None or first[1] is not x:
        return None
    return [m3, m2, first[0]]


def _times_x(g, st, x):
    """``st`` is ``y * x`` or ``x * y``: return y."""
    if st is None or _binary_operands(st) is None:
        return None
    return _other(st.args, x)


def fuse_gelu(g: Graph, st: Statement):
    if canonical(st) != "multiply" or _binary_operands(st) is None:
        return None
    out = st.outputs[0]
    for half_side, one_side in (st.args, st.args[::-1]):
        plus = g.prod(one_side, "add")
        if plus is None or _binary_operands(plus) is None:
            continue
        a, b = plus.args
        t = b if _const_value(a) == 1.0 else (a if _const_value(b) == 1.0 else None)
        tanh = g.prod(t, "tanh")
        if tanh is None:
            continue
        scaled = _scaled(g, tanh.args[0], _SQRT_2_OVER_PI)
        if scaled is None:
            continue
        inner_add = g.prod(scaled[1], "add")
        if inner_add is None or _binary_operands(inner_add) is None:
            continue
        half = _scaled(g, half_side, 0.5)
        if half is None:
            continue
        x = half[1]
        cube_side = _other(inner_add.args, x)
        if cube_side is None:
            continue
        cube = _cube_term(g, cube_side, x)
        if cube is None:
            continue
        stmts = [half[0], plus, tanh, scaled[0], inner_add] + cube + [st]
        if not all(g.only_used_by(s.outputs[0], stmts) for s in stmts if s is not st):
            return None
        if not (_float(x.meta, (F32,)) and out.meta.dtype == x.meta.dtype and out.meta.shape == x.meta.shape):
            return None
        stmts.sort(key=lambda s: g.index[id(s)])

        def emit(b: GraphBuilder, x=x):
            return b.node("FastGelu", [b.value(x)], out.meta.dtype, out.meta.shape, domain="com.microsoft")
        return Fused("gelu", stmts, out, emit)
    return None


# ----------------------------------------------------------------------------
# gemm

def fuse_gemm(g: Graph, st: Statement):
    if canonical(st) != "add" or _binary_operands(st) is None:
        return None
    out = st.outputs[0]
    for prod_side in st.args:
        mm = g.prod(prod_side, "matmul")
        if mm is None or _binary_operands(mm) is None or not g.only_used_by(prod_side, [st]):
            continue
        a, w = mm.args
        bias = _other(st.args, prod_side)
        if not all(isinstance(v, Symbol) for v in (a, w, bias)):
            continue
        dtype = out.meta.dtype
        if not (a.meta.ndim == 2 and w.meta.ndim == 2 and _float(out.meta)
                and not bias.meta.is_scalar and a.meta.dtype == w.meta.dtype == bias.meta.dtype == dtype
                and out.meta.shape == (a.meta.shape[0], w.meta.shape[1])
                and len(bias.meta.shape) <= 2):
            continue
        if prod_side is not st.args[0]:
            continue   # b + a @ w adds in the other order: same value, kept unfused for clarity

        def emit(b: GraphBuilder, a=a, w=w, bias=bias):
            return b.node("Gemm", [b.value(a), b.value(w), b.value(bias)], dtype, out.meta.shape)
        return Fused("gemm", [mm, st], out, emit)
    return None


#: tried in this order on each statement, as the last statement of a pattern
PATTERNS = [fuse_attention, fuse_layernorm, fuse_gelu, fuse_softmax, fuse_gemm]


def fuse_patterns(statements, forced, outputs=()):
    """The statements with matched patterns replaced by ``Fused`` items, each
    placed where its last statement was."""
    g = Graph(statements, outputs, forced)
    taken: set[int] = set()
    fused_at: dict[int, Fused] = {}
    for st in reversed(g.statements):
        if id(st) in taken:
            continue
        for pattern in PATTERNS:
            try:
                item = pattern(g, st)
            except (NotLowered, KeyError, ValueError, TypeError, IndexError):
                item = None
            if item is None or not g.movable(item.statements):
                continue
            if any(id(s) in taken for s in item.statements):
                continue
            taken.update(id(s) for s in item.statements)
            fused_at[id(st)] = item
            break
    items = []
    for st in g.statements:
        if id(st) in fused_at:
            items.append(fused_at[id(st)])
        elif id(st) not in taken:
            items.append(st)
    return items
