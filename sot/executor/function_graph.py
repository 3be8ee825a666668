"""One region under construction: its StatementIR, its inputs, the guards the
trace depends on, and turning real values into Variables.

Every value that enters the simulation from outside the frame goes through
`FunctionGraph.wrap(value, tracker)`, which decides its Variable kind and
records the guard that makes the trace valid for it. Guards are recorded in
the order values are first reached, so a base object is always guarded
before anything read through it.
"""
from __future__ import annotations

import math
import types
import weakref

import numpy as np

from .. import _skip
from ..guards.tracker import AttrTracker
from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.guard import DictKeysGuard, IdGuard, LenGuard, TypeGuard, ValueGuard
from ..ir import StatementIR, UnsupportedOp
from . import freeze, local_classes, small_loops
from .exceptions import handler_covers
from .side_effects import SideEffects
from .variables import (
    BuiltinVariable, ClassVariable, ConstVariable, DynamicScalarVariable, ListVariable, OpaqueVariable,
    SymScalarVariable, SymSliceVariable, TensorVariable, TupleVariable, UserFunctionVariable, Variable,
)

# Modules whose attributes the simulator may read (everything else is opaque).
KNOWN_MODULES = (np, math)
# Values guarded by value (the rest of the constants by identity).
VALUE_GUARDED = (int, float, bool, complex, str, bytes, type(None))


_HEAPTYPE = 1 << 9


def is_user_class(cls: type, getattr_hook: bool = False) -> bool:
    """A class written in Python whose attribute reads run no hidden code
    (`getattr_hook`: but its __getattr__, which the caller inlines)."""
    if not isinstance(cls, type) or cls.__module__ == "builtins" or _skip.is_numpy_object(cls):
        return False  # NumPy's classes by their module object: numpy_ml's are user classes
    if not all(base.__flags__ & _HEAPTYPE for base in cls.__mro__[:-1]):
        return False  # C types (or Python classes deriving from them) hide state
    if getattr(cls, "__getattribute__", None) is not object.__getattribute__:
        return False
    if getattr(cls, "__getattr__", None) is not None and not getattr_hook:
        return False
    return all(not issubclass(cls, t) for t in (np.ndarray, np.generic, types.ModuleType))


#: iterator types whose objects the trace only ever passes along or breaks on
BUILTIN_ITERATORS = frozenset(type(it) for it in (
    iter(range(0)), iter(range(1 << 64)), iter([]), iter(()), iter(""), iter(b""), iter({}),
    iter({}.values()), iter({}.items()), reversed([]), enumerate(()), zip(), map(len, ())))


GENERATORS = frozenset((types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType))


