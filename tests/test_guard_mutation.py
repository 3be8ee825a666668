"""Guard-mutation harness: change what each guard of a recorded trace
protects, between calls, and check the decorated function still does what
the undecorated one does.

For each program of the corpus: decorate it, call it once while recording
its entry's guards, then for every guard derive the mutations of the thing
it protects (``MUTATORS``, one per guard kind: rebind a global or an
attribute, replace a function's code or defaults, shadow a builtin, patch
a class or a module, swap an object for another of its type, change a
dtype's byte order ...). Each mutation is applied to the state that eager
and decorated calls share, both are called and compared (results, or the
exception), and the mutation is undone.

The harness checks itself too: every guard kind the corpus records has a
mutator, and every program has a mutation that changes what eager returns
(a harness that cannot see a change proves nothing).
"""
from __future__ import annotations

import copy
import enum
import types

import numpy as np
import pytest

import sot
from sot import translate
from sot.guards import guard as G
from sot.guards import invariants as I
from sot.guards import tracker as T
from difftest import assert_same

# -- the corpus ----------------------------------------------------------------

CORPUS = {
    "globals_builtins_defaults": """
SCALE = 2.0
OFFSET = 1
def helper(x, k=1.5, *, b=0.5):
    return x * k + b
def prog(x):
    return helper(x) * SCALE + len([1, 2]) + OFFSET
""",
    "user_class": """
class Model:
    bias = 0.5
    def __init__(self):
        self.w = np.linspace(-1.0, 1.0, 3)
        self.gain = 2.0
    def act(self, y):
        return np.maximum(y, 0.0)
MODEL = Model()
def prog(x):
    m = MODEL
    return m.act(x * m.w * m.gain + m.bias)
""",
    "enum_member": """
import enum
class Act(enum.Enum):
    RELU = 1
    TANH = 2
ACT = Act.RELU
def prog(x):
    return np.maximum(x, 0.0) if ACT is Act.RELU else np.tanh(x)
""",
    "sentinel": """
class Token:
    pass
SENTINEL = Token()
OPT = SENTINEL
def prog(x):
    return x + 1.0 if OPT is SENTINEL else x - 1.0
""",
    "numpy_alias_and_module": """
from numpy import tanh
import numpy
def prog(x):
    return tanh(x) + numpy.exp(x)
""",
    "closure_and_dict": """
def make():
    scale = 3.0
    cfg = {"mode": "relu", "eps": 0.25}
    def prog(x):
        y = x * scale + cfg["eps"]
        if cfg["mode"] == "relu":
            return np.maximum(y, 0.0)
        return y
    return prog
prog = make()
""",
    "truth_of_object": """
class Flag:
    pass
FLAG = Flag()
def prog(x):
    if FLAG:
        return x + 1.0
    return x - 1.0
""",
    "dtype_and_weight": """
DT = np.dtype("<f8")
W = np.arange(3.0)
def prog(x):
    return (x + W).astype(DT)
""",
}


def _load(name: str) -> types.ModuleType:
    m = types.ModuleType("mutation_" + name)
    m.np = np
    exec(compile(CORPUS[name], "<guard mutation %s>" % name, "exec"), m.__dict__)
    return m


X = np.array([-1.5, 0.25, 2.0])

# -- reading and writing what a tracker reaches -----------------------------------


class Env:
    """The state a call of `fn` sees: its globals, arguments and cells."""

    def __init__(self, fn, args):
        self.fn, self.g, self.args = fn, fn.__globals__, list(args)
        self.cells = fn.__closure__ or ()

    def load(self, t):
        return t.load(self.g, tuple(self.args), self.cells)

    def setter(self, t):
        """set(value) for the place `t` reads, or None if it cannot be set."""
        if isinstance(t, T.LocalTracker):
            return lambda v: self.args.__setitem__(t.index, v)
        if isinstance(t, T.GlobalTracker):
            return lambda v: self.g.__setitem__(t.global_name, v)
        if isinstance(t, T.CellTracker):
            return lambda v: setattr(self.cells[t.index], "cell_contents", v)
        if isinstance(t, T.AttrTracker):
            base = self.load(t.base)
            return lambda v: setattr(base, t.attr, v)
        if isinstance(t, T.ItemTracker):
            base = self.load(t.base)
            if isinstance(base, (dict, list)):
                return lambda v: base.__setitem__(t.key, v)
        return None


