"""A fourth slice of peer-style cases, after the kinds of tests in Paddle's
test/sot (tuples, lists, dicts, calls, unpacking, stack rotation, f-strings,
build/unpack, jumps, for loops, function creation, operators, slices, array
methods, closures, strings, globals, guards, graph breaks and resumes) and
TorchDynamo's test/dynamo (misc, dicts, sets, context managers, generators,
exceptions, repros, Python numbers, recompiles), written by us for NumPy (no
code is taken from them)."""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import functools
import itertools
import math
import operator
import sys

import numpy as np

from sot import psdb

from . import I, V, X, Y, case

# -- tuples (Paddle test_03_tuple) ----------------------------------------------------

@case()
def p4_tuple_build_index_arith(x):
    t = (1, x, 2.5)
    return t[0] + t[1] * t[2], t[-1], len(t)


@case()
def p4_tuple_slice_and_concat(x):
    t = (x, x + 1, x + 2, 3)
    return t[1:3] + t[:1], t[::-1][0], t[1::2]


@case()
def p4_tuple_count_index_contains(x):
    t = (1, 2, 2, x, 3)
    return t.count(2), t.index(3), 2 in t, 7 not in t


@case()
def p4_tuple_compare_ops(x):
    a, b = (1, 2, 3), (1, 2, 4)
    return a < b, a <= b, a == (1, 2, 3), a != b, (1, 2) < a, max(a, b), x.shape < (4, 4)


@case()
def p4_tuple_mul_and_nested(x):
    t = ((x, 1),) * 3
    return [a + b for a, b in t], t[2][0] is t[0][0]


@case()
def p4_tuple_from_generator_and_map(x):
    t = tuple(r.sum() for r in x)
    u = tuple(map(float, x[0]))
    return t, u, tuple(), tuple(range(3))


@case()
def p4_tuple_unpack_star_middle(x):
    a, *mid, b = (x, 1, 2, 3, x * 2)
    return a + b, mid


@case()
def p4_tuple_hash_equal_for_equal(x):
    return hash((1, "a", 2.0)) == hash((1, "a", 2.0)), {(1, 2): x}[(1, 2)]


# -- lists (Paddle test_04_list) ------------------------------------------------------

@case(1, X)
def p4_list_getitem_int(n, y):
    z = [n, y]
    return z[0] + 1, z[1] + 1


@case(1, X)
def p4_list_setitem_array_value(n, y):
    z = [n, y]
    z[1] = np.asarray(3.0, dtype=np.float32)
    z[0] = y * 2
    return z


@case(1, X)
def p4_list_delitem_both(n, y):
    z = [n, y, n + 1, y + 1]
    del z[0]
    del z[-1]
    del z[::2]
    return z


@case(1, X)
def p4_list_copy_then_mutate(n, y):
    z = [n, y]
    a = z.copy()
    z[0] = 3
    z[1] = y + 1
    return a, z, a[1] is y


@case(1, X)
def p4_list_count_index_ints(n, y):
    z = [n, n, 2, 3, 1]
    return z.count(n), z.index(n), z.index(2, 1), z.index(1, 1)


@case(X)
def p4_list_count_index_arrays_identity(x):
    a, b = x[0], x[1]
    y = [a, b, a, b, a]
    return y.count(a), y.index(b)


@case(1, X)
def p4_list_extend_from_list_and_tuple(n, y):
    z = [n, y]
    z.extend([y, n])
    z.extend((n, y))
    z.extend(range(2))
    z += (7,)
    return z


@case(1, X)
def p4_list_insert_pop_remove_reverse(n, y):
    z = [n, y]
    z.insert(0, n)
    z.insert(10, y)
    z.insert(-1, 5)
    a = z.pop()
    b = z.pop(0)
    z.remove(5)
    z.reverse()
    return z, a, b


@case()
def p4_list_sort_ints_and_reverse(x):
    z = [3, 1, 2, int(x.shape[0])]
    z.sort()
    w = sorted(z, reverse=True)
    z.sort(key=lambda v: -v)
    return z, w


@case()
def p4_list_max_min_mixed(x):
    z = [1, 2.5, x.shape[1]]
    return max(z), min(z), max(z, key=lambda v: -v), min([], default=None)


@case()
def p4_list_no_args_and_compare(x):
    l1, l2 = list(), list()  # noqa: C408
    l1.append(1)
    l2.append(2)
    return l1 + l2, [1, 2, 3] == [1, 2, 3], [1, 2] < [1, 3], [1, 2] != [1, 2, 3]


@case()
def p4_list_clear_aliased(x):
    z = [x, 1]
    alias = z
    z.clear()
    return alias, len(z)


@case()
def p4_list_slice_assign_grow_shrink(x):
    z = [0, 1, 2, 3, 4]
    z[1:3] = [x, x, x]
    z[-2:] = []
    z[::2] = ["a", "b"]
    return z


@case()
def p4_list_mul_and_rmul(x):
    z = [x] * 2
    w = 3 * [0]
    w *= 2
    return z, w, z[0] is z[1]


@case()
def p4_list_of_arrays_sum_and_stack(x):
    rows = [r * i for i, r in enumerate(x)]
    return sum(rows), np.stack(rows[::-1]), np.concatenate(rows)


# -- dicts (Paddle test_05_dict, TorchDynamo test_dicts) ------------------------------

@case(1, X)
def p4_dict_build_map_var_key(n, y):
    z = {n: y}
    w = {1: y, 2: y + 1}
    return z[n] + 1, w[n + 1]


@case(1, X)
def p4_dict_get_and_default(n, y):
    z = {1: n, 2: y + 1}
    return z.get(1), z.get(2), z.get(3, 2), z.get(4, y), z.get(5)


@case(1, X)
def p4_dict_update_reads_old(n, y):
    z = {1: n, 2: y + 1}
    z.update({1: n * 2, 2: y, 3: z[2] + 2})
    return z


@case(1, X)
def p4_dict_setdefault_forms(n, y):
    z = {1: n, 2: y + 1}
    a = z.setdefault(4)
    b = z.setdefault(1, 2)
    c = z.setdefault(3, y)
    return z, a, b, c


@case(1, X)
def p4_dict_pop_forms(n, y):
    z = {1: n, 2: y + 1, 3: y}
    a = z.pop(1)
    b = z.pop(2, 3)
    c = z.pop(4, 3)
    d = z.pop(5, y)
    return z, a, b, c, d


@case(1, X)
def p4_dict_popitem_lifo(n, y):
    z = {1: n, 2: y + 1, 3: y}
    a = z.popitem()
    b = z.popitem()
    return z, a, b


@case()
def p4_dict_constructors(x):
    return (dict({1: 2, 3: 4}), dict([[1, 2], [3, 4]]), dict(((1, 2), (3, 4))),
            dict(a=1, b=x), dict({1: 2}, c=3), dict(zip("ab", x)))


@case()
def p4_dict_fromkeys_tuple_list(x):
    return dict.fromkeys((1, 2, 3)), dict.fromkeys([1, 2], x), dict.fromkeys("ab", 0)


@case(X)
def p4_dict_keyerror_number_message(x):
    x = x + 1
    a = {}
    return a[8]


@case(X)
def p4_dict_keyerror_str_message(x):
    x = x + 1
    a = {}
    return a["8"]


class _P4Dict:
    def __init__(self, data):
        self.data = data

    def __getitem__(self, key):
        try:
            return self.data[key]
        except KeyError:
            raise


@case()
def p4_dict_keyerror_through_custom_getitem(x):
    x = x + 1
    data = _P4Dict({})
    try:
        x = x * 3
        data["a"]
        x = x - 3
    except KeyError:
        x = x / 3
    return x


@case()
def p4_dict_del_and_in(x):
    d = {"a": x, "b": 1, "c": 2}
    del d["b"]
    return list(d), "b" in d, "a" in d, len(d)


@case()
def p4_dict_order_after_reinsert(x):
    d = {"a": 1, "b": 2, "c": 3}
    del d["a"]
    d["a"] = x
    d["b"] = 5
    return list(d.items())


@case()
def p4_dict_merge_operators(x):
    a = {"a": 1, "b": x}
    b = {"b": 2, "c": 3}
    c = a | b
    a |= {"z": 0}
    return c, a, {**b, **a}


@case()
def p4_dict_int_and_float_keys_collide(x):
    d = {1: "int"}
    d[1.0] = "float"
    d[True] = "bool"
    return d, list(d)


@case()
def p4_dict_keys_values_items_views(x):
    d = {"w": x, "b": x.sum()}
    ks = d.keys()
    d["c"] = 3
    return list(ks), len(d.values()), [k for k, _ in d.items()], "c" in ks


@case()
def p4_dict_keys_set_ops(x):
    a = {"a": 1, "b": 2}
    b = {"b": 3, "c": x}
    return sorted(a.keys() & b.keys()), sorted(a.keys() | b.keys()), sorted(a.keys() - b), a.keys() == {"a", "b"}


@case()
def p4_dict_iterate_and_modify_raises(x):
    d = {"a": 1, "b": 2}
    for k in d:
        d[k + "x"] = x
    return d


@case()
def p4_dict_comprehension_with_filter(x):
    d = {f"r{i}": r for i, r in enumerate(x) if r.sum() > -10}
    return {k: v.mean() for k, v in d.items()}


@case()
def p4_dict_array_values_updated_inplace(x):
    params = {"w": x.copy(), "b": np.zeros(4, dtype=np.float32)}
    for k in params:
        params[k] += 1
    return params


@case()
def p4_dict_nested_setdefault_tree(x):
    tree = {}
    for i, row in enumerate(x):
        tree.setdefault(i % 2, {}).setdefault("rows", []).append(row.sum())
    return tree


@case()
def p4_ordereddict_move_to_end(x):
    d = collections.OrderedDict(a=1, b=2, c=x)
    d.move_to_end("a")
    d.move_to_end("c", last=False)
    return list(d), d.popitem(last=False)[0]


@case()
def p4_defaultdict_int_counts(x):
    d = collections.defaultdict(int)
    for v in (x > 0).ravel().tolist():
        d[v] += 1
    return dict(d), d.default_factory is int


@case()
def p4_counter_most_common(x):
    c = collections.Counter(np.sign(x).ravel().tolist())
    return c.most_common(2), c[5.0], sorted(c.elements())[:3]


@case()
def p4_dict_equality_and_len(x):
    a = {"a": 1, "b": 2}
    return a == {"b": 2, "a": 1}, a != {"a": 1}, len({}), bool({}), bool(a)


@case()
def p4_dict_get_array_key_by_identity(x):
    r = x[0]
    d = {id(r): "row"}
    return d.get(id(r)), d.get(id(x), "no")


# -- calls (Paddle test_06_call_function, test_multiple_args) --------------------------

def _p4_add(a, b):
    return a + b


def _p4_kw_only(a, *, b=2, c):
    return a * b + c


def _p4_defaults(a, b=1, c=(2, 3)):
    return a + b + sum(c)


def _p4_var(*args, **kwargs):
    return len(args), sorted(kwargs.items()), args[0] if args else None


@case()
def p4_call_positional_keyword_mixed(x):
    return _p4_add(x, 1), _p4_add(b=2, a=x), _p4_add(x, b=x)


@case()
def p4_call_kw_only(x):
    return _p4_kw_only(x, c=1), _p4_kw_only(x, b=3, c=x)


@case()
def p4_call_defaults_tuple(x):
    return _p4_defaults(x), _p4_defaults(x, 2), _p4_defaults(x, c=(1,))


@case()
def p4_call_star_unpack_list_tuple_dict(x):
    args = [x, 2]
    kw = {"c": 1}
    return _p4_add(*args), _p4_kw_only(*args[:1], **kw), _p4_var(*args, *(3,), **kw, d=2)


@case()
def p4_call_nested_calls(x):
    def a(v):
        return b(v) + 1

    def b(v):
        return c(v) * 2

    def c(v):
        return v - 1
    return a(x)


@case()
def p4_call_kw_only_missing_raises(x):
    return _p4_kw_only(x)


@case()
def p4_call_too_many_positional_raises(x):
    return _p4_add(x, 1, 2)


@case()
def p4_call_duplicate_kw_raises(x):
    return _p4_add(x, a=1)


@case()
def p4_call_positional_only(x):
    def f(a, b, /, c=1):
        return a - b + c
    return f(x, 1), f(x, 2, c=x)


@case()
def p4_call_lambda_default_captures(x):
    fs = [lambda v, k=k: v * k for k in range(3)]
    return [f(x) for f in fs]


@case(X, Y, I, V)
def p4_call_many_args(a, b, c, d):
    return a + b.astype(np.float32), c * 2, d[:2] - 1, (a @ d).dtype


# -- unpacking (Paddle test_07_unpack, test_10_build_unpack) ---------------------------

@case()
def p4_unpack_array_rows(x):
    a, b, c = x
    return a + b - c


@case()
def p4_unpack_nested_tuple(x):
    (a, (b, c)), d = (x, (1, x[0])), 2
    return a * b + c + d


@case()
def p4_unpack_star_from_array(x):
    first, *rest = x
    return first, len(rest), np.stack(rest)


@case()
def p4_unpack_wrong_count_raises(x):
    a, b = x
    return a


@case()
def p4_build_tuple_unpack_with_call(x):
    a, b = (1, 2), [3, x]
    return (*a, *b), [*a, *b], {*a}, {**{"k": 1}, **{"j": x}}


@case()
def p4_build_set_unpack_and_map_unpack(x):
    s = {*range(3), *[1, 2, 5]}
    d = {**{"a": 1}, "b": 2, **dict(c=x)}
    return sorted(s), d


@case()
def p4_unpack_dict_keys(x):
    a, b = {"k1": x, "k2": 2}
    return a, b


@case()
def p4_unpack_shape_and_swap(x):
    h, w = x.shape
    h, w = w, h
    a, b, c = 1, 2, 3
    a, b, c = c, a, b
    return h, w, (a, b, c)


# -- rotations and stack shuffles (Paddle test_08_rot, test_dup_top) ------------------

@case()
def p4_rot_multi_assign_from_arrays(x):
    a, b, c, d = x[0], x[1], x[2], x
    a, b, c, d = d, c, b, a
    return a.shape, b, c, d


@case()
def p4_chained_assign_same_object(x):
    a = b = c = x + 1
    return a is b, b is c, a


@case()
def p4_chained_compare_mixed(x):
    n = x.shape[0]
    return 1 < n < 4, 0 <= n <= 2, 1 < n > 2, n == 3 != 4


@case()
def p4_aug_subscript_and_attr_dup(x):
    class _N:
        pass
    o = _N()
    o.v = x
    o.v += 1
    d = {"k": [x, 1]}
    d["k"][1] += 2
    d["k"][0] *= 2
    return o.v, d


# -- f-strings and formatting (Paddle test_09_f_string, test_20_string) ---------------

@case()
def p4_fstring_of_array_and_shape(x):
    return f"{x.shape} {x.dtype} {x.ndim}", f"{x[0, 0]}", f"{x.sum():.3f}"


@case()
def p4_fstring_conversions(x):
    s = "ab"
    return f"{s!r} {s!s} {s!a} {1.5!r}", f"{x.dtype!r}"


