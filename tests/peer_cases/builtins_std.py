"""Builtins over NumPy values and Python containers: sorted, zip, enumerate,
map, filter, isinstance, getattr/hasattr, min/max/sum/abs/round, len, bool,
int/float conversions, list/dict/set/tuple methods."""
from __future__ import annotations

import numpy as np

from . import I, V, X, Y, case


@case()
def b_len_and_shape(x):
    return len(x), x.shape, x.size, x.ndim, x * len(x[0])


@case()
def b_sorted_keys_reverse(x):
    d = {"b": 2, "a": 1, "c": 0}
    return sorted(d), sorted(d, key=d.get), sorted([3, 1, 2], reverse=True), x, x + 1


@case(V)
def b_sorted_array_elements(v):
    return sorted(v)


@case()
def b_zip_enumerate(x):
    return [(i, a, b) for i, (a, b) in enumerate(zip(x, "xyz"), start=1)]


@case()
def b_zip_uneven(x):
    return list(zip([1, 2, 3], (4, 5))), x, x + 1


@case()
def b_map_lambda(x):
    return list(map(lambda r: r * 2, x))


@case()
def b_map_two_iterables(x):
    return list(map(np.add, x, [1, 2, 3]))


@case()
def b_filter_none_and_fn(x):
    return list(filter(None, [0, 1, "", "a", None])), list(filter(lambda v: v % 2, range(7))), x


@case()
def b_isinstance_variants(x):
    return (isinstance(x, np.ndarray), isinstance(x, (list, tuple)), isinstance(3, int),
            isinstance(True, int), isinstance(x.dtype, np.dtype), isinstance(x[0, 0], np.floating))


@case()
def b_issubclass(x):
    return issubclass(bool, int), issubclass(np.float32, np.floating), issubclass(type(x), object), x, x + 1


@case()
def b_getattr_default(x):
    return getattr(x, "shape"), getattr(x, "nope", 5), hasattr(x, "T"), hasattr(x, "zzz")


@case()
def b_getattr_method_call(x):
    name = "sum"
    return getattr(x, name)(axis=0)


@case()
def b_min_max_python(x):
    return min(3, 1, 2), max([4, 9, 2]), min("bca"), max((1, 5), (1, 7)), min([], default=x.shape[0]), x + 1


@case()
def b_min_max_key(x):
    rows = list(x)
    return max(rows, key=lambda r: r.sum()), min(range(5), key=lambda i: (i - 2) ** 2)


@case()
def b_max_over_array_scalars(x):
    return max(x[0, 0], x[1, 1]), min(float(x[2, 3]), 0.5)


@case()
def b_sum_start(x):
    return sum([x, x], x * 0), sum(range(5), 10), sum([0.1] * 3)


@case()
def b_abs_round_divmod(x):
    return abs(-3), abs(x), round(2.675, 2), round(7.5), divmod(17, 5), divmod(-7.5, 2), pow(2, 10, 7)


@case()
def b_round_numpy_scalar(x):
    return round(x[1, 1], 1), round(np.float64(2.5)), round(np.float32(1.25), 1)


@case()
def b_int_float_bool_of_scalars(x):
    return int(x[2, 3]), float(x[0, 1]), bool(x[1, 1]), int(x.shape[0] * 1.9), complex(1, 2)


@case()
def b_int_parsing(x):
    return int("12"), int("ff", 16), float("1e3"), int(3.99), int(-3.99), x, x + 1


@case()
def b_bool_of_containers(x):
    return bool([]), bool((0,)), bool({}), bool(""), bool(0.0), bool(x.shape), x + 1


@case()
def b_bool_of_array_raises(x):
    return bool(x)


@case()
def b_any_all_builtin_on_array_rows(x):
    return any(x[0] > 1), all(x[2] > 0)


@case()
def b_reversed_and_slices(x):
    return list(reversed([1, 2, 3])), list(reversed(range(4))), [r for r in reversed(x)]


@case()
def b_iter_next(x):
    it = iter(x)
    a = next(it)
    b = next(it)
    return a - b, next(it, None) is not None


@case()
def b_type_checks(x):
    return type(x) is np.ndarray, type(3) == int, type(x[0, 0]).__name__, type(x.shape) is tuple


@case()
def b_callable_and_id_equality(x):
    return callable(np.sum), callable(x), callable(len), x is x.T.T


@case()
def b_hash_of_tuple(x):
    return hash((1, 2)) == hash((1, 2)), hash("a") == hash("a"), x


@case()
def b_list_methods(x):
    a = [3, 1, 2]
    a.append(x)
    a.insert(0, 9)
    a.extend([7, 8])
    a.remove(1)
    p = a.pop()
    q = a.pop(0)
    return a[:3], p, q, len(a), a.index(2), a.count(3)


@case()
def b_list_sort_reverse_inplace(x):
    a = [5, 2, 8, 1]
    a.sort()
    b = [5, 2, 8, 1]
    b.sort(key=lambda v: -v)
    c = [1, 2, 3]
    c.reverse()
    return a, b, c, x


@case()
def b_list_slice_assignment(x):
    a = list(range(6))
    a[1:3] = [x, x]
    a[::2] = ["a", "b", "c"]
    del a[-1]
    return a


@case()
def b_list_ops(x):
    a = [1, 2] + [3]
    a += [4]
    a *= 2
    return a, [0] * 3, 3 in a, a == [1, 2, 3, 4] * 2, x, x + 1


