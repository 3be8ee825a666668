"""User objects around NumPy values: classes and methods, inheritance and
super, properties and descriptors, dunder methods, dataclasses,
namedtuples, enums, class and static methods, callables."""
from __future__ import annotations

import collections
import dataclasses
import enum
import typing

import numpy as np

from . import X, case


class Linear:
    def __init__(self, w, b=0.0):
        self.w = w
        self.b = b

    def __call__(self, x):
        return x @ self.w + self.b

    def scaled(self, k):
        return Linear(self.w * k, self.b)


class Base:
    tag = "base"

    def __init__(self, k):
        self.k = k

    def f(self, x):
        return x * self.k

    def name(self):
        return self.tag


class Child(Base):
    tag = "child"

    def __init__(self, k):
        super().__init__(k + 1)
        self.extra = 2

    def f(self, x):
        return super().f(x) + self.extra


class Grand(Child):
    def f(self, x):
        return super(Child, self).f(x) - 1


class Vec:
    def __init__(self, a):
        self.a = a

    def __add__(self, o):
        return Vec(self.a + (o.a if isinstance(o, Vec) else o))

    __radd__ = __add__

    def __mul__(self, k):
        return Vec(self.a * k)

    def __neg__(self):
        return Vec(-self.a)

    def __len__(self):
        return len(self.a)

    def __getitem__(self, i):
        return self.a[i]

    def __iter__(self):
        return iter(self.a)

    def __bool__(self):
        return len(self.a) > 0

    def __eq__(self, o):
        return isinstance(o, Vec) and self.a.shape == o.a.shape

    __hash__ = None

    def __contains__(self, v):
        return v == 0


class Temp:
    def __init__(self, c):
        self._c = c

    @property
    def f(self):
        return self._c * 9 / 5 + 32

    @f.setter
    def f(self, v):
        self._c = (v - 32) * 5 / 9


class Positive:
    """A data descriptor that clips what is stored."""

    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return getattr(obj, self.name)

    def __set__(self, obj, value):
        setattr(obj, self.name, np.maximum(value, 0))


class Holder:
    v = Positive()

    def __init__(self, v):
        self.v = v


class Counter:
    count = 0

    @classmethod
    def make(cls, n):
        return cls.count + n

    @staticmethod
    def twice(x):
        return x * 2


@dataclasses.dataclass
class Config:
    scale: float = 2.0
    shift: float = 0.5
    names: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int
    b: int = 3


Point = collections.namedtuple("Point", ["x", "y"])


class Pair(typing.NamedTuple):
    a: np.ndarray
    b: float = 1.0


class Act(enum.Enum):
    RELU = "relu"
    TANH = "tanh"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 3


class Flags(enum.Flag):
    A = 1
    B = 2


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a = a
        self.b = a * 2


class WithGetattr:
    def __getattr__(self, name):
        return len(name)


# -- classes and methods -----------------------------------------------------------

@case(ort=True)
def obj_callable_instance(x):
    lin = Linear(np.ones((4, 2), np.float32), 1.0)
    return lin(x), lin.scaled(2)(x)


@case(X, Linear(np.eye(4, dtype=np.float32), 0.5))
def obj_instance_argument(x, lin):
    return lin(x) * 2


@case(X, Linear(np.eye(4, dtype=np.float32)))
def obj_argument_attribute_store(x, lin):
    lin.b = x.sum()
    lin.cache = [1]
    return lin(x)


@case(ort=True)
def obj_super_chain(x):
    return Child(1).f(x), Grand(1).f(x), Child(2).name(), Base(3).name()


@case()
def obj_isinstance_of_user_classes(x):
    g = Grand(1)
    return isinstance(g, Base), isinstance(g, (int, Child)), type(g).__name__, type(g).__mro__[1].__name__, x


@case()
def obj_dunder_operators(x):
    v = Vec(x)
    w = v + 1
    u = 2 + v
    return (w * 2).a, (-u).a, len(v), v[0], bool(v), v == w, 0 in v


@case()
def obj_iter_protocol(x):
    return [r.sum() for r in Vec(x)]


@case()
def obj_property_get_set(x):
    t = Temp(x)
    f = t.f
    t.f = 212.0
    return f, t._c


@case()
def obj_descriptor(x):
    h = Holder(x)
    h.v = x - 1
    return h.v, Holder.v.name


@case()
def obj_classmethod_staticmethod(x):
    return Counter.make(2), Counter().make(3), Counter.twice(x), Counter().twice(1)


@case()
def obj_class_attribute_vs_instance(x):
    c = Child(1)
    c.tag = "mine"
    return c.tag, Child.tag, c.name(), x, x + 1


@case()
def obj_slots(x):
    s = Slotted(x)
    return s.a + s.b, hasattr(s, "__dict__")


@case()
def obj_getattr_hook(x):
    w = WithGetattr()
    return x * w.abcd, w.xy


