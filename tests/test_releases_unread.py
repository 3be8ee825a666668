"""A store over a value the trace never read (sot/executor/releases.py): a
tuple of constants, an enum member, a module-level function, class or ufunc
is replaced in the graph's replay (guarded by value, type or identity); a
function made at run time, whose release may run a finalizer, is not."""
import numpy as np

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)
CFG = {}


def _plus(v):
    return v + 1


def store_over_unread(x):
    CFG["t"] = (1, (2, "a"))
    CFG["f"] = np.cos
    CFG["g"] = _plus
    CFG["dt"] = np.float64
    return x * 2


def test_store_over_unread_module_objects_is_captured():
    for old in [((3,), np.sin, len, np.float32), ((1, (2, "a")), np.cos, _plus, np.float64)]:
        CFG.update(t=old[0], f=old[1], g=old[2], dt=old[3])
        assert_captured_whole(store_over_unread, X)
    CFG.clear()
    check(store_over_unread, (X,), static=sot.to_static(store_over_unread, min_graph_size=0))


class _Noisy:
    def __del__(self):
        print("finalized")


def _make_closure():
    held = _Noisy()
    return lambda: held


def store_over_closure(x):
    CFG["h"] = None
    return x + 1


def test_store_over_a_run_time_closure_still_finalizes_at_the_store(capsys):
    static = sot.to_static(store_over_closure, min_graph_size=0)
    for fn in (store_over_closure, static, static):
        CFG["h"] = _make_closure()
        fn(X)
        assert capsys.readouterr().out == "finalized\n"
