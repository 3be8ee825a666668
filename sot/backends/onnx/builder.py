"""The ONNX graph under construction for one lowered segment of a StatementIR.

``GraphBuilder`` knows the NumPy dtype of every ONNX value it creates, so a
lowering rule can ask for an operand *in* a dtype (``operand(v, dtype)``
casts a Symbol, converts a constant exactly or refuses) and can run an ONNX
op in the nearest dtype onnxruntime's CPU kernels support (``apply`` widens
where widening is exact and casts the result back).

Nothing here imports onnx at module level: the builder keeps plain tuples and
``to_model`` turns them into a ``ModelProto``.
"""

from __future__ import annotations

import numpy as np

from sot.ir.statement_ir import Symbol

__all__ = ["NotLowered", "NotSymbolic", "GraphBuilder", "OPSET", "meta_dtype"]

#: the ai.onnx opset the models are built for (Gelu is opset 20)
OPSET = 20
#: the IR version written into the models (onnxruntime 1.23 reads up to 11)
IR_VERSION = 10


class NotLowered(Exception):
    """A statement has no exact ONNX lowering; the message says why."""


class NotSymbolic(NotLowered):
    """A statement lowers at static sizes but not for every size of its
    symbolic dims (see ``lowering_shapes``): the graph is then compiled
    per input shapes instead."""


D = np.dtype
F16, F32, F64 = D("float16"), D("float32"), D("float64")
I8, I16, I32, I64 = D("int8"), D("int16"), D("int32"), D("int64")
U8, U16, U32, U64 = D("uint8"), D("uint16"), D("uint32"), D("uint64")
BOOL = D("bool")
FLOATS = (F16, F32, F64)
SIGNED = (I8, I16, I32, I64)
UNSIGNED = (U8, U16, U32, U64)
INTS = SIGNED + UNSIGNED
ALL = FLOATS + INTS + (BOOL,)
_PYTHON_DTYPES = {int: I64, float: F64, bool: BOOL}

# onnxruntime CPU kernels, by ONNX op: those of both onnxruntime 1.23 and 1.32
# (1.32 has more: Max/Min of int8, Where of int8); the differential tests
# exercise every entry used
_ARITH = set(FLOATS + INTS)
SUPPORTED = {
    "Add": _ARITH, "Sub": _ARITH, "Mul": _ARITH, "Div": _ARITH,
    "Pow": {F16, F32, F64, I32, I64},
    # int64 Max/Min of 1.23 are wrong in [2**31, 2**32): see GraphBuilder.extremum
    "Max": {F16, F32, F64, I32, U32, U64},
    "Min": {F16, F32, F64, I32, U32, U64},
    "Where": {F16, F32, F64, I32, I64, U8},
    "Mod": set(INTS),
    "Equal": set(ALL), "Less": _ARITH, "LessOrEqual": _ARITH, "Greater": _ARITH,
    "GreaterOrEqual": _ARITH,
    "BitwiseAnd": set(INTS), "BitwiseOr": set(INTS), "BitwiseXor": set(INTS),
    "BitwiseNot": set(INTS), "BitShift": {U8, U32, U64},
    "And": {BOOL}, "Or": {BOOL}, "Xor": {BOOL}, "Not": {BOOL},
    "MatMul": {F16, F32, F64, I32, I64, U32, U64},
    "Neg": {F16, F32, F64, I8, I16, I32, I64},
    "Abs": _ARITH, "Sign": _ARITH,
    "Exp": set(FLOATS), "Log": set(FLOATS), "Sqrt": set(FLOATS), "Tanh": set(FLOATS),
    "Sin": set(FLOATS), "Cos": {F16, F32}, "Floor": set(FLOATS), "Ceil": set(FLOATS),
    "Round": set(FLOATS), "Reciprocal": set(FLOATS), "IsNaN": set(FLOATS), "IsInf": {F32, F64},
    "Tan": {F16, F32}, "Asin": {F16, F32}, "Acos": {F16, F32}, "Atan": {F16, F32},
    "Sinh": {F16, F32}, "Cosh": {F16, F32}, "Asinh": {F16, F32}, "Acosh": {F16, F32},
    "Atanh": {F16, F32}, "Erf": {F16, F32},
    "ReduceSum": {F16, F32, F64, I32, I64}, "ReduceProd": {F16, F32, F64, I32, I64},
    "ReduceMean": {F16, F32, F64, I32, I64},
    "ReduceMax": {F16, F32, F64, I8, I32, I64, U8}, "ReduceMin": {F16, F32, F64, I8, I32, I64, U8},
    "ArgMax": {F16, F32, F64, I8, I32, I64, U8}, "ArgMin": {F16, F32, F64, I8, I32, I64, U8},
    "CumSum": {F16, F32, F64, I32, I64}, "Trilu": {F16, F32, F64, I64, BOOL},
}

