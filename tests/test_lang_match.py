"""`match` statements are simulated (handlers/matching.py): sequence,
mapping and class patterns decide as CPython does, from the subject's type
flags (an ndarray or a str is no sequence pattern's subject), and guard what
they read; where eager raises (a bad __match_args__, a key checked twice)
the frame runs natively and raises the same."""
import dataclasses
import enum
from collections import namedtuple

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


@dataclasses.dataclass
class Point:
    x: int
    y: int


Pair = namedtuple("Pair", "a b")


class Plain:          # no __match_args__: keyword sub-patterns only
    def __init__(self, k):
        self.k = k

    @property
    def double(self):
        return self.k * 2


class BadArgs:
    __match_args__ = ["k"]     # a list: eager raises TypeError

    def __init__(self, k):
        self.k = k


class Mode(enum.Enum):
    FAST = 1
    SLOW = 2


def by_shape(x, s):
    match s:
        case []:
            return x
        case [n]:
            return x * n
        case [a, b, *rest] if a < b:
            return x + a, rest
        case (a, b, *rest):
            return x - b, rest
        case {"k": v, **kw}:
            return x * v, kw
        case {"op": "add"}:
            return x + 100
        case str() | bytes():
            return x, s
        case _:
            return None


@pytest.mark.parametrize("s", [[], [3], [1, 2], (2, 1, 5, 6), [5, 1, 7], {"k": 2, "z": 1},
                               {"op": "add", "extra": 0}, {"op": "sub"}, "ab", b"ab", 7, None])
def test_sequence_and_mapping_patterns_follow_eager(s):
    check(by_shape, (X, s))
    assert_captured_whole(by_shape, X, s)


def test_an_array_subject_matches_as_eager_decides():
    # whether ndarray is a sequence to `match` is NumPy's business (its type
    # flags); the simulator asks the same flags
    check(by_shape, (X, np.ones(3)), (X, np.ones((2, 2))))


def test_match_on_shape_tuple_specialises_and_recompiles():
    def f(x):
        match x.shape:
            case (n, m) if n < m:
                return x.T, n, m
            case (n, m):
                return x, n, m
            case (n,):
                return x * n
        return None

    static = check(f, (X,), (X.T.copy(),), (np.ones(4, np.float32),), (np.ones((1, 1, 1)),))
    assert sot.translation_count(static) >= 2   # one per pattern that matched (dims may be symbolic)


def by_class(x, obj):
    match obj:
        case Point(0, y):
            return x * y
        case Point(x=px, y=3):
            return x + px
        case Pair(a, b=b):
            return x - a - b
        case Plain(double=d, k=k):
            return x * d + k
        case bool(flag):
            return x, flag
        case int(n) | float(n):
            return x * n
        case Mode.FAST:
            return x + 1
        case np.ndarray():
            return x + obj
        case _:
            return x, "other"


@pytest.mark.parametrize("obj", [Point(0, 5), Point(2, 3), Pair(1, 2), Plain(3), True, 4, 2.5,
                                 Mode.FAST, Mode.SLOW, "s"])
def test_class_patterns_follow_eager(obj):
    check(by_class, (X, obj))
    assert_captured_whole(by_class, X, obj)


def test_value_pattern_against_an_object_with_its_own_eq():
    check(by_class, (X, Point(2, 4)))   # `obj == Mode.FAST` runs the dataclass's __eq__


def test_class_pattern_on_an_array_subject():
    check(by_class, (X, np.ones(3, np.float32)))


def test_changed_attribute_of_a_matched_object_is_seen():
    static = sot.to_static(by_class)
    p = Point(2, 3)
    first = static(X, p)
    np.testing.assert_array_equal(first, X + 2)
    p.y = 9
    check(by_class, (X, p), static=static)
    p.x = 0
    check(by_class, (X, p), static=static)
    assert sot.translation_count(static) >= 2


def test_objects_made_in_the_frame_are_matched():
    def f(x, k):
        for obj in (Point(k, 1), Pair(k, 2), Plain(k)):
            match obj:
                case Point(x=a) | Pair(a, _):
                    x = x + a
                case Plain(k=a):
                    x = x * a
        return x

    check(f, (X, 2), (X, 3))
    assert_captured_whole(f, X, 2)


def test_missing_attribute_means_no_match():
    def f(x):
        match Plain(2):
            case Plain(missing=m):
                return x * m
            case Plain(k=k):
                return x + k

    check(f, (X,))
    assert_captured_whole(f, X)


def test_positional_subpattern_without_match_args_raises_as_eager():
    def f(x, obj):
        match obj:
            case Plain(k):
                return x * k
        return x

    check(f, (X, Plain(2)), (X, 3))


def test_match_args_that_is_not_a_tuple_raises_as_eager():
    def f(x, obj):
        match obj:
            case BadArgs(k):
                return x * k
        return x

    check(f, (X, BadArgs(2)))


def test_mapping_pattern_with_a_key_twice_raises_as_eager():
    def f(x, d, key):
        match d:
            case {Mode.FAST.value: a, 1: b}:   # the same key twice: ValueError at run time
                return x * a * b
        return x

    check(f, (X, {1: 2}, 1))


def test_mapping_rest_is_a_new_dict_each_call():
    def f(x, d):
        match d:
            case {"w": w, **rest}:
                rest["seen"] = True
                return x * w, rest
        return x, d

    check(f, (X, {"w": 2, "b": 1}), (X, {"b": 1}), (X, {"w": 3}))


def test_mapping_and_sequence_values_are_guarded():
    def f(x, cfg):
        match cfg:
            case {"layers": [first, *others], "scale": s}:
                return x * s + first, len(others)
            case {"layers": []}:
                return x
        return None

    static = check(f, (X, {"layers": [1, 2], "scale": 2.0}), (X, {"layers": [], "scale": 2.0}),
                   (X, {"layers": [4], "scale": 0.5}), (X, {"scale": 1}))
    assert sot.translation_count(static) >= 3
