"""copy, dataclasses, enum and typing.NamedTuple from decorated functions:
copies are new objects with the same contents (arrays copied, not aliased),
a dataclass's generated __init__/__eq__/__repr__, field(default_factory),
frozen assignment errors, asdict/replace/__post_init__ behave and mutate as
eager; Enum/IntEnum members steer branches and key dicts; NamedTuple fields,
_replace and _asdict."""
import copy
import dataclasses
import enum
import typing

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


class Plain:
    def __init__(self, w, tags):
        self.w = w
        self.tags = tags


def copy_of_an_array_is_not_a_view(x):
    c = copy.copy(x)
    d = copy.deepcopy(x)
    c[0, 0] = 100
    d[1, 1] = -100
    return c, d, x, c is x, np.shares_memory(c, x)


def copy_of_lists(x):
    nested = [[1, 2], [x[0]]]
    shallow = copy.copy(nested)
    deep = copy.deepcopy(nested)
    shallow[0].append(3)
    deep[1].append(x[1])
    return nested, shallow, deep, shallow[1] is nested[1], deep[1][0] is nested[1][0]


def copy_of_a_user_object(x, obj):
    c = copy.copy(obj)
    d = copy.deepcopy(obj)
    c.tags.append("shallow")
    d.tags.append("deep")
    d.w = d.w * 2
    return c.w is obj.w, d.w, obj.tags, d.tags, x + obj.w


@dataclasses.dataclass(eq=False)   # an array field: the generated __eq__ would need its truth value
class Layer:
    w: np.ndarray
    scale: float = 1.0
    hist: list = dataclasses.field(default_factory=list)
    n: int = dataclasses.field(default=0, init=False)

    def __post_init__(self):
        self.n = self.w.shape[0]

    def __call__(self, x):
        self.hist.append(self.scale)
        return x @ self.w.T * self.scale


@dataclasses.dataclass(frozen=True)
class Config:
    lr: float
    steps: int = 3
    name: str = "cfg"


def dataclass_made_in_the_frame(x):
    layer = Layer(x, 0.5)
    y = layer(x)
    return y, layer.n, layer.hist, repr(Config(0.1)), Config(0.1) == Config(0.1, 3)


def dataclass_passed_in_is_mutated_as_eager(x, layer):
    y = layer(x)
    layer.scale = layer.scale * 2
    return y, layer.hist, layer.scale


def frozen_dataclass_replace_and_asdict(x):
    cfg = Config(0.5)
    cfg2 = dataclasses.replace(cfg, steps=5)
    return x * cfg2.lr * cfg2.steps, dataclasses.asdict(cfg2), dataclasses.astuple(cfg), cfg2 is cfg, hash(cfg) == hash(Config(0.5))


def frozen_dataclass_assignment_raises(x):
    cfg = Config(0.5)
    cfg.lr = 1.0
    return x


def dataclass_fields_and_default_factory(x):
    a, b = Layer(x), Layer(x)
    a.hist.append(1)
    return [f.name for f in dataclasses.fields(Layer)], b.hist, a.hist is b.hist, dataclasses.is_dataclass(a)


def asdict_of_a_dataclass_with_an_array(x):
    d = dataclasses.asdict(Layer(x, 2.0))   # deep-copies the array
    d["w"][0, 0] = 7
    return d, x


