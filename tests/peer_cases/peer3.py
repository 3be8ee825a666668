"""A third slice of peer-style cases: what users write around NumPy code
(closures and nonlocal, argument forwarding, partials and user decorators,
recursion, generators, formatting, container methods, type checks, global
state, exceptions, context managers, properties, operator overloading,
scalar/dtype corners, in-place ops on views, shapes used as numbers),
after the kinds of tests in TorchDynamo's test/dynamo and Paddle's
test/sot, written by us for NumPy."""
from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import operator

import numpy as np

from . import I, V, X, Y, case

# -- closures, nonlocal, scopes ------------------------------------------------

@case(X, Y)
def p3_nonlocal_two_names(x, y):
    x = x + y + 1.0

    def inner(z):
        nonlocal x, y
        y = x + z + 20.0
        x = y + z + 10.0

    inner(2.0)
    inner(3.0)
    return x, y


@case()
def p3_closure_list_cell_appended(x):
    acc = []

    def push(v):
        acc.append(v * 2)
        return len(acc)

    n = push(x) + push(x + 1)
    return n, acc


@case()
def p3_closure_factory_counter(x):
    def make():
        n = 0

        def step(v):
            nonlocal n
            n += 1
            return v * n
        return step
    s, t = make(), make()
    return s(x), s(x), t(x)


@case()
def p3_closure_over_loop_var_late(x):
    fs = []
    for i in range(3):
        fs.append(lambda: x * i)
    return [f() for f in fs]


@case()
def p3_closure_default_vs_cell(x):
    k = 2

    def f(v, k=k):
        return v * k
    k = 5

    def g(v):
        return v * k
    return f(x), g(x)


@case()
def p3_nested_def_sees_later_binding(x):
    def f():
        return y * 2
    y = x + 1
    return f()


@case()
def p3_unbound_local_raises(x):
    def f():
        v = z + 1  # noqa: F821
        z = 1
        return v
    return f()


@case()
def p3_closure_cell_contents(x):
    def outer():
        a = x + 1

        def inner():
            return a
        return inner
    fn = outer()
    return fn.__closure__[0].cell_contents is fn(), fn() * 2


# -- argument forwarding, partial, user decorators ---------------------------

def _fwd_target(a, b=2, *rest, scale=1.0, **kw):
    return (a + b) * scale, len(rest), sorted(kw)


@case()
def p3_forward_args_kwargs(x):
    def wrapper(*args, **kwargs):
        return _fwd_target(*args, **kwargs)
    return wrapper(x), wrapper(x, 3, 4, 5, scale=0.5, tag="t")


@case()
def p3_forward_modifies_kwargs(x):
    def wrapper(*args, **kwargs):
        kwargs.setdefault("scale", 3.0)
        kwargs.pop("ignored", None)
        return _fwd_target(*args, **kwargs)
    return wrapper(x, ignored=1), wrapper(x, scale=2.0)


@case()
def p3_partial_positional_and_kw(x):
    f = functools.partial(_fwd_target, x, scale=2.0)
    g = functools.partial(f, 5)
    return f(), g(), g(scale=1.0)


@case()
def p3_partial_attrs(x):
    f = functools.partial(np.add, x)
    return f.func is np.add, len(f.args), f.keywords, f(1.0)


@case()
def p3_partial_of_method(x):
    f = functools.partial(np.ndarray.sum, axis=0)
    return f(x), f(x, keepdims=True).shape


def _twice(fn):
    @functools.wraps(fn)
    def wrapped(*a, **k):
        return fn(fn(*a, **k))
    return wrapped


def _logged(tag):
    def deco(fn):
        def wrapped(*a, **k):
            print(tag, fn.__name__)
            return fn(*a, **k)
        return wrapped
    return deco


@case()
def p3_user_decorator_twice(x):
    @_twice
    def inc(v):
        return v + 1
    return inc(x), inc.__name__, inc.__wrapped__(x)


@case()
def p3_user_decorator_factory_prints(x):
    @_logged("call")
    def sq(v):
        return v * v
    return sq(x) + 1


@case()
def p3_decorator_stack_order(x):
    order = []

    def tag(name):
        def deco(fn):
            order.append(name)

            def w(v):
                return fn(v) * 2 if name == "a" else fn(v) + 1
            return w
        return deco

    @tag("a")
    @tag("b")
    def f(v):
        return v
    return f(x), order


@case()
def p3_lru_cache_local_counts(x):
    calls = []

    @functools.lru_cache(maxsize=None)
    def fib(n):
        calls.append(n)
        return n if n < 2 else fib(n - 1) + fib(n - 2)
    return x * fib(10), len(calls), fib.cache_info().hits


@case()
def p3_kwargs_dict_is_fresh(x):
    d = {"scale": 2.0}

    def f(v, **kw):
        kw["scale"] = 9
        return v * 1, kw is d
    r = f(x, **d)
    return r, d


# -- recursion -----------------------------------------------------------------

@case()
def p3_recursive_split_sum(x):
    def rsum(a):
        if a.shape[0] <= 1:
            return a.sum()
        h = a.shape[0] // 2
        return rsum(a[:h]) + rsum(a[h:])
    return rsum(x.ravel())


@case()
def p3_recursive_nested_lists(x):
    def flat(obj):
        if isinstance(obj, (list, tuple)):
            out = []
            for o in obj:
                out.extend(flat(o))
            return out
        return [obj]
    return flat([x, [x + 1, (x + 2, [x + 3])]])


@case()
def p3_recursion_limit_raises(x):
    def down(n):
        return down(n + 1)
    try:
        down(0)
    except RecursionError:
        return x + 1
    return x


# -- generators and comprehensions --------------------------------------------

@case()
def p3_build_list_unpack_generators(x):
    it1 = (v + 1 for v in (x, x * 2))
    it2 = (v - 1 for v in (x, x * 2))
    return np.concatenate([*it1, *it2], axis=-1)


@case()
def p3_generator_pipeline(x):
    rows = (r for r in x)
    scaled = (r * 2 for r in rows)
    pos = (r for r in scaled if r.sum() > 0)
    return list(pos)


@case()
def p3_generator_returns_value(x):
    def g():
        yield x
        yield x + 1
        return "done"

    def outer():
        r = yield from g()
        yield r
    return list(outer())


@case()
def p3_generator_send_accumulate(x):
    def acc():
        total = 0
        while True:
            v = yield total
            if v is None:
                return
            total = total + v
    g = acc()
    next(g)
    g.send(x)
    out = g.send(x * 2)
    return out


@case()
def p3_generator_in_dict_comp(x):
    return {i: r.sum() for i, r in enumerate(x) if i != 1}


@case()
def p3_nested_comp_matrix(x):
    s = x.shape
    return [[float(x[i, j]) * (i + j) for j in range(s[1])] for i in range(s[0])]


@case()
def p3_comp_shadowing(x):
    i = 10
    vals = [i * 2 for i in range(3)]
    return vals, i, x * i


@case()
def p3_set_comp_of_dtypes(x):
    arrs = [x, x.astype(np.float64), x.astype(np.int32), x * 2]
    return sorted({a.dtype.name for a in arrs})


@case()
def p3_gen_sum_of_arrays_start(x):
    return sum((r for r in x), np.zeros(x.shape[1], dtype=x.dtype))


@case()
def p3_any_all_generators_short_circuit(x):
    seen = []

    def chk(r):
        seen.append(1)
        return r.sum() > 0
    return any(chk(r) for r in x), len(seen), all(chk(r) for r in x), len(seen)


# -- string formatting ---------------------------------------------------------

@case()
def p3_fstring_specs(x):
    s = x.sum()
    return f"{s:.3f}|{x.shape}|{x.dtype}|{x.ndim:>4}|{float(s)!r}|{x.size:#x}"


@case()
def p3_format_with_numpy_scalars(x):
    return "{:.2e} {} {:d}".format(x.max(), x.argmax(), np.int64(7)), "%5.1f%%" % x.mean()


