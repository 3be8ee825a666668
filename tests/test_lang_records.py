"""Record types inside a trace (executor/records.py): dataclasses.fields,
asdict and replace, dataclass __eq__/order (tuple equality of fields),
init=False fields and __post_init__; namedtuple _fields/_replace/_asdict;
Enum lookup by value, len() and iteration of an Enum class, members' own
methods and properties. What the stdlib would raise for runs natively."""
import dataclasses
import enum
from collections import namedtuple

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


@dataclasses.dataclass
class Config:
    scale: float = 2.0
    shift: float = 0.5
    names: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass(order=True)
class Version:
    major: int
    minor: float = 0.0
    tags: list = dataclasses.field(default_factory=list, compare=False)

    def __post_init__(self):
        self.minor = self.minor * 2


@dataclasses.dataclass
class Derived:
    a: float
    n: int = dataclasses.field(init=False, default=3)


@dataclasses.dataclass
class Outer:
    inner: Config
    w: np.ndarray


Point = namedtuple("Point", "x y")


class Act(enum.Enum):
    RELU = "relu"
    TANH = "tanh"

    @property
    def pretty(self):
        return self.name.lower() + "!"

    def apply(self, x):
        return np.maximum(x, 0) if self is Act.RELU else np.tanh(x)


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 3


class Bits(enum.Flag):
    A = 1
    B = 2


def test_asdict_copies_nested_dataclasses_lists_and_arrays():
    def f(x):
        c = Config(3.0)
        c.names.append("n")
        o = Outer(c, x)
        d = dataclasses.asdict(o)
        d["inner"]["names"].append("m")
        return d, c.names, x * c.scale

    check(f, (X,))
    assert_captured_whole(f, X)


def test_asdict_of_an_argument():
    def f(x, cfg):
        return dataclasses.asdict(cfg), x * cfg.scale

    check(f, (X, Config(1.5, names=["a"])), (X, Config()))


def test_replace_and_eq_of_dataclasses():
    def f(x):
        c = Config(3.0)
        d = dataclasses.replace(c, shift=1.0)
        return x * d.scale + d.shift, c == Config(3.0), c == d, c != d, d.names is c.names

    check(f, (X,))
    assert_captured_whole(f, X)


def test_replace_of_an_init_false_field_raises_as_eager():
    def f(x):
        return dataclasses.replace(Derived(1.0), n=4), x

    check(f, (X,))


def test_order_post_init_and_fields():
    def f(x):
        p, q = Version(1, 1.0), Version(1, 2.0, ["t"])
        names = [fl.name for fl in dataclasses.fields(Derived(2.0))]
        return p.minor, p < q, p >= q, p == Version(1, 1.0), names, Derived(2.0).n, x + 1

    check(f, (X,))
    assert_captured_whole(f, X)


def test_namedtuple_helpers():
    def f(x):
        p = Point(x, 2)
        q = p._replace(y=3)
        return p.x * q.y, q._asdict()["y"], Point._fields, p._fields, len(p), type(q) is Point

    check(f, (X,))
    assert_captured_whole(f, X)


def test_namedtuple_replace_of_unknown_field_raises_as_eager():
    def f(x):
        return Point(1, 2)._replace(z=3), x

    check(f, (X,))


def test_enum_lookup_by_value_len_iteration_and_methods():
    def f(x, v):
        a = Act(v)
        return a, Act(a) is a, a.pretty, a.apply(x), [m.value for m in Act], len(Level), Level(3), len(Bits)

    static = check(f, (X, "relu"), (X, "tanh"))
    assert sot.translation_count(static) == 2   # the value is guarded
    assert_captured_whole(f, X, "relu")


def test_enum_lookup_misses_raise_or_run_missing_as_eager():
    def f(x, v):
        return Act(v), x

    def g(x):
        return Bits(3), x          # a Flag pseudo-member: _missing_ makes it natively

    check(f, (X, "gelu"))
    check(g, (X,))


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int
    b: float = 3.0


class Logged:
    """A class whose own __setattr__ records every store (inlined)."""

    def __init__(self, k):
        self.log = []
        self.k = k

    def __setattr__(self, name, value):
        if name != "log":
            self.log.append(name)
        object.__setattr__(self, name, value)


def test_frozen_dataclass_is_created_in_the_trace():
    def f(x):
        fr = Frozen(2)
        g = dataclasses.replace(fr, b=0.5)
        return x * fr.a + g.b, fr == Frozen(2), fr, dataclasses.asdict(g)

    check(f, (X,))
    assert_captured_whole(f, X)


def test_assigning_a_frozen_field_raises_as_eager():
    def f(x):
        fr = Frozen(1)
        try:
            fr.a = 3
        except dataclasses.FrozenInstanceError as e:
            return str(e), x * fr.a
        return None

    check(f, (X,))


def test_a_user_setattr_is_inlined_for_objects_made_in_the_frame():
    def f(x):
        o = Logged(2)
        o.k = o.k + 1
        setattr(o, "z", x)
        return o.log, o.k * x, o.z

    check(f, (X,))
    assert_captured_whole(f, X)
