"""A loop whose body graph-breaks and reads a name it binds only inside the
loop before binding it (the previous iteration's value) keeps its body as a
function (sot/breaks/loop_body.py, "carried" names): no whole-frame
fallback, and UnboundLocalError exactly where eager raises it."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def static0(fn):
    return sot.to_static(fn, min_graph_size=0)


def prev_read_after_the_first_iteration(x, n):
    for i in range(n):
        if i:
            y = prev + x
            print(i, y.shape)
        prev = np.tanh(x) * i
    return prev


def prev_read_on_the_first_iteration(x, n):
    # eager raises UnboundLocalError on the first iteration (when n > 0)
    for i in range(n):
        y = prev + x
        print(i)
        prev = y * 2
    return x


def prev_bound_only_sometimes(x, n):
    acc = x * 0
    for i in range(n):
        if i % 2:
            acc = acc + prev
        print(i)
        if i % 3 == 0:
            prev = x * i
    return acc


def carried_in_a_while_loop(x, n):
    i = 0
    while i < n:
        if i > 0:
            x = x + last
        print(i)
        last = np.sqrt(np.abs(x)) + i
        i += 1
    return x


def carried_with_break_and_continue(x, n):
    out = x * 1
    for i in range(n):
        if i == 1:
            continue
        if i:
            out = out + prev
        print(i)
        if i == 4:
            break
        prev = out * 0.5
    return out


def two_carried_names(x, n):
    for i in range(n):
        if i:
            x = a * b
            print(i)
        a, b = x + 1, x - 1
    return x


def break_before_binding_read_after(x, n, limit):
    y = x * 1
    for i in range(n):
        y = np.tanh(y) + i
        if float(y.max()) > limit:     # a graph break, and a break before `last` is bound
            break
        last = y * 2
    return last + 1


def maybe_bound_in_a_while_loop(x, n):
    i = 0
    while i < n:
        print(i)
        if i % 2:
            seen = x * i
        i += 1
    return seen


G = 2.0


def reads_a_global(x, n):
    for i in range(n):
        if i:
            x = prev * G
        print(i)
        prev = x + 1
    return x


CASES = [
    (prev_read_after_the_first_iteration, [(X, 3), (X, 1), (X, 0)]),
    (prev_read_on_the_first_iteration, [(X, 2), (X, 0)]),
    (prev_bound_only_sometimes, [(X, 5), (X, 2)]),
    (carried_in_a_while_loop, [(X, 3), (X, 0)]),
    (carried_with_break_and_continue, [(X, 6), (X, 3)]),
    (two_carried_names, [(X, 3)]),
    # bound on the first iterations, then a break: `last` keeps the earlier value
    (break_before_binding_read_after, [(X, 5, 2.5), (X, 3, 100.0), (X, 3, -100.0), (X, 0, 1.0)]),
    (maybe_bound_in_a_while_loop, [(X, 4), (X, 1), (X, 0)]),
]


@pytest.mark.parametrize("fn,arg_sets", CASES, ids=[c[0].__name__ for c in CASES])
def test_carried_name_matches_eager(fn, arg_sets):
    check(fn, *arg_sets, static=static0(fn))


@pytest.mark.parametrize("fn,args", [(prev_read_after_the_first_iteration, (X, 3)),
                                     (carried_in_a_while_loop, (X, 3)), (two_carried_names, (X, 3)),
                                     (break_before_binding_read_after, (X, 5, 2.5)),
                                     (maybe_bound_in_a_while_loop, (X, 4))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_the_loop_body_is_a_function_not_a_fallback(fn, args):
    report = sot.explain(static0(fn), *args)
    assert not report.fallbacks, [str(f) for f in report.fallbacks]
    assert any("loop body" in e.code_name and e.graphs for e in report.entries)


def test_unbound_read_raises_eagers_error():
    with pytest.raises(UnboundLocalError) as eager:
        prev_read_on_the_first_iteration(X, 1)
    with pytest.raises(UnboundLocalError) as traced:
        static0(prev_read_on_the_first_iteration)(X, 1)
    assert str(traced.value) == str(eager.value)
    assert "prev" in str(traced.value)


def test_unbound_read_after_an_empty_loop_raises_eagers_error():
    with pytest.raises(UnboundLocalError) as eager:
        prev_read_after_the_first_iteration(X, 0)
    static = static0(prev_read_after_the_first_iteration)
    static(X, 2)
    with pytest.raises(UnboundLocalError) as traced:
        static(X, 0)
    assert str(traced.value) == str(eager.value)


def test_a_loop_that_breaks_before_binding_raises_eagers_error():
    static = static0(break_before_binding_read_after)
    static(X, 5, 2.5)
    for args in ((X, 3, -100.0), (X, 0, 1.0)):   # the first iteration breaks / no iteration
        with pytest.raises(UnboundLocalError) as eager:
            break_before_binding_read_after(*args)
        with pytest.raises(UnboundLocalError) as traced:
            static(*args)
        assert str(traced.value) == str(eager.value)


def test_second_call_hits_the_cache():
    static = static0(prev_read_after_the_first_iteration)
    static(X, 4)
    n = sot.translation_count(static)
    check(prev_read_after_the_first_iteration, (X, 4), static=static)
    assert sot.translation_count(static) == n


def test_changed_global_is_seen():
    global G
    static = static0(reads_a_global)
    check(reads_a_global, (X, 3), static=static)
    try:
        G = -1.5
        check(reads_a_global, (X, 3), static=static)
    finally:
        G = 2.0
    check(reads_a_global, (X, 3), static=static)


def deleted_argument_read_in_a_native_loop(x, a, n):
    y = x * 2
    del a
    for i in range(n):      # Python values only: the whole loop runs natively
        print(i)
        if i == 1:
            print(a)        # eager raises UnboundLocalError
    return y


def test_an_argument_deleted_before_a_native_loop_stays_unbound():
    # the replacement used to leave `a` bound to its argument in the native loop
    check(deleted_argument_read_in_a_native_loop, (X, 5, 0), (X, 5, 3),
          static=static0(deleted_argument_read_in_a_native_loop))
