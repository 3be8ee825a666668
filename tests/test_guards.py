"""Specification of sot.guards: trackers, guard kinds, the compiled guard.

Calling convention under test: guard(f_globals, *args, *free_cells).
"""

import builtins
import math
import struct
import os
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sot.guards.compile import GuardFunction, compile_guards, make_loader, unguarded_reads
from sot.guards.guard import (
    DictKeysGuard,
    GlobalAbsentGuard,
    IdGuard,
    LenGuard,
    TensorGuard,
    TypeGuard,
    ValueGuard,
)
from sot.guards.tracker import (
    AttrTracker,
    BuiltinTracker,
    CellTracker,
    ConstTracker,
    GlobalTracker,
    ItemTracker,
    LoadContext,
    LocalTracker,
)

X = LocalTracker(0, "x")
SELF = LocalTracker(0, "self")


def arg_guard(guard, nargs=1, ncells=0):
    return compile_guards([guard], nargs, ncells)


def holds(guard, *args, g=None, cells=()):
    """Compile one guard on argument(s) and run it; cross-check the
    interpreted reference and first_failure on the way."""
    gf = compile_guards([guard], len(args), len(cells))
    g = {} if g is None else g
    ok = gf(g, *args, *cells)
    assert ok is True or ok is False
    assert ok == guard.evaluate(g, args, tuple(cells))
    assert c_decision(gf, g, *args, *cells) is ok
    assert (gf.first_failure(g, *args, *cells) is None) == ok
    return ok


def c_decision(gf, g, *values):
    """The C GuardProgram's decision (every guard kind here has a C form)."""
    assert gf.program is not None, gf.guards
    return gf.program(g, *values)


def failure(guard, *args, g=None, cells=()):
    gf = compile_guards([guard], len(args), len(cells))
    return gf.first_failure({} if g is None else g, *args, *cells)


def cell_of(value):
    def f():
        return value
    return f.__closure__[0]


def empty_cell():
    def f():
        return v  # noqa: F821
    if False:
        v = 0  # noqa: F841
    return f.__closure__[0]


# ---------------------------------------------------------------- arrays


def test_array_guard_holds_for_same_type_dtype_shape():
    a = np.zeros((8, 16), np.float32)
    guard = TensorGuard(X, a)
    assert holds(guard, a)
    assert holds(guard, np.ones((8, 16), np.float32))  # values are not guarded
    assert guard.describe() == "x: ndarray float32 (8, 16)"


def test_array_shape_change_fails_and_says_so():
    guard = TensorGuard(X, np.zeros((8, 16), np.float32))
    assert not holds(guard, np.zeros((4, 16), np.float32))
    assert failure(guard, np.zeros((4, 16), np.float32)) == "x.shape changed from (8, 16) to (4, 16)"
    assert not holds(guard, np.zeros((8, 16, 1), np.float32))
    assert not holds(guard, np.zeros((), np.float32))


def test_array_dtype_change_fails_and_says_so():
    guard = TensorGuard(X, np.zeros((8, 16), np.float32))
    assert not holds(guard, np.zeros((8, 16), np.float64))
    assert failure(guard, np.zeros((8, 16), np.float64)) == "x.dtype changed from float32 to float64"
    assert not holds(guard, np.zeros((8, 16), np.dtype(">f4")))  # byte order matters


def test_ndarray_subclass_is_its_own_type():
    class MyArray(np.ndarray):
        pass

    a = np.zeros(3)
    sub = a.view(MyArray)
    assert not holds(TensorGuard(X, a), sub)
    assert "type of x changed from ndarray to" in failure(TensorGuard(X, a), sub)
    assert holds(TensorGuard(X, sub), np.ones(3).view(MyArray))
    assert not holds(TensorGuard(X, sub), a)
    assert not holds(TensorGuard(X, a), [0.0, 0.0, 0.0])


def test_numpy_scalar_guard_checks_exact_type_and_dtype():
    guard = TensorGuard(X, np.float32(1.5))
    assert guard.describe() == "x: float32 scalar"
    assert holds(guard, np.float32(7))
    assert not holds(guard, np.float64(1.5))
    assert not holds(guard, 1.5)
    assert not holds(guard, np.array(1.5, np.float32))  # 0-d array is not a scalar
    # datetime64 scalars share a type but not a dtype
    assert not holds(TensorGuard(X, np.datetime64(1, "s")), np.datetime64(1, "D"))


