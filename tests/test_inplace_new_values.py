"""``buf *= beta`` on an array the graph made itself is recorded as a new
value (``imul``), not as a write. After the graph wrote into an argument
(``p -= lr * g``) it still cannot raise (a float product only warns), so the
graph is not given up for it: an optimizer's first step, whose state the
step itself creates, stays one graph."""
from __future__ import annotations

import numpy as np
import pytest

import sot
from difftest import check


def _momentum_step(params, grads, state, lr, beta):
    for name, p in params.items():
        buf = state[name].setdefault("momentum", np.zeros_like(p))   # made in the graph on the first call
        buf *= beta
        buf += grads[name]
        p -= lr * buf


def _args():
    return ({"w": np.zeros(3), "b": np.zeros(1)}, {"w": np.ones(3), "b": np.full(1, 2.0)},
            {"w": {}, "b": {}}, 0.1, 0.9)


def test_an_inplace_product_of_a_new_array_after_a_write_keeps_the_graph():
    report = sot.explain(sot.to_static(_momentum_step), *_args())
    assert not report.breaks, [str(b) for b in report.breaks]
    assert report.graph_count == 1
    check(_momentum_step, _args(), calls=1)


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "**=", "//=", "%="])
def test_each_inplace_float_operator_on_a_new_array_after_a_write_matches_eager(op):
    ns = {"np": np}
    # the dict store is replayed after the graph: an error in it would come before it
    exec(f"def f(x, y, c, out):\n    x -= y\n    t = y * 2.0\n    out['t'] = t\n    t {op} c\n    return t\n", ns)
    f = ns["f"]
    report = sot.explain(sot.to_static(f), np.ones(4), np.arange(1.0, 5.0), 3.0, {})
    assert not report.breaks, [str(b) for b in report.breaks]
    check(f, (np.ones(4), np.arange(1.0, 5.0), 3.0, {}), (np.ones(4), np.arange(1.0, 5.0), -0.5, {"t": None}))


def test_an_inplace_op_that_may_raise_after_a_write_still_gives_the_graph_up():
    # an int array to the power of an int array: negative exponents raise ValueError
    def f(x, a, b, out):
        x += 1.0
        t = a + 0
        out.append(t)
        t **= b
        return t
    report = sot.explain(sot.to_static(f), np.ones(2), np.arange(3), np.arange(3), [])
    assert [b.category for b in report.breaks] == ["side-effect"], [str(b) for b in report.breaks]
    check(f, (np.ones(2), np.arange(3), np.arange(3), []), (np.ones(2), np.arange(3), np.array([1, -1, 2]), []))