@case()
def p4_fstring_width_and_fill(x):
    n = x.shape[1]
    return f"{n:>5}|{n:<5}|{n:^5}|{n:05d}|{n:x}|{n:b}|{n:,}"


@case()
def p4_fstring_dynamic_spec(x):
    w, p = 10, 2
    return f"{float(x[1, 1]):{w}.{p}f}"


@case()
def p4_string_methods_many(x):
    s = "  Hello, World  "
    return (s.strip(), s.lower(), s.upper(), s.split(","), s.replace("l", "L"),
            s.strip().startswith("He"), s.find("o"), "-".join(["a", "b"]), s.count("l"))


@case()
def p4_string_format_method(x):
    return "{} {:.2f} {name}".format(x.shape, float(x.mean()), name="m"), "%d-%s-%.1f" % (3, "a", 2.5)


@case()
def p4_string_concat_in_loop(x):
    s = ""
    for i in range(x.shape[0]):
        s += str(i)
    return s, s * 2, s[::-1]


@case()
def p4_string_compare_and_in(x):
    mode = "train"
    return mode == "train", "ra" in mode, mode < "test", mode.title(), ord(mode[0]), chr(65)


@case()
def p4_string_dispatch_on_dtype_name(x):
    name = x.dtype.name
    if name.startswith("float"):
        return x * 2, name
    return x, name


@case()
def p4_string_split_join_numbers(x):
    s = ",".join(str(v) for v in x.shape)
    return tuple(int(t) for t in s.split(",")), s


# -- jumps and control flow (Paddle test_11_jumps) -------------------------------------

@case()
def p4_jump_if_python_number(x):
    n = x.shape[0]
    if n > 2:
        x = x + 1
    elif n > 1:
        x = x + 2
    else:
        x = x + 3
    return x


@case()
def p4_jump_and_or_values(x):
    a = 0 or x.shape[0]
    b = 1 and None
    c = None or [] or "z"
    return a, b, c


@case()
def p4_jump_if_array_any_all(x):
    if (x > 0).any() and not (x > 10).all():
        return x.max()
    return x.min()


@case()
def p4_jump_if_not_none(x):
    y = None
    if y is not None:
        return y
    z = x if y is None else y
    return z + 1


@case()
def p4_jump_bool_of_array_ambiguous_raises(x):
    if x:
        return 1
    return 0


@case()
def p4_jump_if_scalar_from_array(x):
    s = x.sum()
    if s > 0:
        return x - s
    return x + s


@case()
def p4_jump_nested_ternaries(x):
    n = x.shape[1]
    k = "big" if n > 10 else "mid" if n > 3 else "small"
    return k, (x if k == "mid" else -x)


# -- for loops (Paddle test_12_for_loop) -----------------------------------------------

@case(ort=True)
def p4_for_over_list_of_arrays(x):
    acc = x * 0
    for r in [x, x + 1, x * 2]:
        acc = acc + r
    return acc


@case()
def p4_for_over_dict_items(x):
    d = {"a": 1, "b": 2}
    out = x
    for k, v in d.items():
        out = out * v
    return out, k


@case()
def p4_for_else_and_break(x):
    for i in range(5):
        if i == x.shape[0]:
            break
    else:
        i = -1
    for j in range(2):
        pass
    else:
        j = 99
    return i, j


@case(ort=True)
def p4_for_over_array_rows_accumulate(x):
    s = np.zeros(x.shape[1], dtype=x.dtype)
    for row in x:
        s += row
    return s


@case()
def p4_for_nested_with_continue(x):
    out = []
    for i in range(3):
        for j in range(4):
            if (i + j) % 2:
                continue
            out.append(x[i, j])
    return out


@case()
def p4_for_over_zip_enumerate(x):
    total = 0.0
    for i, (a, b) in enumerate(zip(x[0], x[1])):
        total += float(a * b) * i
    return total


@case()
def p4_for_loop_var_after_loop(x):
    for i in range(3):
        y = x * i
    return i, y


@case()
def p4_for_over_reversed_range_step(x):
    out = []
    for k in range(x.shape[1] - 1, -1, -2):
        out.append(x[:, k])
    return np.stack(out)


@case()
def p4_for_over_list_being_appended_bounded(x):
    items = [x]
    for it in items:
        if len(items) < 4:
            items.append(it + 1)
    return len(items), items[-1]


@case()
def p4_for_over_iter_of_generator_fn(x):
    def rows(a):
        for r in a:
            yield r * 2
    out = 0
    for r in rows(x):
        out = out + r
    return out


@case()
def p4_while_with_array_condition(x):
    y = x.copy()
    n = 0
    while (y < 5).any():
        y = y + 1
        n += 1
    return y, n


# -- making functions (Paddle test_13_make_function) -----------------------------------

@case()
def p4_make_function_with_defaults_kwdefaults(x):
    def f(a, b=2, *, c=3):
        return a * b + c
    return f(x), f.__defaults__, f.__kwdefaults__


@case()
def p4_make_function_annotations(x):
    def f(a: int, b: "np.ndarray") -> float:
        return a
    return sorted(f.__annotations__), f(x)


@case()
def p4_make_closure_returned_and_called(x):
    def mk(k):
        def g(v):
            return v * k
        return g
    gs = [mk(i) for i in range(3)]
    return [g(x) for g in gs], gs[0].__name__


@case()
def p4_make_function_name_qualname(x):
    def inner():
        return 1
    return inner.__name__, inner.__qualname__.split(".")[-2:], inner()


# -- operators (Paddle test_14_operators) ----------------------------------------------

@case(X, Y)
def p4_ops_binary_all(a, b):
    b = b.astype(np.float32)
    return a + b, a - b, a * b, a / (b + 10), a // 1.5, a % 1.5, a ** 2, a @ b.T


@case(I)
def p4_ops_int_bitwise(i):
    return i & 3, i | 8, i ^ 5, i << 2, i >> 1, ~i, -i, +i, abs(i)


@case(ort=True)
def p4_ops_compare_all(x):
    return x < 0, x <= 0, x > 0, x >= 0, x == 0, x != 0


@case()
def p4_ops_inplace_all_local(x):
    y = x.copy()
    y += 1
    y -= 0.5
    y *= 2
    y /= 3
    y //= 0.25
    y %= 7
    y **= 2
    return y


@case(I)
def p4_ops_inplace_bitwise(i):
    j = i.copy()
    j &= 7
    j |= 16
    j ^= 3
    j <<= 1
    j >>= 2
    return j


@case()
def p4_ops_python_numbers(x):
    a, b = 7, 3
    return a // b, a % b, -a // b, -a % b, a / b, divmod(a, b), divmod(-a, b), a ** -1, 2 ** 10


@case()
def p4_ops_operator_module(x):
    return (operator.add(x, 1), operator.mul(2, x), operator.neg(x), operator.truediv(x, 2),
            operator.getitem(x, 0), operator.itemgetter(1, 2)(x), operator.attrgetter("shape")(x))


@case()
def p4_ops_is_and_not(x):
    y = x
    z = x.copy()
    return y is x, z is x, z is not x, not x.size, None is None


@case()
def p4_ops_matmul_vectors(x):
    v = x[0]
    return v @ v, (x @ v[:, None]).shape, np.matmul(x, x.T).dtype


@case()
def p4_ops_float_division_by_zero_raises(x):
    return x.shape[0] / 0


@case()
def p4_ops_int_modulo_by_zero_raises(x):
    return x.shape[0] % 0


# -- slices (Paddle test_15_slice) -----------------------------------------------------

@case()
def p4_slice_list_all_forms(x):
    s = list(range(10))
    return s[1:], s[:3], s[::2], s[1:8:3], s[-3:], s[::-1], s[5:2:-1], s[100:]


@case(ort=True)
def p4_slice_array_all_forms(x):
    return x[1:], x[:, 1:3], x[::-1, ::2], x[..., -1], x[None, 1], x[1:2, None, :], x[-1:-4:-1]


@case()
def p4_slice_object_and_indices(x):
    s = slice(1, None, 2)
    return x[:, s], s.indices(10), s.start, s.stop, s.step


@case()
def p4_slice_with_python_number_bounds(x):
    n = x.shape[1] // 2
    return x[:, :n], x[:, n:], x[: n - 1]


@case()
def p4_slice_assign_array(x):
    y = x.copy()
    y[:, 1:3] = 0
    y[::2] = y[::2] * 10
    y[-1, ::-1] = np.arange(4)
    return y


@case()
def p4_slice_tuple_string(x):
    t = (1, 2, 3, 4)
    s = "abcdef"
    return t[1:3], t[::-1], s[1:4], s[::-2]


# -- array methods (Paddle test_18_tensor_method) --------------------------------------

@case(ort=True)
def p4_method_chain(x):
    return x.T.reshape(-1).clip(-1, 1).cumsum().astype(np.float64)[-3:]


@case()
def p4_method_reductions_kwargs(x):
    return x.sum(axis=1, keepdims=True), x.mean(0), x.std(ddof=1), x.argmax(), x.max(axis=-1), x.prod(dtype=np.float64)


@case()
def p4_method_shape_manipulation(x):
    return x.ravel().shape, x.flatten()[2], x.swapaxes(0, 1).shape, x.squeeze().ndim, x[None].squeeze(0).shape


@case()
def p4_method_numpy_conversions(x):
    return x.tolist()[0], x[0, 0].item(), type(x[0, 0].item()).__name__, x.astype(int).dtype


@case()
def p4_method_size_len_nbytes(x):
    return x.size, len(x), x.nbytes, x.itemsize, x.strides, x.T.flags["C_CONTIGUOUS"]


@case()
def p4_method_bound_method_value(x):
    f = x.sum
    g = np.ndarray.mean
    return f(), g(x), f.__self__ is x


@case()
def p4_method_copy_vs_view(x):
    v = x.view()
    c = x.copy()
    v[0, 0] = 100
    return x[0, 0], c[0, 0], v.base is x, c.base is None


# -- closures (Paddle test_19_closure) -------------------------------------------------

@case()
def p4_closure_reads_outer_array(x):
    y = x + 1

    def f(z):
        return y * z
    return f(2)


@case(ort=True)
def p4_closure_two_levels(x):
    a = 1

    def f():
        b = 2

        def g():
            return x * a + b
        return g()
    return f()


@case()
def p4_closure_mutated_after_definition(x):
    k = 1

    def f():
        return x * k
    r1 = f()
    k = 3
    return r1, f()


@case()
def p4_closure_nonlocal_list_and_int(x):
    total = 0
    items = []

    def add(v):
        nonlocal total
        total += 1
        items.append(v)
    add(x)
    add(x * 2)
    return total, items


@case()
def p4_closure_in_class_method(x):
    scale = 3.0

    class C:
        def f(self, v):
            return v * scale
    return C().f(x)


@case()
def p4_closure_lambda_reduce(x):
    return functools.reduce(lambda a, b: a + b, x), functools.reduce(operator.mul, [1, 2, 3], 10)


@case()
def p4_closure_cell_deleted_raises(x):
    y = x

    def f():
        return y
    del y
    return f()


# -- globals (Paddle test_21_global) ---------------------------------------------------

_P4_GX = 1
_P4_GD: dict = {}
_P4_GL = [1, 2]
_P4_GINLINE = [0]
_P4_DEL_ME = 1


@case()
def p4_global_int_rebind_many(x):
    global _P4_GX
    _P4_GX = 999
    _P4_GX = 888
    _P4_GX = 1
    return _P4_GX - 1, x + _P4_GX


@case()
def p4_global_dict_update_and_del(x):
    _P4_GD["key"] = "value"
    _P4_GD.update({"k2": x.shape})
    had = "key" in _P4_GD
    if had:
        del _P4_GD["key"]
    return had, dict(_P4_GD)


@case()
def p4_global_list_loop_update(x):
    for i in range(len(_P4_GL)):
        _P4_GL[i] = _P4_GL[i] * 1
    return list(_P4_GL), x * _P4_GL[1]


def _p4_inline_2():
    _P4_GINLINE[0] += 1


def _p4_inline_1():
    _p4_inline_2()
    _P4_GINLINE[0] += 1


@case()
def p4_global_updated_in_nested_inline(x):
    _P4_GINLINE[0] = 0
    _p4_inline_1()
    return _P4_GINLINE[0], x * _P4_GINLINE[0]


@case()
def p4_global_del_then_missing(x):
    global _P4_DEL_ME
    _P4_DEL_ME = 1
    del _P4_DEL_ME
    try:
        return _P4_DEL_ME  # noqa: F821
    except NameError as e:
        return str(e), x.shape


@case()
def p4_global_undefined_name_raises(x):
    return _P4_NOT_DEFINED + x  # noqa: F821


@case()
def p4_builtins_shadowed_by_global(x):
    return _p4_len_user(x)


def _p4_len_user(v):
    return len(v), abs(-2)


# -- graph breaks and resumes (Paddle test_break_graph, test_sot_resume*) --------------

@case(X, Y, ort=True)
def p4_brk_print_between_ops(x, y):
    z = x + y
    print(x.shape, z.dtype)
    return y * z * 2


@case()
def p4_brk_breakgraph_stack_args(x):
    def inner(a, b, c, d):
        return a + b * c - d
    return inner(x, x + 1, 2.0, (psdb.breakgraph(), x)[1])


@case()
def p4_brk_in_callee_method(x):
    class Layer:
        def __init__(self):
            self.w = np.ones((4, 2), dtype=np.float32)

        def features(self, v):
            psdb.breakgraph()
            return v * 2

        def forward(self, v):
            return self.features(v) @ self.w
    return Layer().forward(x)


@case()
def p4_brk_generator_listed_then_summed(x):
    out = 0
    for r in list(r for r in x):  # noqa: C400
        out = out + r
    return out


@case()
def p4_brk_resume_none_branch(x):
    y = None if x.shape[0] > 5 else x[:2]
    psdb.breakgraph()
    return np.add(x[:2], y[0:50] if y is not None else 0)


@case(ort=True)
def p4_brk_in_loop_body_accumulates(x):
    s = x * 0
    for i in range(3):
        s = s + x[i]
        psdb.breakgraph()
        s = s * 2
    return s


@case()
def p4_brk_in_while_with_counter(x):
    i, s = 0, x
    while i < 3:
        s = s + i
        psdb.breakgraph()
        i += 1
    return s, i


@case()
def p4_brk_in_if_branch_only(x):
    if x.shape[0] == 3:
        y = x + 1
        psdb.breakgraph()
        y = y * 2
    else:
        y = x
    return y


@case()
def p4_brk_inside_with_errstate(x):
    with np.errstate(divide="ignore"):
        y = x / 0
        psdb.breakgraph()
        z = np.log(x * 0)
    return y, z


@case()
def p4_brk_inside_try_except_handler(x):
    try:
        y = x + 1
        psdb.breakgraph()
        raise ValueError("v")
    except ValueError as e:
        y = y * 2
        msg = str(e)
    return y, msg


@case()
def p4_brk_inside_finally(x):
    log = []
    try:
        y = x + 1
    finally:
        log.append("f")
        psdb.breakgraph()
        log.append("g")
    return y, log


@case()
def p4_brk_nested_three_levels(x):
    def a(v):
        return b(v) + 1

    def b(v):
        w = c(v) * 2
        psdb.breakgraph()
        return w

    def c(v):
        psdb.breakgraph()
        return v - 1
    return a(x)


