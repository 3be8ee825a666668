"""Containers changed while something is iterating over them or viewing
them (list iterators see appends and removals, dict and set iterators raise
on a size change, dict views show the dict as it is when read), across a
graph break too; generators' return values in StopIteration."""
from __future__ import annotations

import numpy as np

from . import X, case


@case()
def iter_then_append(x):
    a = [1, 2]
    it = iter(a)
    a.append(3)
    return list(it), x + 1


@case()
def iter_then_pop(x):
    a = [1, 2, 3]
    it = iter(a)
    next(it)
    a.pop(0)
    return list(it), x + 1


@case()
def zip_then_append(x):
    a = [1, 2]
    z = zip(a, [5, 6, 7])
    a.append(3)
    return list(z), x + 1


@case()
def enumerate_then_append(x):
    a = [x, x]
    e = enumerate(a)
    a.append(x)
    return len(list(e)), x + 1


@case()
def map_then_append(x):
    a = [1, 2]
    m = map(lambda v: v * x, a)
    a.append(3)
    return len(list(m))


@case()
def filter_then_append(x):
    a = [1, 2]
    m = filter(None, a)
    a.append(3)
    return list(m), x + 1


@case()
def for_appending(x):
    a = [1, 2]
    out = []
    for v in a:
        if len(a) < 5:
            a.append(v * 10)
        out.append(v)
    return out, x + 1


@case()
def for_removing(x):
    a = [1, 2, 3, 4]
    out = []
    for v in a:
        if v == 2:
            a.remove(v)
        out.append(v)
    return out, x + 1


@case()
def dict_keys_view_live(x):
    d = {"a": 1}
    k = d.keys()
    d["b"] = 2
    return list(k), len(k), x + 1


@case()
def dict_values_view_live(x):
    d = {"a": x}
    v = d.values()
    d["b"] = x + 1
    return list(v)


@case()
def dict_iter_then_mutate_raises(x):
    d = {"a": 1}
    it = iter(d)
    d["b"] = 2
    return list(it), x + 1


@case()
def list_iter_after_clear(x):
    a = [1, 2]
    it = iter(a)
    a.clear()
    return list(it), x + 1


@case()
def list_iter_after_setitem(x):
    a = [1, 2]
    it = iter(a)
    a[1] = 9
    return list(it), x + 1


@case(X, [1, 2])
def arg_list_iter_then_append(x, a):
    it = iter(a)
    a.append(x)
    return len(list(it)), x + 1


@case()
def reversed_then_pop(x):
    a = [1, 2, 3]
    r = reversed(a)
    a.pop()
    return list(r), x + 1


@case()
def generator_over_list_mutated(x):
    a = [1, 2]
    g = (v * 2 for v in a)
    a.append(3)
    return list(g), x + 1


@case()
def set_iter_then_add_raises(x):
    s = {1, 2}
    it = iter(s)
    s.add(3)
    return list(it), x + 1


@case()
def array_iter_then_inplace(x):
    it = iter(x)
    x[1] += 100
    return [r.sum() for r in it]


@case()
def array_iter_local_then_inplace(x):
    y = x.copy()
    it = iter(y)
    next(it)
    y[1] = 0
    return [r.sum() for r in it]


@case()
def array_rows_list_then_inplace(x):
    y = x * 1
    rows = list(y)
    y += 1
    return rows


@case()
def stored_row_views_then_write(x):
    y = x * 1
    r = y[0]
    y[0, 0] = 50
    return r, y


@case()
def list_iter_across_break(x):
    a = [1, 2]
    it = iter(a)
    next(it)
    y = x + 1
    print("break")
    a.append(3)
    return list(it), type(it).__name__, y * 2


@case()
def reversed_across_break(x):
    a = [1, 2, 3]
    it = reversed(a)
    next(it)
    y = x + 1
    print("break")
    a.pop(0)
    return list(it), y * 2


@case()
def exhausted_list_iter_across_break(x):
    a = [1]
    it = iter(a)
    list(it)
    y = x + 1
    print("break")
    a.append(3)
    return list(it), y * 2


@case()
def dict_iter_across_break(x):
    d = {"a": 1, "b": 2}
    it = iter(d.items())
    next(it)
    y = x + 1
    print("break")
    return list(it), y * 2


@case()
def dict_iter_across_break_then_grow(x):
    d = {"a": 1, "b": 2}
    it = iter(d)
    next(it)
    y = x + 1
    print("break")
    d["c"] = 3
    return list(it), y * 2


@case()
def dict_view_across_break(x):
    d = {"a": 1}
    v = d.values()
    y = x + 1
    print("break")
    d["b"] = 2
    return list(v), y * 2


@case()
def for_over_list_with_break_in_body(x):
    a = [1, 2]
    out = []
    for v in a:
        if len(a) < 4:
            a.append(v + 10)
        print(v)
        out.append(x * v)
    return out


@case(X, [1, 2])
def for_over_argument_list_growing(x, a):
    for v in a:
        if len(a) < 4:
            a.append(v + 10)
        x = x + v
    return x