@case()
def obj_attribute_error(x):
    return Base(1).missing


@case()
def obj_local_class(x):
    class Local:
        def __init__(self, v):
            self.v = v

        def twice(self):
            return self.v * 2
    return Local(x).twice()


@case()
def obj_bound_method_as_value(x):
    f = Base(3).f
    return f(x), f.__self__.k


@case()
def obj_method_via_class(x):
    return Base.f(Base(2), x)


@case()
def obj_setattr_getattr_builtin(x):
    b = Base(1)
    setattr(b, "k", 5)
    return getattr(b, "k") * x, vars(b)


@case()
def obj_repr_and_str_dunder(x):
    class R:
        def __repr__(self):
            return "R()"
    return repr(R()), str(R()), f"{R()!r}", x


@case()
def obj_object_identity_in_list(x):
    a, b = Base(1), Base(1)
    items = [a, b]
    return items.index(b), a is b, a in items, x


# -- dataclasses, namedtuples, enums ------------------------------------------------------

@case()
def dc_defaults_and_fields(x):
    c = Config()
    c.names.append("n")
    return x * c.scale + c.shift, c.names, dataclasses.asdict(c)


@case()
def dc_replace_and_eq(x):
    c = Config(3.0)
    d = dataclasses.replace(c, shift=1.0)
    return x * d.scale + d.shift, c == Config(3.0), c == d


@case()
def dc_frozen_raises(x):
    f = Frozen(1)
    f.a = 2
    return x


@case()
def dc_frozen_hashable(x):
    f = Frozen(1)
    return hash(f) == hash(Frozen(1)), {f: 1}[Frozen(1)], x * f.b


@case(X, Config(1.5, -1.0), ort=True)
def dc_argument(x, cfg):
    return x * cfg.scale + cfg.shift


@case()
def nt_fields(x):
    p = Point(x, 2)
    q = p._replace(y=3)
    return p.x * q.y, p[1], q._asdict()["y"], Point._fields, len(p)


@case()
def nt_unpack_and_compare(x):
    a, b = Point(1, 2)
    return x * (a + b), Point(1, 2) == (1, 2), Point(1, 2) < Point(1, 3)


@case()
def nt_typed_default(x):
    p = Pair(x)
    return p.a * p.b, Pair(x, 3.0).b, isinstance(p, tuple)


@case(Point(X, 3))
def nt_argument(p):
    return p.x * p.y


@case()
def enum_value_and_identity(x):
    a = Act.TANH
    if a is Act.TANH:
        return np.tanh(x), a.value, a.name
    return x


@case()
def enum_lookup_by_value(x):
    return Act("relu"), Act["TANH"], Act.RELU == Act.RELU, x


@case()
def enum_iteration(x):
    return [m.value for m in Act], len(Level), x


@case()
def enum_intenum_arith(x):
    return x * Level.HIGH, Level.LOW + 1, Level.HIGH > Level.LOW, int(Level.HIGH)


@case()
def enum_flag_ops(x):
    f = Flags.A | Flags.B
    return Flags.A in f, f.value, x


@case(X, Act.RELU)
def enum_argument_dispatch(x, act):
    return np.maximum(x, 0) if act is Act.RELU else np.tanh(x)


@case()
def obj_dict_of_objects(x):
    layers = {"a": Base(1), "b": Child(2)}
    return [layers[k].f(x) for k in sorted(layers)]


@case()
def obj_list_of_callables(x):
    fs = [np.sin, np.cos, lambda v: v * 2, Base(2).f]
    out = x
    for f in fs:
        out = f(out)
    return out


@case()
def obj_functions_stored_on_instance(x):
    b = Base(1)
    b.g = lambda v: v + 1
    return b.g(x)


@case()
def obj_class_level_counter_mutation(x):
    class K:
        n = 0

        def __init__(self):
            K.n += 1
    K()
    K()
    return x * K.n


@case()
def obj_instance_dict_and_type_call(x):
    b = Base(2)
    c = type(b)(3)
    return c.k, b.__dict__, b.__class__ is Base, x


@case()
def obj_inheritance_from_list(x):
    class L(list):
        def total(self):
            return sum(self)
    l2 = L([1, 2, 3])
    l2.append(4)
    return l2.total(), len(l2), x


@case()
def obj_inheritance_from_dict(x):
    class D(dict):
        def __missing__(self, k):
            return 0
    d = D(a=1)
    return d["a"], d["zz"], x


@case()
def obj_abstract_like_raise(x):
    class A:
        def run(self):
            raise NotImplementedError("abstract")
    return A().run()


@case()
def obj_init_subclass_and_call_order(x):
    log = []

    class A:
        def __init__(self):
            log.append("A")

    class B(A):
        def __init__(self):
            log.append("B")
            super().__init__()
    B()
    return log, x