@case()
def p3_str_of_shapes_and_dtypes(x):
    return str(x.shape), repr(x.dtype), str(x.dtype), repr(x.shape[0]), str(np.float32(1.5))


@case()
def p3_fstring_nested_and_debug(x):
    w = 8
    n = x.shape[0]
    return f"{n=}", f"{'ok':^{w}}", f"{n:{w}d}"


@case()
def p3_string_methods_chain(x):
    name = " Layer_Norm.Weight "
    parts = name.strip().lower().replace("_", "-").split(".")
    return parts, "-".join(parts).upper(), name.count("e"), x.dtype.name.startswith("float")


@case()
def p3_repr_of_array_in_fstring(x):
    return f"{x[0]}", f"{x[0]!r}", str(x[:1])


# -- dict / list / set methods --------------------------------------------------

@case(X, Y)
def p3_dict_ops_sequence(a, b):
    tmp = {"a": a + 1, "b": b + 2}
    assert tmp.get("zzz") is None
    v = tmp.pop("b") + tmp.get("a") + tmp.get("missing", 3) + tmp.pop("missing", 4)
    tmp.update({"d": 3})
    tmp["c"] = v + tmp["d"]
    if "c" in tmp and "missing" not in tmp:
        return tmp["c"] - tmp["a"] + len(tmp)


@case(X, Y)
def p3_dict_update_forms(a, b):
    d = {"a": a, "b": b}
    d.update({"a": b - 1})
    d.update([("b", a + 1), ["c", a]])
    d.update(zip("ab", [a + 3, b + 2]))
    d.update(e=a * 0)
    return list(d), d["a"], d["b"]


@case()
def p3_dict_fromkeys_chain(x):
    d = dict.fromkeys(["a", "b"])
    d1 = dict.fromkeys(d, x + 1)
    d2 = collections.OrderedDict.fromkeys(tuple(d1), x - 2)
    return d1["a"] * d2["b"], list(d2), d["a"]


@case()
def p3_dict_setdefault_list(x):
    groups = {}
    for i, r in enumerate(x):
        groups.setdefault(i % 2, []).append(r.sum())
    return groups


@case()
def p3_dict_items_sorted_by_value(x):
    d = {"r%d" % i: float(r.sum()) for i, r in enumerate(x)}
    return sorted(d.items(), key=lambda kv: kv[1], reverse=True)


@case()
def p3_dict_copy_independent(x):
    d1 = {"a": x, "b": [1]}
    d2 = d1.copy()
    d2["a"] = x + 1
    d2["b"].append(2)
    return d1["a"] is x, d1["b"], d2["a"]


@case()
def p3_defaultdict_factory_lambda(x):
    dd = collections.defaultdict(lambda: x * 0)
    dd["a"] += 1
    dd["b"] = dd["b"] + x
    return dd["a"], dd["b"], sorted(dd)


@case()
def p3_list_pop_extend_unpack(a):
    b = a * 2
    ll = [a, b]
    ll.append(a + 1)
    ll.extend([b + 2, a + b])
    ll.pop(-1)
    ll.pop(0)
    ll.pop()
    v1, v2 = ll
    return v1 - v2


@case()
def p3_list_insert_remove_index(x):
    ll = [1, 2, 3]
    ll.insert(0, 9)
    ll.insert(-1, 7)
    ll.remove(2)
    return ll, ll.index(7), ll.count(3), x[ll.index(9)]


@case()
def p3_list_tuple_roundtrip(a):
    ll = [a + 2, a]
    ll = tuple(ll)
    tmp = a + 3
    ll = list(ll)
    v1, v2 = ll
    return v1 - v2 + tmp


@case()
def p3_list_compare_polyfill(x):
    x = x.copy()
    for a, b, c in [
        [(1, 2, 3), (1, 2, 3), 7.77],
        [(1, 4, 3), (1, 2, 3), 3.33],
        [(1, 2), (1, 2, 3), 5.55],
        [(1, 2, 3), (1, 2), 11.11],
        [(1, -1, 3), (1, 2, 3), 13.33],
    ]:
        if a != b:
            x += 1 * c
        if a < b:
            x += 4 * c
        if a >= b:
            x += 32 * c
    return x


@case()
def p3_set_update_discard_pop_sorted(x):
    s = {3, 1}
    s.update([2, 5])
    s.discard(1)
    s.discard(42)
    s |= {7}
    s -= {5}
    return sorted(s), x * len(s), {1, 2} <= {1, 2, 3}, s.isdisjoint({100})


@case()
def p3_set_remove_missing_raises(x):
    s = {1}
    s.remove(2)
    return x


@case()
def p3_list_sort_key_lambda_shape(x):
    arrs = [x, x[:1], x[:2]]
    arrs.sort(key=lambda a: a.shape[0])
    return [a.shape for a in arrs]


@case()
def p3_tuple_add_empty(x):
    l1 = (x, x + 1)
    l2 = ()
    l3 = l1 + l2
    return l3[0] + l3[1], len(l3), l3 * 2 == l3 + l3


@case()
def p3_return_dict_aliases(x):
    z = [x + 1, x, False]
    return {"x": x, "z": z, "a": x, "b": z, "c": x}


# -- isinstance / type checks ----------------------------------------------------

@case()
def p3_isinstance_numpy_scalar_kinds(x):
    s = x.sum()
    i = np.int64(3)
    return (isinstance(s, float), isinstance(s, np.floating), isinstance(i, int),
            isinstance(i, np.integer), isinstance(True, int), isinstance(x.shape, tuple),
            isinstance(x.shape[0], int), type(x.shape[0]).__name__)


@case()
def p3_type_dispatch_table(x):
    def handle(v):
        table = {int: "int", float: "float", np.ndarray: "array", str: "str"}
        return table.get(type(v), "other")
    return [handle(v) for v in (1, 1.0, x, "s", x.sum(), None)]


@case()
def p3_isinstance_abc_sequence(x):
    import collections.abc as cabc
    return (isinstance([], cabc.Sequence), isinstance(x, cabc.Sequence),
            isinstance({}, cabc.Mapping), isinstance(x.shape, cabc.Sequence),
            isinstance(iter([]), cabc.Iterator))


@case()
def p3_type_equality_and_subclass(x):
    class A:
        pass

    class B(A):
        pass
    b = B()
    return type(b) is B, type(b) == A, isinstance(b, A), issubclass(B, (int, A)), x + 1


@case()
def p3_dtype_compare_branches(x):
    if x.dtype == np.float16:
        return x + 10
    if x.dtype == np.float32:
        return x - 32
    return x


@case()
def p3_dtype_kind_checks(x):
    out = []
    for a in (x, x.astype(np.int8), x > 0, x.astype(np.complex64)):
        out.append((a.dtype.kind, np.issubdtype(a.dtype, np.floating),
                    np.issubdtype(a.dtype, np.number), a.dtype.itemsize))
    return out


# -- globals ------------------------------------------------------------------------

_P3_COUNTER = 0
_P3_REGISTRY = {}
_P3_SCALE = 2.0


@case()
def p3_global_counter_increment(x):
    global _P3_COUNTER
    _P3_COUNTER += 1
    return x * 1, _P3_COUNTER > 0


@case()
def p3_global_registry_mutation(x):
    _P3_REGISTRY[x.shape] = _P3_REGISTRY.get(x.shape, 0) + 1
    return len(_P3_REGISTRY) >= 1, x + 1


@case()
def p3_global_rebind_then_read(x):
    global _P3_SCALE
    old = _P3_SCALE
    _P3_SCALE = old * 1
    return x * _P3_SCALE


def _p3_uses_global(v):
    return v * _P3_SCALE


@case()
def p3_global_read_in_callee(x):
    return _p3_uses_global(x), _p3_uses_global(1)


