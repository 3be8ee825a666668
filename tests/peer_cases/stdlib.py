"""The standard library around NumPy values: functools, itertools,
operator, math, collections, copy, contextlib; exceptions and with."""
from __future__ import annotations

import collections
import contextlib
import copy
import functools
import itertools
import math
import operator

import numpy as np

from . import I, V, X, case

# -- functools ------------------------------------------------------------------------

@case()
def ft_partial(x):
    add3 = functools.partial(np.add, 3)
    scale = functools.partial(np.multiply, x2=2.0) if False else functools.partial(np.multiply, 2.0)
    return add3(x), scale(x), add3.args


@case()
def ft_partial_of_user_fn_kwargs(x):
    def f(a, b, *, c=1):
        return a * b + c
    g = functools.partial(f, c=5)
    return g(x, 2), functools.partial(g, 3)(x)


@case(ort=True)
def ft_reduce(x):
    return functools.reduce(operator.add, [x, x, x]), functools.reduce(lambda a, b: a * b, range(1, 6), 1)


@case()
def ft_reduce_empty_raises(x):
    return functools.reduce(operator.add, [])


@case()
def ft_wraps_decorator(x):
    def deco(fn):
        @functools.wraps(fn)
        def inner(*a, **k):
            return fn(*a, **k) * 2
        return inner

    @deco
    def base(v):
        return v + 1
    return base(x), base.__name__


@case()
def ft_lru_cache_pure(x):
    @functools.lru_cache(maxsize=None)
    def sq(n):
        return n * n
    return x * sq(4) + sq(4)


@case()
def ft_cmp_to_key(x):
    return sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a)), x


# -- itertools --------------------------------------------------------------------------

@case()
def it_product_permutations(x):
    return list(itertools.product(range(2), "ab")), list(itertools.permutations([1, 2, 3], 2)), x


@case()
def it_combinations(x):
    return [x[a] + x[b] for a, b in itertools.combinations(range(3), 2)]


@case()
def it_chain_islice(x):
    return list(itertools.chain([1], (2, 3))), list(itertools.islice(range(10), 2, 8, 3)), \
        list(itertools.chain.from_iterable([x, x]))[3].shape


@case()
def it_accumulate(x):
    return list(itertools.accumulate([1, 2, 3])), list(itertools.accumulate(x))[-1]


@case()
def it_zip_longest_repeat(x):
    return list(itertools.zip_longest([1, 2], "a", fillvalue=0)), list(itertools.repeat(x[0], 2))


@case()
def it_count_takewhile(x):
    return list(itertools.takewhile(lambda v: v < 3, itertools.count())), x


@case()
def it_groupby(x):
    return [(k, len(list(g))) for k, g in itertools.groupby("aabccc")], x


@case()
def it_starmap_pairwise(x):
    return list(itertools.starmap(operator.mul, [(1, 2), (3, 4)])), list(itertools.pairwise([1, 2, 4])), x


@case()
def it_cycle_first_n(x):
    c = itertools.cycle([x, -x])
    return [next(c) for _ in range(3)]


# -- operator -----------------------------------------------------------------------------

@case(ort=True)
def op_functions_on_arrays(x):
    return operator.add(x, 1), operator.mul(x, x), operator.neg(x), operator.truediv(x, 2), operator.matmul(x, x.T)


@case()
def op_itemgetter_attrgetter(x):
    return operator.itemgetter(1)(x), operator.itemgetter(0, 2)([5, 6, 7]), operator.attrgetter("shape")(x)


@case()
def op_methodcaller(x):
    return operator.methodcaller("sum", axis=1)(x)


@case()
def op_inplace_functions(x):
    y = x.copy()
    z = operator.iadd(y, 1)
    return z is y, y, operator.iadd([1], [2])


@case()
def op_comparisons_and_truth(x):
    return operator.lt(1, 2), operator.eq("a", "a"), operator.not_(0), operator.truth([]), operator.gt(x, 0)


@case()
def op_index_and_contains(x):
    return operator.index(np.int64(3)), operator.contains([1, 2], 2), operator.getitem(x, (1, 2)), \
        operator.length_hint([1, 2, 3])


# -- math ------------------------------------------------------------------------------------

@case()
def math_functions(x):
    return math.sqrt(16), math.floor(2.7), math.ceil(2.1), math.pi * x, math.log(math.e), math.exp(0), \
        math.isclose(0.1 + 0.2, 0.3), math.gcd(12, 18), math.factorial(5), math.prod([2, 3])


@case()
def math_on_shape_values(x):
    n = x.shape[1]
    return x / math.sqrt(n), math.log2(n), math.isqrt(n * n + 1), math.comb(n, 2), math.hypot(3, 4)


@case()
def math_on_numpy_scalar(x):
    return math.sqrt(x[2, 3]), math.floor(x[0, 0]), math.isnan(x[1, 1]), math.fabs(x[0, 1])


@case()
def math_domain_error(x):
    return math.sqrt(-1.0)


@case()
def math_inf_nan(x):
    return math.inf > 1e308, math.isinf(-math.inf), math.isnan(math.nan), math.copysign(1, -0.0), x + 1


@case()
def math_trig(x):
    return math.sin(math.pi / 2), math.atan2(1, 1), math.degrees(math.pi), math.radians(180), x * math.cos(0)


# -- collections -------------------------------------------------------------------------------

@case()
def coll_deque(x):
    d = collections.deque([1, 2, 3], maxlen=4)
    d.append(4)
    d.append(5)
    d.appendleft(0)
    d.rotate(1)
    return list(d), d.pop(), d.popleft(), len(d), x