@case()
def p4_brk_many_live_locals(x):
    a, b, c = x + 1, x * 2, [x, 1]
    d = {"k": x.sum()}
    e = (a, "s", None)
    psdb.breakgraph()
    return a + b, c[1], d["k"], e[1:], x.shape


@case()
def p4_brk_resume_twice_in_same_frame(x):
    y = x + 1
    print("one")
    y = y * 2
    print("two")
    return y - 3


@case()
def p4_brk_fallback_frame(x):
    psdb.fallback()
    return x + 1


@case()
def p4_brk_fallback_in_callee(x):
    def native(v):
        psdb.fallback()
        return v * 2
    return native(x) + 1


@case([np.float32(1.5)])
def p4_brk_after_side_effect_on_argument_list(lst):
    lst.append(len(lst))
    print("mid")
    lst.append(lst[0] * 2)
    return lst



@case()
def p4_brk_in_comprehension_element(x):
    return [(psdb.breakgraph(), r * 2)[1] for r in x]


@case()
def p4_brk_in_lambda_map(x):
    return list(map(lambda r: (print(r.shape), r + 1)[1], x))


@case()
def p4_brk_return_inside_with_after_break(x):
    with contextlib.suppress(KeyError):
        y = x + 1
        psdb.breakgraph()
        return y * 2
    return None


@case()
def p4_brk_exception_raised_after_break(x):
    y = x + 1
    psdb.breakgraph()
    raise RuntimeError(f"bad {y.shape}")


@case()
def p4_brk_unpack_after_break(x):
    a, b = x[0], x[1]
    psdb.breakgraph()
    c, *d = x
    return a + b + c, len(d)


@case()
def p4_brk_print_kwargs_sep_end(x):
    print("a", x.shape, sep="|", end="!\n")
    print(*x.shape)
    return x + 1


# -- guards: state that changes between calls (Paddle test_guard_*, Dynamo recompiles) --
# The runner interleaves eager and traced calls; `_p4_phase()` gives the same
# value to the n-th eager and the n-th traced call, and flips for the third.

_P4_TICK = {"n": 0}


def _p4_phase():
    _P4_TICK["n"] += 1
    return (_P4_TICK["n"] - 1) // 2 % 2


_P4_G = {"k": 1, "s": "a", "f": 1.0, "t": (1, 2), "none": None, "b": False}


@case()
def p4_guard_global_tuple_changes(x):
    _P4_G["t"] = (1, 2) if not _p4_phase() else (1, 2, 3)
    return x * len(_P4_G["t"]), _P4_G["t"]


@case()
def p4_guard_global_float_changes(x):
    _P4_G["f"] = 1.0 + _p4_phase() * 0.5
    return x * _P4_G["f"]


@case()
def p4_guard_none_vs_array(x):
    _P4_G["none"] = None if not _p4_phase() else np.ones(4, dtype=np.float32)
    if _P4_G["none"] is None:
        return x
    return x + _P4_G["none"]


@case()
def p4_guard_bool_flag_training(x):
    _P4_G["b"] = bool(_p4_phase())
    return x * 0.5 if _P4_G["b"] else x


@case()
def p4_guard_string_changes_format(x):
    _P4_G["s"] = "ab"[_p4_phase()]
    return f"{_P4_G['s']}-{x.shape[0]}", x + len(_P4_G["s"])


class _P4Model:
    training = True

    def __init__(self):
        self.scale = 2.0

    def forward(self, x):
        if self.training:
            return x * self.scale
        return x


_P4_MODEL = _P4Model()


@case()
def p4_guard_instance_attr_switch_training(x):
    _P4_MODEL.training = not _p4_phase()
    return _P4_MODEL.forward(x)


@case()
def p4_guard_instance_attr_value(x):
    _P4_MODEL.scale = 2.0 + _p4_phase()
    return _P4_MODEL.forward(x)


@case()
def p4_guard_instance_attr_added_deleted(x):
    m = _P4_MODEL
    if _p4_phase():
        m.extra = 5
    elif hasattr(m, "extra"):
        del m.extra
    return x + getattr(m, "extra", 0)


@case()
def p4_guard_method_rebound_on_class(x):
    _P4Model.forward = _p4_fwd_b if _p4_phase() else _p4_fwd_a
    return _P4_MODEL.forward(x)


def _p4_fwd_a(self, x):
    return x * self.scale if self.training else x


def _p4_fwd_b(self, x):
    return x - 1


_P4_UDF = {"fn": None}


@case()
def p4_guard_user_defined_fn_switch(x):
    _P4_UDF["fn"] = np.sin if _p4_phase() else np.cos
    return _P4_UDF["fn"](x)


@case()
def p4_guard_list_length_changes(x):
    _P4_GL2.append(1)
    n = (len(_P4_GL2) + 1) // 2
    return x * n, n


_P4_GL2: list = []


@case()
def p4_guard_nested_dict_value(x):
    _P4_CFG2["a"]["b"] = 1 + _p4_phase()
    return x * _P4_CFG2["a"]["b"]


_P4_CFG2 = {"a": {"b": 1}}


@case()
def p4_guard_global_array_value_changes(x):
    _P4_ARR2[0][...] = _p4_phase()
    return x + _P4_ARR2[0]


_P4_ARR2 = [np.zeros(4, dtype=np.float32)]


@case()
def p4_guard_global_array_replaced_other_dtype(x):
    _P4_ARR2[0] = np.ones(4, dtype=np.int32 if _p4_phase() else np.float32)
    return (x + _P4_ARR2[0]).dtype


@case()
def p4_guard_global_numpy_scalar_type_changes(x):
    _P4_G["k"] = np.int64(2) if _p4_phase() else 2
    return x * _P4_G["k"], type(_P4_G["k"]).__name__


@case()
def p4_guard_enum_value_dispatch(x):
    _P4_G["mode"] = _P4Mode.EVAL if _p4_phase() else _P4Mode.TRAIN
    if _P4_G["mode"] is _P4Mode.TRAIN:
        return x * 2, _P4_G["mode"].name
    return x, _P4_G["mode"].value


class _P4Mode(enum.Enum):
    TRAIN = 1
    EVAL = 2


@case()
def p4_guard_closure_int_cell_changes(x):
    return _P4_CLOSED2(x)


def _p4_make_closed2():
    state = {"n": 0}
    k = 1

    def g(v):
        nonlocal k
        state["n"] += 1
        k = 1 + (state["n"] - 1) // 2 % 2
        return v * k
    return g


_P4_CLOSED2 = _p4_make_closed2()


@case()
def p4_guard_default_arg_rebound(x):
    _p4_with_default.__defaults__ = (1 + _p4_phase(),)
    return _p4_with_default(x)


def _p4_with_default(v, k=1):
    return v * k


@case()
def p4_guard_class_var_counter(x):
    _P4Counter.n += 1
    return x + (_P4Counter.n + 1) // 2


class _P4Counter:
    n = 0


@case()
def p4_guard_sys_flag_read(x):
    return x + (sys.maxsize > 2**32)


@case()
def p4_guard_global_set_membership(x):
    if _p4_phase():
        _P4_SET.add("x")
    else:
        _P4_SET.discard("x")
    return x * (2 if "x" in _P4_SET else 1)


_P4_SET: set = set()


@case()
def p4_guard_dtype_global_switch(x):
    _P4_G["dt"] = np.float64 if _p4_phase() else np.float32
    return x.astype(_P4_G["dt"]).sum()


@case()
def p4_guard_shape_global_switch(x):
    _P4_G["shape"] = (4, 3) if _p4_phase() else (2, 6)
    return x.reshape(_P4_G["shape"])


@case()
def p4_guard_deque_content(x):
    _P4_DQ.append(_p4_phase())
    return x + _P4_DQ[-1], len(_P4_DQ) > 0


_P4_DQ: collections.deque = collections.deque(maxlen=3)


# -- sets (TorchDynamo test_sets) ------------------------------------------------------

@case()
def p4_set_ops_ints(x):
    a, b = {1, 2, 3}, {2, 3, 4}
    return a | b, a & b, a - b, a ^ b, a <= b, a < (a | b), a.isdisjoint({9}), {1} >= set()


@case()
def p4_set_methods_mutating(x):
    s = {1, 2}
    s.add(3)
    s.update([4, 5], (6,))
    s.discard(1)
    s.remove(2)
    s.difference_update({6})
    s.intersection_update({3, 4, 5, 7})
    s.symmetric_difference_update({5, 8})
    return sorted(s), len(s), x.shape[0] in s


@case()
def p4_set_of_strings_order_independent(x):
    s = {"relu", "gelu", "tanh"}
    return sorted(s), "relu" in s, len(s | {"relu"})


@case()
def p4_set_pop_empty_raises(x):
    s = set()
    return s.pop()


@case()
def p4_set_copy_independent(x):
    a = {1, 2}
    b = a.copy()
    b.add(3)
    return a, b, a == {2, 1}


@case()
def p4_frozenset_as_dict_key(x):
    k = frozenset({"a", "b"})
    d = {k: x}
    return d[frozenset(["b", "a"])], k | {"c"} == frozenset("abc"), type(k | {"c"}).__name__


@case()
def p4_set_from_shape_and_dtype(x):
    return set(x.shape), {x.dtype, np.dtype(np.float32)} == {np.dtype("float32")}, len({x.dtype.kind})


@case()
def p4_set_comprehension_from_loop(x):
    s = {i % 3 for i in range(x.size)}
    return s, sum(s), max(s)


@case()
def p4_set_contains_unhashable_raises(x):
    return [1] in {1, 2}


@case()
def p4_set_iteration_sorted_then_arrays(x):
    axes = {1, 0}
    return [x.sum(axis=a) for a in sorted(axes)]


@case()
def p4_set_of_ids_dedup_arrays(x):
    rows = [x, x, x + 1]
    seen, uniq = set(), []
    for r in rows:
        if id(r) not in seen:
            seen.add(id(r))
            uniq.append(r)
    return len(uniq)


# -- context managers (TorchDynamo test_ctx_manager, Paddle test_25_with) --------------

class _P4Ctx:
    def __init__(self, log, tag, swallow=False):
        self.log, self.tag, self.swallow = log, tag, swallow

    def __enter__(self):
        self.log.append(("enter", self.tag))
        return self

    def __exit__(self, et, ev, tb):
        self.log.append(("exit", self.tag, et.__name__ if et else None))
        return self.swallow


@case()
def p4_ctx_user_class_enter_exit(x):
    log = []
    with _P4Ctx(log, "a") as c:
        y = x + 1
    return y, log, c.tag


@case()
def p4_ctx_user_class_nested_order(x):
    log = []
    with _P4Ctx(log, "a"), _P4Ctx(log, "b"):
        with _P4Ctx(log, "c"):
            y = x * 2
    return y, log


@case()
def p4_ctx_user_swallows_exception(x):
    log = []
    with _P4Ctx(log, "s", swallow=True):
        y = x + 1
        raise ValueError("gone")
    return y, log


@case()
def p4_ctx_user_not_swallowing(x):
    log = []
    try:
        with _P4Ctx(log, "n"):
            raise KeyError("k")
    except KeyError as e:
        log.append(repr(e))
    return x, log


@case()
def p4_ctx_contextmanager_yield_value(x):
    @contextlib.contextmanager
    def scaled(v):
        yield v * 2

    with scaled(x) as y:
        z = y + 1
    return z


@case()
def p4_ctx_contextmanager_try_finally_exc(x):
    log = []

    @contextlib.contextmanager
    def guard():
        log.append("in")
        try:
            yield
        except ZeroDivisionError:
            log.append("caught")
        finally:
            log.append("out")

    with guard():
        x = x + 1
        1 / 0
    return x, log


@case()
def p4_ctx_exitstack_enter_context(x):
    log = []
    with contextlib.ExitStack() as st:
        for t in "abc":
            st.enter_context(_P4Ctx(log, t))
        y = x + 1
    return y, log


@case()
def p4_ctx_suppress_types(x):
    out = []
    for exc in (KeyError, IndexError, ValueError):
        with contextlib.suppress(KeyError, IndexError):
            out.append(exc.__name__)
            if exc is not ValueError:
                raise exc("e")
    return out, x.shape


@case()
def p4_ctx_errstate_over_dict(x):
    with np.errstate(all="ignore"):
        a = x / 0
        b = np.sqrt(x)
    return a, b, np.geterr()["divide"]


@case()
def p4_ctx_printoptions_restored(x):
    with np.printoptions(precision=2):
        s = str(np.float64(1.23456))
        p = np.get_printoptions()["precision"]
    return s, p, np.get_printoptions()["precision"], x.shape


@case()
def p4_ctx_manager_returns_in_loop(x):
    log = []
    for i in range(3):
        with _P4Ctx(log, i):
            if i == 1:
                break
    return log, x.shape


@case()
def p4_ctx_manager_continue_in_loop(x):
    log = []
    for i in range(3):
        with _P4Ctx(log, i):
            if i == 1:
                continue
            log.append(i * 10)
    return log


@case()
def p4_ctx_enter_returns_other(x):
    class CM:
        def __enter__(self):
            return x * 2

        def __exit__(self, *a):
            return False
    with CM() as y:
        pass
    return y


@case()
def p4_ctx_exit_receives_traceback(x):
    seen = []

    class CM:
        def __enter__(self):
            return self

        def __exit__(self, et, ev, tb):
            seen.append((et is IndexError, isinstance(ev, IndexError), tb is not None))
            return True
    with CM():
        [][1]
    return seen, x.ndim


@case()
def p4_ctx_redirect_stdout_with_print(x):
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print("hidden", x.shape)
    print("shown")
    return buf.getvalue()


# -- generators (TorchDynamo test_generators, Paddle test_22_generator) ----------------

@case()
def p4_gen_basic_next_and_list(x):
    def g(a):
        yield a
        yield a + 1
        yield a * 2
    it = g(x)
    first = next(it)
    return first, list(it)


@case()
def p4_gen_zip_two_generators(x):
    def g(a):
        for r in a:
            yield r
    return [a + b for a, b in zip(g(x), g(x * 2))]


@case()
def p4_gen_infinite_with_islice(x):
    def count(a):
        while True:
            yield a
            a = a + 1
    return list(itertools.islice(count(x[0, 0]), 4))


@case()
def p4_gen_yield_from_nested(x):
    def inner(a):
        yield a
        yield a + 1
        return "done"

    def outer(a):
        r = yield from inner(a)
        yield r
    return list(outer(x))


@case()
def p4_gen_send_protocol(x):
    def acc():
        total = 0
        while True:
            v = yield total
            if v is None:
                return total
            total = total + v
    g = acc()
    next(g)
    g.send(x)
    out = g.send(x)
    try:
        g.send(None)
    except StopIteration as e:
        return out, e.value
    return out


@case()
def p4_gen_exception_inside_propagates(x):
    def g(a):
        yield a
        raise ValueError("inside")
    out = []
    try:
        for v in g(x):
            out.append(v)
    except ValueError as e:
        out.append(str(e))
    return out


@case()
def p4_gen_expression_lazy_binding(x):
    k = 1
    g = (r * k for r in x)
    k = 10
    return list(g)


@case()
def p4_gen_stop_iteration_in_next_default(x):
    it = iter([])
    return next(it, x), next(iter([1]), None)


