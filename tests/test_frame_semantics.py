"""What a frame shows of itself and how long it keeps objects, under graph
breaks: locals()/vars()/exec/eval see the user's frame (never a resume
function's temporaries), and objects are released when eager releases them
(a generator abandoned by `break` is closed before the next statement)."""
import gc
import sys
import weakref

import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(3.0)


def locals_after_break(x):
    y = x + 1
    unused = "bound before the break"  # noqa: F841
    print("break")
    z = y * 2
    return z, sorted(locals())


def vars_after_break(x):
    y = x + 1
    print("break")
    return y, sorted(vars())


def exec_before_break(x):
    y = x + 1
    exec("w = 41")
    print("break")
    return y, locals().get("w")


def eval_after_break(x):
    y = x + 1
    print("break")
    return eval("y * 2")


def getframe_after_break(x):
    y = x + 1
    print("break")
    return y, sorted(sys._getframe().f_locals)


def locals_in_a_loop(x):
    total = x
    for k in range(3):
        total = total + k
        print(k)
    return total, sorted(locals())


@pytest.mark.parametrize("fn", [locals_after_break, vars_after_break, exec_before_break, eval_after_break,
                                getframe_after_break, locals_in_a_loop])
def test_frame_introspection_sees_the_users_frame(fn):
    check(fn, (X,))


def test_no_sot_names_in_locals():
    static = sot.to_static(locals_after_break)
    for _ in range(3):
        _, names = static(X)
        assert not [n for n in names if n.startswith("__sot")]


# -- lifetimes ---------------------------------------------------------------------

class Noisy:
    def __init__(self, log, name):
        self.log, self.name = log, name

    def __del__(self):
        self.log.append("del " + self.name)


def gen(log):
    try:
        for i in range(5):
            yield i
    finally:
        log.append("closed")


REFS = []


@sot.not_to_static
def tracked_gen(log):
    g = gen(log)
    REFS.append(weakref.ref(g))
    return g


def loop_break_over_generator(x, log):
    y = x + 1
    for v in tracked_gen(log):
        y = y + v
        if v == 2:
            break
    log.append("after loop")
    return y * 2


def del_generator_after_breaking_loop(x, log):
    y = x + 1
    g = gen(log)
    for v in g:
        print("in loop", v)
        if v == 1:
            break
    del g
    log.append("after del")
    return y * 2


def rebind_after_break(x, log):
    n = Noisy(log, "n")
    y = x + 1
    print("break")
    n = None
    log.append("after rebind")
    return y * 2


def drop_iterator_after_break(x, log):
    y = x + 1
    it = iter(gen(log))
    v = next(it)
    print("break", v)
    it = None
    log.append("after drop")
    return y + v


def _many_ops(x):
    return np.tanh(x) * 2 + x ** 2 - np.exp(x) / 3 + np.sqrt(np.abs(x)) + x.sum() - x.mean() + 1


def drop_after_graph_before_break(x, log):
    n = Noisy(log, "m")
    y = _many_ops(x)   # a graph, not left native as too small
    print("break")
    del n
    log.append("after del")
    return y


@pytest.mark.parametrize("fn", [loop_break_over_generator, del_generator_after_breaking_loop, rebind_after_break,
                                drop_iterator_after_break, drop_after_graph_before_break])
def test_objects_are_released_when_eager_releases_them(fn):
    check(fn, (X, []))


def test_neither_cache_nor_translation_keeps_a_generator_alive():
    static = sot.to_static(loop_break_over_generator)
    REFS.clear()
    gc.disable()   # freed by reference counting, as eagerly, not by a collection
    try:
        for _ in range(3):
            log = []
            static(X, log)
            assert log == ["closed", "after loop"]
        assert REFS and all(r() is None for r in REFS)
    finally:
        gc.enable()


def index_after_break(x, idx, log):
    n = Noisy(log, "k")
    print("break")
    y = _many_ops(x)[idx]
    del n
    log.append("after")
    return y


def test_a_resumed_graph_that_raises_reruns_with_its_arguments():
    # the resume function's graph raises IndexError: the hook puts the
    # arguments it gave up back into the frame and runs it natively
    check(index_after_break, (X, np.array([0, 2]), []), (X, np.array([0, 7]), []), (X, np.array([1]), []))