# -- exceptions -----------------------------------------------------------------------

@case()
def p3_exc_reraise_bare(x):
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise
    except LookupError as e:
        return x + 1, type(e).__name__, e.args


@case()
def p3_exc_raise_from_cause(x):
    try:
        try:
            x.reshape(5, 5)
        except ValueError as e:
            raise RuntimeError("bad shape") from e
    except RuntimeError as e:
        return type(e.__cause__).__name__, str(e), e.__suppress_context__


@case()
def p3_exc_context_chained(x):
    try:
        try:
            {}["a"]
        except KeyError:
            1 / 0
    except ZeroDivisionError as e:
        return type(e.__context__).__name__, x + 1


@case()
def p3_exc_in_loop_continue(x):
    out = []
    for d in (1, 0, 2, 0):
        try:
            out.append(10 // d)
        except ZeroDivisionError:
            out.append(None)
            continue
        finally:
            out.append("f")
    return out, x * len(out)


@case()
def p3_exc_custom_with_attrs(x):
    class ShapeError(ValueError):
        def __init__(self, shape):
            super().__init__(f"bad {shape}")
            self.shape = shape
    try:
        raise ShapeError(x.shape)
    except ValueError as e:
        return e.shape, str(e), isinstance(e, ShapeError)


@case()
def p3_exc_numpy_axis_error(x):
    try:
        x.sum(axis=5)
    except np.exceptions.AxisError as e:
        return "axis" in str(e), isinstance(e, IndexError), isinstance(e, ValueError)


@case()
def p3_exc_broadcast_error_message(x):
    try:
        return x + x[:, :3]
    except ValueError as e:
        return str(e)


@case()
def p3_exc_uncaught_from_helper(x):
    def check(a):
        if a.ndim != 3:
            raise TypeError(f"expected 3-d, got {a.ndim}-d")
        return a
    return check(x)


@case()
def p3_exc_try_return_finally_order(x):
    log = []

    def f():
        try:
            log.append("try")
            return x + 1
        finally:
            log.append("finally")
    r = f()
    return r, log


@case()
def p3_exc_assert_message(x):
    assert x.shape[0] % 2 == 0, f"odd rows: {x.shape}"
    return x


# -- context managers ------------------------------------------------------------------

@case()
def p3_errstate_divide_ignore(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = x / (x * 0)
    return r


@case()
def p3_errstate_raise_caught(x):
    try:
        with np.errstate(divide="raise"):
            return x / 0
    except FloatingPointError as e:
        return "divide" in str(e)


@case()
def p3_errstate_nested_restored(x):
    with np.errstate(all="ignore"):
        with np.errstate(over="raise"):
            inner = np.geterr()["over"]
        mid = np.geterr()["over"]
    return inner, mid, np.geterr()["over"], x + 1


@case()
def p3_contextmanager_generator_log(x):
    log = []

    @contextlib.contextmanager
    def section(name):
        log.append(f"enter {name}")
        try:
            yield name.upper()
        finally:
            log.append(f"exit {name}")
    with section("a") as a, section("b") as b:
        y = x * 2
    return y, a + b, log


@case()
def p3_contextmanager_exception_seen(x):
    seen = []

    class CM:
        def __enter__(self):
            return self

        def __exit__(self, t, v, tb):
            seen.append(t.__name__ if t else None)
            return t is KeyError
    with CM():
        y = x + 1
    with CM():
        raise KeyError("x")
    return y, seen


@case()
def p3_exitstack_callbacks(x):
    log = []
    with contextlib.ExitStack() as st:
        st.callback(log.append, 1)
        st.callback(log.append, 2)
        y = x - 1
    return y, log


@case()
def p3_redirect_stdout_capture(x):
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print("inside", x.shape)
    return buf.getvalue(), x + 1


# -- properties, classmethods, staticmethods, operators ------------------------------

class _P3Vec:
    scale = 2

    def __init__(self, data):
        self.data = data

    @property
    def norm(self):
        return float(np.sqrt((self.data ** 2).sum()))

    @classmethod
    def zeros_like(cls, other):
        return cls(np.zeros_like(other.data))

    @staticmethod
    def combine(a, b):
        return a.data + b.data

    def __add__(self, other):
        if isinstance(other, _P3Vec):
            return _P3Vec(self.data + other.data)
        return _P3Vec(self.data + other)

    __radd__ = __add__

    def __mul__(self, k):
        return _P3Vec(self.data * k)

    def __rmul__(self, k):
        return _P3Vec(k * self.data)

    def __neg__(self):
        return _P3Vec(-self.data)

    def __eq__(self, other):
        return isinstance(other, _P3Vec) and bool((self.data == other.data).all())

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i]

    def __iadd__(self, other):
        self.data = self.data + (other.data if isinstance(other, _P3Vec) else other)
        return self


@case()
def p3_obj_property_classmethod_static(x):
    v = _P3Vec(x)
    z = _P3Vec.zeros_like(v)
    return v.norm, type(z).__name__, _P3Vec.combine(v, z), v.scale * 3


@case()
def p3_obj_operator_overloading(x):
    v = _P3Vec(x)
    r = (v + 1) * 2 + v
    s = 3 * v
    t = -v
    return r.data, s.data, t.data, (1 + v).data, v == _P3Vec(x.copy()), len(v), v[0]


@case()
def p3_obj_iadd_rebinds(x):
    v = _P3Vec(x)
    alias = v
    v += 1
    v += _P3Vec(x)
    return v is alias, v.data


@case()
def p3_sum_of_user_objects(x):
    vs = [_P3Vec(r) for r in x]
    return sum(vs, _P3Vec(np.zeros(x.shape[1], dtype=x.dtype))).data


@case()
def p3_obj_property_setter_validates(x):
    class Box:
        def __init__(self):
            self._v = None

        @property
        def v(self):
            return self._v

        @v.setter
        def v(self, value):
            if value.ndim != 2:
                raise ValueError("need 2-d")
            self._v = value * 1
    b = Box()
    b.v = x
    try:
        b.v = x[0]
    except ValueError as e:
        msg = str(e)
    return b.v, msg


@case()
def p3_obj_rich_compare_sort(x):
    @functools.total_ordering
    class Item:
        def __init__(self, k):
            self.k = k

        def __lt__(self, o):
            return self.k < o.k

        def __eq__(self, o):
            return self.k == o.k
    items = [Item(float(v)) for v in x[0]]
    items.sort(reverse=True)
    return [i.k for i in items], Item(1) >= Item(0)


@case()
def p3_obj_call_and_bool_len(x):
    class Model:
        def __init__(self, w):
            self.w = w

        def __call__(self, v):
            return v @ self.w

        def __len__(self):
            return 0
    m = Model(np.ones((4, 2), dtype=np.float32))
    return m(x), bool(m), "yes" if m else "no"


@case()
def p3_obj_array_priority_radd(x):
    class Wrap:
        __array_ufunc__ = None

        def __radd__(self, other):
            return ("radd", other.shape)
    return x + Wrap()


# -- numpy scalar vs Python numbers, dtype promotion --------------------------------

@case()
def p3_scalar_python_mix_types(x):
    s32 = x.sum()
    s64 = np.float64(1.5)
    i = np.int32(3)
    out = [s32 + 1, s32 + 1.0, s32 * s64, i + 1, i + 1.0, i * 2 ** 40, i / 2, i // 2,
           True + i, s32 ** 2, abs(np.int8(-128))]
    return [(type(v).__name__, v) for v in out]


@case()
def p3_scalar_int8_overflow_python_int(x):
    a = np.int8(100)
    try:
        b = a + 300
    except OverflowError as e:
        b = str(e)
    return a + 100, b, x + 1


@case()
def p3_promotion_table(x):
    dts = [np.int8, np.uint8, np.int32, np.float16, np.float32, np.int64, np.bool_]
    out = []
    for a in dts:
        for b in dts:
            out.append((np.ones(2, a) + np.ones(2, b)).dtype.name)
    return out, x * 1


@case()
def p3_promotion_with_python_scalars(x):
    i8 = np.arange(3, dtype=np.int8)
    u8 = np.arange(3, dtype=np.uint8)
    f16 = np.ones(3, dtype=np.float16)
    return (i8 + 1).dtype, (u8 * 2.5).dtype, (f16 + 1e3).dtype, (x + 1j).dtype, (i8 + True).dtype


@case()
def p3_int_array_true_divide_and_floor(x):
    i = np.arange(-3, 4)
    return i / 2, i // 2, i % 3, np.fmod(i, 3), divmod(i, 2)


@case()
def p3_scalar_comparisons_to_python(x):
    s = x[0, 0]
    return s == -1.25, s < 0, bool(s), int(s), round(float(s), 1), s.item() == -1.25


@case()
def p3_int64_scalar_as_python_index(x):
    n = np.int64(2)
    ll = [10, 20, 30]
    return ll[n], "ab" * int(n), range(n)[-1], x[n], x[:, n]


@case()
def p3_float_scalar_is_integer_and_hash(x):
    s = np.float64(3.0)
    return s.is_integer(), hash(s) == hash(3), {s: 1}[3], float(x.max()).hex()


@case()
def p3_uint_wraparound_inplace(x):
    u = np.array([0, 1, 250], dtype=np.uint8)
    u += 10
    u -= 20
    return u, u.dtype


@case()
def p3_float16_accumulation(x):
    h = x.astype(np.float16)
    return h.sum(), h.sum(dtype=np.float32), h.mean(), (h * 1000).max()


@case()
def p3_bool_arithmetic_arrays(x):
    m = x > 0
    return m.sum(), m + m, m * 2.5, ~m, m.astype(int).cumsum(), np.count_nonzero(m)


# -- in-place ops on views --------------------------------------------------------------

@case()
def p3_inplace_on_row_view(x):
    y = x.copy()
    r = y[1]
    r *= 2
    r += 1
    return y, r.base is y


@case()
def p3_inplace_on_strided_view(x):
    y = x.copy()
    v = y[:, ::2]
    v -= 100
    return y


@case()
def p3_inplace_on_transpose_view(x):
    y = x.copy()
    t = y.T
    t[0] = 0
    t += 1
    return y, t.flags["C_CONTIGUOUS"]


@case()
def p3_inplace_reshape_view_write(x):
    y = x.copy()
    f = y.reshape(-1)
    f[::3] = -7
    return y, np.shares_memory(f, y)


@case()
def p3_inplace_argument_view_visible(x):
    v = x[0]
    v += 1
    return x.sum()


@case()
def p3_inplace_diagonal_fill(x):
    y = np.zeros((3, 3), dtype=x.dtype)
    np.fill_diagonal(y, x[0, :3])
    y[np.diag_indices(3)] += 1
    return y


@case()
def p3_inplace_out_on_slice(x):
    y = x.copy()
    np.multiply(y[:, :2], 3, out=y[:, :2])
    np.negative(y[0], out=y[0])
    return y


@case()
def p3_inplace_mask_assign_from_expr(x):
    y = x.copy()
    y[y < 0] = y[y < 0] ** 2
    y[:, -1] += y[:, 0]
    return y


@case()
def p3_view_of_view_writes_through(x):
    y = x.copy()
    a = y[1:]
    b = a[:, 1:]
    b[...] = 0
    return y, b.base is y


# -- shapes as tuples in Python arithmetic ----------------------------------------------

@case()
def p3_shape_arith_and_prod(x):
    n, m = x.shape
    total = 1
    for d in x.shape:
        total *= d
    return total == x.size, x.shape + (1,), x.shape[::-1], (n * m) // 2, np.prod(x.shape)


@case()
def p3_shape_used_in_reshape_math(x):
    b, d = x.shape
    h = 2
    return x.reshape(b, h, d // h).transpose(1, 0, 2).reshape(h, -1).shape


@case()
def p3_shape_chunks_assert(x):
    chunk = 1
    assert x.shape[0] % chunk == 0
    n = x.shape[0] // chunk
    return [x[i * chunk:(i + 1) * chunk] for i in range(n)]


@case()
def p3_shape_in_range_step(x):
    out = []
    for start in range(0, x.shape[1], 3):
        out.append(x[:, start:start + 3].sum())
    return out


@case()
def p3_shape_as_dict_key(x):
    cache = {}
    for a in (x, x + 1, x[:2], x.T):
        cache.setdefault(a.shape, []).append(float(a.sum()))
    return cache


@case()
def p3_shape_compare_and_max(x):
    other = (2, 10)
    return x.shape > other, max(x.shape, other), min(x.shape), x.shape == (3, 4), x.shape == [3, 4]


@case()
def p3_shape_to_zeros_and_full(x):
    s = tuple(d * 2 for d in x.shape)
    return np.zeros(s, dtype=x.dtype).shape, np.full(x.shape[:1], x.shape[1]), np.empty((0,) + x.shape).shape


@case()
def p3_ndim_size_len_mix(x):
    return x.ndim + len(x) + x.size + x.itemsize + x.nbytes, x + len(x)


# -- misc from real-world patterns -------------------------------------------------------

@case()
def p3_del_names_then_use(a):
    b = a * 2
    c = a + 1
    d = c + 2
    del c, a
    return b + d


@case()
def p3_import_inside_function(x):
    import math
    from numpy import add as plus
    return plus(x, math.pi), math.floor(2.7)


@case()
def p3_walrus_in_comprehension(x):
    return [y for r in x if (y := float(r.sum())) > -10], y


@case()
def p3_chained_ternary_and_or(x):
    s = float(x.sum())
    label = "pos" if s > 0 else "zero" if s == 0 else "neg"
    v = None or x.shape or 0
    return label, v, [] and 1, 0 or "", x if s else -x


@case()
def p3_itertools_zip_longest_and_chain(x):
    a = [1, 2, 3]
    b = ["a", "b"]
    return (list(itertools.zip_longest(a, b, fillvalue=None)),
            list(itertools.chain.from_iterable([[1], [2, 3]])), x + 1)


@case()
def p3_itertools_product_over_shape(x):
    return sum(float(x[i, j]) for i, j in itertools.product(range(x.shape[0]), range(x.shape[1])))


@case()
def p3_operator_reduce_mul_shape(x):
    return functools.reduce(operator.mul, x.shape, 1), functools.reduce(np.add, [x, x, x])


@case()
def p3_enumerate_start_and_reversed(x):
    return [(i, r.sum()) for i, r in enumerate(reversed(x), start=1)]


@case()
def p3_print_array_and_scalars(x):
    print(x.shape, x.dtype, x.sum())
    print(f"{x.max():.2f}", sep="|")
    print(*x.shape, sep=", ", end="!\n")
    return x * 2


@case()
def p3_numpy_functions_as_values(x):
    ops = {"sum": np.sum, "max": np.max, "mean": np.mean}
    return {k: f(x, axis=0) for k, f in ops.items()}


@case()
def p3_getattr_numpy_by_name(x):
    return [getattr(np, name)(x) for name in ("abs", "square", "sign")]


@case()
def p3_slice_objects_reused(x):
    sl = slice(None, None, -1)
    rows = slice(1, None)
    return x[rows, sl], x[(slice(None), 0)], sl.indices(4)


@case()
def p3_np_where_with_python_scalars(x):
    return np.where(x > 0, 1, 0).dtype, np.where(x > 0, x, 0.0).dtype, np.where(x > 0, 1.5, x)


@case()
def p3_tolist_then_python_math(x):
    rows = x.tolist()
    return [sum(r) / len(r) for r in rows], type(rows[0][0]).__name__


@case()
def p3_astype_copy_false_identity(x):
    a = x.astype(np.float32, copy=False)
    b = x.astype(np.float64, copy=False)
    return a is x, b is x, np.asarray(x) is x, np.array(x) is x


@case()
def p3_array_from_mixed_list(x):
    a = np.array([x.shape[0], 2.5, True])
    b = np.array([np.float32(1), 2])
    c = np.asarray([x[0, 0], x[1, 1]])
    return a, a.dtype, b.dtype, c.dtype


@case(V)
def p3_vector_normalize_guarded(v):
    n = np.linalg.norm(v)
    if n == 0:
        return v
    return v / n, type(n).__name__


@case(I)
def p3_int_matrix_python_loop_accumulate(i):
    total = 0
    for r in i:
        for v in r:
            if v % 2:
                total += v
    return total, type(total).__name__


# -- a break at an instruction that raises, inside try statements ------------------------

@case()
def p3_try_break_unmatched_inner_handler(x):
    log = []
    try:
        try:
            return x + x[:, :3]
        except KeyError:
            log.append("inner")
        finally:
            log.append("finally")
    except ValueError as e:
        log.append(("outer", str(e)))
    return log


@case()
def p3_try_break_raise_in_handler(x):
    log = []
    try:
        try:
            y = x.reshape(5, 5)
        except ValueError:
            log.append("h1")
            raise KeyError("again")
        log.append("after")
        return y
    except KeyError as e:
        log.append(repr(e))
    return log, x + 1


@case()
def p3_try_break_in_loop_body(x):
    out = []
    for k in (4, 3, 2):
        try:
            out.append(x + x[:, :k])
            out.append("ok")
        except ValueError:
            out.append(k)
    return out


@case()
def p3_try_break_else_and_finally(x):
    log = []
    for cols in (4, 2):
        try:
            y = x * x[:, :cols]
        except ValueError:
            log.append("except")
        else:
            log.append(("else", y.shape))
        finally:
            log.append("finally")
    return log


@case()
def p3_with_break_exception_passes_exit(x):
    log = []

    @contextlib.contextmanager
    def cm():
        log.append("enter")
        try:
            yield
        except ValueError:
            log.append("cm saw ValueError")
            raise
        finally:
            log.append("exit")
    try:
        with cm():
            x @ x
    except ValueError:
        log.append("caught")
    return log


# -- reduction and scalar result types -------------------------------------------------

@case()
def p3_reduction_result_dtypes(x):
    i8 = (x * 4).astype(np.int8)
    u8 = np.abs(x * 4).astype(np.uint8)
    h = x.astype(np.float16)
    b = x > 0
    out = [i8.sum(), u8.sum(), u8.prod(), h.sum(), h.mean(), b.sum(), b.cumsum(), i8.mean(),
           u8.max(), i8.cumprod(), h.var(), b.mean(), x.argmax(), np.add.reduce(i8),
           np.multiply.reduce(u8, axis=0), x.std(dtype=np.float64), i8.astype(np.int32).sum()]
    return [(type(v).__name__, np.asarray(v).dtype.name, v) for v in out]


@case()
def p3_scalar_from_graph_mixed_with_python(x):
    s = x.sum()          # float32 scalar from the graph
    m = x.argmax()       # intp scalar
    i8 = x.astype(np.int8)[0, 0]
    out = [s + 1, s * 2.5, 2 ** s, s // 1, s % 0.7, -s, abs(s), s + m, m + 1, m * 1.5, m // 2,
           m ** 2, i8 + 1, i8 * 3.0, i8 - 200 if False else i8 + 100, s + True, m + True,
           s + np.float64(1), m + np.int8(1), s.astype(np.float16) + 1]
    return [(type(v).__name__, v) for v in out]


@case()
def p3_scalar_complex_and_int_mix(x):
    s = x.mean()
    c = s + 1j
    return type(c).__name__, c, (x + 0j).dtype, np.abs(c), type(s * (1 + 2j)).__name__


@case()
def p3_scalar_comparison_types(x):
    s = x.max()
    return type(s > 0).__name__, type(s == s).__name__, (s > 0) + 1, type(x.shape[0] > s).__name__


@case()
def p3_int_scalar_division_by_zero_warns(x):
    m = x.argmax()
    with np.errstate(all="ignore"):
        a = m // 0
        b = m % 0
        c = m / 0
    return a, b, c, type(c).__name__


@case()
def p3_float32_scalar_overflow_warns(x):
    s = np.float32(3e38) * (x.max() + 1)
    return s, type(s).__name__


@case()
def p3_float32_scalar_python_float_precision(x):
    s = x.sum()
    return s + 0.1, s * 1e-8, s + 1e40 if False else s - 1e20, float(s) + 0.1


@case(np.arange(6, dtype=np.int32).reshape(2, 3))
def p3_int32_array_python_int_mix(i):
    return (i + 1).dtype, (i * 2 ** 31 if False else i * 2).dtype, (i // 2.0).dtype, (i ** 2).dtype, \
        (i / i.max()).dtype, (i + np.int64(1)).dtype, (i + np.uint32(1)).dtype, i.sum().dtype


@case(np.arange(6, dtype=np.int32).reshape(2, 3))
def p3_int32_array_huge_python_int_raises(i):
    return i + 2 ** 40


@case(np.arange(4, dtype=np.uint8))
def p3_uint8_negative_python_int_raises(u):
    return u - (-1)


@case(np.arange(4, dtype=np.uint8))
def p3_uint8_minus_python_int_wraps(u):
    return u - 1, (u - 1).dtype


@case(np.arange(4, dtype=np.uint8))
def p3_uint8_scalar_with_int64_scalar(u):
    return (u[1] + np.int64(3)).dtype, (u + np.int64(3)).dtype, (u[1] * 300).dtype if False else (u[1] + 3).dtype


@case()
def p3_bool_scalar_arith(x):
    b = x.max() > 0
    return b + b, b * 3, b - False if False else b & True, ~b, -(b * 1), type(b + b).__name__


@case()
def p3_power_corner_types(x):
    i = np.arange(4)
    return i ** 2, i ** 2.0, (i ** 0.5).dtype, np.float32(2) ** 3, 2 ** np.arange(3), np.power(2.0, i).dtype


@case()
def p3_round_of_scalars(x):
    s = x.mean()
    return round(s), round(s, 2), type(round(s)).__name__, type(round(s, 2)).__name__, np.round(s, 1)


@case()
def p3_int_of_scalars_and_index(x):
    m = x.argmax()
    return int(m), operator.index(m), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11][m], hex(m), bin(int(m))


@case()
def p3_min_max_builtin_mixed(x):
    s = x.sum()
    return max(s, 0), min(s, 0.5), type(max(s, 0)).__name__, max(1, 2.0), max([x.max(), 3])


# -- graph breaks (print) in the middle of user constructs --------------------------------

@case()
def p3_brk_nonlocal_then_print(x):
    n = 0

    def bump(v):
        nonlocal n
        n += 1
        print("bump", n)
        return v + n
    a = bump(x)
    b = bump(a)
    return a, b, n


@case()
def p3_brk_closure_mutated_list_after_print(x):
    acc = [x]

    def add(v):
        acc.append(v)
        print(len(acc))
        acc.append(v * 2)
    add(x + 1)
    return acc


@case()
def p3_brk_generator_print_inside(x):
    def gen():
        for r in x:
            print("row", r.shape)
            yield r * 2
    return list(gen())


@case()
def p3_brk_generator_partially_consumed(x):
    def gen():
        yield x + 1
        print("between")
        yield x + 2
        yield x + 3
    g = gen()
    a = next(g)
    print("outside")
    b = next(g)
    return a, b, list(g)


@case()
def p3_brk_print_in_comprehension(x):
    return [print(i) or r * i for i, r in enumerate(x)]


@case()
def p3_brk_print_in_except_then_reraise(x):
    try:
        try:
            raise ValueError("v")
        except ValueError as e:
            print("handling", e)
            raise RuntimeError("r") from e
    except RuntimeError as e:
        return x + 1, str(e.__cause__), type(e.__context__).__name__


@case()
def p3_brk_print_in_finally_after_return(x):
    log = []

    def f():
        try:
            return x * 2
        finally:
            print("finally")
            log.append(1)
    return f(), log


@case()
def p3_brk_print_in_with_body_user_cm(x):
    log = []

    @contextlib.contextmanager
    def cm():
        log.append("in")
        yield x + 1
        log.append("out")
    with cm() as y:
        print("body")
        z = y * 2
    return z, log


@case()
def p3_brk_print_in_decorated_call(x):
    calls = []

    def deco(fn):
        @functools.wraps(fn)
        def w(*a, **k):
            calls.append(fn.__name__)
            r = fn(*a, **k)
            calls.append("done")
            return r
        return w

    @deco
    def f(v, k=2):
        print("in f")
        return v * k
    return f(x, k=3), calls


@case()
def p3_brk_print_in_recursion(x):
    def r(v, n):
        if n == 0:
            print("bottom")
            return v
        return r(v + n, n - 1) * 1
    return r(x, 3)


@case()
def p3_brk_print_in_property(x):
    class P:
        def __init__(self, v):
            self.v = v

        @property
        def twice(self):
            print("prop")
            return self.v * 2
    p = P(x)
    return p.twice + p.twice


@case()
def p3_brk_global_mutated_around_print(x):
    global _P3_SCALE
    old = _P3_SCALE
    _P3_SCALE = 5.0
    print("set")
    r = _p3_uses_global(x)
    _P3_SCALE = old
    return r, _P3_SCALE


@case()
def p3_brk_print_in_loop_with_inplace_view(x):
    y = x.copy()
    v = y[0]
    for i in range(3):
        v += i
        print(i)
    return y, v


@case()
def p3_brk_print_in_while_with_break(x):
    i = 0
    acc = x * 0
    while True:
        acc = acc + x
        i += 1
        if i == 2:
            print("two")
        if i >= 3:
            break
    return acc, i


@case()
def p3_brk_print_between_errstate(x):
    with np.errstate(divide="ignore"):
        a = x / 0
        print("inside errstate")
        b = np.log(x * 0)
    return a, b


@case()
def p3_brk_kwargs_forwarding_with_print(x):
    def inner(a, *, scale=1, **rest):
        print(sorted(rest))
        return a * scale, rest

    def outer(*args, **kwargs):
        return inner(*args, **kwargs)
    return outer(x, scale=2, tag="t", n=1)


@case()
def p3_brk_partial_with_print(x):
    def f(a, b, c=0):
        print(a.shape, b, c)
        return a * b + c
    g = functools.partial(f, c=1)
    return g(x, 2), g(x, 3, c=4)


@case()
def p3_brk_dict_mutation_around_print(x):
    d = {"a": x}
    d["b"] = x + 1
    print(list(d))
    d["a"] += 1
    del d["b"]
    d["c"] = d.pop("a") * 2
    return d


@case()
def p3_brk_exception_from_inlined_after_side_effects(x):
    log = []

    def f(v):
        log.append("before")
        print("f")
        log.append("after")
        raise KeyError("k")
    try:
        f(x)
    except KeyError as e:
        log.append(repr(e))
    return log, x + 1


# -- error messages of Python-level operations ------------------------------------------

@case()
def p3_err_unpack_shape_too_few(x):
    a, b, c = x.shape
    return a


@case()
def p3_err_unpack_shape_too_many(x):
    (a,) = x.shape
    return a


@case()
def p3_err_shape_index_out_of_range(x):
    return x.shape[2]


@case()
def p3_err_array_missing_attribute(x):
    return x.foo


@case()
def p3_err_str_plus_shape(x):
    return "shape: " + x.shape


@case()
def p3_err_call_numpy_bad_kwarg(x):
    return np.sum(x, axs=0)


@case()
def p3_err_user_fn_missing_arg(x):
    def f(a, b):
        return a + b
    return f(x)


@case()
def p3_err_user_fn_unexpected_kw(x):
    def f(a, b=1):
        return a + b
    return f(x, c=2)


@case()
def p3_err_not_callable(x):
    return x.shape(0)


@case()
def p3_err_dict_missing_key_tuple(x):
    d = {(3, 4): x}
    return d[(4, 3)]


@case()
def p3_err_int_of_array(x):
    return int(x)


@case()
def p3_err_len_of_scalar(x):
    return len(x.sum())


@case()
def p3_err_iterate_scalar(x):
    for v in x.sum():
        return v


@case()
def p3_err_index_with_float(x):
    return x[1.0]


@case()
def p3_err_reshape_negative_twice(x):
    return x.reshape(-1, -1)


@case()
def p3_err_concat_dim_mismatch(x):
    return np.concatenate([x, x[:, :2]], axis=0)


# -- array attribute assignment and in-place methods --------------------------------------

@case()
def p3_set_shape_attribute_local(x):
    y = x.copy()
    y.shape = (4, 3)
    return y, y.shape


@case()
def p3_set_shape_attribute_argument(x):
    x.shape = (2, 6)
    return x.sum(axis=1)


@case()
def p3_inplace_sort_on_view(x):
    y = x[::-1].copy()
    y[0].sort()
    y[:, 1:3].sort(axis=0)
    return y


@case()
def p3_inplace_fill_and_copyto(x):
    y = np.empty_like(x)
    y.fill(3)
    np.copyto(y[1], x[0])
    np.copyto(y, 0, where=x < 0)
    return y


@case()
def p3_add_at_repeated_indices(x):
    y = np.zeros(4, dtype=x.dtype)
    np.add.at(y, [0, 0, 1, 3, 3, 3], 1)
    y[[0, 0, 2]] += 5
    return y


@case()
def p3_flat_assign_and_read(x):
    y = x.copy()
    y.flat[::5] = 9
    return y, y.flat[3], y.flat[[1, 2]]


@case()
def p3_chained_aliases_inplace(x):
    a = b = x
    a += 1
    c = a
    c *= 2
    return b is x, x, a is c


@case()
def p3_inplace_square_with_transpose_overlap(x):
    s = x[:, :3].copy()
    s += s.T
    return s


@case()
def p3_out_overlapping_input_view(x):
    y = x.copy()
    np.add(y[:, :-1], y[:, 1:], out=y[:, 1:])
    return y


@case()
def p3_obj_attr_inplace(x):
    class H:
        pass
    h = H()
    h.w = x
    h.w += 1
    h.w = h.w * 2
    return h.w, x


@case()
def p3_dtype_view_reinterpret(x):
    y = x.copy()
    i = y.view(np.int32)
    i[0, 0] = 0
    return y, i.dtype, y.view(np.uint8).shape


# -- warnings from array ops, errstate forms ------------------------------------------------

@case()
def p3_warn_log_negative_in_helper(x):
    def helper(v):
        return np.log(v)
    return helper(x), helper(x + 10)


@case()
def p3_warn_cast_nan_to_int(x):
    return (x / 0).astype(np.int64)


@case()
def p3_warn_in_loop_each_time(x):
    out = []
    for k in range(3):
        out.append(np.sqrt(x - k))
    return out


@case()
def p3_errstate_as_decorator(x):
    @np.errstate(divide="ignore", invalid="ignore")
    def safe_div(a, b):
        return a / b
    return safe_div(x, x * 0), np.geterr()["divide"]


@case()
def p3_warnings_warn_user(x):
    import warnings
    if x.shape[0] > 1:
        warnings.warn("many rows", UserWarning)
    return x + 1


@case()
def p3_warnings_catch_inside(x):
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = np.log(x)
    return y, [str(i.message) for i in w]


@case()
def p3_warnings_filter_error_inside(x):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            y = np.log(x)
        except RuntimeWarning as e:
            y = str(e)
    return y


# -- introspection users write -------------------------------------------------------------

@case()
def p3_locals_snapshot(x):
    a = x + 1
    b = 2
    names = sorted(locals())
    return a * b, names


@case()
def p3_function_metadata(x):
    def helper(v, k=3):
        """Doc."""
        return v * k
    return helper.__name__, helper.__qualname__.split(".")[-1], helper.__doc__, \
        helper.__defaults__, helper.__code__.co_argcount, helper(x)


@case()
def p3_format_attribute_and_index_fields(x):
    return "{0.shape}|{0.dtype}|{1[0]}|{a.ndim}".format(x, x.shape, a=x), \
        "%(n)d rows" % {"n": x.shape[0]}


@case()
def p3_eval_simple_expression(x):
    return eval("v * 2", {"v": x}), eval("1 + 2")


@case()
def p3_vars_of_simple_object(x):
    class O:
        def __init__(self):
            self.a = x
            self.b = 1
    o = O()
    return sorted(vars(o)), vars(o)["a"] is x


# -- state that changes between calls (guards) ------------------------------------------
# The runner interleaves eager and traced calls (eager, traced, eager, traced);
# each case bumps a counter per call and reads `count // 2`, so the traced
# function's second call sees what eager's second call saw: a changed value
# the cached translation must notice.

_P3_TICK = {"n": 0}
_P3_MODE = 0
_P3_TABLE = [np.float32(1.0)]
_P3_ARR = {"a": np.ones(3, dtype=np.float32)}


def _p3_phase():
    _P3_TICK["n"] += 1
    return (_P3_TICK["n"] - 1) // 2 % 2


@case()
def p3_guard_global_int_in_branch(x):
    global _P3_MODE
    _P3_MODE = _p3_phase()
    if _P3_MODE == 1:
        return x + 1
    return x - 1


@case()
def p3_guard_global_int_as_multiplier(x):
    global _P3_MODE
    _P3_MODE = _p3_phase()
    return x * (_P3_MODE + 2), _P3_MODE


def _p3_plus(v):
    return v + 1


def _p3_minus(v):
    return v - 1


_P3_IMPL = _p3_plus


@case()
def p3_guard_global_function_rebound(x):
    global _P3_IMPL
    _P3_IMPL = _p3_minus if _p3_phase() else _p3_plus
    return _P3_IMPL(x)


@case()
def p3_guard_mutable_default_grows(x, cache=[]):  # noqa: B006
    cache.append(1)
    k = (len(cache) + 1) // 2
    return x * k, k


@case()
def p3_guard_list_element_scalar(x):
    _P3_TABLE[0] = np.float32(1.0 + _p3_phase())
    return x * _P3_TABLE[0]


@case()
def p3_guard_global_array_shape_changes(x):
    n = 3 + _p3_phase()
    _P3_ARR["a"] = np.ones(n, dtype=np.float32)
    a = _P3_ARR["a"]
    return a.shape[0] * x, a.sum()


@case()
def p3_guard_global_array_dtype_changes(x):
    dt = np.float64 if _p3_phase() else np.float32
    _P3_ARR["a"] = np.ones(3, dtype=dt)
    return (x[0, :3] + _P3_ARR["a"]).dtype, x[0, :3] + _P3_ARR["a"]


@case()
def p3_guard_function_attribute_changes(x):
    f = p3_guard_function_attribute_changes
    f.scale = 1 + _p3_phase()
    return x * f.scale


@case()
def p3_guard_closure_cell_changes(x):
    return _P3_CLOSED(x)


def _p3_make_closed():
    k = [0]

    def g(v):
        k[0] += 1
        m = (k[0] - 1) // 2 % 2
        return v * (m + 1), m
    return g


_P3_CLOSED = _p3_make_closed()


class _P3Config:
    flag = False


@case()
def p3_guard_class_attribute_flag(x):
    _P3Config.flag = bool(_p3_phase())
    if _P3Config.flag:
        return x.sum(axis=0)
    return x.sum(axis=1)


_P3_CFG = {"act": "relu"}


@case()
def p3_guard_config_string_dispatch(x):
    _P3_CFG["act"] = "tanh" if _p3_phase() else "relu"
    if _P3_CFG["act"] == "relu":
        return np.maximum(x, 0)
    return np.tanh(x)


@case()
def p3_guard_dict_key_added(x):
    d = _P3_ARR
    if _p3_phase():
        d["extra"] = 1
    else:
        d.pop("extra", None)
    return x + len(d), "extra" in d


# -- array construction and indexing the way users write them -------------------------------

@case()
def p3_stack_of_generator_raises(x):
    return np.stack(r for r in x)


@case()
def p3_np_sum_of_generator(x):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return np.sum(r for r in x)


@case()
def p3_np_array_of_generator_is_object(x):
    a = np.array(r for r in x)
    return a.dtype, a.shape


@case()
def p3_fromiter_and_asarray_python_floats(x):
    a = np.fromiter((float(v) for v in range(4)), dtype=np.float32)
    b = np.asarray([1.0, 2.5])
    c = np.asarray([1, 2], dtype=x.dtype)
    return a, b.dtype, c.dtype, x[0] + a


@case()
def p3_scalar_type_called_on_array(x):
    a = np.float64(x)
    b = np.float32(x[0, 0])
    c = np.int64(x.sum())
    return type(a).__name__, a.dtype, type(b).__name__, type(c).__name__, c


@case()
def p3_bool_of_empty_array(x):
    return bool(x[:0])


@case()
def p3_bool_of_single_element_array(x):
    return bool(x[:1, :1] < 0), "yes" if x[0, :1] else "no"


@case()
def p3_newaxis_and_ellipsis_forms(x):
    return x[None].shape, x[..., None].shape, x[np.newaxis, :, None].shape, x[..., 0], x[1, ...]


@case()
def p3_bool_list_and_int_list_index(x):
    return x[[True, False, True]], x[[0, 2]][:, [1, 1]], x[x.shape[0] - 1], x[-1:-4:-1], x[1:1].shape


@case()
def p3_reduction_kwargs_forms(x):
    return (x.sum(axis=(0, 1)), x.sum(axis=-1, keepdims=True), x.max(initial=100.0),
            x.sum(where=x > 0), np.mean(x, axis=0, dtype=np.float64), x.min(axis=1, keepdims=True))


@case()
def p3_clip_forms(x):
    return x.clip(min=0), np.clip(x, None, 1), x.clip(-0.5, 0.5), np.clip(x, x[0], 1.0)


@case()
def p3_ufunc_methods(x):
    v = x[0]
    return (np.maximum.accumulate(v), np.add.outer(v, v[:2]), np.minimum.reduceat(v, [0, 2]),
            np.multiply.reduce(v), np.add.accumulate(x, axis=1))


@case()
def p3_einsum_and_matmul_forms(x):
    return np.einsum("ij,kj->ik", x, x), x @ x.T, np.dot(x[0], x[1]), np.tensordot(x, x, axes=([1], [1])), np.inner(x, x)


@case()
def p3_user_class_with_array_method(x):
    class Wrapped:
        def __init__(self, a):
            self.a = a

        def __array__(self, dtype=None, copy=None):
            return self.a
    w = Wrapped(x * 2)
    return np.asarray(w), np.sum(w), np.add(w, 1)


@case()
def p3_round_float32_decimals(x):
    return x.round(1), np.round(x * 3.3, 2), np.around(x, -1)


@case()
def p3_item_and_len_shape(x):
    return x[1, 2].item(), x.item(5), len(x.shape), np.shape(5), np.ndim([[1, 2]]), np.size(x, 1)


# -- dataflow users write with dicts/lists of arrays -------------------------------------------

@case()
def p3_params_dict_update_loop(x):
    params = {"w": x, "b": x[0] * 0}
    grads = {"w": x * 0.1, "b": x[0] * 0.2}
    lr = 0.5
    for k in params:
        params[k] = params[k] - lr * grads[k]
    return params


@case()
def p3_params_inplace_update_loop(x):
    params = {"w": x.copy(), "b": x[0].copy()}
    for name, p in params.items():
        p -= 0.1 * np.sign(p)
    return params


@case()
def p3_layers_list_forward(x):
    ws = [np.eye(4, dtype=x.dtype) * (i + 1) for i in range(3)]
    h = x
    acts = []
    for i, w in enumerate(ws):
        h = h @ w
        if i < len(ws) - 1:
            h = np.maximum(h, 0)
        acts.append(h.shape)
    return h, acts


@case()
def p3_history_append_and_stack(x):
    hist = []
    h = x[0]
    for t in range(4):
        h = np.tanh(h + t)
        hist.append(h)
    return np.stack(hist), np.stack(hist, axis=1).shape, np.vstack(hist[:2])


@case()
def p3_zip_dict_items_to_arrays(x):
    names = ["a", "b", "c"]
    d = dict(zip(names, x))
    return {k: v.sum() for k, v in d.items()}, list(d)[::-1]


# -- raise forms inside nested try statements, on an in-place-updated 0-d array -----------

Z0 = np.array(0.25, dtype=np.float32)


@case(Z0)
def p3_raise_bare_without_active_exception(x):
    try:
        x += 1
        raise  # noqa: PLE0704
    except RuntimeError as e:
        x -= 3
        msg = str(e)
    x *= 4
    return x, msg


@case(Z0)
def p3_raise_bare_reraises_zero_division(x):
    x += 1
    try:
        try:
            x += 2
            10 / 0
        except ZeroDivisionError:
            x += 3
            raise
    except:  # noqa: E722
        x += 4
    return x + 5


@case(Z0)
def p3_raise_in_else_caught_outside(x):
    x += 1
    try:
        try:
            x += 2
        except:  # noqa: E722
            x += 3
        else:
            x += 4
            raise NotImplementedError
    except:  # noqa: E722
        x += 6
    return x + 7


@case(Z0)
def p3_raise_from_none_in_finally(x):
    x -= 10
    try:
        try:
            x -= 300
        finally:
            x -= 400
            raise ValueError from None
    except ValueError as e:
        x -= 500
        sup = e.__suppress_context__
    return x - 600, sup


@case(Z0)
def p3_raise_chain_name_error_to_timeout(x):
    try:
        x += 1
        try:
            x /= 2
            raise NameError
        except NameError as e:
            x -= 4
            raise TimeoutError("TESTING") from e
    except Exception as e:  # noqa: BLE001
        x /= 5
        kinds = (type(e).__name__, type(e.__cause__).__name__)
    return x + 6, kinds


@case(Z0)
def p3_raise_unmatched_tuple_then_matched(x):
    try:
        try:
            x -= 1
            raise ValueError("TESTING")
        except NotImplementedError:
            x /= 3
            raise
    except (KeyError, IndexError):
        x *= 4
    except ValueError:
        x += 5
    return x


@case(Z0)
def p3_raise_unmatched_propagates_with_message(x):
    y = x + 3
    try:
        x = x + 1
        raise ValueError("TESTING!")
    except KeyError:
        y = x * 2
    return y + 3


@case(Z0)
def p3_return_in_finally_overrides(x):
    def f(v):
        try:
            v = v + 1
            raise KeyError("lost")
        finally:
            return v * 2  # noqa: B012
    return f(x)


@case(Z0)
def p3_builtin_exception_objects_created(x):
    def identity(e):
        return e
    x += 1
    errs = [ValueError(), TypeError(""), KeyError(""), Exception("m"),
            UnicodeTranslateError("", -1, -1, ""), StopIteration(3)]
    for e in errs:
        identity(e)
        x += 1
    return x, [type(e).__name__ for e in errs], errs[-1].value, str(errs[2])


@case(Z0)
def p3_exception_args_and_repr(x):
    e = KeyError("a", 1)
    f = OSError(2, "No such file")
    return e.args, repr(e), str(f), f.errno, f.strerror, type(f).__name__, x + 1


# -- context managers that flip global state, generator protocol corners ----------------------

_P3_FLAG = {"on": False}


class _P3Flag:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        self.prev = _P3_FLAG["on"]
        _P3_FLAG["on"] = self.value
        return self

    def __exit__(self, *exc):
        _P3_FLAG["on"] = self.prev
        return False


def _p3_flagged(v):
    return v * 2 if _P3_FLAG["on"] else v - 2


@case()
def p3_ctx_global_flag_read_inside(x):
    a = _p3_flagged(x)
    with _P3Flag(True):
        b = _p3_flagged(x)
        with _P3Flag(False):
            c = _p3_flagged(x)
        d = _p3_flagged(x)
    return a, b, c, d, _P3_FLAG["on"]


@case()
def p3_ctx_flag_restored_on_exception(x):
    try:
        with _P3Flag(True):
            y = _p3_flagged(x)
            raise ValueError("inside")
    except ValueError:
        pass
    return y, _P3_FLAG["on"], _p3_flagged(x)


@case()
def p3_ctx_return_inside_nested_with(x):
    log = []

    @contextlib.contextmanager
    def cm(n):
        log.append(f"+{n}")
        yield n
        log.append(f"-{n}")

    def f():
        with cm(1) as a, cm(2) as b:
            return x * (a + b)
    return f(), log


@case()
def p3_ctx_exit_raises_replaces(x):
    class Bad:
        def __enter__(self):
            return x + 1

        def __exit__(self, *exc):
            raise KeyError("from exit")
    try:
        with Bad() as y:
            z = y * 2
    except KeyError as e:
        return z, str(e)


@case()
def p3_ctx_suppress_in_loop(x):
    out = []
    for k in (1, 0, 2):
        with contextlib.suppress(ZeroDivisionError):
            out.append(x / k if k else 1 // k)
    return out


@case()
def p3_ctx_closing_and_nullcontext_value(x):
    class Res:
        closed = False

        def close(self):
            Res.closed = True
    with contextlib.closing(Res()) as r:
        y = x + 1
    with contextlib.nullcontext(x * 2) as z:
        pass
    return y, z, r.closed


@case()
def p3_gen_throw_caught_inside(x):
    def g():
        total = x * 0
        while True:
            try:
                v = yield total
                total = total + v
            except KeyError:
                total = total - 100
    it = g()
    next(it)
    it.send(x)
    r = it.throw(KeyError("k"))
    s = it.send(1)
    return r, s


@case()
def p3_gen_close_catches_and_yields_raises(x):
    def g():
        try:
            yield x
        except GeneratorExit:
            yield x + 1
    it = g()
    next(it)
    try:
        it.close()
    except RuntimeError as e:
        return str(e)


@case()
def p3_gen_exhausted_next_raises_caught(x):
    it = iter([x])
    next(it)
    try:
        next(it)
    except StopIteration as e:
        return e.value, x + 1


@case()
def p3_gen_yield_from_list_and_return(x):
    def inner():
        yield from [x, x + 1]
        return 5

    def outer():
        n = yield from inner()
        yield n * x
    return list(outer())


@case()
def p3_iter_callable_sentinel(x):
    vals = [3, 2, 1, 0, 5]
    it = iter(vals.pop, 1)
    return list(it), vals, x * len(vals)


@case()
def p3_itertools_tee_and_groupby_key(x):
    a, b = itertools.tee(iter(range(5)))
    next(a)
    g = [(k, len(list(v))) for k, v in itertools.groupby([1, 1, 2, 3, 3, 3], key=lambda v: v % 2)]
    return list(a), list(b), g, x.sum(axis=0)


@case()
def p3_gen_state_across_calls_in_loop(x):
    def chunks(a, n):
        for i in range(0, a.shape[0], n):
            yield i, a[i:i + n]
    out = {}
    for i, c in chunks(x, 2):
        out[i] = c.sum(axis=0)
    return out