def bump(v):
    """A value like `v` that computes differently, or None."""
    t = type(v)
    if t is bool:
        return not v
    if t in (int, float):
        return v + 1
    if t is str:
        return v + "_"
    if isinstance(v, np.ndarray):
        return v + 1
    if isinstance(v, types.FunctionType):
        return _bumped_function(v)
    if isinstance(v, enum.Enum):
        others = [m for m in type(v) if m is not v]
        return others[0] if others else None
    if isinstance(v, np.ufunc) or callable(v):
        def wrapped(*a, **k):
            return v(*a, **k) + 1
        return wrapped
    return None


def _bumped_code(code: types.CodeType) -> types.CodeType | None:
    """`code` with its numeric constants changed (an edit autoreload loads)."""
    consts = tuple(c + 1 if type(c) in (int, float) else c for c in code.co_consts)
    return code.replace(co_consts=consts) if consts != code.co_consts else None


def _bumped_function(fn):
    code = _bumped_code(fn.__code__) or fn.__code__
    return types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


# -- one mutator per guard kind ---------------------------------------------------------
# Each yields (label, apply, undo).


def _rebind(env, t, new, label):
    set_ = env.setter(t)
    if set_ is None or new is None:
        return
    old = env.load(t)
    yield label, lambda: set_(new), lambda: set_(old)


def m_value(env, gd):
    v = gd.value
    if type(v) is float:
        yield from _rebind(env, gd.tracker, -v if v == 0 else v + 1.0, "float %r changed" % v)
    elif type(v) is tuple:
        return
    else:
        yield from _rebind(env, gd.tracker, bump(v), "value %r changed" % (v,))


def m_tensor(env, gd):
    old = env.load(gd.tracker)
    if not isinstance(old, np.ndarray):
        return
    yield from _rebind(env, gd.tracker, old.astype(np.float32), "dtype changed")
    yield from _rebind(env, gd.tracker, old.astype(old.dtype.newbyteorder()), "byte order swapped")
    yield from _rebind(env, gd.tracker, np.concatenate([old, old]), "shape changed")
    yield "data changed in place", lambda: old.__iadd__(1), lambda: old.__isub__(1)


def m_id(env, gd):
    obj = gd.obj
    t = gd.tracker
    if isinstance(t, T.AttrTracker) and t.attr == "__code__":
        fn = env.load(t.base)
        new = _bumped_code(obj)
        if new is not None:
            yield ("__code__ replaced", lambda: setattr(fn, "__code__", new),
                   lambda: setattr(fn, "__code__", obj))
        return
    if isinstance(obj, (type, types.ModuleType)):
        return
    yield from _rebind(env, t, bump(obj), "%s replaced" % t.name())


def m_len(env, gd):
    old = env.load(gd.tracker)
    if type(old) is tuple:
        yield from _rebind(env, gd.tracker, tuple(bump(v) if bump(v) is not None else v for v in old),
                           "items of %s changed" % gd.tracker.name())
        yield from _rebind(env, gd.tracker, old + (7.0,), "%s grew" % gd.tracker.name())


def m_dictkeys(env, gd):
    d = env.load(gd.tracker)
    if isinstance(gd.tracker, T.AttrTracker) and gd.tracker.attr == "__dict__":
        obj = env.load(gd.tracker.base)
        for name, v in vars(type(obj)).items():  # an instance attribute shadows a class one
            if not name.startswith("__") and bump(v) is not None and name not in d:
                yield (f"instance attribute {name} shadows the class's",
                       lambda n=name, b=bump(v): d.__setitem__(n, b), lambda n=name: d.pop(n))
        return
    new = {k: (bump(v) if bump(v) is not None else v) for k, v in d.items()}
    yield from _rebind(env, gd.tracker, new, "values of %s changed" % gd.tracker.name())


def _shadow(mapping, name):
    builtin = getattr(__builtins__, name, None) if not isinstance(__builtins__, dict) \
        else __builtins__.get(name)
    new = bump(builtin)
    if new is not None:
        yield ("builtin %s shadowed" % name, lambda: mapping.__setitem__(name, new),
               lambda: mapping.pop(name))


def m_absent(env, gd):
    yield from _shadow(env.g, gd.global_name)


def m_key_absent(env, gd):
    yield from _shadow(env.load(gd.tracker), gd.key)


def m_class(env, gd):
    yield from _class_mutations(gd.cls)