def test_tensor_guard_rejects_non_numpy_values():
    with pytest.raises(TypeError):
        TensorGuard(X, [1.0])


# ---------------------------------------------------------------- values


def test_int_float_bool_are_different_values():
    assert holds(ValueGuard(X, 1), 1)
    assert not holds(ValueGuard(X, 1), 1.0)
    assert not holds(ValueGuard(X, 1), True)
    assert not holds(ValueGuard(X, 1.0), 1)
    assert not holds(ValueGuard(X, True), 1)
    assert not holds(ValueGuard(X, False), 0)
    assert not holds(ValueGuard(X, 0), False)
    assert not holds(ValueGuard(X, 1), np.int64(1))
    assert failure(ValueGuard(X, 1), 1.0) == "x changed from 1 to 1.0"
    assert failure(ValueGuard(X, 1), True) == "x changed from 1 to True"


def test_int_subclass_with_same_repr_is_explained_by_type():
    class MyInt(int):
        pass

    assert not holds(ValueGuard(X, 3), MyInt(3))
    assert failure(ValueGuard(X, 3), MyInt(3)).startswith("x changed from 3 to <")


def test_big_ints_compare_by_value():
    big = 10 ** 40
    gf = arg_guard(ValueGuard(X, big))
    assert gf({}, 10 ** 40) and not gf({}, 10 ** 40 + 1)
    assert c_decision(gf, {}, 10 ** 40) and not c_decision(gf, {}, 10 ** 40 + 1)


def test_nan_guard_passes_for_the_same_nan_only():
    guard = ValueGuard(X, float("nan"))
    assert holds(guard, float("nan"))
    assert not holds(guard, -float("nan"))  # another sign bit: a graph constant would differ
    assert not holds(guard, 1.0)
    assert not holds(guard, np.float64("nan"))  # a NumPy scalar is another type
    assert guard.describe() == "x is nan (a float NaN)"


def test_signed_zero_is_distinguished():
    assert holds(ValueGuard(X, 0.0), 0.0)
    assert not holds(ValueGuard(X, 0.0), -0.0)
    assert holds(ValueGuard(X, -0.0), -0.0)
    assert not holds(ValueGuard(X, -0.0), 0.0)
    assert failure(ValueGuard(X, 0.0), -0.0) == "x changed from 0.0 to -0.0"


def test_float_values_compare_exactly():
    assert holds(ValueGuard(X, 0.1), 0.1)
    assert not holds(ValueGuard(X, 0.1), 0.1 + 1e-17 * 2)
    assert holds(ValueGuard(X, math.inf), math.inf)
    assert not holds(ValueGuard(X, math.inf), -math.inf)


def test_complex_values_compare_part_by_part():
    assert holds(ValueGuard(X, 1 + 2j), 1 + 2j)
    assert not holds(ValueGuard(X, 1 + 2j), 1 + 3j)
    assert not holds(ValueGuard(X, complex(0.0, 1)), complex(-0.0, 1))
    assert holds(ValueGuard(X, complex(math.nan, 1)), complex(math.nan, 1))
    assert not holds(ValueGuard(X, 1 + 0j), 1.0)


def test_str_and_bytes_values():
    assert holds(ValueGuard(X, "train"), "train")
    assert not holds(ValueGuard(X, "train"), "eval")
    assert not holds(ValueGuard(X, "train"), b"train")
    assert not holds(ValueGuard(X, "train"), np.str_("train"))
    assert holds(ValueGuard(X, b"ab"), b"ab")
    assert not holds(ValueGuard(X, b"ab"), bytearray(b"ab"))
    assert ValueGuard(X, "train").describe() == "x == 'train'"
    assert failure(ValueGuard(X, "train"), "eval") == "x changed from 'train' to 'eval'"


def test_none_value():
    assert holds(ValueGuard(X, None), None)
    assert not holds(ValueGuard(X, None), 0)
    assert not holds(ValueGuard(X, None), False)
    assert ValueGuard(X, None).describe() == "x is None"