@case()
def p4_gen_partially_consumed_then_resumed(x):
    def g():
        for i in range(4):
            yield x * i
    it = g()
    a = next(it)
    b = next(it)
    rest = list(it)
    return a, b, len(rest)


@case()
def p4_gen_state_introspection(x):
    import inspect

    def g():
        yield 1
    it = g()
    s1 = inspect.getgeneratorstate(it)
    next(it)
    s2 = inspect.getgeneratorstate(it)
    list(it)
    return s1, s2, inspect.getgeneratorstate(it), x.ndim


@case()
def p4_gen_enumerate_over_generator(x):
    def g():
        yield from x
    return [(i, r.sum()) for i, r in enumerate(g(), 1)]


@case()
def p4_gen_sum_min_max_of_generator(x):
    return sum(float(v) for v in x[0]), max(r.sum() for r in x), min((r.max() for r in x), default=0)


@case()
def p4_gen_throw_uncaught(x):
    def g():
        yield 1
        yield 2
    it = g()
    next(it)
    return it.throw(KeyError("thrown"))


@case()
def p4_gen_return_value_via_stopiteration(x):
    def g():
        yield 1
        return x * 2
    it = g()
    next(it)
    try:
        next(it)
    except StopIteration as e:
        return e.value
    return None


# -- exceptions (TorchDynamo test_exceptions, Paddle test_24_exceptions) -------------

@case()
def p4_exc_sys_exc_info_inside_handler(x):
    try:
        raise ValueError("v")
    except ValueError:
        t, v, _ = sys.exc_info()
        inside = (t.__name__, str(v))
    return inside, sys.exc_info()[0], x.shape


@case()
def p4_exc_nested_handlers_context(x):
    try:
        try:
            raise KeyError("inner")
        except KeyError:
            raise ValueError("outer")
    except ValueError as e:
        return type(e.__context__).__name__, str(e), e.__cause__, e.__suppress_context__, x.ndim


@case()
def p4_exc_raise_from_sets_cause(x):
    try:
        try:
            x.reshape(5)
        except ValueError as e:
            raise RuntimeError("reshape failed") from e
    except RuntimeError as e:
        return type(e.__cause__).__name__, e.__suppress_context__


@case()
def p4_exc_name_cleared_after_handler(x):
    try:
        raise ValueError
    except ValueError as e:
        pass
    try:
        return e  # noqa: F821
    except NameError as n:
        return type(n).__name__, x.shape


@case()
def p4_exc_handler_tuple_and_order(x):
    out = []
    for exc in (IndexError, KeyError, TypeError, ZeroDivisionError):
        try:
            raise exc("m")
        except (IndexError, KeyError) as e:
            out.append(("lookup", type(e).__name__))
        except ArithmeticError:
            out.append("arith")
        except Exception as e:  # noqa: BLE001
            out.append(("other", str(e)))
    return out, x.ndim


@case()
def p4_exc_subclass_caught_by_base(x):
    class MyErr(ValueError):
        pass
    try:
        raise MyErr("mine")
    except ValueError as e:
        return isinstance(e, MyErr), e.args, x.sum()


@case()
def p4_exc_finally_runs_on_return_and_raise(x):
    log = []

    def f(v, fail):
        try:
            if fail:
                raise KeyError(v.shape)
            return v + 1
        finally:
            log.append(fail)
    r = f(x, False)
    try:
        f(x, True)
    except KeyError:
        log.append("caught")
    return r, log


@case()
def p4_exc_else_clause_runs(x):
    log = []
    try:
        y = x + 1
    except Exception:  # noqa: BLE001
        log.append("exc")
    else:
        log.append("else")
        y = y * 2
    finally:
        log.append("fin")
    return y, log


@case()
def p4_exc_assert_raises_with_message(x):
    assert x.shape == (4, 3), f"bad shape {x.shape}"
    return x


@case()
def p4_exc_stop_iteration_from_next(x):
    it = iter(x)
    for _ in range(3):
        next(it)
    return next(it)


@case()
def p4_exc_attribute_error_on_none(x):
    y = None
    return y.shape


@case()
def p4_exc_type_error_int_plus_str(x):
    return x.shape[0] + "a"


@case()
def p4_exc_index_error_list(x):
    return [x][3]


@case()
def p4_exc_keyerror_in_loop_with_default(x):
    d = {"a": x}
    out = []
    for k in ("a", "b"):
        try:
            out.append(d[k])
        except KeyError as e:
            out.append(e.args[0])
    return out


@case()
def p4_exc_exception_group_like_nested_reraise(x):
    errors = []
    for i in range(3):
        try:
            if i == 1:
                raise ValueError(i)
            errors.append(i)
        except ValueError as e:
            errors.append(("caught", e.args))
            continue
    return errors, x.ndim


@case()
def p4_exc_custom_exception_init_and_str(x):
    class ShapeError(Exception):
        def __init__(self, shape):
            super().__init__(f"shape {shape}")
            self.shape = shape
    try:
        raise ShapeError(x.shape)
    except ShapeError as e:
        return str(e), e.shape, repr(e)


@case()
def p4_exc_raise_class_not_instance(x):
    try:
        raise KeyError
    except KeyError as e:
        return e.args, type(e).__name__, x.shape


@case()
def p4_exc_raise_non_exception_type_error(x):
    raise 5


@case()
def p4_exc_with_traceback_attr(x):
    try:
        raise ValueError("t")
    except ValueError as e:
        return e.__traceback__ is not None, x.ndim


@case()
def p4_exc_numpy_linalg_error(x):
    try:
        np.linalg.inv(np.zeros((2, 2)))
    except np.linalg.LinAlgError as e:
        return str(e), x.shape


@case()
def p4_exc_numpy_index_error_message(x):
    try:
        return x[10]
    except IndexError as e:
        return str(e)


@case()
def p4_exc_numpy_cast_error_out(x):
    try:
        np.add(x, 1, out=np.zeros((3, 4), dtype=np.int32))
    except TypeError as e:  # UFuncTypeError is a TypeError
        return type(e).__name__, x.shape


# -- Python numbers (TorchDynamo test_unspec) ------------------------------------------

@case(X, 3)
def p4_num_int_argument_arith(x, n):
    return x * n + n ** 2, n // 2, n / 2, -n


@case(X, 2.5)
def p4_num_float_argument_arith(x, f):
    return x * f, f * 2, f // 1, round(f), math.floor(f), int(f)


@case(X, True)
def p4_num_bool_argument(x, flag):
    return x + flag, flag + 1, (x if flag else -x)


@case(X, 0)
def p4_num_int_zero_used_as_index(x, i):
    return x[i], x[:, i], x[i:i + 2]


@case(X, 7)
def p4_num_int_argument_in_range_loop(x, n):
    out = x
    for _ in range(n % 3):
        out = out + 1
    return out


@case(X, 1e30)
def p4_num_big_float_overflow_float32(x, f):
    return x * f, np.float32(f) * np.float32(f)


@case(X, 2 ** 40)
def p4_num_big_int_promotes(x, n):
    return (np.arange(3) * n).dtype, x.astype(np.int64) + n


@case(X, -0.0)
def p4_num_negative_zero_float(x, f):
    return math.copysign(1.0, f), x * f, str(f)


@case(X, float("nan"))
def p4_num_nan_argument(x, f):
    return x + f, f != f, math.isnan(f)


@case(X, float("inf"))
def p4_num_inf_argument(x, f):
    return x * f, f > 1e308, -f


@case(X, 3)
def p4_num_int_argument_as_shape(x, n):
    return np.zeros((n, 2)), x.reshape(n, -1).shape, np.ones(n * 2).sum()


@case(X, 2)
def p4_num_math_functions(x, n):
    return math.sqrt(n), math.exp(n), math.log(n), math.pi * n, math.gcd(n, 6), math.isclose(n, 2.0)


@case(X, 3.7)
def p4_num_float_to_int_conversions(x, f):
    return int(f), int(-f), round(f), round(-f), math.ceil(f), math.trunc(-f), round(2.5), round(3.5)


@case(X, 5)
def p4_num_int_methods(x, n):
    return n.bit_length(), (n).to_bytes(2, "little"), n.real, n.imag, n.conjugate(), float(n).is_integer()


@case(X, 2.5)
def p4_num_float_methods(x, f):
    return f.as_integer_ratio(), f.hex(), f.is_integer(), f.real, float.fromhex("0x1.8p1")


@case(X, 1 + 2j)
def p4_num_complex_argument(x, c):
    return x * c, c.real, abs(c), c.conjugate()


@case(X, np.float32(1.5))
def p4_num_numpy_float32_argument(x, s):
    return x * s, type(s * 2).__name__, s + 1.0, type(s + 1.0).__name__


@case(X, np.int8(100))
def p4_num_numpy_int8_argument_overflow(x, s):
    return s + np.int8(100), x + s, type(s + 1).__name__


@case(X, 3)
def p4_num_int_from_shape_mixed_with_arg(x, n):
    m = x.shape[0] * n
    return m, x.repeat(n, axis=0).shape, x.shape[1] % n


@case(X, 0.1)
def p4_num_float_accumulation_order(x, f):
    s = 0.0
    for _ in range(10):
        s += f
    return s, s == 1.0, sum([f] * 10)


@case(X, 2)
def p4_num_int_pow_negative_and_float(x, n):
    return n ** -2, (-n) ** 0.5, pow(n, 3, 5), 2.0 ** n


@case(X, 3)
def p4_num_arg_to_numpy_scalar(x, n):
    a = np.int64(n)
    b = np.float32(n)
    return a * 2, b / 2, type(a * 2).__name__, (x * a).dtype, (x * b).dtype


# -- misc (TorchDynamo test_misc, test_repros) ----------------------------------------

@case()
def p4_misc_namedtuple_fields(x):
    P = collections.namedtuple("P", "a b")
    p = P(x, 2)
    q = p._replace(b=3)
    return p.a + q.b, p._fields, q._asdict()["b"], isinstance(p, tuple)


@case()
def p4_misc_dataclass_init_and_repr(x):
    @dataclasses.dataclass
    class Cfg:
        scale: float = 2.0
        name: str = "c"
    c = Cfg(scale=3.0)
    return x * c.scale, repr(c), dataclasses.asdict(c), c == Cfg(3.0)


@case()
def p4_misc_dataclass_frozen_raises(x):
    @dataclasses.dataclass(frozen=True)
    class F:
        v: int = 1
    f = F()
    try:
        f.v = 2
    except dataclasses.FrozenInstanceError as e:
        return type(e).__name__, f.v, x.shape


@case()
def p4_misc_enum_members(x):
    class Act(enum.Enum):
        RELU = "relu"
        TANH = "tanh"
    a = Act("tanh")
    return a is Act.TANH, a.name, [m.value for m in Act], np.tanh(x) if a is Act.TANH else x


@case()
def p4_misc_intenum_arith(x):
    class Ax(enum.IntEnum):
        ROW = 0
        COL = 1
    return x.sum(axis=Ax.COL), Ax.COL + 1, int(Ax.ROW)


@case()
def p4_misc_getattr_setattr_hasattr_dynamic(x):
    class O:
        pass
    o = O()
    for i, name in enumerate(("a", "b")):
        setattr(o, name, x * i)
    return getattr(o, "b"), hasattr(o, "c"), getattr(o, "c", None), sorted(vars(o))


@case()
def p4_misc_callable_and_type_checks(x):
    return callable(np.sum), callable(x), callable(len), isinstance(x, np.ndarray), issubclass(np.float32, np.floating)


@case()
def p4_misc_id_stable_within_call(x):
    y = x
    return id(y) == id(x), id(x + 1) is not None


@case()
def p4_misc_builtin_functions_on_lists(x):
    v = x[0].tolist()
    return sum(v), min(v), max(v), sorted(v), list(reversed(v)), any(v), all(v), len(v)


@case()
def p4_misc_zip_strict_mismatch(x):
    if sys.version_info >= (3, 10):
        return list(zip([1, 2], [3], strict=True))
    raise ValueError("zip() argument 2 is shorter than argument 1")


@case()
def p4_misc_map_filter_lambda(x):
    return list(map(lambda r: r.sum(), x)), list(filter(lambda v: v > 0, [1, -1, 2])), list(map(operator.add, [1, 2], [3, 4]))


@case()
def p4_misc_sorted_key_and_stability(x):
    pairs = [("b", 1), ("a", 1), ("c", 0)]
    return sorted(pairs, key=operator.itemgetter(1)), sorted(pairs), sorted(x.shape, reverse=True)


@case()
def p4_misc_object_identity_in_containers(x):
    lst = [x, x]
    t = tuple(lst)
    return t[0] is t[1], lst.index(x), x in lst


@case()
def p4_misc_isinstance_tuple_of_types(x):
    vals = [1, 1.0, "s", x, (1,), None, np.float32(1)]
    return [isinstance(v, (int, float)) for v in vals], [type(v).__name__ for v in vals]


@case()
def p4_misc_repr_str_of_containers(x):
    return repr([1, "a", None]), str({"k": (1, 2)}), repr(x.shape), str(x.dtype), repr(np.float32)


@case()
def p4_misc_hash_of_python_values(x):
    return hash(1) == hash(1.0), hash("a") == hash("a"), hash((1, 2)) == hash((1, 2)), hash(None) == hash(None)


@case()
def p4_misc_divmod_abs_round_builtins(x):
    return divmod(17, 5), abs(-3.5), round(2.675, 2), round(-0.5), pow(2, 5), bin(10), hex(255), oct(8)


@case()
def p4_misc_int_float_str_constructors(x):
    return int("12"), float("1.5"), str(1.0), int(3.9), float(3), bool(0), bool("a"), int(True), int("ff", 16)


@case()
def p4_misc_all_any_on_arrays(x):
    return all(x.shape), any([]), np.all(x > -5), np.any(x > 100), all(r.sum() > -100 for r in x)


@case()
def p4_misc_nested_functions_calling_each_other(x):
    def even(n):
        return True if n == 0 else odd(n - 1)

    def odd(n):
        return False if n == 0 else even(n - 1)
    return even(x.shape[0] + 1), odd(x.shape[1])


@case()
def p4_misc_class_with_slots(x):
    class P:
        __slots__ = ("a", "b")

        def __init__(self, a, b):
            self.a, self.b = a, b
    p = P(x, 2)
    try:
        p.c = 1
    except AttributeError:
        pass
    return p.a * p.b, P.__slots__


@case()
def p4_misc_super_in_subclass_method(x):
    class Base:
        def f(self, v):
            return v + 1

    class Sub(Base):
        def f(self, v):
            return super().f(v) * 2
    return Sub().f(x)


@case()
def p4_misc_classmethod_constructor(x):
    class Box:
        def __init__(self, v):
            self.v = v

        @classmethod
        def zeros_like(cls, a):
            return cls(np.zeros_like(a))
    b = Box.zeros_like(x)
    return type(b).__name__, b.v


@case()
def p4_misc_staticmethod_via_instance(x):
    class U:
        @staticmethod
        def twice(v):
            return v * 2
    return U().twice(x), U.twice(1)


@case()
def p4_misc_property_chain(x):
    class A:
        def __init__(self, v):
            self._v = v

        @property
        def v(self):
            return self._v

        @property
        def doubled(self):
            return self.v * 2
    return A(x).doubled