class Mode(enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


class Axis(enum.IntEnum):
    ROWS = 0
    COLS = 1


def enum_members_in_branches(x, mode):
    if mode is Mode.TRAIN:
        return x * 2, mode.name, mode.value
    if mode == Mode.EVAL:
        return x - 1, mode.name, Mode("eval") is mode
    return None


def enum_members_as_dict_keys(x):
    scale = {Mode.TRAIN: 2.0, Mode.EVAL: 0.5}
    sums = {Axis.ROWS: x.sum(axis=Axis.ROWS), Axis.COLS: x.sum(axis=Axis.COLS)}
    return x * scale[Mode.EVAL], sums, list(Mode), Axis.COLS + 1, Axis(1) is Axis.COLS, Axis.COLS == 1


def int_enum_keys_meet_ints(x):
    d = {Axis.ROWS: "rows"}
    d[0] = "zero"                      # the same key: the member stays the key, the value changes
    d[Axis.COLS] = x.sum(axis=Axis.COLS)
    return d, list(d)[0] is Axis.ROWS, d.get(1) is d[Axis.COLS], 1 in d, Axis.ROWS in {0: 1}, d.pop(Axis.ROWS)


def enum_keys_in_and_get(x):
    d = {Mode.TRAIN: x}
    return Mode.EVAL in d, d.get(Mode.EVAL, 0), d.get(Mode.TRAIN) * 2, "train" in d, {m: m.value for m in Mode}


class Loud(enum.Enum):
    A = 1
    B = 2

    def __hash__(self):
        return 0

    def __eq__(self, other):
        return self is other


def enum_with_its_own_hash_as_key(x):
    return {Loud.A: x, Loud.B: x * 2}[Loud.B]


def enum_lookup_error(x):
    return Mode("test"), x


class Pair(typing.NamedTuple):
    a: np.ndarray
    b: float = 1.0


def named_tuple_fields(x):
    p = Pair(x)
    q = p._replace(b=3.0)
    a, b = q
    return p.a * q.b + a * b, q._asdict(), Pair._fields, len(q), type(q).__name__


CASES = [copy_of_an_array_is_not_a_view, copy_of_lists, dataclass_made_in_the_frame,
         frozen_dataclass_replace_and_asdict, frozen_dataclass_assignment_raises,
         dataclass_fields_and_default_factory, asdict_of_a_dataclass_with_an_array, enum_members_as_dict_keys,
         int_enum_keys_meet_ints, enum_keys_in_and_get, enum_with_its_own_hash_as_key, enum_lookup_error,
         named_tuple_fields]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_matches_eager(fn):
    check(fn, (X,), (X[::-1] * 2,))


def test_copy_of_a_user_object_passed_in():
    check(copy_of_a_user_object, (X, Plain(2.0, ["a"])), (X, Plain(np.float32(3), [])))


def test_a_dataclass_passed_in_is_mutated_as_eager():
    check(dataclass_passed_in_is_mutated_as_eager, (X, Layer(X, 0.5)), (X * 2, Layer(X[:2], 3.0)))


def test_enum_members_steer_branches():
    check(enum_members_in_branches, (X, Mode.TRAIN), (X, Mode.EVAL), (X, Mode.TRAIN))


@pytest.mark.parametrize("fn", [dataclass_passed_in_is_mutated_as_eager, asdict_of_a_dataclass_with_an_array,
                                enum_members_as_dict_keys, int_enum_keys_meet_ints, enum_keys_in_and_get,
                                named_tuple_fields], ids=lambda f: f.__name__)
def test_captured_without_a_break(fn):
    assert_captured_whole(fn, *([X, Layer(X, 0.5)] if fn is dataclass_passed_in_is_mutated_as_eager else [X]))


def test_enum_members_steer_branches_without_a_break():
    assert_captured_whole(enum_members_in_branches, X, Mode.EVAL)


def test_an_enum_with_its_own_hash_is_not_a_plain_key():
    report = sot.explain(sot.to_static(enum_with_its_own_hash_as_key, min_graph_size=0), X)
    assert any("dict key" in str(b) for b in report.breaks), [str(b) for b in report.breaks]


def int_enum_argument_as_a_key(x, k):
    d = {k: x, 1: 2}
    return d, [type(t) for t in d], d.get(0, 5)


def test_an_int_enum_argument_is_not_its_int():
    # equal keys, other objects: the member is guarded by identity, not by ==
    check(int_enum_argument_as_a_key, (X, Axis.ROWS), (X, 0), (X, Axis.COLS), (X, 1), (X, False), (X, Axis.ROWS))