@case()
def coll_counter(x):
    c = collections.Counter("abracadabra")
    return c.most_common(2), c["a"], c["z"], sorted(c.elements())[:3], x


@case()
def coll_defaultdict(x):
    d = collections.defaultdict(list)
    for i, r in enumerate(x):
        d[i % 2].append(r)
    return {k: len(v) for k, v in d.items()}, d[0][0]


@case()
def coll_ordereddict(x):
    o = collections.OrderedDict(a=1, b=2)
    o.move_to_end("a")
    return list(o), o.popitem(last=False), x


@case()
def coll_chainmap(x):
    m = collections.ChainMap({"a": 1}, {"a": 2, "b": 3})
    return m["a"], m["b"], sorted(m), x


# -- copy ----------------------------------------------------------------------------------------

@case()
def copy_shallow_and_deep(x):
    a = [x, [1, 2]]
    b = copy.copy(a)
    c = copy.deepcopy(a)
    b[1].append(3)
    return b[0] is x, c[0] is x, a[1], c[1], np.array_equal(c[0], x)


@case()
def copy_of_array(x):
    y = copy.copy(x)
    y[0, 0] = 9
    return x[0, 0], y[0, 0], y is x


# -- exceptions --------------------------------------------------------------------------------

@case()
def exc_caught_value_error(x):
    try:
        int("abc")
    except ValueError as e:
        return x * 2, str(e)
    return x


@case()
def exc_finally_runs(x):
    log = []
    try:
        y = x + 1
    finally:
        log.append("fin")
    return y, log


@case()
def exc_custom_class(x):
    class MyErr(Exception):
        pass
    try:
        raise MyErr("m")
    except MyErr as e:
        return x, e.args


@case()
def exc_reraise_other(x):
    try:
        {}["k"]
    except KeyError as e:
        raise ValueError("wrapped") from e


@case()
def exc_else_clause(x):
    try:
        y = x * 2
    except ZeroDivisionError:
        y = x
    else:
        y = y + 1
    return y


@case()
def exc_numpy_error_caught(x):
    try:
        x.reshape(7)
    except ValueError:
        return x.sum()
    return x


@case()
def exc_index_error_in_loop(x):
    out = []
    i = 0
    while True:
        try:
            out.append(x[i])
        except IndexError:
            break
        i += 1
    return len(out)


@case()
def exc_uncaught_type_error(x):
    return x + "a"


@case()
def exc_exception_group_attrs(x):
    e = ValueError("a", 1)
    return e.args, type(e).__name__, isinstance(e, Exception), x


@case()
def exc_stopiteration_from_next(x):
    it = iter([])
    try:
        next(it)
    except StopIteration:
        return x - 1
    return x


@case()
def exc_nested_handlers(x):
    try:
        try:
            raise KeyError("in")
        except KeyError:
            raise IndexError("out")
    except IndexError as e:
        return x, str(e), type(e.__context__).__name__


# -- with -----------------------------------------------------------------------------------------

class Tracker:
    def __init__(self):
        self.log = []

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, *exc):
        self.log.append("exit" if exc[0] is None else exc[0].__name__)
        return False


@contextlib.contextmanager
def _scope(log, k):
    log.append("in")
    try:
        yield k
    finally:
        log.append("out")


@case()
def with_user_context(x):
    t = Tracker()
    with t as u:
        y = x * 2
    return y, t.log, u is t


@case()
def with_exception_propagates(x):
    t = Tracker()
    with t:
        raise KeyError("k")
    return x


@case()
def with_contextmanager_value(x):
    log = []
    with _scope(log, 3) as k:
        y = x * k
    return y, log


@case()
def with_suppress(x):
    with contextlib.suppress(ZeroDivisionError):
        1 / 0
    return x + 1


@case()
def with_nullcontext_and_exitstack(x):
    with contextlib.nullcontext(x) as v:
        y = v * 2
    log = []
    with contextlib.ExitStack() as st:
        st.callback(log.append, "cb")
        y = y + 1
    return y, log


@case()
def with_errstate_and_return_inside(x):
    with np.errstate(all="ignore"):
        return np.log(x)


@case()
def with_printoptions(x):
    with np.printoptions(precision=2):
        return str(np.float64(1.23456)), x


# -- recursion and higher order ------------------------------------------------------------------

@case(ort=True)
def hof_compose(x):
    def compose(*fs):
        def run(v):
            for f in reversed(fs):
                v = f(v)
            return v
        return run
    return compose(np.tanh, lambda v: v * 2, np.abs)(x)


@case()
def hof_map_of_partials(x):
    fs = [functools.partial(np.power, x), functools.partial(np.multiply, x)]
    return [f(2) for f in fs]


@case()
def rec_tree_sum(x):
    tree = [x, [x * 2, [x * 3]], 1.0]

    def total(t):
        if isinstance(t, list):
            return sum(total(c) for c in t)
        return t
    return total(tree)


@case()
def rec_depth_by_shape(x):
    def halve(v):
        if v.shape[-1] == 1:
            return v
        return halve(v[..., ::2] + v[..., 1::2])
    return halve(x)


@case(I)
def rec_int_gcd(i):
    def gcd(a, b):
        return a if b == 0 else gcd(b, a % b)
    return i * gcd(48, 18)


@case(V)
def hof_sorted_by_array_key(v):
    items = ["a", "b", "c", "d"]
    return sorted(zip(v.tolist(), items))