class FunctionGraph:
    pass_strs = False   # a str the trace only passes on was wrapped (str_data.py)
    str_trial = False   # str_data.specialise_at is trying an instruction with strs as constants
    list_lengths = None  # list_lengths.ListLengths of a generated code that may run natively, or None
    runtime_lists = False  # a list was read at a run-time key (dict_runtime_reads._list_at)

    def __init__(self, name: str = "graph", shapes=None, freeze: bool = False):
        self.ir = StatementIR(name)
        self.shapes = shapes  # a ShapePolicy (symbolic dims), or None: every dim static
        self.freeze = freeze  # to_static(freeze=True): see executor/freeze.py
        self.numbers = None   # a ScalarPolicy (numbers as inputs), or None: every number a constant
        self.not_frozen: list[tuple[str, str]] = []  # (input, why) under freeze
        self.inputs: list[tuple[object, TensorVariable]] = []  # (tracker, variable)
        self.guards: list = []
        self._guard_keys: set = set()
        self._memo: dict = {}
        self._views = None  # freeze.ViewScan, made when a first array may be frozen
        self.frames: list = []  # the executors simulating now, outermost first (statement locations)
        self.trace_values: dict = {}  # input name -> its value at trace time (executor/writes.py)
        self.fp_strict = False  # an np.errstate block was entered: every error raises (executor/contexts.py)
        self.effects = SideEffects()  # stores into outside objects, replayed by the runner
        self.handled: set = set()  # id() of statements recorded where a handler of the trace's frames covers them
        self.generators: list = []  # GeneratorVariables made by the trace (generators.check_left_open)
        self.tiny_ops = 0  # operations on tiny values (small_loops.py)
        self.tiny_limit = None  # how many may be recorded (None: no limit; a translation sets it)

    # -- guards --------------------------------------------------------------
    def add_guard(self, guard) -> None:
        if guard.tracker is None or (type(guard.tracker).__name__ == "ConstTracker" and not guard.on_const):
            return
        if self.runtime_lists:
            from .dict_runtime_reads import needs_key
            needs_key(guard)
        key = (type(guard).__name__, guard)
        if key not in self._guard_keys:
            self._guard_keys.add(key)
            self.guards.append(guard)

    # -- values from outside the frame --------------------------------------
    def wrap(self, value, tracker) -> Variable:
        """The Variable for a value reached through `tracker`, guarded."""
        if tracker is not None and not _is_const_tracker(tracker):
            cached = self._memo.get(tracker)
            if cached is not None:
                return cached
        var = self._make(value, tracker)
        if tracker is not None and not _is_const_tracker(tracker):
            self._memo[tracker] = var
        return var

    def wrap_dynamic(self, value, tracker) -> Variable:
        """Like wrap, but a Python int/float is guarded by type only, and so
        is a builtin iterator: a resume function gets a fresh one on every
        call (an identity guard would never hold again), and it is opaque to
        the trace either way. The number is a Python-number graph input
        (arithmetic on it stays in the graph, a branch on it is an outcome
        guard: number_branches.py) unless the trace needed its value there
        before; then a DynamicScalarVariable, whose every use breaks."""
        if type(value) in (int, float) and self.numbers is not None and self.numbers.enabled \
                and not self.numbers.needs_value(tracker):
            var = self._memo[tracker] = self._number_input(value, tracker)
            return var
        if type(value) in (int, float):
            self.add_guard(TypeGuard(tracker, type(value)))
            var = self._memo[tracker] = DynamicScalarVariable(value, tracker)
            return var
        if type(value) in BUILTIN_ITERATORS:
            self.add_guard(TypeGuard(tracker, type(value)))
            var = self._memo[tracker] = OpaqueVariable(value, tracker)
            return var
        return self.wrap(value, tracker)

    def _make(self, value, tracker) -> Variable:
        return _factory.make(self, value, tracker)  # variables/factory.py: one builder per kind

    def mutable(self, var, value) -> Variable:
        """A list or dict from outside: its mutations are recorded (side_effects.py)."""
        var.effects = weakref.ref(self.effects)
        self.effects.reach(var, value)
        return var

    def _number_input(self, value, tracker, guard: bool = True) -> Variable:
        """A Python int/float whose value changes between calls: a graph input
        guarded by type only (executor/scalar_policy.py); `guard=False` where
        the tracker's type is certain (``len()``)."""
        from .scalar_policy import scalar_source
        if guard:
            self.add_guard(TypeGuard(tracker, type(value)))
        symbol = self.ir.add_number_input(value, scalar_source(tracker), hint=tracker.name())
        var = SymScalarVariable(symbol, self.ir.deps(symbol))
        var.graph = weakref.ref(self)
        self.inputs.append((tracker, var))
        return var

    def guard_inlined(self, fn: types.FunctionType, tracker) -> None:
        """A function the trace may inline is pinned by identity; what it
        runs can still change under it: its code (autoreload assigns
        ``__code__``) and its defaults (read through trackers, by index or
        name, so their count and names must stay)."""
        if tracker is None:
            return
        self.add_guard(IdGuard(AttrTracker(tracker, "__code__"), fn.__code__))
        for attr, kind in (("__defaults__", LenGuard), ("__kwdefaults__", DictKeysGuard)):
            now = getattr(fn, attr)
            self.add_guard(ValueGuard(AttrTracker(tracker, attr), None) if now is None
                           else kind(AttrTracker(tracker, attr), now))

    def _list_items(self, value: list, tracker) -> list[Variable]:
        """The items of a list from outside the frame, guarded: the trace read them.
        The simulation runs no user code, so `value` is as it was when wrapped."""
        if self.list_lengths is not None:
            self.list_lengths.note(tracker, value)
        self.add_guard(LenGuard(tracker, value))
        return [self.wrap(v, _item(tracker, i)) for i, v in enumerate(value)]

    def _dict_entries(self, value: dict, tracker) -> dict:
        """The entries of a dict from outside the frame, guarded: the trace read all of it."""
        self.add_guard(DictKeysGuard(tracker, value))
        return {k: self.wrap(v, _item(tracker, k)) for k, v in value.items()}

    # -- graph ops ------------------------------------------------------------
    def call_op(self, op, args, kwargs=None, *, inplace: bool = False) -> Variable:
        """Record `op(*args, **kwargs)`; arguments are Variables or nested lists/tuples.

        `inplace`: the op updates its first argument (the caller rebinds it),
        so no new view of the arguments is created."""
        if op.reads_sequence:
            args = [_deque_as_list(a) for a in args]
        ir_args = tuple(to_ir_arg(a) for a in args)
        ir_kwargs = {k: to_ir_arg(v) for k, v in (kwargs or {}).items()}
        first = len(self.ir)
        try:
            out = self.ir.add_op(op, ir_args, ir_kwargs)
        except UnsupportedOp as e:
            raise FallbackError(UNSUPPORTED_OBJECT, f"{op.name}: {e}") from None
        self.locate(first)
        small_loops.count(self, op, ir_args, out)
        fresh = not op.aliases
        if not fresh and not inplace:  # the result may be a view: in-place updates of the inputs now fall back
            for a in list(args) + list((kwargs or {}).values()):
                for t in _tensors(a):
                    t.has_views = True
        if isinstance(out, tuple):
            return ListVariable([TensorVariable(s, fresh=False) for s in out])
        if out.meta.is_python:
            var = SymScalarVariable(out, self.ir.deps(out))
            var.graph = weakref.ref(self)
            return var
        return TensorVariable(out, fresh=fresh)

    def locate(self, first: int) -> None:
        """Give the statements recorded from index ``first`` on the user's
        lines now simulated (an error when the graph runs is raised there)."""
        if self.frames:
            where = tuple(ex.location() for ex in reversed(self.frames))
            handled = any(handler_covers(ex) for ex in self.frames)
            for st in self.ir._statements[first:]:
                st.where = where
                if handled:
                    self.handled.add(id(st))

    def dim(self, var: TensorVariable, axis: int) -> Variable:
        """``var.shape[axis]``: a constant, or a graph value for a symbolic dim."""
        size = self.ir.add_dim(var.symbol, axis)
        if isinstance(size, int):
            return ConstVariable(size)
        var = SymScalarVariable(size, self.ir.deps(size))
        var.graph = weakref.ref(self)
        return var


