"""``object.__setattr__(obj, name, value)`` on an object from outside the
call whose class has its own __setattr__ (a frozen dataclass's __init__ run
as a frame of its own, a ``__post_init__`` filling a derived field) is a
store past that __setattr__: recorded as a side effect and replayed as
``object.__setattr__`` after the graph (it broke the graph at every field)."""
from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field

import numpy as np

import sot
from difftest import check


@dataclass(frozen=True, eq=False)   # (eq=False: compared field by field by difftest)
class Stats:
    mean: np.ndarray
    scale: float = 1.0
    tags: tuple = ()
    norm: np.ndarray = field(default=None)
    count: int = 0

    def __post_init__(self):
        object.__setattr__(self, "norm", self.mean / self.scale)


def _fresh(mean=np.arange(3.0)):
    return Stats(mean, 2.0)


def test_a_frozen_dataclass_init_on_an_outside_object_is_one_graph():
    obj = object.__new__(Stats)
    static = sot.to_static(Stats.__init__)
    report = sot.explain(static, obj, np.arange(3.0), 4.0, ("a",))
    assert not report.breaks, [str(b) for b in report.breaks]
    assert (obj.scale, obj.tags) == (4.0, ("a",)) and np.array_equal(obj.norm, np.arange(3.0) / 4.0)

    def init(obj, mean, scale):
        Stats.__init__(obj, mean, scale)
        return obj
    check(init, (object.__new__(Stats), np.arange(3.0), 4.0), (object.__new__(Stats), np.ones(2), 0.5))


def _refresh(s, x):
    object.__setattr__(s, "mean", s.mean + x)   # how code updates a frozen record in place
    object.__setattr__(s, "count", s.count + 1)
    return s.norm * x, s.mean


def test_object_setattr_on_a_frozen_instance_matches_eager_and_keeps_the_graph():
    report = sot.explain(sot.to_static(_refresh), _fresh(), np.ones(3))
    assert not report.breaks, [str(b) for b in report.breaks]
    check(_refresh, (_fresh(), np.ones(3)), (_fresh(np.zeros(3)), 2.0))


def test_a_plain_store_on_a_frozen_instance_still_raises_as_eagerly():
    def f(s, x):
        s.mean = x   # FrozenInstanceError
        return x
    check(f, (_fresh(), np.ones(3)))
    try:
        sot.to_static(f)(_fresh(), np.ones(3))
    except FrozenInstanceError:
        pass
    else:
        raise AssertionError("the frozen instance was written")
