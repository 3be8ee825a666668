"""A symbolic graph's size relations, compiled once: a new input shape is
checked in microseconds instead of by replaying the graph's inference.

``check_sizes`` (symbolic_shapes) replays every statement's inference at
the new shapes (about 50 ms for a 1,970-op graph).  ``compile_size_check``
does that replay a few more times, once, and keeps what it learns:

* every size in the graph (each dim of each array value) is
  measured at the *base* shapes (ones ``check_sizes`` accepted) and in one
  world per symbolic source ``k`` where only ``s_k`` grows by the prime
  ``STEP``.  A size that moves by an integer multiple ``a_k * STEP`` in
  each is taken as ``d0 + sum(a_k * (s_k - base_k))``; a last world that
  moves every source by other amounts (``VERIFY``) must agree, else
  nothing is compiled (``s // 2``, ``min(s, 50)``: a floor or a clamp
  between the base and base + STEP moves a size by a non-multiple);
* the check at new shapes: the inputs agree with the graph's static part
  (type, dtype, ndim, static dims), axes of one source are equal, every
  source lies in ``[base_k, base_k + STEP)`` (what the worlds measured),
  and the sizes are *generic*, as in the verification world: no size that
  varies equals another one, 0, 1 or a static size of the graph
  (broadcasting, squeezing and dim ties are decided by such equalities).  The graph's Python numbers are then
  computed by replaying only the Python statements (a few, cheap).

Anything outside that (a smaller size, an equality that appears) is not a
rejection: the caller runs the full ``check_sizes`` for those shapes (and
caches it), so the answer is always the full check's.  The differential
tests compare the two over many sizes, including the sizes where a
derived dim reaches 0 or 1.
"""

from __future__ import annotations

import numpy as np

from sot.ir.meta import TensorMeta
from sot.ir.registry import DIM_OP
from sot.ir.statement_ir import StatementIR
from sot.ir.symbolic import SHADOW_OFFSET

from .symbolic_shapes import PYTHON_INT_LIMIT, _map, infer_at

__all__ = ["SizeCheck", "compile_size_check", "STEP"]

#: how far each source is moved to measure the sizes (a prime, larger than
#: the sizes and constants of any graph: a floor or clamp shows up as a
#: non-multiple of it)
STEP = 1_000_003
#: the verification world moves source k by VERIFY[0] + k * VERIFY[1]
VERIFY = (999_983, 7)


def _sources(graph: StatementIR) -> list[list[tuple[int, int]]]:
    """The symbolic sources, each as the input axes that carry it."""
    by_k: dict = {}
    for i, sym in enumerate(graph.inputs):
        meta = sym.meta
        for axis in meta.symbolic_axes:
            k = (meta.shadow[axis] - meta.shape[axis]) // SHADOW_OFFSET
            by_k.setdefault(k, []).append((i, axis))
    return [by_k[k] for k in sorted(by_k)]


def _shifted(metas, sources, shifts) -> list:
    shapes = [list(m.shape) for m in metas]
    for axes, delta in zip(sources, shifts):
        for i, axis in axes:
            shapes[i][axis] += delta
    return [TensorMeta(tuple(s), m.dtype, m.is_scalar) for s, m in zip(shapes, metas)]


def _sizes(graph: StatementIR, env: dict) -> list[int]:
    """Every dim of every array value of the graph, in one order.  (Python
    numbers are computed by replaying their statements; where one sizes an
    array, that array's dims are here.)"""
    out = []
    for sym in graph.inputs:
        out += env[sym.name].shape
    for st in graph.statements:
        for sym in st.outputs:
            v = env[sym.name]
            if isinstance(v, TensorMeta):
                out += v.shape
    return out


def _positions(graph: StatementIR) -> dict:
    """(symbol name, axis) -> its index in ``_sizes``."""
    where, n = {}, 0
    for sym in graph.inputs:
        for axis in range(sym.meta.ndim):
            where[(sym.name, axis)] = n
            n += 1
    for st in graph.statements:
        for sym in st.outputs:
            if not sym.meta.is_python:
                for axis in range(sym.meta.ndim):
                    where[(sym.name, axis)] = n
                    n += 1
    return where