def _class_mutations(cls):
    for name, v in list(vars(cls).items()):
        if name.startswith("__") or isinstance(v, (staticmethod, classmethod, property)):
            continue
        new = bump(v)
        if new is not None:
            yield ("%s.%s replaced" % (cls.__name__, name), lambda n=name, b=new: setattr(cls, n, b),
                   lambda n=name, o=v: setattr(cls, n, o))
        code = _bumped_code(v.__code__) if isinstance(v, types.FunctionType) else None
        if code is not None:
            yield ("%s.%s.__code__ replaced" % (cls.__name__, name),
                   lambda f=v, c=code: setattr(f, "__code__", c),
                   lambda f=v, c=v.__code__: setattr(f, "__code__", c))
    if not issubclass(cls, enum.Enum):
        for name, fn in (("__bool__", lambda self: False), ("__len__", lambda self: 0)):
            if name not in vars(cls):
                yield ("%s gained %s" % (cls.__name__, name), lambda n=name, f=fn: setattr(cls, n, f),
                       lambda n=name: delattr(cls, n))


def m_same(env, gd):
    a, b = env.load(gd.tracker), env.load(gd.other)
    if gd.same:
        try:
            fresh = copy.copy(a)
        except Exception:
            return
        if fresh is not a:
            yield from _rebind(env, gd.tracker, fresh, "%s replaced by a copy" % gd.tracker.name())
    else:
        yield from _rebind(env, gd.tracker, b, "%s made %s" % (gd.tracker.name(), gd.other.name()))


def m_plain_keys(env, gd):
    d = env.load(gd.tracker)
    if type(d) is dict:
        key = (1.5, "user-typed key")
        yield "a key of another type added to %s" % gd.tracker.name(), \
            lambda: d.__setitem__(key, 0), lambda: d.pop(key)


def m_type(env, gd):
    obj = env.load(gd.tracker)
    cls = gd.type
    if getattr(cls, "__module__", "").startswith("mutation_") and not issubclass(cls, enum.Enum):
        sub = type(cls.__name__ + "Sub", (cls,), {"__bool__": lambda self: False})
        yield "__class__ of %s changed" % gd.tracker.name(), lambda: setattr(obj, "__class__", sub), \
            lambda: setattr(obj, "__class__", cls)


MUTATORS = {
    G.ValueGuard: m_value,
    G.TensorGuard: m_tensor,
    G.IdGuard: m_id,
    G.LenGuard: m_len,
    G.DictKeysGuard: m_dictkeys,
    G.GlobalAbsentGuard: m_absent,
    I.KeyAbsentGuard: m_key_absent,
    I.ClassUnchangedGuard: m_class,
    I.SameGuard: m_same,
    I.PlainKeysGuard: m_plain_keys,
    G.TypeGuard: m_type,
    G.DimEqualGuard: None,  # symbolic dims: test_dynamic_shapes changes sizes
}

# -- mutations of what the program reads (whether or not a guard names it) ---------------


def _codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


def program_mutations(m, fn, env):
    """Mutations of everything `fn`'s module holds and its code names: a
    missing guard is a mutation no guard-derived mutator would think of."""
    names = {n for f in [fn] + [v for v in vars(m).values() if isinstance(v, types.FunctionType)]
             for c in _codes(f.__code__) for n in c.co_names}
    for name, v in list(vars(m).items()):
        if name.startswith("__") or isinstance(v, types.ModuleType):
            continue
        gt = T.GlobalTracker(name)
        if isinstance(v, types.FunctionType) and v.__module__ == m.__name__:
            code = _bumped_code(v.__code__)
            if code is not None and v is not fn:
                yield ("%s.__code__ replaced" % name, lambda f=v, c=code: setattr(f, "__code__", c),
                       lambda f=v, c=v.__code__: setattr(f, "__code__", c))
            for attr in ("__defaults__", "__kwdefaults__"):
                old = getattr(v, attr)
                if old:
                    new = (tuple(bump(x) for x in old) if attr == "__defaults__"
                           else {k: bump(x) for k, x in old.items()})
                    yield ("%s.%s changed" % (name, attr), lambda f=v, a=attr, n=new: setattr(f, a, n),
                           lambda f=v, a=attr, o=old: setattr(f, a, o))
        elif isinstance(v, type) and v.__module__ == m.__name__:
            yield from _class_mutations(v)
        elif type(v).__module__ == m.__name__ and not isinstance(v, enum.Enum):
            yield from m_type(env, G.TypeGuard(gt, type(v)))
            yield from _rebind(env, gt, copy.copy(v), "%s replaced by a copy" % name)
        elif isinstance(v, np.dtype):
            yield from _rebind(env, gt, v.newbyteorder(), "%s byte order swapped" % name)
        else:
            yield from _rebind(env, gt, bump(v), "global %s changed" % name)
    for name in sorted(names):
        if name not in vars(m) and hasattr(__builtins__ if not isinstance(__builtins__, dict)
                                           else types.SimpleNamespace(**__builtins__), name):
            yield from _shadow(env.g, name)
        elif callable(getattr(np, name, None)):  # numpy.<name>, or an alias `from numpy import`
            old = getattr(np, name)
            new = bump(old)
            yield ("numpy.%s patched" % name, lambda n=name, b=new: setattr(np, n, b),
                   lambda n=name, o=old: setattr(np, n, o))
    for i, cell in enumerate(fn.__closure__ or ()):
        yield from _rebind(env, T.CellTracker(i, fn.__code__.co_freevars[i]), bump(cell.cell_contents),
                           "free variable %s changed" % fn.__code__.co_freevars[i])