# float16 arithmetic is done in float32 and rounded once, as NumPy's float16
# loops do (exact for + - * / sqrt by the double-rounding argument below);
# onnxruntime 1.23's own float16 Mul is off by an ulp.
F16_IN_F32 = frozenset([
    "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Sqrt", "Exp", "Log", "Tanh", "Sin", "Cos", "Tan",
    "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Reciprocal", "Abs", "Neg",
    "Sign", "Floor", "Ceil", "Round", "ReduceSum", "ReduceProd", "ReduceMean", "ReduceMax",
    "ReduceMin", "CumSum", "MatMul", "Gemm", "Softmax", "Max", "Min"])

# Exact widenings: every value of the key is a value of each listed dtype, in
# order of preference.  For float ops computing in a wider float and rounding
# back is exact for + - * / sqrt (double rounding is innocuous when the wide
# precision is at least 2p+2 bits) and within rounding for the rest.
WIDER = {
    BOOL: (U8, I32, I64, F32, F64),
    I8: (I16, I32, I64), I16: (I32, I64), I32: (I64,),
    U8: (U16, I16, I32, U32, I64, U64), U16: (I32, U32, I64, U64), U32: (I64, U64),
    F16: (F32, F64), F32: (F64,),
}
# Widenings that are exact for wrapping integer arithmetic (+ - * and sums):
# compute modulo a larger power of two, then truncate.
MODULAR = {
    I8: (I32, I64), I16: (I32, I64), I32: (I64,), U8: (I32, I64), U16: (I32, I64),
    U32: (I64, U64), U64: (I64,),
}


def meta_dtype(meta) -> np.dtype:
    """The dtype of an IR value in ONNX: a Python number computed from
    symbolic dims (``ScalarMeta``) is a 0-d int64, float64 or bool."""
    if meta.is_python:
        return _PYTHON_DTYPES[meta.type]
    return meta.dtype