def test_tuple_values_compare_by_element_type_and_value():
    t = (1, 2.0, "a", None, (True, -0.0))
    guard = ValueGuard(X, t)
    assert holds(guard, (1, 2.0, "a", None, (True, -0.0)))
    assert not holds(guard, (1, 2, "a", None, (True, -0.0)))
    assert not holds(guard, (1, 2.0, "a", None, (1, -0.0)))
    assert not holds(guard, (1, 2.0, "a", None, (True, 0.0)))
    assert not holds(guard, (1, 2.0, "a", None))
    assert not holds(guard, [1, 2.0, "a", None, (True, -0.0)])
    assert holds(ValueGuard(X, ()), ())
    assert not holds(ValueGuard(X, ()), [])


def test_long_tuples_are_guarded_too():
    t = tuple(range(40)) + (float("nan"),)
    assert holds(ValueGuard(X, t), tuple(range(40)) + (float("nan"),))
    assert not holds(ValueGuard(X, t), tuple(range(40)) + (0.0,))


def test_value_guard_refuses_other_types():
    for bad in ([1], {1: 2}, np.float64(1.0), object(), (1, [2]), True.__class__.__mro__):
        with pytest.raises(TypeError):
            ValueGuard(X, bad)

    class MyStr(str):
        pass

    with pytest.raises(TypeError):
        ValueGuard(X, MyStr("a"))


# ---------------------------------------------------------------- types, identity


def test_type_guard_is_exact():
    class A:
        pass

    class B(A):
        pass

    assert holds(TypeGuard(X, A), A())
    assert not holds(TypeGuard(X, A), B())
    assert failure(TypeGuard(X, A), B()).startswith("type of x changed from ")


def test_identity_guard_for_functions_classes_modules_objects():
    def f():
        pass

    def f2():
        pass

    obj = object()
    for o, other in ((f, f2), (np, math), (int, float), (obj, object())):
        assert holds(IdGuard(X, o), o)
        assert not holds(IdGuard(X, o), other)
    assert IdGuard(X, np).describe() == "x is <module numpy>"
    assert "function" in IdGuard(X, f).describe()


def test_identity_failure_message():
    layers = [1, 2]
    guard = IdGuard(AttrTracker(SELF, "layers"), layers)
    m = types.SimpleNamespace(layers=[1, 2])
    assert failure(guard, m) == "self.layers is no longer the same object"


# ---------------------------------------------------------------- containers


def test_len_guard_checks_exact_type_and_length():
    guard = LenGuard(X, [1, 2, 3])
    assert guard.describe() == "len(x) == 3 (list)"
    assert holds(guard, [4, 5, 6])
    assert not holds(guard, [1, 2])
    assert not holds(guard, (1, 2, 3))
    assert failure(guard, [1, 2]) == "len(x) changed from 3 to 2"
    assert failure(guard, (1, 2, 3)) == "type of x changed from list to tuple"
    assert holds(LenGuard(X, 2, type=tuple), (0, 0))


def test_len_guard_refuses_user_len():
    class Seq:
        def __len__(self):
            return 1

    with pytest.raises(TypeError):
        LenGuard(X, Seq())
    with pytest.raises(TypeError):
        LenGuard(X, 1, type=Seq)


def test_dict_keys_guard_checks_keys_in_order():
    guard = DictKeysGuard(X, {"a": 1, "b": 2})
    assert guard.describe() == "x: dict keys ('a', 'b')"
    assert holds(guard, {"a": 0, "b": 0})
    assert not holds(guard, {"b": 0, "a": 0})
    assert not holds(guard, {"a": 0})
    assert not holds(guard, {"a": 0, "b": 0, "c": 0})
    assert failure(guard, {"a": 0, "c": 0}) == "keys of x changed from ('a', 'b') to ('a', 'c')"
    from collections import OrderedDict
    assert not holds(guard, OrderedDict(a=1, b=2))


def test_dict_keys_of_different_types_differ():
    assert not holds(DictKeysGuard(X, {1: 0}), {True: 0})
    assert not holds(DictKeysGuard(X, {1: 0}), {1.0: 0})
    assert holds(DictKeysGuard(X, ["k"], type=dict), {"k": 1})


# ---------------------------------------------------------------- paths


class Layer:
    def __init__(self, w):
        self.w = w


class Model:
    def __init__(self, n=4):
        self.layers = [Layer(np.zeros((2, 3), np.float32)) for _ in range(n)]