@case()
def p4_misc_instance_dict_and_class_attr_shadow(x):
    class C:
        k = 1
    c = C()
    a = c.k
    c.k = 2
    return a, c.k, C.k, c.__dict__


@case()
def p4_misc_dunder_call_and_getitem(x):
    class M:
        def __init__(self, t):
            self.t = t

        def __call__(self, v):
            return v * self.t

        def __getitem__(self, i):
            return self.t + i

        def __len__(self):
            return 3
    m = M(2)
    return m(x), m[1], len(m), list(reversed(range(len(m))))


@case()
def p4_misc_iter_protocol_user_class(x):
    class Rows:
        def __init__(self, a):
            self.a, self.i = a, 0

        def __iter__(self):
            return self

        def __next__(self):
            if self.i >= len(self.a):
                raise StopIteration
            self.i += 1
            return self.a[self.i - 1]
    return [r.sum() for r in Rows(x)]


@case()
def p4_misc_contains_user_class(x):
    class Bag:
        def __contains__(self, v):
            return v == 2
    return 2 in Bag(), 3 in Bag(), x.shape[0] in Bag()


@case()
def p4_misc_eq_hash_user_keys(x):
    class K:
        def __init__(self, n):
            self.n = n

        def __eq__(self, o):
            return isinstance(o, K) and o.n == self.n

        def __hash__(self):
            return hash(self.n)
    d = {K(1): x}
    return d[K(1)], K(1) in d, K(2) in d


@case()
def p4_misc_repro_reshape_with_neg_and_view(x):
    b = x.reshape(2, -1)
    c = b.T.reshape(-1)
    c2 = c.copy()
    c2[0] = 99
    return b.shape, c, c2[0], x[0, 0]


@case()
def p4_misc_repro_index_with_list_of_ints_from_python(x):
    idx = [i for i in range(x.shape[1]) if i % 2 == 0]
    return x[:, idx], x[idx[:1]]


@case(ort=True)
def p4_misc_repro_softmax_stable(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


@case(ort=True)
def p4_misc_repro_layernorm(x):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5)


@case()
def p4_misc_repro_where_mask_fill(x):
    mask = np.triu(np.ones((3, 4), dtype=bool), 1)
    return np.where(mask, -np.inf, x), np.where(mask)[0]


@case()
def p4_misc_repro_argsort_take_along(x):
    idx = np.argsort(-x, axis=1)
    return np.take_along_axis(x, idx, axis=1), idx[:, :2]


@case(ort=True)
def p4_misc_repro_one_hot(x):
    labels = np.array([0, 2, 1])
    eye = np.eye(4, dtype=x.dtype)
    return eye[labels], (eye[labels] * x).sum(axis=1)


@case(ort=True)
def p4_misc_repro_cumulative_python_loop(x):
    out = [x[0]]
    for r in x[1:]:
        out.append(out[-1] + r)
    return np.stack(out)


@case()
def p4_misc_repro_dtype_from_argument(x):
    def make(shape, dtype=None):
        return np.zeros(shape, dtype=dtype or x.dtype)
    return make(2).dtype, make(2, np.int16).dtype


@case()
def p4_misc_repro_kwargs_passthrough_to_numpy(x):
    kw = {"axis": 0, "keepdims": True}
    return np.sum(x, **kw), np.mean(x, **{"axis": 1})


@case()
def p4_misc_repro_inplace_on_argument_visible(x):
    x += 1
    x[0] = 0
    return None


@case()
def p4_misc_repro_returns_argument_identity(x):
    y = x
    return y


@case()
def p4_misc_repro_returns_same_object_twice(x):
    y = x + 1
    return y, y, [y]


@case()
def p4_misc_repro_empty_array_ops(x):
    e = x[:0]
    return e.sum(axis=0), e.shape, np.concatenate([e, x[:1]]).shape, e.max(initial=-1.0)


@case()
def p4_misc_repro_zero_size_reduce_raises(x):
    return x[:0].max()


@case()
def p4_misc_repro_scalar_array_0d(x):
    s = np.array(3.0, dtype=np.float32)
    return s + x, s.ndim, s.shape, float(s), (s * 2).shape


@case()
def p4_misc_locals_in_comprehension_scope(x):
    n = 2
    return [n * i for i in range(3)], {i: n for i in range(2)}, x.ndim


# -- side effects ordered against exceptions and breaks (Paddle test_side_effects,
#    test_output_restoration, Dynamo test_repros) ----------------------------------------

@case([1, 2], {"a": 1})
def p4_eff_mutations_then_numpy_error(lst, d):
    lst.append(3)
    d["b"] = 2
    x = np.ones((2, 3)) + np.ones((4,))
    lst.append(x)
    return lst


@case([X, 1])
def p4_eff_list_arg_replaced_element_then_break(lst):
    lst[0] = lst[0] * 2
    print("between")
    lst[1] += 1
    return lst[0].sum()


@case({"w": X})
def p4_eff_dict_arg_inplace_array(d):
    d["w"] += 1
    d["w2"] = d["w"] * 2
    return d["w"] is d["w2"]


@case([X])
def p4_eff_array_in_list_arg_inplace(lst):
    a = lst[0]
    a *= 2
    lst.append(a.sum())
    return lst[0] is a


@case()
def p4_eff_exception_after_inplace_on_argument(x):
    x += 1
    x[0, 0] = -100
    return x.reshape(7)


@case([])
def p4_eff_closure_appends_to_argument(lst):
    def push(v):
        lst.append(v)
    push(1)
    push(np.float32(2))
    raise KeyError(len(lst))


@case()
def p4_eff_global_mutated_then_raise(x):
    _P4_EFF.append(x.shape)
    _P4_EFF.clear()
    _P4_EFF.append(1)
    raise ValueError(list(_P4_EFF))


_P4_EFF: list = []


@case()
def p4_eff_object_attr_set_then_raise(x):
    _P4_OBJ.v = x.sum()
    _P4_OBJ.w = 1
    del _P4_OBJ.w
    raise RuntimeError(hasattr(_P4_OBJ, "w"))


class _P4Obj:
    pass


_P4_OBJ = _P4Obj()


@case([1, 2, 3])
def p4_eff_list_sort_reverse_pop_arg(lst):
    lst.sort(reverse=True)
    lst.pop(0)
    lst.insert(0, 10)
    return lst


@case({"a": 1, "b": 2})
def p4_eff_dict_arg_pop_popitem_clear(d):
    a = d.pop("a")
    d["c"] = a
    b = d.popitem()
    d.setdefault("z", [])
    d["z"].append(1)
    return a, b


@case([[1], [2]])
def p4_eff_nested_list_arg_inner_mutated(lst):
    inner = lst[0]
    inner.append(5)
    lst[1] = inner
    return lst[0] is lst[1]


@case(X, [0])
def p4_eff_counter_arg_in_loop_with_break_inside(x, count):
    for i in range(3):
        count[0] += 1
        if i == 1:
            print("brk", count[0])
    return x * count[0]


@case()
def p4_eff_stdout_order_around_graph(x):
    print("a")
    y = x + 1
    print("b", y.shape)
    z = y * 2
    print("c")
    return z


@case()
def p4_eff_print_to_file_kw(x):
    import io
    buf = io.StringIO()
    print("into", x.shape, file=buf)
    return buf.getvalue()


# -- aliasing and identity (Dynamo test_repros / test_misc) --------------------------

@case(X)
def p4_alias_same_array_twice(x):
    return _p4_alias2(x, x)


def _p4_alias2(a, b):
    a += 1
    return b.sum(), a is b


@case([X, X])
def p4_alias_list_holding_same_array(lst):
    lst[0] += 1
    return lst[1][0, 0], lst[0] is lst[1]


@case()
def p4_alias_view_of_argument_returned(x):
    v = x[1:]
    v += 1
    return v.base is x, v


@case()
def p4_alias_returned_slice_of_argument(x):
    return x[0], x.T, x.reshape(-1), x[:, ::2]


@case()
def p4_alias_returned_argument_in_dict(x):
    return {"orig": x, "new": x + 0}


@case()
def p4_alias_np_asarray_identity(x):
    a = np.asarray(x)
    b = np.array(x, copy=False) if hasattr(np, "__version__") and np.__version__ < "2" else np.asarray(x)
    c = np.array(x)
    return a is x, b is x, c is x


@case()
def p4_alias_astype_same_dtype_copies(x):
    a = x.astype(np.float32)
    b = x.astype(np.float32, copy=False)
    return a is x, b is x


@case()
def p4_alias_ravel_vs_flatten_views(x):
    r = x.ravel()
    f = x.flatten()
    r[0] = 7
    return x[0, 0], f[0], np.shares_memory(r, x)


@case()
def p4_alias_reshape_of_transpose_copies(x):
    t = x.T.reshape(-1)
    t[0] = 55
    return x[0, 0], t[0]


@case()
def p4_alias_inplace_with_overlapping_views(x):
    y = x.copy()
    y[1:] += y[:-1]
    z = x.copy()
    z[:, 1:] = z[:, :-1]
    return y, z


# -- dtype and value corners through the graph --------------------------------------

@case()
def p4_dt_int_array_true_div_and_pow(x):
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    return i / 2, i // 2, i ** 2, (i ** 2).dtype, i.mean().dtype, np.float32(2) ** i


@case()
def p4_dt_python_float_with_float32_array(x):
    return (x * 1e-3).dtype, (x + 1e40).dtype, (x + 1e40)[0, 0], (x * 2.5).dtype


@case()
def p4_dt_uint_and_int_mix(x):
    u = np.arange(4, dtype=np.uint8)
    s = np.arange(4, dtype=np.int8)
    return (u + s).dtype, (u + 1).dtype, u - 1, (u * 100), (u.astype(np.uint64) + s).dtype


@case()
def p4_dt_bool_sum_and_mean(x):
    m = x > 0
    return m.sum(), m.sum().dtype, m.mean(), m.astype(int).dtype, (m + m).dtype, (m * 1.5).dtype


@case()
def p4_dt_float16_ops(x):
    h = x.astype(np.float16)
    return h * 3, (h + np.float32(1)).dtype, h.sum(), h.mean().dtype, np.exp(h)


@case()
def p4_dt_complex_ops(x):
    c = x + 1j * x
    return np.abs(c), c.real.dtype, np.angle(c), c.conj(), (c * c).dtype


@case()
def p4_dt_nan_inf_handling(x):
    y = np.log(x)
    return np.isnan(y).sum(), np.nan_to_num(y), np.nanmax(y), np.isinf(1 / (x * 0)).sum()


@case()
def p4_dt_signed_zero_and_copysign(x):
    z = x * 0
    return np.signbit(z), np.copysign(1.0, z), 1 / (z - 0.0)


@case()
def p4_dt_integer_overflow_wraps(x):
    a = np.array([2**31 - 1], dtype=np.int32)
    return a + 1, a * 2, np.int32(2**31 - 1) + np.int32(0)


@case()
def p4_dt_integer_division_by_zero_array(x):
    a = np.arange(3)
    return a // 0, a % 0


@case()
def p4_dt_scalar_types_from_reductions(x):
    return type(x.sum()).__name__, type(x.sum().item()).__name__, type(x.argmax()).__name__, type(x.shape[0]).__name__


@case()
def p4_dt_python_int_of_float32_sum(x):
    s = x.sum()
    return int(s), float(s), bool(s), round(s), round(float(s), 1)


@case()
def p4_dt_mixed_scalar_result_types(x):
    a = x[0, 0]
    return type(a + 1).__name__, type(a + 1.0).__name__, type(a * x[0, 1]).__name__, type(a > 0).__name__, type(-a).__name__


@case()
def p4_dt_astype_unsafe_float_to_uint(x):
    return (x * 10).astype(np.uint8), (x * 1000).astype(np.int8)


# -- more guards that change between calls -------------------------------------------

@case()
def p4_guard_global_list_of_arrays_grows(x):
    del _P4_LAYERS[1:]
    if _p4_phase():
        _P4_LAYERS.append(np.ones((4, 4), dtype=np.float32))
    out = x
    for w in _P4_LAYERS:
        out = out @ w
    return out, len(_P4_LAYERS)


_P4_LAYERS = [np.eye(4, dtype=np.float32)]


@case()
def p4_guard_dict_order_changes(x):
    if _p4_phase():
        _P4_ORD.clear()
        _P4_ORD.update(b=2, a=1)
    else:
        _P4_ORD.clear()
        _P4_ORD.update(a=1, b=2)
    return [x * v for v in _P4_ORD.values()], list(_P4_ORD)


_P4_ORD = {"a": 1, "b": 2}


@case()
def p4_guard_object_identity_changes(x):
    _P4_HOLD["o"] = _P4_A if _p4_phase() else _P4_B
    return _P4_HOLD["o"].apply(x)


class _P4Add:
    k = 1

    def apply(self, v):
        return v + self.k


class _P4Mul(_P4Add):
    def apply(self, v):
        return v * 3


_P4_A, _P4_B = _P4Add(), _P4Mul()
_P4_HOLD: dict = {}


@case()
def p4_guard_type_of_global_changes(x):
    _P4_HOLD["v"] = [1, 2] if _p4_phase() else (1, 2)
    return x + len(_P4_HOLD["v"]), type(_P4_HOLD["v"]).__name__


@case()
def p4_guard_int_used_as_slice_bound(x):
    _P4_HOLD["n"] = 1 + _p4_phase()
    return x[: _P4_HOLD["n"]]


@case()
def p4_guard_float_equal_but_int(x):
    _P4_HOLD["s"] = 2 if _p4_phase() else 2.0
    r = x * _P4_HOLD["s"]
    return r, type(_P4_HOLD["s"] * 1).__name__, str(_P4_HOLD["s"])


@case()
def p4_guard_bool_vs_int_one(x):
    _P4_HOLD["b"] = True if _p4_phase() else 1
    return x + _P4_HOLD["b"], repr(_P4_HOLD["b"]), _P4_HOLD["b"] is True


@case()
def p4_guard_negative_zero_vs_zero(x):
    _P4_HOLD["z"] = -0.0 if _p4_phase() else 0.0
    return 1 / (x * 0 + 1) * _P4_HOLD["z"], math.copysign(1, _P4_HOLD["z"])


@case()
def p4_guard_nan_global(x):
    _P4_HOLD["nan"] = float("nan") if _p4_phase() else 1.0
    return x + _P4_HOLD["nan"], _P4_HOLD["nan"] == _P4_HOLD["nan"]


@case()
def p4_guard_array_contents_read_as_python(x):
    _P4_ARR3[0] = 1 + _p4_phase()
    k = int(_P4_ARR3[0])
    return x[:k], k


_P4_ARR3 = np.zeros(2, dtype=np.int64)


@case()
def p4_guard_array_flags_writeable(x):
    a = np.ones(3)
    a.flags.writeable = not _p4_phase()
    try:
        a[0] = 5
    except ValueError as e:
        return str(e)
    return a


@case()
def p4_guard_string_key_lookup_changes(x):
    key = "ab"[_p4_phase()]
    table = {"a": np.sin, "b": np.cos}
    return table[key](x)


@case()
def p4_guard_module_attribute_changes(x):
    _P4NS.scale = 1 + _p4_phase()
    return x * _P4NS.scale


class _P4NS:
    scale = 1


