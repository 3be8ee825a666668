"""Corners of Python semantics around NumPy values: aliasing and views,
dtype and scalar-type corners, exceptions' chaining, super() in
classmethods, dataclass and Enum extras, formatting, argument passing."""
from __future__ import annotations

import collections.abc
import contextlib
import dataclasses
import enum
import functools
import math
import operator
import sys

import numpy as np

from . import X, case

Z = np.array(2.5, dtype=np.float32)





@case()
def readonly_write_raises(x):
    y = x.copy()
    y.flags.writeable = False
    y[0] = 1
    return y


@case(np.arange(6.0).reshape(2, 3).astype(">f8"))
def big_endian_input(x):
    return x + 1, (x * 2).dtype.byteorder


@case(np.ma.masked_array(np.arange(4.0), mask=[0, 1, 0, 0]))
def masked_input(x):
    return x * 2, np.sum(x)



@case(np.arange(4, dtype=np.int64))
def int_plus_huge_python_int(i):
    return i + 2 ** 70


@case(np.arange(4, dtype=np.int64))
def int64_overflow_mul(i):
    return i * np.int64(2 ** 62)


@case()
def array_in_list_identity(x):
    return x in [x], x in (1, x)


@case()
def array_in_list_ambiguous(x):
    return x in [x + 1]


@case()
def overlapping_inplace_add(x):
    x[1:] += x[:-1]
    return x


@case()
def overlapping_out(x):
    np.add(x, 1, out=x[::-1]) if False else None
    y = x[::-1]
    np.add(x, 1, out=y)
    return x


@case()
def overlapping_assign(x):
    x[1:] = x[:-1]
    return x


@case()
def iter_arg_partially(x):
    it = iter([1, 2, 3])
    a = next(it)
    return x * a, list(it)


@case()
def late_binding_lambdas(x):
    fs = [lambda v: v * i for i in range(3)]
    return [f(x) for f in fs]


@case()
def returned_lambda_call_later(x):
    return (lambda v: v + x)(1)


@case()
def super_in_local_class(x):
    class A:
        def f(self):
            return 1
    class B(A):
        def f(self):
            return super().f() + 1
    return x * B().f()


@case()
def dict_array_value_inplace(x):
    d = {"a": x}
    d["a"] += 1
    return x


@case()
def tuple_of_array_inplace(x):
    t = (x,)
    y = t[0]
    y *= 2
    return x


@case()
def list_plus_equals_alias(x):
    a = [1]
    b = a
    b += [x]
    return a, len(a), x + 1


@case()
def tuple_plus_equals_no_alias(x):
    a = (1,)
    b = a
    b += (x,)
    return a, b, x + 1


@case()
def sum_of_bools(x):
    return sum([True, True, False]), sum(x[0] > 0)