def onnx_type(dtype) -> int:
    from onnx import helper
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class GraphBuilder:
    """Nodes, constants, inputs and outputs of one ONNX graph, with dtypes."""

    def __init__(self, name: str = "sot_graph", dim_names: dict | None = None, frozen: dict | None = None):
        self.name = name
        #: symbol name -> value of the graph's frozen inputs (StatementIR.frozen)
        self.frozen = frozen or {}
        #: onnx name -> C-contiguous array: the frozen inputs this graph reads,
        #: initializers whose data the session takes from our arrays
        self.frozen_used: dict[str, np.ndarray] = {}
        #: (hint, shadow) size of a symbolic dim -> its dim_param in the model
        self.dim_names = dict(dim_names or {})
        #: onnx value -> the IR meta it holds (for symbolic dims in to_model)
        self.meta: dict[str, object] = {}
        #: onnx value -> its exact runtime dims, where some is symbolic: ints
        #: and names of 1-element int64 tensors (see ``lowering_shapes``)
        self.dims: dict[str, tuple] = {}
        #: values computed once per graph (Shape slices): key -> onnx value
        self.memo: dict = {}
        self.nodes: list[tuple] = []        # (op_type, inputs, outputs, attrs, domain)
        self.initializers: dict[str, np.ndarray] = {}
        self.inputs: list[tuple[str, Symbol]] = []   # (onnx name, symbol)
        self.dtype: dict[str, np.dtype] = {}
        self.shape: dict[str, tuple] = {}
        self.env: dict[str, str] = {}       # symbol name -> onnx value name
        self._const_cache: dict[tuple, str] = {}
        self._n = 0

    # -- state (a failed statement is rolled back) ----------------------------

    def snapshot(self):
        return (len(self.nodes), dict(self.initializers), len(self.inputs), dict(self.env),
                dict(self._const_cache), dict(self.memo), dict(self.frozen_used))

    def restore(self, snap) -> None:
        n, inits, n_in, env, cache, memo, frozen_used = snap
        del self.nodes[n:]
        self.initializers = inits
        self.frozen_used = frozen_used
        del self.inputs[n_in:]
        self.env = env
        self._const_cache = cache
        self.memo = memo

    # -- values ---------------------------------------------------------------

    def fresh(self, hint: str = "v") -> str:
        self._n += 1
        return f"{hint}_{self._n}"

    def value(self, sym: Symbol) -> str:
        """The ONNX value of a Symbol; one defined outside becomes an input."""
        name = self.env.get(sym.name)
        if name is None:
            dtype = meta_dtype(sym.meta)
            if dtype not in ALL:
                raise NotLowered(f"{sym.name}: dtype {dtype} has no ONNX lowering")
            name = sym.name
            if name in self.frozen:
                self.frozen_used[name] = np.asarray(self.frozen[name], order="C")
            else:
                self.inputs.append((name, sym))
            self.env[sym.name] = name
            self.dtype[name] = dtype
            self.shape[name] = sym.meta.shape
            self.meta[name] = sym.meta
        return name

    def const(self, array) -> str:
        array = np.asarray(array)
        key = (array.dtype.str, array.shape, array.tobytes())
        name = self._const_cache.get(key)
        if name is None:
            name = self.fresh("c")
            self.initializers[name] = array.copy()
            self.dtype[name] = array.dtype
            self.shape[name] = array.shape
            self._const_cache[key] = name
        return name

    def ints(self, values) -> str:
        return self.const(np.asarray(list(values), dtype=np.int64))

    def node(self, op_type: str, inputs, dtype, shape=None, domain: str = "", n_out: int = 1,
             **attrs):
        outs = [self.fresh(op_type.lower()) for _ in range(n_out)]
        self.nodes.append((op_type, list(inputs), outs, attrs, domain))
        for o in outs:
            self.dtype[o] = np.dtype(dtype)
            self.shape[o] = None if shape is None else tuple(shape)
        return outs[0] if n_out == 1 else outs

    # -- conversions ----------------------------------------------------------

    def cast(self, name: str, dtype) -> str:
        dtype = np.dtype(dtype)
        if self.dtype[name] == dtype:
            return name
        if self.dtype[name].kind == "f" and dtype == U64:
            raise NotLowered("float to uint64: out-of-range values convert differently "
                             "in NumPy and onnxruntime")
        if dtype == BOOL:
            # x != 0 (NaN is true), not a Cast: onnxruntime 1.23 gives True for
            # a zero that an earlier Cast produced (float -> int8 -> bool)
            zero = self.const(np.zeros((), self.dtype[name]))
            return self.node("Not", [self.node("Equal", [name, zero], BOOL, self.shape.get(name))],
                             BOOL, self.shape.get(name))
        if self.dtype[name] == F16 and dtype.kind in "iu":   # NaN: as through float32, like NumPy
            name = self.cast(name, F32)
        out = self.node("Cast", [name], dtype, self.shape.get(name), to=onnx_type(dtype))
        if name in self.dims:
            self.dims[out] = self.dims[name]
        return out

    def operand(self, v, dtype) -> str:
        """``v`` (a Symbol or a constant) as an ONNX value of ``dtype``, converted
        as NumPy converts it; a constant that does not convert exactly refuses."""
        dtype = np.dtype(dtype)
        if isinstance(v, Symbol):
            return self.cast(self.value(v), dtype)
        return self.const(exact_constant(v, dtype))

    def apply(self, op_type: str, inputs, dtype, widen=WIDER, **attrs) -> str:
        """``op_type`` on ``inputs`` (all of ``dtype``), run in ``dtype`` or in
        the first exact widening that onnxruntime supports; the result is cast
        back to ``dtype``."""
        dtype = np.dtype(dtype)
        compute = self.compute_dtype(op_type, dtype, widen)
        out = self.node(op_type, [self.cast(i, compute) for i in inputs], compute, **attrs)
        return self.cast(out, dtype)

    def where(self, cond: str, x: str, y: str) -> str:
        """``Where`` with x and y of one dtype, widened where onnxruntime must."""
        dtype = self.dtype[x]
        compute = self.compute_dtype("Where", dtype, {**MODULAR, BOOL: (U8,)})
        r = self.node("Where", [cond, self.cast(x, compute), self.cast(self.cast(y, dtype), compute)],
                      compute)
        return self.cast(r, dtype)

    def extremum(self, op_type: str, x: str, y: str, dtype) -> str:
        """Elementwise ``Max``/``Min`` (NaN-propagating, as np.maximum); int64
        as a Where over a comparison (onnxruntime 1.23's int64 Max/Min lose
        values in [2**31, 2**32))."""
        dtype = np.dtype(dtype)
        if dtype == I64:
            pick_x = self.node("Greater" if op_type == "Max" else "Less", [x, y], BOOL)
            return self.where(pick_x, x, y)
        return self.apply(op_type, [x, y], dtype)

    def apply_isnan(self, x: str) -> str:
        return self.node("IsNaN", [self.cast(x, self.compute_dtype("IsNaN", self.dtype[x]))], BOOL)

    def apply_compare(self, op_type: str, x: str, y: str) -> str:
        compute = self.compute_dtype(op_type, self.dtype[x])
        return self.node(op_type, [self.cast(x, compute), self.cast(y, compute)], BOOL)

    def apply_less(self, x: str, y: str) -> str:
        return self.apply_compare("Less", x, y)

    @staticmethod
    def compute_dtype(op_type: str, dtype, widen=WIDER):
        dtype = np.dtype(dtype)
        if dtype == F16 and op_type in F16_IN_F32:
            return F32
        supported = SUPPORTED.get(op_type)
        if supported is None or dtype in supported:
            return dtype
        for wide in widen.get(dtype, ()):
            if wide in supported:
                return wide
        raise NotLowered(f"onnxruntime has no {op_type} kernel for {dtype}")

    # -- the model ------------------------------------------------------------

    def to_model(self, outputs: list[str]):
        """A checked ``ModelProto`` whose graph outputs are ``outputs``."""
        import onnx
        from onnx import helper, numpy_helper

        graph_inputs = [helper.make_tensor_value_info(n, onnx_type(self.dtype[n]), self.model_dims(n))
                        for n, s in self.inputs]
        nodes = []
        renames = {}
        final = []
        for o in outputs:  # an output that is an input or a constant (or repeated) gets an Identity
            if o in final or o in self.initializers or o in self.frozen_used or any(o == n for n, _ in self.inputs):
                alias = self.fresh("out")
                nodes.append(helper.make_node("Identity", [o], [alias]))
                self.dtype[alias], self.shape[alias] = self.dtype[o], self.shape.get(o)
                if o in self.meta:
                    self.meta[alias] = self.meta[o]
                renames[alias] = o
                o = alias
            final.append(o)
        body = [helper.make_node(op, ins, outs, domain=domain or None, **attrs)
                for op, ins, outs, attrs, domain in self.nodes]
        graph_outputs = [helper.make_tensor_value_info(o, onnx_type(self.dtype[o]), self.model_dims(o))
                         for o in final]
        inits = [numpy_helper.from_array(a, n) for n, a in self.initializers.items()]
        # The checker wants an external initializer's file: it checks the
        # model with the frozen values as inputs of the same type instead.
        frozen = [helper.make_tensor_value_info(n, onnx_type(a.dtype), list(a.shape))
                  for n, a in self.frozen_used.items()]
        graph = helper.make_graph(body + nodes, self.name, graph_inputs + frozen, graph_outputs, inits)
        opsets = [helper.make_opsetid("", OPSET)]
        if any(domain == "com.microsoft" for *_, domain in self.nodes):
            opsets.append(helper.make_opsetid("com.microsoft", 1))
        model = helper.make_model(graph, opset_imports=opsets, producer_name="sot")
        model.ir_version = IR_VERSION
        onnx.checker.check_model(model)
        if frozen:
            del model.graph.input[len(graph_inputs):]
            model.graph.initializer.extend(_external_initializer(n, a) for n, a in self.frozen_used.items())
        return model, final

    def model_dims(self, name: str):
        """The shape written for a graph input or output: a symbolic dim is
        its ``dim_param`` (from ``dim_names``) or left unnamed."""
        meta = self.meta.get(name)
        if meta is not None and not meta.is_python:
            sym = meta.symbolic_axes
            return [self.dim_names.get((d, meta.shadow[i])) if i in sym else d
                    for i, d in enumerate(meta.shape)]
        shape = self.shape.get(name)
        return None if shape is None else list(shape)


