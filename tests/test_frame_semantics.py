"""What a frame shows of itself and how long it keeps objects, under graph
breaks: locals()/vars()/exec/eval see the user's frame (never a resume
function's temporaries), and objects are released when eager releases them
(a generator abandoned by `break` is closed before the next statement)."""
import gc
import sys

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
