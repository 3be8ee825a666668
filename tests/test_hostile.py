"""Hostile inputs: user data that looks like code, objects whose dunder methods
raise or count their calls, and unusual arrays. Each behaves as eager
(captured or fallen back), and sot never calls user code more often than the
undecorated function does."""
from __future__ import annotations

import builtins
import datetime

import numpy as np
import pytest

import sot
from difftest import check

# ---------------------------------------------------------------- text that looks like code

EVIL_KEYS = [
    "'); builtins.PWNED = 1 #",
    '"; __import__("builtins").PWNED = 1; "',
    "a'\nimport builtins; builtins.PWNED = 1\n'",
    "__import__('builtins').__setattr__('PWNED', 1)",
    "{__import__('builtins').__setattr__('PWNED', 1)}",
    "\\'; PWNED=1",
    "x\x00y",
    "\u2028'",
]


@pytest.fixture
def no_pwn():
    assert not hasattr(builtins, "PWNED")
    yield
    pwned = hasattr(builtins, "PWNED")
    if pwned:
        del builtins.PWNED
    assert not pwned, "text derived from user data was executed"


@pytest.mark.parametrize("key", EVIL_KEYS)
def test_dict_keys_guarded_by_value(key, no_pwn):
    def f(x, d):
        return x * d[key] + len(d)

    static = check(f, (np.ones(3), {key: 2.0, "other": 1}))
    # a different value under the same key is seen (guarded by value, not baked in)
    np.testing.assert_array_equal(static(np.ones(3), {key: 5.0, "other": 1}), np.full(3, 7.0))
    # a different key with the same text prefix misses the guard and still works
    other = {key + "'": 2.0, key: 3.0}
    np.testing.assert_array_equal(static(np.ones(3), other), f(np.ones(3), other))


@pytest.mark.parametrize("text", EVIL_KEYS)
def test_string_values_guarded_by_value(text, no_pwn):
    def f(x, s):
        if s == text:
            return x + 1
        return x - len(s)

    check(f, (np.ones(2), text), (np.ones(2), text + "!"), (np.ones(2), "plain"))


@pytest.mark.parametrize("text", EVIL_KEYS)
def test_evil_attribute_names_and_global_strings(text, no_pwn):
    class Box:
        pass

    box = Box()
    setattr(box, text, 3.0)
    box.scale = 2.0

    def f(x, b, s):
        return x * b.scale + getattr(b, text) + len(s)

    check(f, (np.ones(2), box, text))


def test_evil_keys_in_explain_guards_are_reprs(no_pwn):
    key = EVIL_KEYS[0]

    def f(x, d):
        return x * d[key]

    report = sot.explain(f, np.ones(2), {key: 2.0})
    assert not hasattr(builtins, "PWNED")
    for line in report.guards:
        assert "\n" not in line


# ---------------------------------------------------------------- objects with hostile dunders

class Counter:
    def __init__(self):
        self.calls = {}

    def hit(self, name):
        self.calls[name] = self.calls.get(name, 0) + 1


def _count_calls(fn, make, args_of):
    """Run fn eagerly and decorated on fresh objects; return both call counters."""
    counts = []
    results = []
    for runner in (fn, sot.to_static(fn)):
        per_run = []
        outcomes = []
        for _ in range(3):
            counter = Counter()
            obj = make(counter)
            try:
                outcomes.append(("ok", runner(*args_of(obj))))
            except Exception as e:  # compared
                outcomes.append(("raised", type(e), str(e)))
            per_run.append(dict(counter.calls))
        counts.append(per_run)
        results.append(outcomes)
    return counts, results


def _same(results):
    (eager, traced) = results
    for e, t in zip(eager, traced):
        assert e[0] == t[0]
        if e[0] == "ok":
            np.testing.assert_array_equal(e[1], t[1])
            assert type(e[1]) is type(t[1])
        else:
            assert e[1:] == t[1:]


