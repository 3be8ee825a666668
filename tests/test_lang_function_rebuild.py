"""Functions made in the trace that outlive the graph (sot/executor/function_rebuild.py):
closures made by an inlined call are made again by the output code, over
new cells shared as eagerly (cycles included); a closure over the frame's
own cells, or one with annotations, is not rebuilt: the frame runs as
before, with eager's results."""
import numpy as np

import sot
from difftest import assert_captured_whole, assert_same, check

X = np.arange(12, dtype=np.float64).reshape(3, 4) / 7 - 0.5


class Node:
    def __init__(self, data, parents=()):
        self.data = data
        self.parents = parents
        self._backward = None

    def __mul__(self, other):
        out = Node(self.data * other.data, (self, other))

        def backward(g):
            return g * other.data, g * self.data, out.data
        out._backward = backward
        return out


def returns_a_node_holding_its_closure(x):
    a, b = Node(x), Node(x + 1)
    return a * b


def test_a_returned_node_holds_a_working_closure_over_its_own_cells():
    assert_captured_whole(returns_a_node_holding_its_closure, X)
    static = sot.to_static(returns_a_node_holding_its_closure)
    for _ in range(3):
        eager, traced = returns_a_node_holding_its_closure(X), static(X)
        assert_same(eager._backward(2.0), traced._backward(2.0), bitwise=True)
        fn = traced._backward
        cells = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
        assert cells["out"] is traced and cells["self"] is traced.parents[0]   # the cycle, as eager's
        assert traced._backward.__qualname__ == eager._backward.__qualname__
        assert traced._backward.__name__ == "backward" and traced.parents[0].parents == ()


def make_counter(start, step=1, *, scale=1):
    n = start

    def inc():
        nonlocal n
        n += step * scale
        return n

    def get():
        return n
    return inc, get


def returns_closures_sharing_a_cell(x):
    inc, get = make_counter(3, scale=2)
    inc()
    return x + get(), inc, get


def test_closures_sharing_a_cell_share_the_rebuilt_one():
    assert_captured_whole(returns_closures_sharing_a_cell, X)
    static = sot.to_static(returns_closures_sharing_a_cell)
    for _ in range(3):
        _, e_inc, e_get = returns_closures_sharing_a_cell(X)
        y, inc, get = static(X)
        assert_same(y, X + 5)
        assert (inc(), get(), inc(), get()) == (e_inc(), e_get(), e_inc(), e_get()) == (7, 7, 9, 9)


def returns_a_lambda_with_defaults(x):
    def make(k):
        return lambda v, w=k * 2, *, z=k: v * w + z
    return make(3), x * 2


def test_defaults_and_keyword_defaults_are_rebuilt():
    static = sot.to_static(returns_a_lambda_with_defaults)
    f, _ = static(X)
    assert f(1) == 9 and f.__defaults__ == (6,) and f.__kwdefaults__ == {"z": 3}


# -- not rebuilt: the frame's own cells, annotations; eager's results --------------------------

def returns_a_closure_over_the_frames_cell(x):
    k = 2

    def scaled(v):
        return v * k
    k = 3
    return scaled, x + 1


def returns_an_annotated_function(x):
    def make():
        def f(v: int) -> int:
            return v
        return f
    return make(), x + 1


def test_closures_that_are_not_rebuilt_run_as_eager():
    static = sot.to_static(returns_a_closure_over_the_frames_cell)
    f, _ = static(X)
    assert f(2) == 6
    g, _ = sot.to_static(returns_an_annotated_function)(X)
    assert g.__annotations__ == {"v": int, "return": int}
    check(lambda x: returns_a_closure_over_the_frames_cell(x)[0](x), (X,))


def node_alive_across_a_break(x):
    n = Node(x) * Node(x + 1)
    print("break")
    g = n._backward(2.0)
    return g, n.parents[1].data


def test_a_node_alive_across_a_break_keeps_its_closure():
    check(node_alive_across_a_break, (X,))
    report = sot.explain(sot.to_static(node_alive_across_a_break, min_graph_size=0), X)
    assert [b for b in report.breaks if "print" in str(b)] == report.breaks   # only the print breaks
