"""Generators and generator expressions consumed in the frame that made
them are simulated lazily (the body runs as the consumer asks), so they are
captured in one graph; one that escapes runs natively with eager's lifetime."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def rows(x):
    for i in range(x.shape[0]):
        yield x[i] * (i + 1)


def pairs(x, log):
    log.append("start")
    yield x, x + 1
    log.append("middle")
    yield x * 2, x - 1
    log.append("end")


def sum_of_generator_expression(x):
    return sum(x[i] for i in range(x.shape[0])), sum(d * 2 for d in x.shape)


def list_of_generator_function(x):
    return list(rows(x))


def next_and_the_rest(x):
    g = rows(x)
    first = next(g)
    second = next(g)
    return first + second, list(g), next(g, None)


def zip_and_enumerate_over_generators(x):
    out = x * 0
    for k, (a, b) in enumerate(zip(rows(x), (r + 1 for r in x))):
        out = out + a * b * k
    return out


def interleaved_side_effects(x):
    log = []
    out = []
    for a, b in pairs(x, log):
        log.append("body")
        out.append(a + b)
    return out, log


def generator_in_a_comprehension_and_dict(x):
    squares = {i: v for i, v in enumerate(r * r for r in x)}
    return [squares[k] for k in sorted(squares)]


@pytest.mark.parametrize("fn", [sum_of_generator_expression, list_of_generator_function, next_and_the_rest,
                                zip_and_enumerate_over_generators, interleaved_side_effects,
                                generator_in_a_comprehension_and_dict])
def test_generator_consumed_in_the_frame_is_one_graph_and_matches_eager(fn):
    check(fn, (X,), (X[:2],))
    assert_captured_whole(fn, X, graphs=(1,))


def test_returned_generator_keeps_eager_laziness():
    def f(x):
        return (v * 2 for v in x)
    static = sot.to_static(f)
    g = static(X)
    assert type(g).__name__ == "generator"
    assert all(np.array_equal(a, b) for a, b in zip(g, f(X)))


def test_generator_alive_across_a_break_runs_correctly():
    def f(x):
        g = rows(x)
        first = next(g)
        print("between")
        return first, list(g)
    check(f, (X,))


def test_generator_stopping_early_runs_no_further_body():
    def f(x):
        log = []

        def gen():
            for i in range(3):
                log.append(i)
                yield x[i]
        total = None
        for r in gen():
            total = r if total is None else total + r
            if len(log) == 2:
                break
        return total, log
    check(f, (X,))


def test_exception_inside_a_generator_matches_eager():
    def f(x, k):
        return list(x[i] for i in range(k))
    check(f, (X, 2), (X, 5))


def test_send_resumes_with_the_value():
    def f(x):
        def acc():
            total = 0
            while True:
                v = yield total
                total = total + v
        g = acc()
        next(g)
        g.send(x)
        return g.send(x * 2)
    check(f, (X,))
    assert_captured_whole(f, X, graphs=(1,))


def test_send_of_a_value_to_a_new_generator_raises_as_eager():
    def f(x):
        def gen():
            yield x
        return gen().send(1)
    check(f, (X,))