@case()
def p4_guard_tuple_of_arrays_global_len(x):
    _P4_HOLD["ts"] = (x,) * (1 + _p4_phase())
    return sum(_P4_HOLD["ts"]), len(_P4_HOLD["ts"])


@case()
def p4_guard_closure_over_list_changes(x):
    cfg = _P4_CFGL
    cfg[0] = "sum" if _p4_phase() else "mean"

    def reduce(v):
        return getattr(v, cfg[0])(axis=0)
    return reduce(x)


_P4_CFGL = ["mean"]


@case()
def p4_guard_range_len_global(x):
    _P4_HOLD["r"] = range(1 + _p4_phase() * 2)
    out = x
    for _ in _P4_HOLD["r"]:
        out = out * 2
    return out


# -- unspec numbers from arrays and shapes (Dynamo test_unspec) -----------------------

@case()
def p4_num_shape_product_in_python(x):
    n = 1
    for d in x.shape:
        n *= d
    return n, n == x.size, np.zeros(n).shape


@case()
def p4_num_float_from_array_in_python_math(x):
    m = float(x.mean())
    return math.exp(m), m * 2, round(m, 3), m > 0


@case()
def p4_num_int_from_argmax_indexes_list(x):
    names = ["a", "b", "c", "d"]
    return names[int(x[0].argmax())], names[x[0].argmax()]


@case()
def p4_num_item_in_range(x):
    n = int(np.abs(x).max().item()) + 1
    return list(range(n)), n


@case()
def p4_num_count_nonzero_python(x):
    k = np.count_nonzero(x > 0)
    return k, type(k).__name__, x[:k] if k < 3 else x


@case()
def p4_num_len_of_nonzero(x):
    idx = np.nonzero(x > 0)[0]
    return len(idx), idx, x[idx]


@case()
def p4_num_python_sum_of_array_row(x):
    return sum(x[0]), type(sum(x[0])).__name__, sum(x[0].tolist())


@case()
def p4_num_int_division_result_types(x):
    n = x.shape[0]
    return n / 3, n // 3, type(n / 3).__name__, n / 3 == 1.0, (n * 1.0).is_integer()


_P4_RO = np.zeros(3, dtype=np.float32)


@case()
def p4_guard_global_array_writeable_flips(x):
    a = _P4_RO
    a.flags.writeable = not _p4_phase()
    try:
        a[0] = x[0, 1]
        r = "wrote"
    except ValueError as e:
        r = str(e)
    return r, a.copy(), x * 2


@case()
def p4_guard_argument_written_in_try_twice(x):
    y = x[::2]
    try:
        y += 1
        x[0, 0] = -7
    except ValueError as e:
        return str(e)
    return x


# -- unusual arguments: layouts, dtypes, subclasses, containers ------------------------

F_ORDER = np.asfortranarray(X)
STRIDED = np.arange(24, dtype=np.float32).reshape(4, 6)[::2, 1::2]
BIG_ENDIAN = X.astype(">f4")
ZERO_D = np.array(2.5, dtype=np.float64)
EMPTY = np.zeros((0, 4), dtype=np.float32)
STRUCT = np.array([(1, 2.0), (3, 4.0)], dtype=[("a", "i4"), ("b", "f8")])
DATES = np.array(["2024-01-01", "2024-03-01"], dtype="datetime64[D]")
OBJ = np.array([1, "a", None], dtype=object)


@case(F_ORDER)
def p4_arg_fortran_order_ops(x):
    y = x + 1
    return y, y.flags["F_CONTIGUOUS"], x.T.flags["C_CONTIGUOUS"], x.ravel(), x.reshape(4, 3)


@case(STRIDED)
def p4_arg_strided_view_ops(x):
    x2 = x * 2
    return x2, x.strides, x.sum(axis=0), x.copy().strides, x.base is not None


@case(STRIDED)
def p4_arg_strided_view_written(x):
    x[0] = -1
    x += 1
    return x.base[0]


@case(BIG_ENDIAN)
def p4_arg_big_endian(x):
    y = x + 1
    return y, y.dtype.byteorder, x.dtype.byteorder, x.sum(), x.astype(np.float32)


@case(ZERO_D)
def p4_arg_zero_d_array(x):
    return x + 1, x * np.ones(2), float(x), x[()], x.item(), x.shape, (x + 1).ndim


@case(EMPTY)
def p4_arg_empty_array(x):
    return x.sum(axis=0), x.mean(axis=1), x.T @ x, x.reshape(-1, 2).shape, len(x), x.any()


@case(STRUCT)
def p4_arg_structured_fields(x):
    return x["a"] * 2, x["b"].sum(), x[0], x.dtype.names, x[["b"]]


@case(DATES)
def p4_arg_datetime_ops(x):
    d = x[1] - x[0]
    return d, d.astype(int), x + np.timedelta64(1, "D"), (x > np.datetime64("2024-02-01"))


@case(OBJ)
def p4_arg_object_array(x):
    return x[1], len(x), x[0] + 1, x.dtype, [type(v).__name__ for v in x]


@case(np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]))
def p4_arg_masked_array(m):
    return m.sum(), (m * 2).filled(0), type(m + 1).__name__


@case(np.arange(6).reshape(2, 3).view(np.recarray) if False else I.astype(np.int8))
def p4_arg_int8_array_overflow(x):
    return x * 100, (x * 100).dtype, x + np.int8(127), x.sum(), x.sum().dtype


@case((X, Y))
def p4_arg_tuple_of_arrays(t):
    a, b = t
    return a + b.astype(np.float32), len(t), t[0] is a


@case({"x": X, "n": 2, "name": "s"})
def p4_arg_dict_of_mixed(d):
    return d["x"] * d["n"], d["name"] * d["n"], sorted(d)


@case([X, [Y, (I, None)]])
def p4_arg_nested_containers(a):
    x, (y, (i, none)) = a
    return x.sum() + y.sum() + i.sum(), none is None, len(a[1])


@case(X, None)
def p4_arg_none_default_pattern(x, bias):
    if bias is None:
        bias = np.zeros(x.shape[-1], dtype=x.dtype)
    return x + bias


@case(X, "mean")
def p4_arg_string_reduction_mode(x, mode):
    if mode == "mean":
        return x.mean(axis=0)
    elif mode == "sum":
        return x.sum(axis=0)
    raise ValueError(mode)


@case(X, np.tanh)
def p4_arg_function_argument(x, act):
    return act(x), act.__name__


@case(X, lambda v: v * 3)
def p4_arg_lambda_argument(x, fn):
    return fn(x) + fn(1)


@case(X, np.float32)
def p4_arg_dtype_class_argument(x, dt):
    return x.astype(dt), np.zeros(2, dt), dt(1.5), np.dtype(dt).itemsize


@case(X, np.dtype("int16"))
def p4_arg_dtype_instance_argument(x, dt):
    return x.astype(dt), dt.kind, dt.itemsize, np.iinfo(dt).max


@case(X, (2, 6))
def p4_arg_shape_tuple_argument(x, shape):
    return x.reshape(shape), np.empty(shape).shape, shape[0] * shape[1]


@case(X, slice(1, 3))
def p4_arg_slice_argument(x, s):
    return x[:, s], x[s], s.stop - s.start


@case(X, [0, 2])
def p4_arg_index_list_argument(x, idx):
    return x[idx], x[:, idx], x[idx][:, idx]


@case(X, range(3))
def p4_arg_range_argument(x, r):
    return [x[i].sum() for i in r], len(r), r[-1]


@case(X, Ellipsis)
def p4_arg_ellipsis_argument(x, e):
    return x[e, 0], x[0, e]


# -- value semantics users trip over ---------------------------------------------------

@case()
def p4_sem_array_unhashable(x):
    return {x: 1}


@case()
def p4_sem_list_index_array_ambiguous(x):
    rows = [x[0] + 100, x[1]]
    return rows.index(x[1])


@case()
def p4_sem_max_of_arrays_ambiguous(x):
    return max([x[0], x[1]])


@case()
def p4_sem_array_eq_none_elementwise(x):
    return x == None, x is None, (x != None).all()  # noqa: E711


@case()
def p4_sem_in_list_by_identity_first(x):
    lst = [x, 1]
    return x in lst, 1 in lst


@case()
def p4_sem_sorted_arrays_by_key(x):
    return sorted([x[1], x[0], x[2]], key=lambda r: float(r.sum()))


@case()
def p4_sem_bool_of_empty_array(x):
    return bool(x[:0].size), x[:0].size == 0, len(x[:0])


@case()
def p4_sem_np_array_of_arrays(x):
    return np.array([x[0], x[1]]), np.array([1, x[0, 0]]), np.array([x[0, 0], 1.5]).dtype, np.asarray([x, x]).shape


@case()
def p4_sem_np_array_ragged_raises(x):
    return np.array([x[0], x[0, :2]])


@case()
def p4_sem_str_and_repr_of_arrays(x):
    return str(x[0]), repr(x[:1]), str(x.dtype), f"{x[0, :2]}"


@case()
def p4_sem_tolist_nested_types(x):
    t = x.tolist()
    return t, type(t[0][0]).__name__, (x > 0).tolist()[0], I[0].tolist()


@case()
def p4_sem_seeded_generator(x):
    rng = np.random.default_rng(0)
    return rng.normal(size=3), rng.integers(0, 10, size=2), x + rng.random()


@case()
def p4_sem_seeded_global_random(x):
    np.random.seed(3)
    a = np.random.rand(2)
    b = np.random.randint(0, 5, size=3)
    return a, b, x * a[0]


@case()
def p4_sem_random_state_object(x):
    rs = np.random.RandomState(7)
    return rs.uniform(size=2), rs.permutation(4), x.shape


@case()
def p4_sem_integer_index_from_numpy_int(x):
    k = np.int64(1)
    lst = ["a", "b", "c"]
    return lst[k], (1, 2, 3)[np.int32(2)], "abc"[np.uint8(0)], x[k]


@case()
def p4_sem_float_index_raises(x):
    return [1, 2][np.float32(1)]


@case()
def p4_sem_range_with_numpy_ints(x):
    n = x.shape[0]
    return list(range(np.int64(n))), list(range(np.int32(1), 4, np.int8(2)))


@case()
def p4_sem_mutable_default_argument_shared(x):
    def f(v, acc=[]):  # noqa: B006
        acc.append(v)
        return len(acc)
    return f(x), f(x), f(x, [])


@case()
def p4_sem_is_on_small_ints_and_strings(x):
    a = x.shape[0]
    return a == 3, "ab" == "a" + "b", None is None


@case()
def p4_sem_numpy_bool_identity(x):
    b = x[0, 0] > 0
    return type(b).__name__, b is np.True_ or b is np.False_, bool(b) is False, not b


@case()
def p4_sem_numpy_scalars_as_dict_keys(x):
    d = {np.int64(1): "a", 2: "b"}
    return d[1], d[np.int32(2)], len(d), 1.0 in d


@case()
def p4_sem_float_int_equality_containers(x):
    return [1, 2] == [1.0, 2.0], (1,) == (True,), {1: "a"} == {1.0: "a"}, {1, 2} == {2.0, 1.0}


@case()
def p4_sem_augassign_list_vs_tuple_identity(x):
    a = [1]
    b = a
    a += [2]
    t = (1,)
    u = t
    t += (2,)
    return a is b, t is u, b, u


@case()
def p4_sem_aug_assign_array_vs_rebind(x):
    a = x.copy()
    b = a
    a += 1
    c = a
    a = a + 1
    return b is c, a is c, b


@case()
def p4_sem_del_list_slice_and_item_in_loop(x):
    rows = list(x)
    while rows:
        r = rows.pop()
        if r.sum() < 0:
            break
    return len(rows), r


@case()
def p4_sem_global_statement_in_nested_function(x):
    def set_it(v):
        global _P4_NESTED_G
        _P4_NESTED_G = v
    set_it(x.shape)
    return _P4_NESTED_G


_P4_NESTED_G = None


@case()
def p4_sem_exec_like_getattr_chain(x):
    return getattr(getattr(np, "linalg"), "norm")(x), getattr(x, "T").shape


@case()
def p4_sem_vars_and_dir_of_module_attr(x):
    return hasattr(np, "float32"), "sum" in dir(x), type(np).__name__


@case()
def p4_sem_operator_precedence_mixed(x):
    return -x ** 2, (-x) ** 2, 2 ** -1, not 1 == 2, 1 + 2 * 3 ** 2 // 4 % 5


# -- recompiles: what changes between calls is read through loops, breaks, callees ----

_P4_R = {"n": 2, "keys": ["a", "b"], "w": {"a": 1.0, "b": 2.0}, "fn": None}


@case()
def p4_recompile_loop_count_from_global(x):
    _P4_R["n"] = 2 + _p4_phase()
    out = x
    for _ in range(_P4_R["n"]):
        out = out * 2 + 1
    return out


@case()
def p4_recompile_iterated_keys_change(x):
    _P4_R["w"] = {"a": 1.0, "b": 2.0} if not _p4_phase() else {"b": 3.0, "c": 4.0, "a": 0.5}
    return [(k, x * v) for k, v in _P4_R["w"].items()]


@case()
def p4_recompile_list_content_types_change(x):
    _P4_R["keys"] = ["a", "b"] if not _p4_phase() else ["a", 2]
    return [type(k).__name__ for k in _P4_R["keys"]], x + len(_P4_R["keys"])


@case()
def p4_recompile_value_read_after_break(x):
    _P4_R["n"] = 1 + _p4_phase()
    y = x + 1
    print("brk")
    return y * _P4_R["n"]


@case()
def p4_recompile_value_read_in_callee_after_break(x):
    _P4_R["n"] = 1 + _p4_phase()
    return _p4_callee_reads_after_break(x)


def _p4_callee_reads_after_break(v):
    psdb.breakgraph()
    return v * _P4_R["n"]


@case()
def p4_recompile_value_read_in_generator(x):
    _P4_R["n"] = 1 + _p4_phase()

    def g():
        for i in range(_P4_R["n"]):
            yield x * i
    return list(g())


@case()
def p4_recompile_closure_reads_global_at_call(x):
    def f():
        return x * _P4_R["n"]
    _P4_R["n"] = 3 - _p4_phase()
    return f()


@case()
def p4_recompile_global_function_body_replaced(x):
    _P4_R["fn"] = _p4_fa if _p4_phase() else _p4_fb
    return _P4_R["fn"](x), _P4_R["fn"].__name__


def _p4_fa(v):
    return v - 1


def _p4_fb(v):
    return v + 1


@case()
def p4_recompile_code_object_swapped(x):
    _p4_swappable.__code__ = (_p4_fa if _p4_phase() else _p4_fb).__code__
    return _p4_swappable(x)


def _p4_swappable(v):
    return v + 1


@case()
def p4_recompile_instance_class_swapped(x):
    _P4_SWAP_OBJ.__class__ = _P4Mul if _p4_phase() else _P4Add
    return _P4_SWAP_OBJ.apply(x)


_P4_SWAP_OBJ = _P4Add()


@case()
def p4_recompile_instance_attr_array_shape(x):
    _P4_MODEL.w = np.ones((4, 2 + _p4_phase()), dtype=np.float32)
    return x @ _P4_MODEL.w