# -- the harness --------------------------------------------------------------------------


def record_guards(static, fn, args, *, resumes=False) -> list:
    """The guards of `fn`'s entry (and with `resumes`, of the resume
    functions split from it) made by one call."""
    infos: list = []
    translate._recorders.append(infos)
    try:
        static(*args)
    finally:
        translate._recorders.remove(infos)
    top = [i for i in infos if i.code_name == fn.__code__.co_name and i.guard is not None]
    assert top, "no entry recorded for %s" % fn.__name__
    if resumes:
        return [gd for i in infos if i.guard is not None for gd in i.guard.guards]
    return list(top[0].guard.guards)


def outcome(fn, args):
    try:
        return ("ok", fn(*args))
    except Exception as e:  # compared, not swallowed
        return ("raised", "%s: %s" % (type(e).__name__, e))


def same_outcome(eager, traced, label):
    assert eager[0] == traced[0], "%s: eager %r, decorated %r" % (label, eager, traced)
    if eager[0] == "ok":
        assert_same(eager[1], traced[1], "%s: result" % label)
    else:
        assert eager[1] == traced[1], label


def _changed(a, b) -> bool:
    try:
        assert_same(a[1], b[1]) if a[0] == b[0] == "ok" else None
        return a != b if a[0] != "ok" or b[0] != "ok" else False
    except AssertionError:
        return True


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_guarded_thing_changed_between_calls_is_seen(name):
    m = _load(name)
    fn = m.prog
    env = Env(fn, [X.copy()])
    static = sot.to_static(fn)
    guards = record_guards(static, fn, env.args)
    baseline = outcome(fn, env.args)
    effective = []
    mutations = []
    for gd in guards:
        assert type(gd) in MUTATORS, "no mutator for guard kind %s" % type(gd).__name__
        mutate = MUTATORS[type(gd)]
        if mutate is not None:
            mutations += list(mutate(env, gd))
    mutations += list(program_mutations(m, fn, env))
    for label, apply, undo in mutations:
        # a fresh entry traced on the unchanged state for each mutation (not
        # one cache that fills up and then runs everything natively)
        sot.reset()
        static = sot.to_static(fn)
        static(*env.args)
        try:
            apply()
        except (AttributeError, TypeError):  # a read-only place (an Enum member, a slot)
            continue
        try:
            for _ in range(2):  # the second call runs the entry the first one made
                eager = outcome(fn, env.args)
                traced = outcome(static, env.args)
                same_outcome(eager, traced, label)
            if _changed(baseline, eager):
                effective.append(label)
        finally:
            undo()
        same_outcome(outcome(fn, env.args), outcome(static, env.args), "after undoing " + label)
    assert effective, "no mutation of %s changed its result: the harness saw nothing" % name


def test_the_corpus_meets_the_guard_kinds_that_matter():
    kinds = set()
    for name in CORPUS:
        m = _load(name)
        kinds |= {type(gd) for gd in record_guards(sot.to_static(m.prog), m.prog, [X.copy()], resumes=True)}
        sot.reset()
    for kind in (G.ValueGuard, G.TensorGuard, G.IdGuard, G.LenGuard, G.DictKeysGuard,
                 G.GlobalAbsentGuard, I.ClassUnchangedGuard, I.SameGuard, G.TypeGuard):
        assert kind in kinds, kind.__name__
