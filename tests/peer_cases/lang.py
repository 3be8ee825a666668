"""Language features around NumPy values: functions and calls, closures,
comprehensions, generators, unpacking, strings, scopes, control flow."""
from __future__ import annotations

import numpy as np

from . import I, V, X, Y, case

# -- calls: defaults, *args, **kwargs, keyword-only ----------------------------

def _axpy(a, x, y=1.0, *, scale=2):
    return a * x * scale + y


@case()
def call_default_and_kwonly(x):
    return _axpy(2, x), _axpy(2, x, 3.0, scale=1)


@case()
def call_star_args(x):
    args = (x, x + 1)
    return np.add(*args)


@case(ort=True)
def call_star_kwargs(x):
    kw = {"y": x, "scale": 3}
    return _axpy(1, x, **kw)


def _varargs(*a, **k):
    return len(a), sorted(k), sum(a[1:], a[0])


@case()
def call_varargs_collects(x):
    return _varargs(x, x * 2, 3, p=1, q=2)


@case()
def call_mixed_star(x):
    rest = [x, 1.0]
    return _axpy(*rest, **{"scale": 4})


@case()
def call_positional_only(x):
    def f(a, b, /, c=1):
        return a - b + c
    return f(x, 1), f(x, 2, c=x)


@case()
def call_default_mutable_none(x):
    def f(v, acc=None):
        acc = [] if acc is None else acc
        acc.append(v)
        return acc
    return len(f(x)), len(f(x, [1, 2]))


@case()
def call_lambda_default_capture(x):
    fs = [lambda v, i=i: v * i for i in range(3)]
    return [f(x) for f in fs]


@case()
def call_kwargs_order_kept(x):
    def f(**kw):
        return list(kw.items())
    return f(b=x, a=1, c="s"), x + 1


@case()
def call_recursive_factorial(x):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    return x * fact(5)


def _fib(n):
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)


@case()
def call_global_recursive(x):
    return x + _fib(7)


@case()
def call_mutual_recursion(x):
    def even(n):
        return True if n == 0 else odd(n - 1)

    def odd(n):
        return False if n == 0 else even(n - 1)
    return x * even(6) + odd(3)


@case()
def call_function_attributes(x):
    def f(v):
        return v
    return f.__name__, x * f.__code__.co_argcount


# -- closures and scopes ------------------------------------------------------

@case()
def closure_counter(x):
    def make():
        n = 0

        def inc():
            nonlocal n
            n += 1
            return n
        return inc
    c = make()
    c()
    c()
    return x * c()


@case(ort=True)
def closure_over_array(x):
    y = x * 2

    def f(a):
        return a + y
    return f(x), f(1.0)


@case()
def closure_rebinding_seen(x):
    k = 1

    def f():
        return x * k
    k = 5
    return f()


@case()
def closure_cell_shared_by_two(x):
    acc = []

    def put(v):
        acc.append(v)

    def total():
        return sum(acc)
    put(x)
    put(x * 3)
    return total(), len(acc)


@case()
def closure_nonlocal_array(x):
    y = x

    def f():
        nonlocal y
        y = y * 2
    f()
    f()
    return y


@case()
def closure_three_deep(x):
    def a():
        k = 2

        def b():
            def c():
                return x * k
            return c()
        return b()
    return a()


@case()
def closure_returned_lambda(x):
    make = lambda k: lambda v: v ** k  # noqa: E731
    return make(2)(x), make(3)(2)


@case()
def closure_class_body_sees_outer(x):
    k = 4

    class C:
        m = k * 2
    return x * C.m


_G_SCALE = 3.0
_G_TABLE = {"a": 1, "b": 2}


@case()
def global_read_scalar(x):
    return x * _G_SCALE


@case()
def global_read_dict(x):
    return x + _G_TABLE["b"], sorted(_G_TABLE)


_G_SET = None


@case()
def global_write_idempotent(x):
    global _G_SET
    _G_SET = float(x.shape[0])
    return x * _G_SET


@case()
def global_builtins_shadow_local(x):
    len = 7  # noqa: F841
    return x * len


# -- comprehensions --------------------------------------------------------------

@case(ort=True)
def comp_list_over_rows(x):
    return [r.sum() for r in x]


@case()
def comp_list_filtered(x):
    return [i * x for i in range(6) if i % 2]


@case()
def comp_nested(x):
    return [[i * j for j in range(3)] for i in range(2)], x, x + 1