@case()
def p4_recompile_global_array_inplace_between_calls(x):
    _P4_STATE["a"][...] = _p4_phase()
    _P4_STATE["a"] += 1
    return x[0] + _P4_STATE["a"]


_P4_STATE = {"a": np.zeros(4, dtype=np.float32)}


@case()
def p4_recompile_global_python_float_accumulates(x):
    _P4_STATE["t"] = 0.5 * _p4_phase()
    _P4_STATE["t"] = _P4_STATE.get("t", 0.0) + 0.5
    return x * _P4_STATE["t"]


@case()
def p4_recompile_list_global_appended_read_last(x):
    _P4_HIST[:] = [1.0] * _p4_phase()
    _P4_HIST.append(float(len(_P4_HIST)))
    return x + _P4_HIST[-1], len(_P4_HIST)


_P4_HIST: list = []


@case()
def p4_recompile_int_key_changes(x):
    k = _p4_phase()
    table = {0: x, 1: -x}
    return table[k], k


@case()
def p4_recompile_getattr_name_changes(x):
    name = ("sum", "max")[_p4_phase()]
    return getattr(x, name)(axis=0), name


@case()
def p4_recompile_isinstance_of_global_changes(x):
    _P4_R["v"] = 1.5 if _p4_phase() else 2
    if isinstance(_P4_R["v"], int):
        return x * _P4_R["v"], "int"
    return x / _P4_R["v"], "float"


@case()
def p4_recompile_none_to_value_in_default_pattern(x):
    _P4_R["bias"] = None if _p4_phase() else np.float32(0.5)
    b = _P4_R["bias"]
    return x if b is None else x + b


@case()
def p4_recompile_hasattr_changes(x):
    if _p4_phase():
        _P4_OBJ.flag = 1
    elif hasattr(_P4_OBJ, "flag"):
        del _P4_OBJ.flag
    return x + (2 if hasattr(_P4_OBJ, "flag") else 0)


@case()
def p4_recompile_len_of_global_tuple_in_loop(x):
    shapes = ((2, 6), (6, 2), (12,))[: 1 + _p4_phase() * 2]
    return [x.reshape(s).shape for s in shapes]


# -- generators, breaks and exceptions together (Paddle test_22_generator, Dynamo) ---

@case()
def p4_gen_break_inside_then_next(x):
    def g():
        yield x + 1
        print("inside")
        yield x + 2
    it = g()
    a = next(it)
    b = next(it)
    return a, b, next(it, "end")


@case()
def p4_gen_close_after_break_runs_finally(x):
    log = []

    def g():
        try:
            yield 1
            yield 2
        finally:
            log.append("closed")
    it = g()
    next(it)
    print("brk")
    del it
    return log, x.shape


@case()
def p4_gen_exception_propagates_through_break(x):
    def g():
        yield x
        psdb.breakgraph()
        raise KeyError("gen")
    out = []
    try:
        for v in g():
            out.append(v * 2)
    except KeyError as e:
        out.append(str(e))
    return out


@case()
def p4_exc_caught_in_loop_with_break_in_handler(x):
    out = []
    for i in range(3):
        try:
            if i == 1:
                raise ValueError(i)
            out.append(x[i].sum())
        except ValueError:
            print("handled", i)
            out.append(-1)
    return out


@case()
def p4_exc_raised_in_callee_after_break(x):
    def f(v):
        psdb.breakgraph()
        return v.reshape(5)
    try:
        return f(x)
    except ValueError as e:
        return "caught", str(e)


@case()
def p4_exc_finally_with_break_and_return_value(x):
    log = []

    def f(v):
        try:
            return v + 1
        finally:
            print("fin")
            log.append("f")
    return f(x), log


@case()
def p4_exc_reraise_after_break_keeps_type(x):
    try:
        try:
            {}["missing"]
        except KeyError:
            print("brk")
            raise
    except KeyError as e:
        return repr(e), x.ndim


@case()
def p4_exc_numpy_error_caught_after_side_effect(x):
    log = []
    try:
        log.append(1)
        y = np.ones((2, 3)) @ np.ones((2, 3))
    except ValueError as e:
        log.append(str(e)[:20])
        y = None
    return log, y


@case()
def p4_exc_errstate_raise_floating_caught(x):
    with np.errstate(divide="raise"):
        try:
            y = x / 0
        except FloatingPointError as e:
            y = str(e)
    return y


@case()
def p4_exc_warning_as_error_caught(x):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            y = np.log(x)
        except RuntimeWarning as w:
            y = str(w)
    return y


# -- more Paddle SOT-style function calls: builtins dispatch, map/zip/range/enumerate

@case()
def p4_builtin_map_over_arrays_and_ints(x):
    return list(map(lambda a, b: a * b, x, [1, 2, 3])), list(map(str, range(3))), list(map(len, ["a", "bb"]))


@case()
def p4_builtin_zip_three_and_unzip(x):
    a, b, c = zip(*[(1, "a", x), (2, "b", x + 1)])
    return a, b, len(c), list(zip())


@case()
def p4_builtin_range_attrs_and_ops(x):
    r = range(1, 10, 3)
    return r.start, r.stop, r.step, len(r), r[1], r[-1], 4 in r, list(r[::-1]), r.index(7), range(0) == range(1, 1)


@case()
def p4_builtin_enumerate_start_unpack(x):
    return [(i, r.shape) for i, r in enumerate(x, start=5)], list(enumerate("ab"))


@case()
def p4_builtin_reversed_sequences(x):
    return list(reversed([1, 2, 3])), list(reversed((1, 2))), list(reversed(range(3))), [r.sum() for r in reversed(x)]


@case()
def p4_builtin_isinstance_bool_int(x):
    return isinstance(True, int), isinstance(1, bool), type(True) is int, issubclass(bool, int), bool.__mro__[1].__name__


@case()
def p4_builtin_len_of_containers(x):
    return len([1]), len((1, 2)), len({1: 2}), len({1, 2, 3}), len("abcd"), len(range(5)), len(x), len(x.T)


@case()
def p4_builtin_getattr_default_and_missing(x):
    return getattr(x, "nope", 5), getattr(np, "nope", None)


@case()
def p4_builtin_getattr_missing_raises(x):
    return getattr(x, "nope")


@case()
def p4_builtin_abs_neg_on_bool_and_numpy(x):
    return abs(True), -True, abs(np.int8(-128)), abs(x[0]), abs(-2.5)


@case()
def p4_builtin_sum_with_start_and_types(x):
    return sum([[1], [2]], []), sum((0.1, 0.2)), sum([1, 2], 0.5), sum(x), sum(x, start=np.float32(1))


@case()
def p4_builtin_min_max_key_default(x):
    return max([3, 1, 2], key=lambda v: -v), min("hello"), max((1, 2), (1, 3)), max([], default="e"), min(1, 2, 3)


@case()
def p4_builtin_sorted_stability_reverse(x):
    data = [(1, "b"), (0, "a"), (1, "a"), (0, "b")]
    return sorted(data, key=lambda t: t[0]), sorted(data, key=lambda t: t[0], reverse=True)


@case()
def p4_builtin_any_all_iterables(x):
    return any(v > 2 for v in [1, 2, 3]), all([]), any([0, "", None]), all(x.shape), any(())


@case()
def p4_builtin_iter_next_on_list_and_dict(x):
    it = iter([x, 1])
    d = iter({"a": 1, "b": 2})
    return next(it) is x, next(it), next(d), next(d), next(d, "done")


@case()
def p4_builtin_type_call_three_args(x):
    T = type("T", (), {"k": 3})
    return T.k, T.__name__, x * T.k


@case()
def p4_builtin_format_builtin(x):
    return format(3.14159, ".2f"), format(255, "x"), format("a", ">3"), format(x.shape[0], "03d")


@case()
def p4_builtin_chr_ord_bin_roundtrip(x):
    n = x.shape[1]
    return chr(ord("a") + n), int(bin(n), 2), int(hex(n * 100), 16)


# -- set iteration order after operations (Dynamo test_sets: sets returned as lists) --

_P4_SA = (36, 5, 16, 19, 24, 25, 30, 2 ** 61 - 1, 8, -3)
_P4_SB = (0, 6, 7, 15, 20, 21, 25, 29, 16, 2 ** 40)


@case()
def p4_set_order_of_operator_results(x):
    a, b = set(_P4_SA), set(_P4_SB)
    return list(a - b), list(a ^ b), [v for v in a & b], list(a | b), x + 1


@case()
def p4_set_order_of_method_results(x):
    a = set(_P4_SA)
    return list(a.difference(_P4_SB)), list(a.symmetric_difference(set(_P4_SB))), list(a.union([1, 2])), x + 1


@case()
def p4_set_order_after_discard_and_add(x):
    a = set(_P4_SA)
    a.discard(36)
    a.add(29)
    return list(a), str(a), list(a.copy()), list(set(a)), x + 1


@case()
def p4_set_order_of_update_from_set_and_dict(x):
    a = {1, 2}
    a.update(set(_P4_SB))
    b = set({k: 0 for k in _P4_SA})
    c = set(_P4_SA)
    c -= {5, 36}
    c |= {99, 29}
    return list(a), list(b), list(c), x + 1


# -- NumPy scalar and Python number semantics (Dynamo test_unspec, test_misc) ---------

@case()
def p4_scal_floor_div_mod_signs(x):
    a, b = np.int64(-7), np.float32(-7.5)
    return a // 2, a % 2, divmod(a, 2), b // 2, b % 2, divmod(b, np.float32(2)), -7 // 2, -7.5 % 2


@case()
def p4_scal_round_numpy_types(x):
    return (round(np.float32(2.5)), type(round(np.float32(2.5))).__name__, round(np.float64(3.14159), 2),
            type(round(np.float64(1.5), 1)).__name__, round(np.int64(17), -1), round(x[0, 1]))


@case()
def p4_scal_hash_and_eq_across_types(x):
    return (hash(np.float32(1.5)) == hash(1.5), np.float32(0.1) == 0.1, np.float64(0.1) == 0.1,
            hash(np.int64(-1)), hash(-1), np.int8(3) == 3.0)


@case()
def p4_scal_truediv_and_pow_types(x):
    a = np.int32(7)
    return (type(a / 2).__name__, type(a ** 2).__name__, type(a ** -1).__name__ if False else a / a,
            type(np.float32(2) ** 2).__name__, type(2 ** np.float32(2)).__name__)


@case()
def p4_scal_python_int_huge_with_numpy_int(x):
    a = np.int64(2)
    return a * 10 ** 18, type(a * 10 ** 18).__name__


@case()
def p4_scal_python_int_too_big_raises(x):
    return np.int64(2) + 2 ** 70


@case()
def p4_scal_bool_ops_on_numpy_bools(x):
    t, f = np.True_, np.False_
    return t & f, t | f, t ^ t, ~t, -1 * t, t + t, type(t + t).__name__, not f


@case()
def p4_scal_comparisons_chain_numpy(x):
    a = x[1, 1]
    return -1 < a < 1, a == a, a != a, (a > 0) == (a >= 0), type(a < 1).__name__


@case()
def p4_scal_int_conversion_of_numpy_floats(x):
    v = np.float32(-2.7)
    return int(v), math.floor(v), math.ceil(v), math.trunc(v), int(np.float64(1e10)), type(math.floor(v)).__name__


@case()
def p4_scal_float_str_repr_forms(x):
    vals = [np.float32(0.1), np.float64(0.1), 0.1, np.float16(0.1), 1e16, 1.5e-7, np.float32(1e20)]
    return [str(v) for v in vals], [repr(v) for v in vals]


@case()
def p4_scal_int_str_repr_forms(x):
    vals = [np.int8(-5), np.uint64(2 ** 63), np.int64(10), True, np.bool_(False)]
    return [str(v) for v in vals], [repr(v) for v in vals]


@case()
def p4_scal_python_float_special_values(x):
    inf, nan = float("inf"), float("nan")
    return inf - inf != inf - inf, inf * 0 != inf * 0, -inf < 0, math.isinf(inf), str(nan), repr(-inf), 0.0 == -0.0


@case()
def p4_scal_python_int_ops(x):
    n = x.shape[1]
    return n << 40, (n << 40) >> 38, -n >> 1, n & -2, ~n, n ** 30, (n ** 30) % 1000003, abs(-n)


@case()
def p4_scal_python_float_precision(x):
    return 0.1 + 0.2, 0.1 + 0.2 == 0.3, 1e308 * 10, 2.0 ** 0.5, 1 / 3, 10 / 3 * 3, math.fsum([0.1] * 10)