def nested_guards():
    layers = AttrTracker(SELF, "layers")
    item = ItemTracker(layers, 3)
    w = AttrTracker(item, "w")
    return w, [
        TypeGuard(SELF, Model),
        LenGuard(layers, [0] * 4),
        TypeGuard(item, Layer),
        TensorGuard(w, np.zeros((2, 3), np.float32)),
    ]


def test_nested_attribute_and_item_paths():
    w, guards = nested_guards()
    assert w.name() == "self.layers[3].w"
    gf = compile_guards(guards, 1, 0)
    m = Model()
    assert gf({}, m)
    m.layers[3].w = np.zeros((2, 4), np.float32)
    assert not gf({}, m)
    assert gf.first_failure({}, m) == "self.layers[3].w.shape changed from (2, 3) to (2, 4)"
    m.layers.pop()
    assert gf.first_failure({}, m) == "len(self.layers) changed from 4 to 3"
    assert not gf({}, "not a model")
    d = gf.describe()
    assert d[0].startswith("type(self) is ") and d[0].endswith("Model")
    assert d[1:] == [
        "len(self.layers) == 4 (list)",
        d[2],
        "self.layers[3].w: ndarray float32 (2, 3)",
    ] and d[2].startswith("type(self.layers[3]) is ")


def test_each_path_is_read_once_and_after_its_base_guard():
    reads = []

    class Cfg:
        @property
        def inner(self):
            reads.append(1)
            return types.SimpleNamespace(a=1, b=2.0)

    inner = AttrTracker(SELF, "inner")
    guards = [TypeGuard(SELF, Cfg), ValueGuard(AttrTracker(inner, "a"), 1),
              ValueGuard(AttrTracker(inner, "b"), 2.0)]
    gf = compile_guards(guards, 1, 0)
    assert gf({}, Cfg())
    assert reads == [1]
    assert [op[0] for op in gf.ops].count("attr") == 3  # .inner loaded once, then .a and .b
    reads.clear()
    assert c_decision(gf, {}, Cfg())
    assert reads == [1]

    class Other(Cfg):
        pass

    reads.clear()
    assert not gf({}, Other())
    assert reads == []  # the type check came first: the property never ran


def test_unguarded_reads_finds_bases_read_before_their_type_is_known():
    w, guards = nested_guards()
    assert unguarded_reads(guards) == []
    assert unguarded_reads(guards[1:]) == [SELF]
    assert unguarded_reads([guards[3]]) == [SELF, AttrTracker(SELF, "layers"), guards[2].tracker]
    assert unguarded_reads([IdGuard(BuiltinTracker("len"), len)]) == []


def test_guards_keep_the_given_order_and_drop_duplicates():
    g1 = ValueGuard(X, 1)
    gf = compile_guards([TypeGuard(X, int), g1, ValueGuard(X, 1), TypeGuard(X, int)], 1, 0)
    assert gf.guards == (TypeGuard(X, int), g1)
    assert gf.first_failure({}, "s") == "type of x changed from int to str"


# ---------------------------------------------------------------- globals, builtins, cells


def test_global_value_guard():
    guard = ValueGuard(GlobalTracker("scale"), 0.5)
    assert guard.describe() == "scale == 0.5"
    assert holds(guard, g={"scale": 0.5})
    assert not holds(guard, g={"scale": 0.25})
    assert failure(guard, g={"scale": 0.25}) == "global scale changed from 0.5 to 0.25"
    assert not holds(guard, g={})
    assert failure(guard, g={}) == "global scale could not be read (KeyError)"


def test_builtin_through_module_dict_or_absent_builtins():
    guard = IdGuard(BuiltinTracker("len"), len)
    assert BuiltinTracker("len").name() == "__builtins__.len"
    assert holds(guard, g={"__builtins__": builtins})
    assert holds(guard, g={"__builtins__": builtins.__dict__})
    assert holds(guard, g={})  # no __builtins__: the interpreter's
    fake = types.ModuleType("fakebuiltins")
    fake.len = lambda x: 0
    assert not holds(guard, g={"__builtins__": fake})
    assert not holds(guard, g={"__builtins__": {"len": fake.len}})
    assert not holds(guard, g={"__builtins__": {}})
    assert failure(guard, g={"__builtins__": {"len": fake.len}}) == \
        "__builtins__.len is no longer the same object"