def compile_size_check(graph: StatementIR, metas, base=None) -> "SizeCheck | None":
    """The compiled check around the base input ``metas`` (shapes that
    ``check_sizes`` accepts; ``base``: ``infer_at`` there, when the caller
    has it), or None when the graph's sizes are not all affine with integer
    coefficients in its sources there."""
    if any(s.meta.is_python for s in graph.inputs):
        return None   # a Python number input (scalar_policy): its value is no shape
    sources = _sources(graph)
    if not sources:
        return None
    base = base or infer_at(graph, metas)
    if base is None:
        return None
    d0 = _sizes(graph, base[1])
    slopes = []
    for k in range(len(sources)):
        found = infer_at(graph, _shifted(metas, sources, [STEP if j == k else 0 for j in range(len(sources))]))
        if found is None:
            return None
        dk = _sizes(graph, found[1])
        if len(dk) != len(d0) or any((b - a) % STEP for a, b in zip(d0, dk)):
            return None
        slopes.append([(b - a) // STEP for a, b in zip(d0, dk)])
    moves = [VERIFY[0] + k * VERIFY[1] for k in range(len(sources))]
    found = infer_at(graph, _shifted(metas, sources, moves))
    if found is None:
        return None
    dv = _sizes(graph, found[1])
    exprs = [(c, tuple(s[p] for s in slopes)) for p, c in enumerate(d0)]
    if len(dv) != len(d0) or any(c + sum(a * m for a, m in zip(coef, moves)) != v
                                 for (c, coef), v in zip(exprs, dv)):
        return None
    for st in graph.statements:   # the Python statements must read only numbers
        if st.op is not DIM_OP and st.outputs and all(s.meta.is_python for s in st.outputs):
            if any(not s.meta.is_python for s in st.symbols_used()):
                return None
    check = SizeCheck(graph, metas, sources, exprs)
    if not check.generic([c + sum(a * m for a, m in zip(coef, moves)) for c, coef in check.varying]):
        return None   # the verification world has a coincidence: nothing measured the generic case
    return check


class SizeCheck:
    """``self(inputs)``: the graph's Python numbers at these shapes, or None
    when the shapes are outside what was compiled (run ``check_sizes``)."""

    def __init__(self, graph: StatementIR, metas, sources, exprs):
        self.base = tuple(metas[axes[0][0]].shape[axes[0][1]] for axes in sources)
        self.sources = sources
        # the inputs' static part: (index, dtype[, shape]); None at symbolic axes
        self.static, self.scalars, self.symbolic = [], [], []
        for i, (sym, m) in enumerate(zip(graph.inputs, metas)):
            axes = sym.meta.symbolic_axes
            if m.is_scalar:
                self.scalars.append((i, m.dtype))
            elif axes:
                self.symbolic.append((i, m.dtype, tuple(None if a in axes else d for a, d in enumerate(m.shape))))
            else:
                self.static.append((i, m.dtype, m.shape))
        self.ties = [(i, a) for axes in sources for (i, a) in axes[1:]]
        self.tie_source = [k for k, axes in enumerate(sources) for _ in axes[1:]]
        varying = sorted({e for e in exprs if any(e[1])})
        constants = sorted({c for c, coef in exprs if not any(c2 for c2 in coef)} | {0, 1})
        self.varying = varying
        self.constants = frozenset(constants)
        where = _positions(graph)
        steps = []
        for st in graph.statements:
            if st.op is DIM_OP:
                c, coef = exprs[where[(st.args[0].name, st.args[1] % st.args[0].meta.ndim)]]
                steps.append((st.outputs[0].name, None, (c, coef), None, int))
            elif st.outputs and all(s.meta.is_python for s in st.outputs):
                steps.append((st.outputs[0].name, st.op, st.args, st.kwargs, st.outputs[0].meta.type))
        self.steps = steps
        self.calls = 0   # shapes answered here (the rest went to check_sizes)

    def generic(self, values) -> bool:
        """No varying size equals another, a static size of the graph, 0 or 1."""
        constants = self.constants
        return len(set(values)) == len(values) and all(v >= 2 and v not in constants for v in values)

    def __call__(self, inputs) -> dict | None:
        ndarray = np.ndarray
        for i, dtype, shape in self.static:
            v = inputs[i]
            if type(v) is not ndarray or v.shape != shape or not (v.dtype is dtype or v.dtype == dtype):
                return None
        for i, dtype in self.scalars:
            v = inputs[i]
            if not isinstance(v, np.generic) or type(v) is not v.dtype.type or v.dtype != dtype:
                return None
        shapes = {}
        for i, dtype, shape in self.symbolic:
            v = inputs[i]
            if type(v) is not ndarray or len(v.shape) != len(shape) or not (v.dtype is dtype or v.dtype == dtype):
                return None
            vs = shapes[i] = v.shape
            for d, n in zip(shape, vs):
                if d is not None and d != n:
                    return None
        s = [shapes[axes[0][0]][axes[0][1]] for axes in self.sources]
        for (i, a), k in zip(self.ties, self.tie_source):
            if shapes[i][a] != s[k]:
                return None
        delta = [n - b for n, b in zip(s, self.base)]
        if any(d < 0 or d >= STEP for d in delta):
            return None
        values = [c + sum(a * d for a, d in zip(coef, delta)) for c, coef in self.varying]
        if not self.generic(values):
            return None
        env: dict = {}
        try:
            for name, op, args, kwargs, type_ in self.steps:
                if op is None:
                    c, coef = args
                    value = c + sum(a * d for a, d in zip(coef, delta))
                else:
                    value = op.call(_map(args, env), _map(kwargs, env))
                if type(value) is not type_ or (type_ is int and abs(value) > PYTHON_INT_LIMIT):
                    return None
                env[name] = value
        except Exception:  # noqa: BLE001 - the full check decides
            return None
        self.calls += 1
        return env