@case()
def p4_scal_mixed_numpy_python_results(x):
    a = x[0, 0]                      # float32 scalar from the graph
    return (a + 1, a * 2.0, a / 3, a ** 2, a // 1, a % 1, 1 - a, 2.0 / (a + 5), type(1 - a).__name__)


@case()
def p4_scal_int_scalar_from_graph_arith(x):
    n = np.int64(x.shape[0]) * 2
    k = x.astype(np.int64).sum()
    return n + k, n * k, k // 3, k % 3, -k, abs(k), type(k // 3).__name__


@case()
def p4_scal_numpy_int_as_repeat_count(x):
    n = np.int64(2)
    return [0] * n, "ab" * n, (1,) * n


@case()
def p4_scal_item_types(x):
    return (type(np.float32(1).item()).__name__, type(np.int8(1).item()).__name__, type(np.bool_(1).item()).__name__,
            type(np.complex64(1).item()).__name__, x[0, 0].item())


# -- dicts: order, views and identity ------------------------------------------------

@case()
def p4_dict_order_after_delete_and_update(x):
    d = dict.fromkeys("abcdef", 0)
    for k in "bdf":
        del d[k]
    d.update(b=1, z=2)
    d["a"] = x.shape
    return list(d), list(d.values()), list(d.items())[-1]


@case()
def p4_dict_views_live_and_reversed(x):
    d = {"a": 1, "b": 2}
    ks, vs, its = d.keys(), d.values(), d.items()
    d["c"] = x.ndim
    return list(ks), list(vs), list(its), list(reversed(d)), list(reversed(d.values())), len(ks)


@case()
def p4_dict_popitem_after_reinsert(x):
    d = {"a": 1, "b": 2, "c": 3}
    d["a"] = d.pop("a")
    return d.popitem(), list(d)


@case()
def p4_dict_get_vs_index_identity(x):
    v = [x]
    d = {"k": v}
    return d["k"] is v, d.get("k") is v, d.setdefault("k", []) is v, d.pop("k") is v


@case()
def p4_dict_comprehension_dup_keys_last_wins(x):
    d = {k % 3: k for k in range(10)}
    e = {**{"a": 1}, "a": 2}
    return d, e, {1: "a", 1.0: "b", True: "c"}


@case()
def p4_dict_keys_of_mixed_types(x):
    d = {1: "i", "1": "s", (1,): "t", None: "n", 2.5: "f"}
    return [type(k).__name__ for k in d], d[(1,)], d[None], d[2.5]


@case()
def p4_dict_nested_update_and_copy_shallow(x):
    a = {"inner": {"v": 1}, "arr": x}
    b = a.copy()
    b["inner"]["v"] = 2
    b["arr"] = x + 1
    return a["inner"]["v"], a["arr"] is x, b["arr"] is x


@case()
def p4_dict_setdefault_returns_existing_list(x):
    groups = {}
    for i, r in enumerate(x):
        groups.setdefault(i % 2, []).append(r)
    return {k: np.stack(v) for k, v in groups.items()}


@case()
def p4_dict_items_unpack_and_sorted_keys(x):
    d = {"b": x[1], "a": x[0], "c": x[2]}
    return [k + ":" + str(v.shape) for k, v in sorted(d.items())], min(d), max(d, key=lambda k: d[k].sum())


# -- lists: identity and aliasing ------------------------------------------------------

@case()
def p4_list_alias_mutation_visible(x):
    a = [x, 1]
    b = a
    c = a[:]
    a.append(2)
    a[0] = None
    return b, c, b is a, c is a


@case()
def p4_list_nested_mult_shares_inner(x):
    grid = [[0] * 2] * 2
    grid[0][0] = 1
    good = [[0] * 2 for _ in range(2)]
    good[0][0] = 1
    return grid, good


@case()
def p4_list_sort_returns_none_sorted_new(x):
    a = [3, 1, 2]
    r = a.sort()
    b = sorted(a, reverse=True)
    return r, a, b, a is b


@case()
def p4_list_index_errors(x):
    a = [1, 2, 3]
    out = []
    for fn in (lambda: a.index(9), lambda: a.remove(9), lambda: a.pop(5), lambda: [].pop()):
        try:
            fn()
        except (ValueError, IndexError) as e:
            out.append((type(e).__name__, str(e)))
    return out, x.ndim


@case()
def p4_list_slice_assign_wrong_extended_raises(x):
    a = [0, 1, 2, 3]
    a[::2] = [9]
    return a


@case()
def p4_list_comprehension_nested_conditional(x):
    return [r.sum() if i % 2 else -r.sum() for i, r in enumerate(x) if i != 1], [[j for j in range(i)] for i in range(3)]


@case()
def p4_list_extend_self_and_contains(x):
    a = [1, 2]
    a.extend(a)
    a += a[:1]
    return a, 2 in a, a.count(1)


@case()
def p4_list_imul_keeps_identity(x):
    a = [x, 1]
    b = a
    a *= 2
    t = (x,)
    u = t
    t *= 2
    return b, a is b, len(b), u == t, len(u)


@case([X, 1])
def p4_list_imul_argument_in_place(lst):
    alias = lst
    lst *= 3
    lst += (5,)
    lst += "ab"
    return alias is lst, len(lst)


@case()
def p4_list_repeat_by_numpy_int_and_bool(x):
    n = np.int64(2)
    return [x[0]] * n, n * [1], (0,) * np.int32(3), [1] * True, False * [1], [x] * -1


# -- shared objects inside containers built by builtins and methods ------------------

@case()
def p4_shared_fromkeys_mutable_value(x):
    d = dict.fromkeys("ab", [])
    d["a"].append(x.ndim)
    return d, d["a"] is d["b"]


@case()
def p4_shared_setdefault_same_default(x):
    default = []
    d = {}
    d.setdefault("a", default).append(1)
    d.setdefault("b", default).append(2)
    return d, default


@case()
def p4_shared_list_of_list_copy_shallow(x):
    inner = [1]
    a = [inner, inner]
    b = a.copy()
    c = list(a)
    d = a[:]
    inner.append(2)
    return b, c, d, b[0] is c[1]


@case()
def p4_shared_copy_module_copy_and_deepcopy(x):
    import copy
    inner = [x]
    a = {"k": inner}
    s = copy.copy(a)
    d = copy.deepcopy(a)
    inner.append(1)
    return s["k"] is inner, d["k"] is inner, len(s["k"]), len(d["k"]), d["k"][0] is x


@case()
def p4_shared_zip_tuples_hold_same(x):
    rows = [x[0], x[1]]
    pairs = list(zip(rows, rows))
    return pairs[0][0] is pairs[0][1], pairs[1][0] is rows[1]


@case()
def p4_shared_dict_values_list_aliases(x):
    d = {"a": [1], "b": [2]}
    vals = list(d.values())
    vals[0].append(9)
    d["a"] = [0]
    return d, vals


@case()
def p4_shared_tuple_of_list_mutated(x):
    lst = [1]
    t = (lst, x)
    lst.append(2)
    try:
        t[0] += [3]
    except TypeError as e:
        msg = str(e)
    return t[0], msg


@case()
def p4_shared_list_reverse_sort_in_place_identity(x):
    a = [3, 1, 2]
    b = a
    a.reverse()
    r1 = list(b)
    a.sort()
    a.extend(a)
    return r1, b, a is b


@case()
def p4_shared_nested_dict_update_identity(x):
    inner = {"v": 1}
    a = {}
    a.update(k=inner)
    b = dict(a)
    inner["v"] = 2
    return a, b, b["k"] is inner


@case()
def p4_shared_enumerate_and_list_of_same_object(x):
    objs = [x] * 3
    return [o is x for o in objs], [i for i, o in enumerate(objs) if o is objs[0]]


@case()
def p4_shared_default_dict_factory_list(x):
    d = collections.defaultdict(list)
    d["a"].append(x[0])
    d["b"]
    d["a"].append(x[1])
    return dict(d), len(d["a"]), d["b"] is d["b"]


@case()
def p4_shared_deque_rotate_and_extendleft(x):
    q = collections.deque([1, 2, 3], maxlen=4)
    q.extendleft([0, -1])
    q.rotate(1)
    q.append(x.ndim)
    return q, list(q), q.maxlen


@case()
def p4_shared_counter_update_and_arith(x):
    c = collections.Counter("abca")
    c.update({"a": 2, "z": 1})
    d = c - collections.Counter(a=3)
    return c, d, c + d, list(c.items())


@case()
def p4_shared_chainmap_lookup_and_write(x):
    base, over = {"a": 1, "b": 2}, {"b": 3}
    cm = collections.ChainMap(over, base)
    cm["c"] = x.ndim
    return cm["a"], cm["b"], over, base, list(cm)


@case()
def p4_shared_namedtuple_module_level(x):
    p = _P4Point(x, 2)
    q = p._replace(y=3)
    return p.x is x, q.y, p[1], tuple(q)[1], _P4Point._fields


_P4Point = collections.namedtuple("_P4Point", "x y")


@case()
def p4_shared_dataclass_module_level(x):
    c = _P4DC(x, 3)
    c.n += 1
    d = dataclasses.replace(c, n=0)
    return c.arr is x, c.n, d.n, dataclasses.astuple(d)[1], c == _P4DC(x, 4)


@dataclasses.dataclass
class _P4DC:
    arr: np.ndarray
    n: int = 0

    def __eq__(self, other):
        return isinstance(other, _P4DC) and self.n == other.n


# -- iterators consumed partly (Dynamo test_iter / test_functions, Paddle test_iter) --

@case()
def p4_iter_zip_consumes_extra_from_first(x):
    it = iter([1, 2, 3, 4])
    pairs = list(zip(it, [10]))
    return pairs, next(it), list(it)


@case()
def p4_iter_zip_shortest_second_exhausted(x):
    it = iter(x)
    short = [0]
    z = list(zip(short, it))
    return len(z), next(it).shape, len(list(it))


@case()
def p4_iter_in_operator_consumes(x):
    it = iter([1, 2, 3, 4, 5])
    found = 3 in it
    return found, next(it), 9 in it, list(it)


@case()
def p4_iter_any_all_short_circuit_position(x):
    it = iter([0, 0, 1, 0, 1])
    a = any(it)
    rest = list(it)
    it2 = iter([1, 1, 0, 1])
    b = all(it2)
    return a, rest, b, list(it2)


@case()
def p4_iter_for_break_then_continue_iterating(x):
    it = iter(x)
    for r in it:
        if r.sum() > -5:
            break
    return r, [q.sum() for q in it]


@case()
def p4_iter_map_two_iterables_consumes(x):
    a = iter([1, 2, 3])
    b = [10, 20]
    m = list(map(operator.add, a, b))
    return m, list(a)


@case()
def p4_iter_enumerate_over_shared_iterator(x):
    it = iter("abcdef")
    out = []
    for i, c in enumerate(it):
        out.append((i, c, next(it, None)))
    return out


@case()
def p4_iter_islice_then_rest(x):
    it = iter(range(10))
    head = list(itertools.islice(it, 3))
    skip = list(itertools.islice(it, 2, 4))
    return head, skip, list(it)


@case()
def p4_iter_next_default_and_stopiteration_value(x):
    it = iter([x])
    a = next(it)
    b = next(it, "default")
    try:
        next(it)
    except StopIteration as e:
        return a is x, b, e.value, e.args
    return None


@case()
def p4_iter_list_mutated_during_iteration(x):
    lst = [1, 2, 3]
    seen = []
    for v in lst:
        seen.append(v)
        if v == 1:
            lst.append(4)
        if len(seen) > 6:
            break
    return seen, lst


@case()
def p4_iter_list_removed_during_iteration_skips(x):
    lst = [1, 2, 3, 4]
    seen = []
    for v in lst:
        seen.append(v)
        if v == 2:
            lst.remove(v)
    return seen, lst


@case()
def p4_iter_dict_changed_size_raises(x):
    d = {"a": 1}
    for k in d:
        d.pop(k)
        d["b"] = 2
    return d


@case()
def p4_iter_reversed_iterator_and_len_hint(x):
    r = reversed([1, 2, 3])
    first = next(r)
    import operator as op
    return first, op.length_hint(r), list(r), op.length_hint(iter(range(5)))


@case()
def p4_iter_iter_of_iterator_is_same(x):
    it = iter([1, 2])
    return iter(it) is it, next(iter(it)), list(it)


@case()
def p4_iter_generator_two_consumers(x):
    g = (r.sum() for r in x)
    first = next(g)
    rest = sum(g)
    return first, rest, list(g)


@case()
def p4_iter_unpack_consumes_iterator(x):
    it = iter(range(5))
    a, b = next(it), next(it)
    *c, = it
    return a, b, c


@case()
def p4_iter_chain_from_iterable_lazy(x):
    parts = [[1, 2], (3,), range(4, 6)]
    ch = itertools.chain.from_iterable(parts)
    first = next(ch)
    return first, list(ch), list(itertools.chain("ab", [x.ndim]))


@case()
def p4_iter_filter_none_and_map_none(x):
    return list(filter(None, [0, 1, "", "a", None, [], [0]])), list(map(abs, [-1, 2]))


@case()
def p4_iter_sorted_over_iterator_exhausts(x):
    it = iter([3, 1, 2])
    s = sorted(it)
    return s, list(it), next(it, "done")


@case()
def p4_iter_max_over_generator_with_key(x):
    return max(((i, r) for i, r in enumerate(x)), key=lambda t: -t[0])[0], min(iter([4, 2, 8]))


# -- writes into read-only arrays the function made -----------------------------------

@case()
def p4_ro_broadcast_to_write_raises_caught(x):
    b = np.broadcast_to(x[0], (2, 4))
    try:
        b[0, 0] = 1
    except ValueError as e:
        return str(e), b
    return b


@case()
def p4_ro_broadcast_to_inplace_raises(x):
    b = np.broadcast_to(x[0], (2, 4))
    b += 1
    return b


@case()
def p4_ro_broadcast_arrays_write(x):
    a, b = np.broadcast_arrays(x[:, :1], x[:1])
    try:
        a[0, 0] = 5
    except ValueError as e:
        return str(e)
    return a


@case()
def p4_ro_setflags_then_write(x):
    y = x.copy()
    y.setflags(write=False)
    try:
        y[0] = 0
    except ValueError as e:
        return str(e), y
    return y


@case()
def p4_ro_out_argument_read_only_view(x):
    b = np.broadcast_to(x[0], (3, 4))
    try:
        np.add(x, 1, out=b)
    except ValueError as e:
        return str(e)
    return b


@case()
def p4_ro_frombuffer_bytes_write(x):
    a = np.frombuffer(b"\x00\x01\x02\x03", dtype=np.uint8)
    try:
        a[0] = 9
    except ValueError as e:
        return str(e), a
    return a


@case()
def p4_ro_view_of_read_only_copy_write(x):
    y = x.copy()
    y.flags.writeable = False
    v = y[1:]
    try:
        v += 1
    except ValueError as e:
        return str(e), y
    return y


@case()
def p4_ro_diagonal_view_write(x):
    d = x.diagonal()
    try:
        d[0] = 100
    except ValueError as e:
        return str(e), d
    return d


@case()
def p4_ro_imag_of_real_write_and_complex_ok(x):
    c = x.astype(np.complex64)
    c.imag[0] = 1
    try:
        x.copy().imag[0] = 1
    except ValueError as e:
        return str(e), c
    return c


@case()
def p4_ro_sliding_window_write(x):
    w = np.lib.stride_tricks.sliding_window_view(x[0].copy(), 2)
    try:
        w[0, 0] = 7
    except ValueError as e:
        return str(e), w
    return w


@case()
def p4_ro_broadcast_then_copy_is_writeable(x):
    b = np.broadcast_to(x[0], (2, 4)).copy()
    b[0, 0] = 1
    r = np.broadcast_to(x[0], (2, 4)).reshape(8)
    r[0] = 2
    return b, r, x[0, 0]


# -- errors only the data decides, after a write into the caller's memory -------------

SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@case(SINGULAR)
def p4_late_linalg_error_after_argument_write(m):
    m[0, 0] += 0.0
    try:
        r = np.linalg.inv(m)
    except np.linalg.LinAlgError as e:
        r = str(e)
    return r, m


@case(I)
def p4_late_fancy_index_out_of_bounds_after_write(i):
    i[0, 0] = 0
    try:
        r = np.arange(5)[i]
    except IndexError as e:
        r = str(e)
    return r, i


@case(I)
def p4_late_take_out_of_bounds_after_write(i):
    i += 1
    try:
        r = np.take(np.arange(3), i)
    except IndexError as e:
        r = str(e)
    return r


@case(SINGULAR)
def p4_late_cholesky_error_after_write(m):
    m *= 1.0
    try:
        r = np.linalg.cholesky(m)
    except np.linalg.LinAlgError as e:
        r = str(e)
    return r


@case(I)
def p4_late_int_power_negative_after_write(i):
    i -= 1
    try:
        r = i ** i
    except ValueError as e:
        r = str(e)
    return r


@case(I)
def p4_late_astype_index_then_repeat_negative(i):
    i[0] = -1
    try:
        r = np.repeat(np.arange(4), i[0])
    except ValueError as e:
        r = str(e)
    return r


@case(X, np.array([0, 7]))
def p4_late_setitem_fancy_out_of_bounds_after_write(x, idx):
    x[0, 0] = 5
    try:
        x[idx] = 0
    except IndexError as e:
        return str(e), x
    return x


@case(X, np.array([1, 2]))
def p4_late_add_at_out_of_bounds_second_write(x, idx):
    x += 1
    try:
        np.add.at(x, idx * 3, 1)
    except IndexError as e:
        return str(e), x
    return x


@case(X, np.array([0, 7]))
def p4_late_first_write_fancy_out_of_bounds(x, idx):
    y = x * 2
    try:
        x[idx] = 0
    except IndexError as e:
        return str(e), y
    return x


@case(X, np.array([0, 7]))
def p4_late_first_write_add_at_out_of_bounds(x, idx):
    try:
        np.add.at(x, idx, 1)
    except IndexError as e:
        return str(e), x
    return x