def test_builtin_tracker_matches_what_python_resolves():
    for b in (builtins, builtins.__dict__, {"len": lambda x: 42}):
        g = {"__builtins__": b}
        exec("def f(): return len", g)
        assert BuiltinTracker("len").load(g, (), ()) is g["f"]()


def test_global_shadowing_a_builtin_is_seen():
    guard = GlobalAbsentGuard("len")
    assert holds(guard, g={"__builtins__": builtins})
    assert not holds(guard, g={"len": len})
    assert failure(guard, g={"len": len}) == "global len is now defined (it shadows the builtin)"
    assert guard.describe() == "global len is not defined"


def test_closure_cell_value():
    z = CellTracker(0, "scale")
    guard = ValueGuard(z, 2)
    assert holds(guard, cells=(cell_of(2),))
    assert not holds(guard, cells=(cell_of(3),))
    assert failure(guard, cells=(cell_of(3),)) == "free variable scale changed from 2 to 3"
    assert not holds(guard, cells=(empty_cell(),))


def test_arguments_and_cells_are_numbered_separately():
    guards = [ValueGuard(LocalTracker(1, "b"), "b"), ValueGuard(CellTracker(1, "d"), "d")]
    gf = compile_guards(guards, 2, 2)
    assert gf({}, "a", "b", cell_of("c"), cell_of("d"))
    assert not gf({}, "a", "b", cell_of("d"), cell_of("c"))
    with pytest.raises(IndexError):
        compile_guards(guards, 1, 2)


# ---------------------------------------------------------------- never raises


def test_guard_never_raises():
    class Obj:
        pass

    o = Obj()
    o.w = 1
    gf = compile_guards([TypeGuard(SELF, Obj), ValueGuard(AttrTracker(SELF, "w"), 1)], 1, 0)
    assert gf({}, o)
    del o.w
    assert gf({}, o) is False
    assert gf.first_failure({}, o) == "self.w could not be read (AttributeError)"

    class Boom:
        @property
        def w(self):
            raise RuntimeError("boom")

    assert compile_guards([ValueGuard(AttrTracker(SELF, "w"), 1)], 1, 0)({}, Boom()) is False
    assert gf({}) is False  # wrong arity
    assert gf.first_failure({}) == "guard expects 1 arguments and cells, got 0"
    assert compile_guards([ValueGuard(ItemTracker(X, "k"), 1)], 1, 0)({}, {}) is False
    assert compile_guards([ValueGuard(ItemTracker(X, 5), 1)], 1, 0)({}, [1]) is False


def test_no_guards_always_hold():
    gf = compile_guards([], 0, 0)
    assert gf({}) is True and gf.first_failure({}) is None and gf.describe() == []


# ---------------------------------------------------------------- hostile data

HOSTILE = [
    "'] or __import__('builtins').__dict__.setdefault('_sot_canary', 1) or g['",
    "\"\nimport os; os.system('touch %s')\n#",
    "x'); __import__('os').system('touch %s') #",
    "a\\'\"\"\"\r\n\x00\u2028 }{ %s",
]


def hostile_strings(tmp_path):
    canary = str(tmp_path / "canary")
    return [s % canary if "%s" in s else s for s in HOSTILE], canary


def assert_nothing_ran(canary):
    assert not os.path.exists(canary)
    assert not hasattr(builtins, "_sot_canary")


def test_hostile_dict_key_and_value_run_nothing(tmp_path):
    strings, canary = hostile_strings(tmp_path)
    for s in strings:
        d = {s: s}
        guards = [DictKeysGuard(X, d), ValueGuard(ItemTracker(X, s), s),
                  ValueGuard(GlobalTracker(s), s), ValueGuard(LocalTracker(1, s), (s, s))]
        gf = compile_guards(guards, 2, 0)
        assert gf({s: s}, {s: s}, (s, s))
        assert not gf({s: s + "!"}, {s: s}, (s, s))
        assert not gf({s: s}, {s + "!": s}, (s, s))
        assert gf.first_failure({s: s}, {s: s + "?"}, (s, s)).startswith("x[")
        loader = make_loader([ItemTracker(X, s), GlobalTracker(s)], 1, 0)
        assert s not in loader.source
        assert loader({s: 2}, {s: 1}) == (1, 2)
        assert_nothing_ran(canary)