def _counting_class(counter_attr="counter", raising=()):
    class Hostile:
        def __init__(self, counter, value=2.0):
            object.__setattr__(self, counter_attr, counter)
            object.__setattr__(self, "value", value)

        def __getattr__(self, name):
            self.counter.hit("__getattr__")
            if "__getattr__" in raising:
                raise RuntimeError("getattr boom")
            if name.startswith("__"):
                raise AttributeError(name)
            return 1.5

        def __eq__(self, other):
            self.counter.hit("__eq__")
            if "__eq__" in raising:
                raise RuntimeError("eq boom")
            return isinstance(other, Hostile)

        def __hash__(self):
            self.counter.hit("__hash__")
            if "__hash__" in raising:
                raise RuntimeError("hash boom")
            return 7

        def __bool__(self):
            self.counter.hit("__bool__")
            if "__bool__" in raising:
                raise RuntimeError("bool boom")
            return True

        def __len__(self):
            self.counter.hit("__len__")
            if "__len__" in raising:
                raise RuntimeError("len boom")
            return 3

    return Hostile


def _use_getattr(x, obj):
    return x * obj.missing + obj.value


def _use_eq(x, obj):
    if obj == obj:
        return x + 1
    return x - 1


def _use_hash(x, obj):
    d = {obj: 2}
    return x * d[obj]


def _use_bool(x, obj):
    if obj:
        return x * 2
    return x


def _use_len(x, obj):
    return x * len(obj)


def _use_in_list(x, obj):
    items = [1, obj, 3]
    return x * items.index(obj) if obj in items else x


USERS = [(_use_getattr, "__getattr__"), (_use_eq, "__eq__"), (_use_hash, "__hash__"),
         (_use_bool, "__bool__"), (_use_len, "__len__"), (_use_in_list, "__eq__")]


@pytest.mark.parametrize("fn,dunder", USERS, ids=[u[0].__name__ for u in USERS])
@pytest.mark.parametrize("raises", [False, True], ids=["counts", "raises"])
def test_hostile_dunders_not_called_more_than_eager(fn, dunder, raises):
    cls = _counting_class(raising=(dunder,) if raises else ())
    counts, results = _count_calls(fn, cls, lambda obj: (np.ones(3), obj))
    _same(results)
    eager, traced = counts
    for e, t in zip(eager, traced):
        for name in set(e) | set(t):
            assert t.get(name, 0) <= e.get(name, 0), f"{name}: traced {t} vs eager {e}"


def test_getattr_side_effect_seen_each_call():
    """A __getattr__ that returns a different value each call must not be cached."""
    class Ticker:
        def __init__(self):
            self.n = 0

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            self.__dict__["n"] += 1
            return self.__dict__["n"]

    def f(x, t):
        return x * t.value

    static = sot.to_static(f)
    t_e, t_s = Ticker(), Ticker()
    for _ in range(4):
        np.testing.assert_array_equal(f(np.ones(2), t_e), static(np.ones(2), t_s))
    assert t_e.n == t_s.n


def test_property_with_side_effect():
    class P:
        def __init__(self):
            self.reads = 0

        @property
        def w(self):
            self.reads += 1
            return float(self.reads)

    def f(x, p):
        return x * p.w + p.w

    check(f, (np.ones(3), P()))


def test_array_with_hostile_array_priority_operand():
    class Weird:
        __array_priority__ = 1000

        def __radd__(self, other):
            return "radd"

        def __add__(self, other):
            return "add"

    def f(x, w):
        return x + w, w + x

    check(f, (np.ones(2), Weird()))


# ---------------------------------------------------------------- unusual arrays

class Sub(np.ndarray):
    pass


class SubWithFinalize(np.ndarray):
    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", "new")


def _arith(x):
    y = x * 2 + 1
    return y.sum(axis=-1, keepdims=True) - y, y.T


def _reduce(x):
    return x.sum(), x.max(axis=0) if x.ndim else x.max()


def _index(x):
    return x[..., ::-1], x[None]