@case(X, {"a": 1})
def argument_dict_grown_while_iterating(x, d):
    for k in d:
        d[k + "x"] = 1
    return x + 1


@case()
def enumerate_over_list_growing(x):
    a = [1, 2]
    out = []
    for i, v in enumerate(a):
        if i == 0:
            a.append(9)
        out.append(v)
    return out, x + 1


@case()
def zip_over_growing_list(x):
    a = [1, 2]
    out = []
    for u, v in zip(a, range(5)):
        if u < 3:
            a.append(u + 5)
        out.append(u * v)
    return out, x + 1


@case()
def type_of_iterators(x):
    return type(iter([])).__name__, type(iter({})).__name__, type(iter({}.items())).__name__, type(reversed([1])).__name__, type({}.keys()).__name__, x + 1


@case()
def dict_view_len_and_in(x):
    d = {"a": 1}
    k = d.keys()
    d["b"] = 2
    return len(k), "b" in k, x + 1


@case()
def set_iter_grows(x):
    s = {1, 2}
    out = []
    for v in s:
        out.append(v)
        if v == 1:
            s.discard(2)
    return out, x + 1


@case()
def dict_iter_unpack(x):
    d = {"a": x, "b": x + 1}
    (k1, v1), (k2, v2) = d.items()
    return k1, v2 * 2


@case()
def stopiteration_value_is_none_check(x):
    def g():
        yield 1
        return 5
    it = g()
    next(it)
    try:
        next(it)
    except StopIteration as e:
        return x + 1, e.value is None, e.value
    return x


@case()
def stopiteration_value_list_iter(x):
    it = iter([1])
    next(it)
    try:
        next(it)
    except StopIteration as e:
        return x + 1, e.value, e.args
    return x


@case()
def gen_return_in_for(x):
    def g():
        yield x
        return "r"
    out = [v + 1 for v in g()]
    return out


@case()
def gen_throw(x):
    def g():
        try:
            yield 1
        except ValueError:
            yield 2
    it = g()
    next(it)
    return it.throw(ValueError), x + 1


@case()
def gen_send_none_first(x):
    def g():
        v = yield 1
        yield v
    it = g()
    return it.send(None), it.send(x + 1)


@case()
def gen_exhausted_then_next_default(x):
    def g():
        yield 1
    it = g()
    list(it)
    return next(it, "d"), x + 1


@case()
def gen_raise_inside(x):
    def g():
        yield 1
        raise KeyError("k")
    return list(g()), x


@case()
def gen_stopiteration_inside_becomes_runtime_error(x):
    def g():
        yield 1
        next(iter([]))
    return list(g()), x


@case()
def gen_finally_runs_on_close(x):
    log = []
    def g():
        try:
            yield 1
            yield 2
        finally:
            log.append("f")
    it = g()
    next(it)
    it.close()
    return log, x + 1


@case()
def gen_local_state_after_partial(x):
    def g(v):
        for i in range(3):
            v = v * 2
            yield v
    it = g(x)
    a = next(it)
    b = next(it)
    return a, b


@case()
def gen_in_zip_stops_early(x):
    log = []
    def g():
        for i in range(5):
            log.append(i)
            yield i
    list(zip(g(), [1, 2]))
    return log, x + 1


@case()
def gen_expression_binds_first_iterable(x):
    a = [1, 2]
    g = (v for v in a)
    a = [3, 4]
    return list(g), x + 1


@case()
def gen_yield_in_with(x):
    log = []
    class C:
        def __enter__(self): log.append("in")
        def __exit__(self, *a): log.append("out")
    def g():
        with C():
            yield 1
    it = g()
    next(it)
    log.append("mid")
    list(it)
    return log, x + 1


@case()
def gen_frame_state_gi_running(x):
    def g():
        yield 1
    it = g()
    return it.gi_running, x + 1


@case()
def gen_value_after_for_loop(x):
    def g():
        yield 1
        return 7
    it = g()
    for v in it:
        pass
    try:
        next(it)
    except StopIteration as e:
        return x + 1, e.value
    return x


@case()
def gen_value_via_send(x):
    def g():
        yield 1
        return 7
    it = g()
    next(it)
    try:
        it.send(3)
    except StopIteration as e:
        return x + 1, e.value
    return x


@case()
def zip_growing_with_break(x):
    a = [1, 2]
    s = x
    for u, v in zip(a, [x, x, x, x]):
        if len(a) < 4:
            a.append(u + 5)
        print(u)
        s = s + u * v
    return s, a

@case()
def enumerate_growing_with_break(x):
    a = [x, x + 1]
    s = x
    for i, v in enumerate(a):
        if i == 0:
            a.append(x + 2)
        print(i)
        s = s + v * i
    return s

@case()
def zip_exhausted_then_rebuilt(x):
    z = zip([1], [2])
    list(z)
    print("b")
    return list(z), x + 1

@case()
def enumerate_partially_consumed_across_break(x):
    e = enumerate([x, x + 1, x + 2], 10)
    next(e)
    print("b")
    return list(e)