@case()
def b_list_copy_independent(x):
    a = [x, 1]
    b = a.copy()
    b.append(2)
    c = list(a)
    c[0] = 5
    return len(a), len(b), a[0] is x, c[0], x + 1


@case()
def b_list_clear_and_del(x):
    a = [1, 2, 3]
    a.clear()
    b = [1, 2, 3, 4]
    del b[1:3]
    return a, b, x, x + 1


@case()
def b_list_arg_mutated(x, lst=None):
    lst = [1, 2]
    lst.append(x)
    return lst, x + 1


@case(X, [1, 2])
def b_list_argument_append(x, lst):
    lst.append(x.sum())
    lst[0] = "first"
    return len(lst)


@case(X, {"a": 1})
def b_dict_argument_mutations(x, d):
    d["b"] = x
    d.update(c=3)
    d.pop("a")
    d.setdefault("e", [])
    return sorted(d), x + 1


@case()
def b_dict_methods(x):
    d = {"a": x, "b": 2}
    d["c"] = 3
    d.update({"d": 4}, e=5)
    v = d.pop("b")
    w = d.pop("zz", None)
    d.setdefault("f", 6)
    g = d.get("a")
    return list(d), v, w, g, list(d.values())[1:], list(d.items())[-1], x + 1


@case()
def b_dict_iteration_order_and_del(x):
    d = dict(a=1, b=2, c=3)
    del d["b"]
    d["b"] = 4
    return [(k, v) for k, v in d.items()], x * len(d)


@case()
def b_dict_keyerror(x):
    d = {"a": x}
    return d["b"]


@case()
def b_dict_fromkeys_and_in(x):
    d = dict.fromkeys("abc", 0)
    return d, "a" in d, "z" not in d, x


@case()
def b_dict_popitem_copy(x):
    d = {"a": 1, "b": x}
    e = d.copy()
    k, v = e.popitem()
    return k, v is x, len(d), len(e), x + 1


@case()
def b_dict_int_keys_and_tuple_keys(x):
    d = {0: x, (1, 2): "t", 2.5: "f"}
    return d[0], d[(1, 2)], d[2.5], len(d)


@case()
def b_set_ops(x):
    a = {1, 2, 3}
    b = {2, 3, 4}
    return sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b), a <= b, 2 in a, x, x + 1


@case()
def b_set_methods(x):
    s = set()
    s.add(3)
    s.add(1)
    s.update([5, 1])
    s.discard(9)
    s.remove(3)
    return sorted(s), len(s), x, x + 1


@case()
def b_frozenset(x):
    f = frozenset([1, 2, 2])
    return len(f), 2 in f, x


@case()
def b_tuple_ops(x):
    t = (1, 2, 3)
    return t + (4,), t * 2, t[1:], t.index(2), t.count(1), t < (1, 3), x


@case()
def b_tuple_of_arrays_indexing(x):
    t = (x, x * 2, x * 3)
    return t[-1], t[::2]


@case()
def b_enumerate_list_of_arrays(x):
    out = []
    for i, r in enumerate([x, x.T]):
        out.append(r.shape[0] * i)
    return out


@case()
def b_zip_strict_raises(x):
    return list(zip([1, 2], [1], strict=True))


@case()
def b_range_index_len(x):
    r = range(0, 10, 2)
    return r[2], len(r), r.index(4), list(r[::-1]), x + 1


@case()
def b_chr_ord_bin_hex(x):
    return bin(10), hex(255), oct(8), ord("z") - ord("a"), x + 1


@case()
def b_all_any_on_lists(x):
    return all([]), any([]), all([1, 0]), any([0, 0, 3]), x, x + 1


@case()
def b_slice_builtin(x):
    s = slice(None, None, -1)
    return x[s], s.start, s.step


@case()
def b_isinstance_bool_in_branch(x, flag=True):
    if isinstance(flag, bool) and flag:
        return x * 2
    return x


@case()
def b_len_of_dict_and_str(x):
    return x * len({"a": 1}) + len("abc")


@case()
def b_print_values(x):
    print("shape", x.shape, "sum", float(x.sum()))
    return x + 1


@case()
def b_print_sep_end(x):
    print(1, 2, sep="-", end="!\n")
    print(f"{x.dtype}")
    return x


@case(3, 4.5)
def b_python_number_ops(a, b, x=X):
    return a + b, a // 2, -a % 3, b ** 2, a / 2, a << 2, ~a, a & 6, a | 8, a ^ 5, 7 // -2, -7 % 3, x + 1


@case(7, 0)
def b_zero_division(a, b):
    return a // b


@case(2.0, 0.0)
def b_float_zero_division(a, b):
    return a / b


@case(1e308, 10.0)
def b_float_overflow_is_inf(a, b, x=X):
    return a * b, -a * b, x + 1


@case(2, 1000)
def b_big_int_power(a, b, x=X):
    return a ** b % 1000007, x + 1


@case(True, False)
def b_bool_arith(a, b):
    return a + b, a * 3, a & b, a | b, -a, ~b, a ^ True


@case(I)
def b_sum_over_int_rows(i):
    return sum(i), sum(i[0]), max(i[1]), min(i[2])


@case(Y)
def b_float_of_reduction(y):
    return float(y.mean()), int(y.argmax()), y.max().item()


@case()
def b_str_of_array_scalar(x):
    return str(x[0, 0]), repr(np.float32(1.5)), str(np.int64(3))


@case()
def b_format_builtin(x):
    return format(3.14159, ".3f"), format(255, "x"), format(x.shape[0], "05d"), x + 1