def _external_initializer(name: str, array: np.ndarray):
    """An initializer whose data the model does not hold: the session is
    given it from our array (``SessionOptions.add_external_initializers``),
    so a frozen weight is neither copied into the model nor serialised."""
    from onnx import TensorProto
    t = TensorProto(name=name, data_type=onnx_type(array.dtype), dims=array.shape,
                    data_location=TensorProto.EXTERNAL)
    for key, value in (("location", f"sot-frozen-{name}"), ("offset", "0"), ("length", str(array.nbytes))):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    return t


def exact_constant(v, dtype) -> np.ndarray:
    """A constant converted to ``dtype`` as NumPy converts an operand of an
    op computing in ``dtype`` (Python scalars are weak, NEP 50); refuses a
    conversion that changes an integer or bool value."""
    dtype = np.dtype(dtype)
    if isinstance(v, (complex, np.complexfloating)) or np.iscomplexobj(v):
        raise NotLowered("complex constant")
    try:
        with np.errstate(all="ignore"):
            array = np.asarray(v).astype(dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise NotLowered(f"constant {v!r} does not convert to {dtype}: {e}") from None
    source = np.asarray(v)
    if source.dtype.kind in "iub" and dtype.kind in "iub":
        if not np.array_equal(array.astype(object), source.astype(object)):
            raise NotLowered(f"constant {v!r} does not fit {dtype}")
    if source.dtype == object:
        raise NotLowered(f"constant {v!r} is not numeric")
    return array