@case()
def comp_dict(x):
    return {f"k{i}": x[i] for i in range(x.shape[0])}


@case()
def comp_set(x):
    return {i % 3 for i in range(10)}, x


@case()
def comp_generator_sum(x):
    return sum(x * i for i in range(4))


@case()
def comp_any_all(x):
    return any(v > 2 for v in [1, 2, 3]), all(x.shape[i] > 0 for i in range(x.ndim)), x + 1


@case()
def comp_two_fors(x):
    return [a + b for a in range(3) for b in (10, 20)], x.T


@case()
def comp_reads_enclosing(x):
    k = 3
    return [x * k + i for i in range(2)]


@case()
def comp_walrus(x):
    out = [y for i in range(4) if (y := i * i) > 2]
    return out, x * len(out)


@case()
def comp_tuple_unpack_target(x):
    pairs = [(1, x), (2, x * 2)]
    return [a * b for a, b in pairs]


@case()
def comp_dict_from_zip(x):
    return dict(zip("abc", x))


# -- generators ----------------------------------------------------------------

@case()
def gen_simple(x):
    def g():
        yield x
        yield x + 1
    return list(g())


@case()
def gen_next_default(x):
    it = iter([])
    return next(it, x), x + 1


@case()
def gen_send(x):
    def acc():
        total = 0
        while True:
            v = yield total
            total = total + v
    g = acc()
    next(g)
    g.send(1)
    return g.send(x)


@case()
def gen_yield_from(x):
    def inner():
        yield 1
        yield 2
        return 10

    def outer():
        r = yield from inner()
        yield r
    return [x * v for v in outer()]


@case()
def gen_expression_next(x):
    g = (r * 2 for r in x)
    return next(g), next(g)


@case()
def gen_infinite_islice(x):
    def count():
        i = 0
        while True:
            yield i
            i += 1
    out = []
    for v in count():
        if v > 3:
            break
        out.append(x * v)
    return out


@case()
def gen_close_and_state(x):
    def g():
        yield 1
        yield 2
    it = g()
    a = next(it)
    it.close()
    return x * a, list(it)


@case()
def gen_zip_two_generators(x):
    a = (i for i in range(3))
    b = (r for r in x)
    return [i * r for i, r in zip(a, b)]


# -- unpacking ------------------------------------------------------------------

@case()
def unpack_star_middle(x):
    a, *mid, b = range(6)
    return x * a + b, mid


@case(ort=True)
def unpack_rows(x):
    r0, r1, r2 = x
    return r0 + r1 * r2


@case()
def unpack_nested_targets(x):
    (a, (b, c)), d = (1, (2, 3)), 4
    return x * (a + b + c + d)


@case()
def unpack_swap(x):
    a, b = x, x + 1
    a, b = b, a
    return a - b


@case()
def unpack_build_list_star(x):
    return [*range(3), *[x, x]], (*"ab", 1), x + 1


@case()
def unpack_dict_merge(x):
    a = {"a": 1, "b": x}
    b = {"b": 2, **a, "c": 3}
    return b, {**a} | {"z": 0}, x + 1


@case()
def unpack_shape(x):
    n, m = x.shape
    return np.zeros((m, n), x.dtype) + n


@case()
def unpack_for_targets(x):
    out = 0
    for i, (a, b) in enumerate([(1, 2), (3, 4)]):
        out = out + x * i * a - b
    return out


@case()
def unpack_too_many_raises(x):
    a, b = [1, 2, 3]
    return x * a


@case()
def unpack_star_from_array(x):
    first, *rest = x
    return first, len(rest)


# -- strings ---------------------------------------------------------------------

@case()
def str_fstring_formats(x):
    n = x.shape[0]
    return f"{n} {n:03d} {n!r} {3.14159:.2f} {'s':>4} {n*2=}", x, x + 1


@case()
def str_fstring_of_scalar(x):
    return f"{x.shape} {x.dtype} {x.ndim}", x + 1


@case()
def str_methods(x):
    s = " Hello, World "
    return (s.strip().lower(), s.split(","), "-".join(["a", "b"]), s.replace("l", "L"),
            s.startswith(" H"), s.find("o"), s.count("l"), s.title(), x + 1)


@case()
def str_format_method(x):
    return "{}-{:>3}-{name}".format(1, 2, name="n"), "%d/%s" % (3, "x"), x + 1