def test_hostile_attribute_name_is_read_with_getattr(tmp_path):
    strings, canary = hostile_strings(tmp_path)
    for s in strings + ["class", "ﬁ", "x.y"]:
        obj = types.SimpleNamespace()
        setattr(obj, s, 7)
        t = AttrTracker(SELF, s)
        gf = compile_guards([ValueGuard(t, 7)], 1, 0)
        assert gf({}, obj)
        setattr(obj, s, 8)
        assert not gf({}, obj)
        assert_nothing_ran(canary)


def test_plain_attribute_names_use_dot_syntax():
    ctx = LoadContext(1, 0)
    assert AttrTracker(SELF, "w").expr(ctx) == "a0.w"
    assert AttrTracker(SELF, "__dict__").expr(ctx) == "a0.__dict__"
    assert "getattr" in AttrTracker(SELF, "if").expr(ctx)


# ---------------------------------------------------------------- trackers, loader


def test_trackers_compare_by_source():
    assert AttrTracker(SELF, "w") == AttrTracker(LocalTracker(0, "self"), "w")
    assert hash(AttrTracker(SELF, "w")) == hash(AttrTracker(LocalTracker(0, "self"), "w"))
    assert ItemTracker(X, 1) != ItemTracker(X, True)
    assert ItemTracker(X, 1) != ItemTracker(X, 1.0)
    assert ConstTracker(0.0) != ConstTracker(-0.0)
    assert GlobalTracker("a") != LocalTracker(0, "a")
    assert len({GlobalTracker("a"), GlobalTracker("a"), BuiltinTracker("a")}) == 2
    assert not ConstTracker(3).needs_guard() and X.needs_guard()


def test_tracker_names():
    assert GlobalTracker("scale").name() == "scale"
    assert CellTracker(0, "k").name() == "k"
    assert ItemTracker(GlobalTracker("cfg"), "lr").name() == "cfg['lr']"
    assert AttrTracker(X, "a b").name() == "getattr(x, 'a b')"


def test_loader_fetches_values_sharing_sub_paths():
    m = Model()
    layers = AttrTracker(SELF, "layers")
    ts = [AttrTracker(ItemTracker(layers, i), "w") for i in range(4)] + [
        GlobalTracker("scale"), CellTracker(0, "bias"), ConstTracker(np.float32(2)), SELF]
    load = make_loader(ts, 1, 1)
    vals = load({"scale": 0.5}, m, cell_of(3))
    assert all(v is m.layers[i].w for i, v in enumerate(vals[:4]))
    assert vals[4:6] == (0.5, 3) and vals[6] == np.float32(2) and vals[7] is m
    assert load.source.count(".layers") == 1
    assert make_loader([X], 1, 0)({}, 5) == (5,)
    assert make_loader([], 0, 0)({}) == ()
    with pytest.raises(KeyError):  # the loader runs after guards: errors propagate
        load({}, m, cell_of(3))


def test_guard_function_interface():
    gf = compile_guards([ValueGuard(X, 1)], 1, 0)
    assert isinstance(gf, GuardFunction)
    assert gf.ops == (("arg", 0, 0), ("value", 0, 1))
    assert gf.reference({}, 1) is True and gf.reference({}, 2) is False
    assert gf.hot is (gf.program if gf.program is not None else gf.reference)


# ---------------------------------------------------------------- randomized

OBJ1, OBJ2 = object(), object()
# a small pool of look-alikes (1, 1.0, True, 0.0, -0.0, NaN, ...) so that
# recorded and new values collide often, plus the general strategies
LOOKALIKES = [
    0, 1, True, False, 0.0, -0.0, 1.0, math.nan, -math.nan, math.inf, None, "a", "", b"a",
    1 + 0j, complex(-0.0, 0.0), complex(math.nan, 0.0), np.float64(1.0), np.float32(0.0),
]
_lookalikes = st.sampled_from(LOOKALIKES)
_scalars = st.one_of(
    _lookalikes, _lookalikes, _lookalikes,
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(allow_nan=True), st.text(max_size=4), st.binary(max_size=3),
)
_values = st.recursive(_scalars, lambda c: st.lists(c, max_size=3).map(tuple), max_leaves=6)
_arrays = st.builds(
    lambda dt, shape: np.zeros(shape, dt),
    st.sampled_from([np.float32, np.float64, np.int64, np.bool_]),
    st.sampled_from([(), (2,), (2, 3), (3, 2)]),
)
_np_scalars = st.builds(lambda dt, v: dt(v), st.sampled_from([np.float32, np.float64, np.int32]),
                        st.integers(-2, 2))