@case()
def scalar_types(x):
    return type(x.shape[0] * 1.0), type(x.sum() + 1), type(np.float32(1) + 1), type(x.ndim / 2), type(len(x) // 2)


@case()
def empty_reduction_warns(x):
    return x[:0].mean()


@case()
def np_int_div_zero_scalar(x):
    return np.int64(1) // np.int64(0), x


@case()
def hash_float32_scalar(x):
    return hash(np.float32(1.5)), hash(x[0, 0]) == hash(float(x[0, 0]))


@case()
def random_consumption(x):
    np.random.seed(1)
    a = np.random.rand(2)
    return x[0, :2] + a


@case()
def random_global_no_seed(x):
    st = np.random.get_state()
    r = np.random.rand()
    np.random.set_state(st)
    return x * 0 + r


@case()
def modify_list_while_iter(x):
    a = [1, 2, 3]
    out = []
    for v in a:
        if v == 1:
            a.append(4)
        out.append(v)
    return out, x, x + 1


@case()
def dict_size_change_raises(x):
    d = {"a": 1}
    for k in d:
        d["b"] = 2
    return x


@case()
def nonlocal_in_generator(x):
    total = 0
    def g():
        nonlocal total
        for i in range(3):
            total += i
            yield i
    list(g())
    return x * total


@case()
def string_array_interplay(x):
    return np.array(["a", "bb"]), np.char.upper(np.array(["a"])), x


@case()
def object_dtype_array(x):
    a = np.array([1, "a", None], dtype=object)
    return a, a[0] + 1


@case()
def ndarray_setitem_list_arg(x):
    x[[0, 0]] += 1
    return x


@case()
def add_at(x):
    np.add.at(x, [0, 0], 1)
    return x


@case()
def structured_dtype(x):
    a = np.zeros(2, dtype=[("a", "f4"), ("b", "i4")])
    a["a"] = x[0, :2]
    return a


@case()
def nan_key_dict(x):
    n = float("nan")
    d = {n: 1}
    return n in d, float("nan") in d, x


@case()
def float_int_equal_keys(x):
    d = {1: "a", 1.0: "b", True: "c"}
    return d, x, x + 1


@case()
def isinstance_numbers(x):
    import numbers
    return isinstance(x[0, 0], numbers.Real), isinstance(3, numbers.Integral), isinstance(x.shape[0], numbers.Number)


@case()
def exception_attr_after(x):
    try:
        raise ValueError("a")
    except ValueError as e:
        err = e
    return err.args, x, x + 1


@case()
def except_deletes_name(x):
    e = 1
    try:
        raise KeyError
    except KeyError as e:
        pass
    return x, "e" in locals()


@case()
def print_array(x):
    print(x)
    print(x * 2)
    return x


@case()
def print_to_file_kw(x):
    print("a", file=sys.stdout, flush=True)
    return x


@case()
def inplace_on_int_array_arg_with_float(x):
    i = x.astype(np.int64)
    i += 1
    return i


@case()
def view_then_mutate_base(x):
    v = x[0]
    x[0, 0] = 99
    return v


@case()
def result_view_of_local(x):
    y = x + 1
    return y[0], y


@case()
def reversed_list_and_mutation(x):
    a = [x, x + 1]
    r = reversed(a)
    a.append(x + 2)
    return list(r)


@case()
def zip_then_mutate(x):
    a = [1, 2]
    z = zip(a, a)
    a.append(3)
    return list(z), x, x + 1


@case()
def enumerate_of_dict_mutated(x):
    d = {"a": 1}
    out = []
    for k in list(d):
        d[k + "x"] = 2
        out.append(k)
    return out, d, x, x + 1


@case()
def keyword_only_missing_raises(x):
    def f(*, a):
        return a
    return f()


@case()
def too_many_args(x):
    def f(a):
        return a
    return f(x, 1)


@case()
def unhashable_key(x):
    return {[1]: 2}


@case()
def unhashable_array_key(x):
    return {x: 1}


@case()
def chained_method_on_none(x):
    return None.foo


@case()
def numpy_bool_scalar_in_if(x):
    b = np.bool_(True)
    if b:
        return x + 1
    return -x


@case()
def np_float_as_index_raises(x):
    return [1, 2, 3][np.float64(1.0)]


@case()
def np_int_as_list_index(x):
    return [1, 2, 3][np.int64(1)], "abc"[np.int32(2)], x


@case()
def float_to_int_dims(x):
    return np.zeros(int(x.shape[0] / 2)), np.zeros((2.0,)) if False else 0


@case()
def round_half_even(x):
    return round(0.5), round(1.5), round(2.5), round(-0.5), np.round(2.5), x


@case()
def int_true_division_float(x):
    return 7 / 2, -7 // 2, 7 % -3, 2 ** -1, 0 ** 0, x, x + 1


@case()
def str_join_of_numpy_scalars(x):
    return ",".join(str(v) for v in x[0])


@case()
def list_sort_arrays_raises(x):
    a = [x[0], x[1]]
    a.sort()
    return a


@case()
def max_of_arrays_raises(x):
    return max(x[0], x[1])


@case()
def sorted_rows_by_key(x):
    return sorted(list(x), key=lambda r: float(r.sum()), reverse=True)


@case()
def array_eq_in_if_raises(x):
    if x == x:
        return 1
    return 0


@case()
def np_array_of_scalar_types(x):
    a = np.array(x.shape)
    b = np.array(3)
    c = np.array(3.0, dtype=np.float32)
    return a, b, c, np.asarray(x[0, 0]), np.array(x[0, 0])


@case()
def dtype_from_string_and_type(x):
    return x.astype("float64"), x.astype(float), x.astype(int), x.astype("i2"), np.dtype("f4") == x.dtype


@case()
def astype_unsafe_nan_to_int(x):
    y = x / 0
    return y.astype(np.int32)


@case()
def complex_python_scalar(x):
    return x * 1j, x + (1 + 0j)


@case()
def bool_python_scalar_promote(x):
    return x * True, (x > 0) + True, (x > 0) * 2.5, np.int8(3) * True


@case()
def int8_python_int_overflow(x):
    return np.int8(100) + 100


@case()
def float32_python_float_large(x):
    return x * 1e300, np.float32(1) * 1e300


@case()
def uint_minus(x):
    return np.uint8(3) - 5


@case()
def mixed_scalar_array_0d(x):
    z = np.array(1.5, dtype=np.float64)
    return x * z, x.astype(np.int32) + z, z + np.float32(1)


@case()
def int_array_power_float(x):
    i = np.arange(4)
    return i ** 0.5, i ** 2, 2 ** i, 2.0 ** i, i ** np.int64(3)


@case()
def divmod_arrays(x):
    return divmod(x, 0.5), np.divmod(x, 0.3), x // -0.5


@case()
def comparisons_mixed(x):
    return x > 1, 1 < x, np.float32(1) < 2, x.shape < (4, 4), (x > 0).sum() > 2


@case()
def abs_of_min_int(x):
    i = np.array([np.iinfo(np.int64).min])
    return abs(i), np.abs(i), -i





@case()
def closure_cell_escapes_after_change(x):
    k = 1
    def get():
        return k
    k = 7
    return get(), x + 1


@case()
def nonlocal_across_break(x):
    n = 0
    def inc():
        nonlocal n
        n += 1
    inc()
    print("b")
    inc()
    return n, x + 1


class Cnt:
    count = 0
    def __init__(self):
        type(self).count += 1


@case()
def class_attr_via_type_self(x):
    before = Cnt.count
    Cnt()
    Cnt()
    return Cnt.count - before, x + 1


@dataclasses.dataclass(order=True)


class P:
    a: int
    b: float = 0.0
    c: list = dataclasses.field(default_factory=list, compare=False)
    def __post_init__(self):
        self.b = self.b * 2


@case()
def dataclass_post_init_and_order(x):
    p, q = P(1, 1.0), P(1, 2.0)
    return p.b, p < q, p == P(1, 1.0), sorted([q, p])[0].b, x + 1


@dataclasses.dataclass


class Q:
    a: float
    n: int = dataclasses.field(init=False, default=3)


@case()
def dataclass_field_init_false(x):
    q = Q(2.0)
    return x * q.a + q.n, dataclasses.fields(q)[1].name


class A1:
    def f(self): return "A1"


class B1(A1):
    def f(self): return "B1" + super().f()


class C1(A1):
    def f(self): return "C1" + super().f()


class D1(B1, C1):
    def f(self): return "D1" + super().f()


@case()
def diamond_mro(x):
    return D1().f(), [k.__name__ for k in D1.__mro__], x + 1


class Base2:
    @classmethod
    def make(cls):
        return cls.__name__


class Sub2(Base2):
    @classmethod
    def make(cls):
        return "sub-" + super().make()


@case()
def super_in_classmethod(x):
    return Sub2.make(), x + 1


class Lazy:
    @property
    def p(self):
        raise AttributeError("no p")
    def __getattr__(self, name):
        return "fallback-" + name


@case()
def property_attributeerror_falls_to_getattr(x):
    return Lazy().p, x + 1


class Shadow:
    def m(self):
        return 1


@case()
def instance_dict_shadows_method(x):
    s = Shadow()
    s.m = lambda: 2
    return s.m(), Shadow().m(), x + 1


@case()
def abc_isinstance(x):
    return isinstance([], collections.abc.Sequence), isinstance({}, collections.abc.Mapping), isinstance(x, collections.abc.Sized), x + 1


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    @property
    def pretty(self):
        return self.name.lower()
    def twice(self):
        return self.value * 2


@case()
def enum_methods(x):
    c = Color.GREEN
    return c.pretty, c.twice(), Color(1) is Color.RED, x * c.value


@case()
def percent_format_numpy(x):
    return "%.2f|%d|%s" % (np.float32(1.5), np.int64(3), np.float64(2.0)), x + 1


@case()
def dict_update_existing_keeps_order(x):
    d = {"a": 1, "b": 2}
    d["a"] = 3
    d.update(b=4, c=5)
    return list(d.items()), [*d], x + 1


@case()
def dict_comp_duplicate_keys(x):
    return {k % 2: k for k in range(5)}, x + 1


@case()
def sort_stability(x):
    a = [(1, "b"), (0, "a"), (1, "a"), (0, "b")]
    return sorted(a, key=lambda p: p[0]), x + 1


@case()
def numpy_bool_int_float(x):
    return int(np.bool_(True)), float(np.int64(3)), bool(np.float32(0.0)), x + 1


@case()
def scalar_pow_types(x):
    return np.float32(2) ** 0.5, 2.0 ** np.float32(3), np.int64(2) ** 3, 2 ** np.int32(3), x + 1


@case()
def math_floor_numpy_scalar_type(x):
    return math.floor(np.float32(2.5)), math.ceil(np.float64(1.2)), x + 1


@case(Z)
def zero_d_inplace_arg(z):
    z += 1
    z[...] = z * 2
    return z, float(z) if False else 0


@case(Z)
def zero_d_indexing_forms(z):
    return z[()], z[...], z[None], z.shape, z.ndim, z + 0


@case()
def out_broadcast_larger(x):
    out = np.zeros((2, 3, 4), np.float32)
    np.add(x, 1, out=out)
    return out


@case()
def out_dtype_cast_error(x):
    out = np.zeros((3, 4), np.int32)
    np.add(x, 1, out=out)
    return out


@case()
def out_dtype_cast_unsafe_ok(x):
    out = np.zeros((3, 4), np.int32)
    np.add(x, 1, out=out, casting="unsafe")
    return out


@case()
def negative_index_out_of_range(x):
    return x[-4]


@case(X, [1, 2, 3], {"a": 1, "b": 2})
def del_on_arguments(x, lst, d):
    del lst[0]
    del d["a"]
    return x + len(lst) + len(d)


@case()
def print_star_and_sep_none(x):
    print(*[1, 2, 3], sep=None)
    print()
    return x + 1


@case()
def raise_from_none(x):
    try:
        try:
            raise KeyError("a")
        except KeyError:
            raise ValueError("b") from None
    except ValueError as e:
        return e.__suppress_context__, e.__cause__ is None, x + 1


@case()
def return_in_finally_swallows(x):
    def f():
        try:
            raise KeyError("k")
        finally:
            return 5
    return f(), x + 1


@case()
def user_cm_suppresses(x):
    class S:
        def __enter__(self): return self
        def __exit__(self, *a): return True
    with S():
        raise KeyError("k")
    return x + 1


@case()
def contextmanager_suppress_via_try(x):
    @contextlib.contextmanager
    def cm():
        try:
            yield
        except KeyError:
            pass
    with cm():
        raise KeyError("a")
    return x + 1


@case()
def exception_in_finally_replaces(x):
    try:
        try:
            raise KeyError("a")
        finally:
            raise ValueError("b")
    except ValueError as e:
        return type(e.__context__).__name__, x + 1


@case()
def isinstance_tuple_nested(x):
    return isinstance(x, (int, (float, np.ndarray))), x + 1


@case()
def callable_class_and_instance(x):
    class K:
        def __call__(self, v):
            return v * 3
    k = K()
    return callable(K), callable(k), k(x)


@case()
def partial_repr_args_keywords(x):
    p = functools.partial(np.add, x)
    return p.func is np.add, len(p.args), p.keywords, p(1)


@case()
def operator_attrgetter_dotted(x):
    return operator.attrgetter("T.shape")(x), x + 1


@case()
def str_methods_on_dtype_name(x):
    n = x.dtype.name
    return n.upper(), n[:5], n.replace("32", "64"), len(n), x + 1


@case()
def list_index_with_start(x):
    a = [1, 2, 1, 2]
    return a.index(1, 1), a.index(2, 2, 4), x + 1


@case()
def list_index_missing_raises(x):
    return [1, 2].index(5), x


@case()
def chained_assignment_aliases(x):
    a = b = []
    a.append(x)
    return len(b), b[0] + 1


@case()
def multiple_assignment_targets_order(x):
    d = {}
    d["a"] = d["b"] = x + 1
    return d["a"] is d["b"], list(d)


@case()
def conditional_import_inside(x):
    import math as m
    return m.sqrt(4) * x


@case()
def global_statement_read_after_write(x):
    global _GV
    _GV = x.shape[0]
    return _GV * x


@case()
def nested_function_default_evaluated_once(x):
    out = []
    for i in range(3):
        def f(v=i):
            return v
        out.append(f())
    return out, x + 1


@case()
def lambda_in_default(x):
    def f(g=lambda v: v * 2):
        return g(x)
    return f()


@case()
def keyword_argument_unpack_order(x):
    def f(**kw):
        return list(kw)
    return f(**{"b": 1}, a=2, **{"c": 3}), x + 1


@case()
def duplicate_keyword_raises(x):
    def f(**kw):
        return kw
    return f(**{"a": 1}, **{"a": 2})


@case()
def star_args_from_generator(x):
    return np.add(*(v for v in (x, 1)))


@case()
def int_subclass_bool_ops(x):
    return True + True, True * x[0, 0], (x > 0).dtype, x + True


@case()
def slice_with_none_and_negative(x):
    return x[-1:-3:-1], x[:, -100:100], x[5:], x[::3]


@case()
def tuple_compare_with_arrays_raises(x):
    return (x, 1) == (x + 0, 1)


@case()
def list_eq_same_array_identity(x):
    return [x] == [x], (x,) == (x,), x + 1


@case()
def max_of_shape_and_scalars(x):
    return max(x.shape), min(x.shape[0], 2.5), max(1, 2.0), max(2.0, 2), x + 1


@case()
def sum_floats_order(x):
    return sum([0.1, 0.2, 0.3]), sum([1e100, 1.0, -1e100]), math.fsum([1e100, 1.0, -1e100]), x + 1


@case()
def folded_list_is_fresh_on_every_call(x):
    s = sorted((3, 1, 2))
    s.append(0)
    d = dict((("a", 1),))
    d["b"] = 2
    return s, d, x + 1


@case()
def methods_of_immutable_values(x):
    t_ = (1, 2, 1)
    return (t_.index(2), t_.count(1), (255).bit_length(), (2.5).is_integer(), "a-b".rpartition("-"),
            b"ab".hex(), range(0, 9, 3).index(6), frozenset({1}).union({2}), x + 1)


@case(X, {"a": 1})
def dict_or_operators_on_argument(x, d):
    merged = d | {"b": 2}
    d |= {"c": 3}
    return merged, x * len(d)


@case()
def percent_format_and_tuple_ordering(x):
    return "%d/%s %r" % (3, "x", (1, 2)), (1, 5) < (1, 7), [2, 1] >= [2], (1, "a") > (1, "B"), x + 1


@case()
def slice_and_range_attributes(x):
    s, r = slice(1, None, 2), range(2, 9, 3)
    return x[:, s], s.start, s.stop, s.step, r.start, r.stop, r.step