def _deque_as_list(v):
    """A deque as the list NumPy reads it as (for an op that reads_sequence)."""
    from .collections_deque import DequeVariable   # (it imports the variables this module does)
    return ListVariable(list(v.deque)) if isinstance(v, DequeVariable) else v


def _tensors(v):
    if isinstance(v, TensorVariable):
        yield v
    elif isinstance(v, (TupleVariable, ListVariable)):
        for item in v.items:
            yield from _tensors(item)
    elif isinstance(v, (tuple, list)):
        for item in v:
            yield from _tensors(item)


def to_ir_arg(v):
    """A Variable (or nested structure of them) as an IR argument."""
    if isinstance(v, (TensorVariable, SymScalarVariable)):
        return v.symbol
    if isinstance(v, SymSliceVariable):
        return v.value
    if isinstance(v, ConstVariable):
        return v.value
    if isinstance(v, (BuiltinVariable, ClassVariable)) and v.value in (bool, int, float, complex):
        return v.value  # a Python type as a dtype argument
    if isinstance(v, TupleVariable):
        return tuple(to_ir_arg(i) for i in v.items)
    if isinstance(v, ListVariable):
        return [to_ir_arg(i) for i in v.items]
    if isinstance(v, (tuple, list)):
        return type(v)(to_ir_arg(i) for i in v)
    if isinstance(v, (int, float, bool, type(None), str, slice)):
        return v
    raise FallbackError(UNSUPPORTED_OBJECT, f"{v.describe()} cannot be an argument of a graph op")


def function_variable(fn: types.FunctionType, tracker) -> UserFunctionVariable:
    from ..guards.tracker import AttrTracker, ItemTracker
    from .variables import CellVariable

    closure = ()
    if fn.__closure__:
        base = AttrTracker(tracker, "__closure__") if tracker is not None else None
        closure = tuple(
            CellVariable(tracker=AttrTracker(ItemTracker(base, i), "cell_contents") if base else None,
                         preexisting=True, contents=None)
            for i in range(len(fn.__closure__))
        )
        for cell_var, real in zip(closure, fn.__closure__):
            cell_var.real_cell = real
        # a method of a class the trace made: over the frame's own cells (local_classes.py)
        closure = tuple(local_classes.simulated_cell(real) or c for c, real in zip(closure, fn.__closure__))
    return UserFunctionVariable(
        fn.__code__, fn.__globals__, fn.__name__, defaults=fn.__defaults__ or (),
        kwdefaults=fn.__kwdefaults__, closure=closure, value=fn, tracker=tracker,
    )


def _is_const_tracker(tracker) -> bool:
    return type(tracker).__name__ == "ConstTracker"


def _item(tracker, key):
    from ..guards.tracker import ItemTracker
    return ItemTracker(tracker, key) if tracker is not None else None


def _is_plain_opaque(value) -> bool:
    """An object the simulator cannot look into and that is neither called
    nor a descriptor (a deque, an nditer, an ndarray subclass, a namedtuple
    result): guarded by its exact type, so a fresh one per call (a value
    carried across a graph break) does not retranslate. Callables and
    descriptors stay pinned by identity."""
    t = type(value)
    if issubclass(t, (type, types.ModuleType)) or callable(value):
        return False
    return not any("__get__" in k.__dict__ or "__set__" in k.__dict__ for k in t.__mro__)


def _user_getattr(t: type) -> bool:
    """Whether reading an attribute of a `t` instance may run a Python
    `__getattribute__` or `__getattr__` (one defined by a class statement)."""
    for k in t.__mro__:
        d = k.__dict__
        if ("__getattribute__" in d or "__getattr__" in d) and k.__flags__ & _HEAPTYPE:
            return True
    return False


def _is_builtin(value) -> bool:
    """A builtin or math function the simulator models (see calls.BUILTINS).
    Looked up by identity: hashing `value` could run user code."""
    from .calls import BUILTINS_BY_ID
    return BUILTINS_BY_ID.get(id(value)) is value


def _is_numpy_callable(value) -> bool:
    if _user_getattr(type(value)):
        return False  # reading its __module__ would run user code
    return callable(value) and not issubclass(type(value), type) and _skip.is_numpy_object(value)


__all__ = ["FunctionGraph", "function_variable", "to_ir_arg", "is_user_class"]


from .variables import factory as _factory  # noqa: E402  (it reads this module's helpers)