_anything = st.one_of(
    _lookalikes, _values, _arrays, _np_scalars, st.sampled_from([len, np, int, OBJ1, OBJ2]),
    st.lists(_scalars, max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", 1, True, 2.0, -0.0, None]), st.integers(), max_size=3),
)


def guards_for(tracker, value):
    """What a simulator would guard for an observed value."""
    if isinstance(value, (np.ndarray, np.generic)):
        return [TensorGuard(tracker, value)]
    if type(value) is list:  # length, then each item through an item path
        out = [LenGuard(tracker, value)]
        for i, item in enumerate(value):
            out += guards_for(ItemTracker(tracker, i), item)
        return out
    if type(value) is dict:
        return [DictKeysGuard(tracker, value)]
    try:
        return [ValueGuard(tracker, value)]
    except TypeError:
        return [IdGuard(tracker, value)]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_compiled_guard_agrees_with_guards_checked_one_by_one(data):
    recorded = data.draw(st.lists(_anything, min_size=1, max_size=3), label="recorded")
    rec_global = data.draw(_anything, label="global")
    rec_cell = data.draw(_anything, label="cell")
    trackers = [LocalTracker(i, "x%d" % i) for i in range(len(recorded))]
    guards = []
    for t, v in zip(trackers, recorded):
        guards += guards_for(t, v)
    guards += guards_for(GlobalTracker("gv"), rec_global)
    guards += guards_for(CellTracker(0, "cv"), rec_cell)
    gf = compile_guards(guards, len(recorded), 1)
    assert gf({"gv": rec_global}, *recorded, cell_of(rec_cell)) is True

    def same_or_new(v, label):
        return data.draw(st.one_of(st.just(v), _lookalikes, _anything), label=label)

    new = [same_or_new(v, "new%d" % i) for i, v in enumerate(recorded)]
    g = {"gv": same_or_new(rec_global, "new global")} if data.draw(st.booleans()) else {}
    cells = (cell_of(same_or_new(rec_cell, "new cell")),)
    compiled = gf(g, *new, *cells)
    one_by_one = all(gd.evaluate(g, tuple(new), cells) for gd in gf.guards)
    assert compiled is one_by_one
    assert c_decision(gf, g, *new, *cells) is compiled
    assert (gf.first_failure(g, *new, *cells) is None) == compiled


EXTRA = [(0, 0.0), (1, (1,)), ((1, 2.0), (1, 2)), ((-0.0,), (0.0,)), (np.zeros(2), np.zeros(3)),
         ([1, 2], [1, 2.0]), ({1: 0}, {True: 0}), (OBJ1, OBJ2)]


def _exact_repr(v):
    """repr, with the bits of each float (repr shows every NaN as nan)."""
    if type(v) is float:
        return struct.pack("<d", v)
    if type(v) is complex:
        return struct.pack("<dd", v.real, v.imag)
    if type(v) is tuple:
        return tuple(_exact_repr(x) for x in v)
    return repr(v)


def test_every_lookalike_pair_compiled_equals_one_by_one():
    values = list(LOOKALIKES) + [v for pair in EXTRA for v in pair]
    for rec in values:
        gf = compile_guards(guards_for(X, rec), 1, 0)
        for new in values:
            compiled = gf({}, new)
            assert compiled is all(gd.evaluate({}, (new,), ()) for gd in gf.guards), (rec, new)
            assert c_decision(gf, {}, new) is compiled, (rec, new)
            same = rec is new or (type(rec) is type(new) and _exact_repr(rec) == _exact_repr(new))
            if not isinstance(rec, (np.ndarray, np.generic, list, dict)):
                assert compiled is same, (rec, new)


def test_guards_package_imports_no_bytecode_onnx_or_executor():
    import ast
    import pathlib

    import sot.guards.compile as mod
    forbidden = ("bytecode", "onnx", "onnxruntime", "sot.executor")
    for name in ("tracker.py", "guard.py", "compile.py"):
        tree = ast.parse((pathlib.Path(mod.__file__).parent / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
                if node.level:
                    assert not (node.module or "").startswith("executor"), name
            else:
                continue
            for n in names:
                assert not n.startswith(forbidden), (name, n)