def _unusual_arrays():
    base = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    ro = base.copy()
    ro.flags.writeable = False
    cases = {
        "subclass": base.view(Sub),
        "subclass_finalize": base.view(SubWithFinalize),
        "masked": np.ma.masked_array(base, mask=base % 5 == 0),
        "matrix": np.asmatrix(base[0]),
        "non_contiguous": base[:, ::2, ::-1],
        "fortran": np.asfortranarray(base),
        "transposed": base.T,
        "read_only": ro,
        "zero_d": np.array(3.5),
        "empty": np.zeros((0, 4)),
        "empty_middle": np.zeros((2, 0, 3)),
        "high_rank": np.ones((1,) * 20 + (2,)),
        "max_rank": np.ones((1,) * 32) if np.__version__ >= "2" else np.ones((1,) * 20),
        "broadcast_view": np.broadcast_to(np.arange(4.0), (3, 4)),
        "big_endian": base.astype(">f8"),
        "float16": base.astype(np.float16),
        "longdouble": base.astype(np.longdouble),
        "complex64": base.astype(np.complex64),
        "object": base.astype(object),
        "str": np.array([["a", "bc"], ["d", "e"]]),
        "bytes": np.array([[b"a", b"bc"]]),
        "datetime": np.array(["2020-01-01", "2021-06-30"], dtype="datetime64[D]"),
        "timedelta": np.array([1, 2, 3], dtype="timedelta64[s]"),
        "structured": np.zeros(3, dtype=[("a", "f8"), ("b", "i4")]),
        "bool": base > 10,
        "uint8": base.astype(np.uint8),
        "record": np.rec.array([(1, 2.0), (3, 4.0)], dtype=[("a", "i4"), ("b", "f8")]),
        "memmap_like_unaligned": np.frombuffer(b"\x00" + np.arange(6.0).tobytes(), dtype=np.float64,
                                               offset=1) if False else np.arange(6.0)[1:],
    }
    return cases


UNUSUAL = _unusual_arrays()


@pytest.mark.parametrize("fn", [_arith, _reduce, _index], ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("name", list(UNUSUAL))
def test_unusual_arrays_behave_as_eager(name, fn):
    x = UNUSUAL[name]
    check(fn, (x,))


def test_subclass_type_and_attribute_preserved():
    def f(x):
        return x + 1

    x = np.arange(3.0).view(SubWithFinalize)
    x.tag = "mine"
    static = sot.to_static(f)
    for _ in range(3):
        r = static(x)
        assert type(r) is SubWithFinalize and r.tag == "mine"


def test_masked_array_mask_respected():
    def f(x):
        return (x * 2).sum(), (x + 1).mask

    x = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    check(f, (x,))


def test_read_only_in_place_raises_like_eager():
    def f(x):
        x += 1
        return x

    ro = np.ones(3)
    ro.flags.writeable = False
    check(f, (ro,))


def test_switching_between_plain_and_unusual_arrays():
    def f(x):
        return x * 2 - x.mean()

    static = sot.to_static(f)
    seq = [np.ones(3), np.ones(3).view(Sub), np.ma.masked_array(np.ones(3), [0, 1, 0]), np.ones(3)[::-1],
           np.ones(3, dtype=object), np.ones(3)]
    for x in seq * 2:
        e, t = f(x), static(x)
        assert type(e) is type(t)
        np.testing.assert_array_equal(np.asarray(e), np.asarray(t))


def test_datetime_arithmetic():
    def f(d, delta):
        return d + delta, (d - d[0]).astype("timedelta64[D]"), d.max()

    d = np.array(["2020-01-01", "2021-06-30"], dtype="datetime64[D]")
    check(f, (d, np.timedelta64(3, "D")), (d, 2))


def test_python_datetime_and_decimal_args():
    import decimal

    def f(x, when, q):
        return x * float(q), when + datetime.timedelta(days=1)

    check(f, (np.ones(2), datetime.date(2020, 1, 1), decimal.Decimal("1.5")))