@case()
def str_indexing_slicing(x):
    s = "abcdef"
    return s[1], s[-1], s[::2], s[1:4], x[: len(s[:2])]


@case()
def str_keys_drive_choice(x):
    mode = "mul"
    ops = {"add": np.add, "mul": np.multiply}
    return ops[mode](x, 2)


@case()
def str_in_and_compare(x):
    s = "relu"
    return x * ("el" in s) + (s < "sigmoid"), s.upper() == "RELU"


@case()
def str_repr_of_containers(x):
    return repr([1, "a", (2.5, None)]), str({"k": 1}), x


@case()
def str_encode_and_ord(x):
    return "ab".encode(), ord("a"), chr(98), x * ord("\x02")


@case()
def str_split_maxsplit_partition(x):
    parts = "a.b.c".split(".", 1)
    parts.append("fresh on every call")
    return parts, "a.b.c".rpartition("."), "x=1".partition("="), x + 1


@case()
def str_dtype_name_branch(x):
    if x.dtype.name.startswith("float"):
        return x * 2
    return x


@case()
def str_multiply_concat(x):
    return "ab" * 3 + "c", x, x + 1


# -- control flow ---------------------------------------------------------------

@case()
def flow_chained_compare(x):
    n = x.shape[0]
    return x * (1 < n <= 3), (0 < n < 2)


@case()
def flow_ternary_on_shape(x):
    return x.sum(0) if x.shape[0] > x.shape[1] else x.sum(1)


@case()
def flow_while_else(x):
    i = 0
    while i < 3:
        x = x + 1
        i += 1
    else:
        x = x * 2
    return x


@case()
def flow_for_else_break(x):
    for i in range(5):
        if i == 2:
            break
    else:
        i = 100
    return x * i


@case()
def flow_nested_continue(x):
    acc = []
    for i in range(4):
        if i % 2 == 0:
            continue
        for j in range(3):
            if j > i:
                break
            acc.append(i * j)
    return x * sum(acc), acc


@case()
def flow_boolean_ops_values(x):
    a = 0 or "b"
    b = [] and 5
    c = None or x
    return a, b, c, x + 1


@case()
def flow_not_and_is(x):
    y = None
    return (y is None) and not (x is None), x is x, x + 1


@case()
def flow_match_literal(x):
    mode = "b"
    match mode:
        case "a":
            return x
        case "b":
            return x * 2
        case _:
            return x * 3


@case()
def flow_match_sequence(x):
    match x.shape:
        case (n, m) if n < m:
            return x.T, n, m
        case (n, m):
            return x, n, m
    return None


@case()
def flow_match_mapping(x):
    cfg = {"op": "add", "k": 3}
    match cfg:
        case {"op": "add", "k": k}:
            return x + k
        case _:
            return x


@case()
def flow_walrus_in_if(x):
    if (n := len(x)) > 2:
        return x * n
    return x


@case()
def flow_del_local(x):
    y = x + 1
    z = y * 2
    del y
    return z


@case()
def flow_augmented_ops(x):
    n = 7
    n //= 2
    n **= 2
    n %= 5
    n <<= 2
    n |= 1
    n ^= 3
    return x * n, n


@case()
def flow_assert_passes(x):
    assert x.ndim == 2, "needs a matrix"
    return x + 1


@case()
def flow_assert_fails(x):
    assert x.ndim == 3, "needs a cube"
    return x + 1


@case()
def flow_pass_and_ellipsis(x):
    if x.ndim:
        pass
    e = ...
    return e, x, x + 1


@case()
def flow_early_return_in_loop(x):
    for i in range(10):
        if i * x.shape[0] > 5:
            return x * i
    return x


@case()
def flow_raise_value_error(x):
    if x.shape[0] == 3:
        raise ValueError(f"bad rows {x.shape[0]}")
    return x


@case()
def flow_range_variants(x):
    return list(range(10, 0, -3)), range(5)[1:3], len(range(2, 20, 4)), 3 in range(5), x, x + 1


@case(I)
def flow_int_array_branch_on_dtype(i):
    if np.issubdtype(i.dtype, np.integer):
        return i // 3, i % 3
    return i


@case(Y)
def flow_float64_matrix(y):
    return [y[i] * i for i in range(len(y))]


@case(V)
def flow_vector_loop_over_elements(v):
    out = 0.0
    for e in v:
        out = out + e * 2
    return out
