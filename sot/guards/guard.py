"""Guard kinds: one check each on a value reached through a Tracker.

Every guard is built from a tracker and what was observed at trace time,
and knows three things about itself, side by side:

* ``c_ops(prog)`` -- the check as ops of the guard program (registers from
  ``prog.reg(tracker)``; the op set is documented in
  ``csrc/guard_program.c``). This is the check's only form: C runs the
  ops on the warm path, ``program_ref`` runs the same ops in Python
  (fallback, strict-mode twin, failure search); see ``program.py``;
* ``describe()`` -- one line for logs and ``sot.explain``;
* ``explain_failure(value)`` (or ``explain(read)`` for a guard on two
  values) -- why its ops failed on a new value, in words.

=========================  =============================================  =================================
kind                       ops check                                      ``describe()``
=========================  =============================================  =================================
``TensorGuard(t, arr)``    ``type(v) is T and same_dtype(v.dtype, D)      ``x: ndarray float32 (8, 16)``
                           and v.shape == (8, 16)`` (NumPy scalar:        ``s: float32 scalar``
                           no shape)
``TensorGuard(t, arr,      ... ``len(v.shape) == 2 and v.shape[0] >= 2     ``x: ndarray float32 (?, 16)``
 symbolic=(0,))``          and v.shape[1] == 16`` (a symbolic dim)
``TypeGuard(t, T)``        ``type(v) is T``                               ``type(x) is Foo``
``ValueGuard(t, value)``   type first, then value; floats bit-exact       ``scale == 0.5``
                           (``-0.0 != 0.0``, a NaN's sign and payload)
``IdGuard(t, obj)``        ``v is O``                                     ``f is <function f>``
``LenGuard(t, seq)``       ``type(v) is T and len(v) == n``               ``len(xs) == 3 (list)``
``DictKeysGuard(t, d)``    ``type(v) is T and len(v) == n and keys in     ``cfg: dict keys ('a', 'b')``
                           order`` (keys compared like ValueGuard
                           values; other keys by identity)
``GlobalAbsentGuard(n)``   ``n not in g``                                 ``global len is not defined``
=========================  =============================================  =================================

Every check begins with an exact type (or identity) test, so what follows
only touches objects of a known type. Guards hold strong references to the
objects they compare against (dict keys, values), so an ``id`` can never be
reused while the guard lives -- except what ``IdGuard`` and ``TypeGuard``
pin that the user's code may make and drop on every call (a class or
function defined in the function, a user object): those are held by a
weak reference (ops ``wid``/``wtype``), so a guard does not keep them alive
(eager frees them; ``Base.__subclasses__()`` must not grow one class per
cache entry). Once such an object dies its guard never holds again (no
live object can be it) and the cache drops the entry (``is_dead``).
"""

from __future__ import annotations

import builtins as _bi
import weakref as _weakref
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Any

import numpy as np

from .tracker import (
    GlobalTracker,
    Tracker,
    _qualname,
    _short,
    value_key,
    weak_class_ref,
)

__all__ = [
    "Guard",
    "TensorGuard",
    "TypeGuard",
    "ValueGuard",
    "IdGuard",
    "LenGuard",
    "DictKeysGuard",
    "GlobalAbsentGuard",
    "DimEqualGuard",
    "VALUE_TYPES",
]

#: exact types a ValueGuard accepts (plus tuples of them)
VALUE_TYPES = (int, float, complex, str, bytes, bool, type(None))

_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE


def _weak(obj: Any):
    """A weak reference to ``obj`` if the user's code may make and drop
    it, else None (held strongly): a class made by the user's code
    (``tracker.weak_class_ref``), or an object that is neither a class nor
    a module."""
    if isinstance(obj, type):
        return weak_class_ref(obj)
    if isinstance(obj, ModuleType):
        return None
    try:
        return _weakref.ref(obj)
    except TypeError:
        return None


class _Gone:
    """What a weakly held guard object reads as once it has died."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<collected object>"


_GONE = _Gone()


class _Pins:
    """Mixin of IdGuard and TypeGuard: the pinned object, strong or weak."""

    def _pin(self, obj: Any) -> None:
        self._ref = _weak(obj)
        self._strong = obj if self._ref is None else None
        self._id = id(obj)

    def _pinned(self) -> Any:
        if self._ref is None:
            return self._strong
        obj = self._ref()
        return _GONE if obj is None else obj

    def is_dead(self) -> bool:
        """The weakly held object has been collected: never holds again."""
        return self._ref is not None and self._ref() is None


def _type_name(t: type) -> str:
    if t is _GONE:
        return repr(t)
    return t.__name__ if t.__module__ in ("builtins", "numpy") else _qualname(t)


def _obj_desc(obj: Any) -> str:
    if obj is _GONE:
        return repr(obj)
    if isinstance(obj, type):
        return "<class %s>" % _qualname(obj)
    if isinstance(obj, ModuleType):
        return "<module %s>" % obj.__name__
    if isinstance(obj, (FunctionType, BuiltinFunctionType, MethodType)):
        return "<function %s>" % getattr(obj, "__qualname__", "?")
    if type(obj) in VALUE_TYPES:
        return _short(obj)
    return "<%s object at %#x>" % (_qualname(type(obj)), id(obj))


def _builtin_slot(t: type, slot: str) -> bool:
    """True if ``t``'s ``slot`` method comes from a builtin (non-heap) type,
    or is a C slot of a heap type made by an extension module (collections.deque),
    so calling it runs no user code."""
    for k in t.__mro__:
        if slot in k.__dict__:
            return not (k.__flags__ & _HEAPTYPE) or _bi.type(k.__dict__[slot]) is _SLOT_WRAPPER
    return False


_SLOT_WRAPPER = _bi.type(_bi.object.__dict__["__init__"])


def same_dtype(have: np.dtype, want: np.dtype) -> bool:
    """The same dtype, or an equal one (``==`` includes byte order) where
    neither carries metadata (``==`` ignores it)."""
    return have is want or (have == want and have.metadata is None and want.metadata is None)


class Guard:
    """Base class: a check on ``tracker``'s value."""

    tracker: Tracker
    #: the guard checks something even when its tracker is a constant
    #: (a fact about a fixed object, such as a class being unchanged)
    on_const = False

    # -- to override -----------------------------------------------------
    def c_ops(self, prog) -> list:
        """The check as ops of the guard program (registers from
        ``prog.reg(tracker)``; the op set is in ``csrc/guard_program.c``).
        C and the Python reference (``program_ref``) both run these ops."""
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def explain_failure(self, value: Any) -> str:
        raise NotImplementedError

    def _key(self) -> tuple:
        raise NotImplementedError

    # -- shared ------------------------------------------------------------
    def explain(self, read) -> str:
        """Why this guard's ops failed, in words; ``read(tracker)`` is a
        value the program loaded. Guards on two values override it."""
        return self.explain_failure(read(self.tracker))

    def evaluate(self, g: dict, args: tuple, cells: tuple) -> bool:
        """This guard alone, run by the reference evaluator (tests, tools)."""
        from .program import assemble
        from .program_ref import execute
        prog = assemble([self], len(args), len(cells))
        return execute(prog.ops, len(args), g, tuple(args) + tuple(cells))[0] is None

    def _type_changed(self, expected: type, value: Any) -> str:
        return "type of %s changed from %s to %s" % (
            self.tracker.subject(), _type_name(expected), _type_name(type(value)))

    def __eq__(self, other: object) -> bool:
        return (type(self) is type(other) and self.tracker == other.tracker  # type: ignore[attr-defined]
                and self._key() == other._key())  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.tracker, self._key()))

    def __repr__(self) -> str:
        return "<%s %s>" % (type(self).__name__, self.describe())


# ---------------------------------------------------------------------------


class TensorGuard(Guard):
    """An ndarray (exact type, dtype, shape) or a NumPy scalar (exact type,
    dtype). An ndarray subclass is guarded on its own exact type.

    ``shape`` is a tuple of ints, or None for a NumPy scalar.  Axes listed in
    ``symbolic`` are None in ``shape``: a symbolic dim, which matches any
    size >= 2 (the graph was traced for every such size; see
    ``sot.ir.symbolic``)."""

    def __init__(self, tracker: Tracker, value: Any, symbolic=()):
        if not isinstance(value, (np.ndarray, np.generic)):
            raise TypeError("TensorGuard needs an ndarray or NumPy scalar, got %s"
                            % _type_name(type(value)))
        self.tracker = tracker
        self.type = type(value)
        self.dtype = value.dtype
        self.shape = tuple(value.shape) if isinstance(value, np.ndarray) else None
        if symbolic:
            if self.shape is None:
                raise TypeError("a NumPy scalar has no symbolic dims")
            self.shape = tuple(None if i in symbolic else d for i, d in enumerate(self.shape))

    def _shape_text(self) -> str:
        if None not in self.shape:
            return str(self.shape)
        dims = ["?" if d is None else str(d) for d in self.shape]
        return "(%s)" % (", ".join(dims) + ("," if len(dims) == 1 else ""))

    def describe(self):
        if self.shape is None:
            return "%s: %s scalar" % (self.tracker.name(), self.dtype)
        return "%s: %s %s %s" % (self.tracker.name(), _type_name(self.type), self.dtype,
                                 self._shape_text())

    def explain_failure(self, value):
        if type(value) is not self.type:
            return self._type_changed(self.type, value)
        s = self.tracker.subject()
        if not same_dtype(value.dtype, self.dtype):
            return "%s.dtype changed from %s to %s" % (s, self.dtype, value.dtype)
        if self.shape is not None:
            msg = "%s.shape changed from %s to %s" % (s, self._shape_text(), value.shape)
            if None in self.shape and len(value.shape) == len(self.shape):
                msg += " (a symbolic dim matches sizes >= 2)"
            return msg
        return "%s no longer matches %s" % (s, self.describe())  # pragma: no cover

    def c_ops(self, prog):
        return [("tensor", prog.reg(self.tracker), self.type, self.dtype, self.shape,
                 self.type is np.ndarray)]

    def _key(self):
        return (self.type, self.dtype, self.shape)


class TypeGuard(_Pins, Guard):
    """``type(v) is T`` (exact); a heap class is held weakly."""

    def __init__(self, tracker: Tracker, type_: type):
        if not isinstance(type_, type):
            raise TypeError("TypeGuard needs a type")
        self.tracker = tracker
        self._pin(type_)

    @property
    def type(self):
        return self._pinned()

    def describe(self):
        return "type(%s) is %s" % (self.tracker.name(), _type_name(self.type))

    def explain_failure(self, value):
        return self._type_changed(self.type, value)

    def c_ops(self, prog):
        if self._ref is not None:
            return [("wtype", prog.reg(self.tracker), self._ref)]
        return [("type", prog.reg(self.tracker), self._strong)]

    def _key(self):
        return (self._id,)


def _check_value_type(value: Any) -> None:
    t = type(value)
    if t is tuple:
        for v in value:
            _check_value_type(v)
    elif t not in VALUE_TYPES:
        raise TypeError("ValueGuard supports exact int/float/complex/str/bytes/bool/None "
                        "and tuples of them, not %s (use IdGuard or TypeGuard)"
                        % _type_name(t))


class ValueGuard(Guard):
    """Value of an int/float/complex/str/bytes/bool/None or a tuple of
    those; the exact type is checked first, so ``1``, ``1.0`` and ``True``
    differ; floats compare bit-exactly (``0.0`` vs ``-0.0`` differ, and a
    NaN guard passes only for a NaN of the same sign and payload: a graph
    that took the float as a constant reproduces its bits)."""

    def __init__(self, tracker: Tracker, value: Any):
        _check_value_type(value)
        self.tracker = tracker
        self.value = value
        self._vkey = value_key(value)

    def describe(self):
        n = self.tracker.name()
        if self.value is None or type(self.value) is bool:
            return "%s is %r" % (n, self.value)
        if type(self.value) is float and self.value != self.value:
            return "%s is nan (a float NaN)" % n
        return "%s == %s" % (n, _short(self.value))

    def explain_failure(self, value):
        old, new = _short(self.value), _short(value)
        msg = "%s changed from %s to %s" % (self.tracker.subject(), old, new)
        if old == new:
            msg += " (type %s to %s)" % (_type_name(type(self.value)), _type_name(type(value)))
        return msg

    def c_ops(self, prog):
        return [("value", prog.reg(self.tracker), self.value)]

    def _key(self):
        return (self._vkey,)


class IdGuard(_Pins, Guard):
    """``v is O``: functions, classes, modules, user objects (weakly held
    where the user's code may make them, ``_weak``)."""

    def __init__(self, tracker: Tracker, obj: Any):
        self.tracker = tracker
        self._pin(obj)

    @property
    def obj(self):
        return self._pinned()

    def describe(self):
        return "%s is %s" % (self.tracker.name(), _obj_desc(self.obj))

    def explain_failure(self, value):
        return "%s is no longer the same object" % self.tracker.subject()

    def c_ops(self, prog):
        if self._ref is not None:
            return [("wid", prog.reg(self.tracker), self._ref)]
        return [("id", prog.reg(self.tracker), self._strong)]

    def _key(self):
        return (self._id,)


class LenGuard(Guard):
    """Exact type and ``len``. ``LenGuard(t, container)`` takes both from
    the observed value; ``LenGuard(t, n, type=list)`` gives them directly.
    The type's ``__len__`` must be a builtin one (no user code)."""

    def __init__(self, tracker: Tracker, value: Any, *, type: type | None = None):  # noqa: A002
        t = type
        if t is None:
            t = _bi.type(value)
            n = len(value) if _builtin_slot(t, "__len__") else None
        else:
            n = value
        if not _builtin_slot(t, "__len__") or n is None:
            raise TypeError("LenGuard needs a type with a builtin __len__, not %s" % _type_name(t))
        if _bi.type(n) is not int or n < 0:
            raise TypeError("LenGuard length must be an int >= 0")
        self.tracker = tracker
        self.type = t
        self.n = n

    def describe(self):
        return "len(%s) == %d (%s)" % (self.tracker.name(), self.n, _type_name(self.type))

    def explain_failure(self, value):
        if type(value) is not self.type:
            return self._type_changed(self.type, value)
        return "len(%s) changed from %d to %d" % (self.tracker.subject(), self.n, len(value))

    def c_ops(self, prog):
        return [("len", prog.reg(self.tracker), self.type, self.n)]

    def _key(self):
        return (id(self.type), self.n)


class DictKeysGuard(Guard):
    """Exact type, then the keys in order. ``DictKeysGuard(t, d)`` takes
    both from the observed mapping; ``DictKeysGuard(t, keys, type=dict)``
    gives them directly. Keys compare like ValueGuard values (``1`` and
    ``True`` differ); keys of other types compare by identity."""

    def __init__(self, tracker: Tracker, value: Any, *, type: type | None = None):  # noqa: A002
        t = _bi.type(value) if type is None else type
        if not (issubclass(t, dict) and _builtin_slot(t, "__iter__") and _builtin_slot(t, "__len__")):
            raise TypeError("DictKeysGuard needs a dict type with builtin iteration, not %s"
                            % _type_name(t))
        self.tracker = tracker
        self.type = t
        self.keys = tuple(value)  # strong refs: identity-keyed keys stay alive
        self._kkey = value_key(self.keys)

    def describe(self):
        return "%s: %s keys %s" % (self.tracker.name(), _type_name(self.type),
                                   _short_keys(self.keys))

    def explain_failure(self, value):
        if type(value) is not self.type:
            return self._type_changed(self.type, value)
        return "keys of %s changed from %s to %s" % (
            self.tracker.subject(), _short_keys(self.keys), _short_keys(tuple(value)))

    def c_ops(self, prog):
        return [("dictkeys", prog.reg(self.tracker), self.type, self.keys)]

    def _key(self):
        return (id(self.type), self._kkey)


def _short_keys(keys: tuple) -> str:
    shown = ", ".join(_short(k, 30) for k in keys[:8])
    if len(keys) > 8:
        shown += ", ... (%d keys)" % len(keys)
    elif len(keys) == 1:
        shown += ","
    return "(" + shown + ")"


class DimEqualGuard(Guard):
    """``a.shape[i] == b.shape[j]``: two symbolic dims that the trace took
    as one (duck sizing, see ``sot.ir.statement_ir.add_input``). Both
    values are arrays already pinned by their TensorGuards, which come
    first, or a list of numbers the runner converts (its length read)."""

    def __init__(self, tracker: Tracker, axis: int, other: Tracker, other_axis: int):
        self.tracker, self.axis = tracker, axis
        self.other, self.other_axis = other, other_axis

    def describe(self):
        return "%s.shape[%d] == %s.shape[%d]" % (self.tracker.name(), self.axis,
                                                  self.other.name(), self.other_axis)

    def explain(self, read):
        (ta, fa), (tb, fb) = self._readers()
        a, b = fa(read(ta)), fb(read(tb))
        return "%s.shape[%d] (%d) no longer equals %s.shape[%d] (%d)" % (
            self.tracker.subject(), self.axis, a, self.other.subject(), self.other_axis, b)

    def _readers(self):
        return _dim_of(self.tracker, self.axis), _dim_of(self.other, self.other_axis)

    def c_ops(self, prog):
        (ta, fa), (tb, fb) = self._readers()
        if ta is self.tracker and tb is self.other:
            return [("dimeq", prog.reg(self.tracker), self.axis, prog.reg(self.other), self.other_axis,
                     np.ndarray)]
        # a dim with no C load (a list converted by the runner, executor/list_data.py):
        # read from what it is made of, by the two-register call op
        return [("overlap", prog.reg(ta), prog.reg(tb), lambda u, v: fa(u) == fb(v), True)]

    def _key(self):
        return (self.axis, self.other, self.other_axis)


def _dim_of(tracker, axis):
    """(tracker with a C load, value -> its dim `axis`): the array's own
    shape, or what a tracker with no C load (``dim_source``) is made of."""
    source = getattr(tracker, "dim_source", None)
    if source is not None:
        return source(axis)

    def dim(value):   # an exact ndarray (its TensorGuard came first): reads run no user code
        if type(value) is not np.ndarray:
            raise TypeError("not an ndarray")
        return value.shape[axis]
    return tracker, dim


class GlobalAbsentGuard(Guard):
    """``name not in f_globals``: a builtin reached by ``LOAD_GLOBAL`` is
    only the builtin while no global of that name shadows it."""

    def __init__(self, name: str):
        self.tracker = GlobalTracker(name)
        self.global_name = name

    def describe(self):
        return "global %s is not defined" % self.global_name

    def explain(self, read):
        return "global %s is now defined (it shadows the builtin)" % self.global_name

    def c_ops(self, prog):
        return [("absent", self.global_name)]

    def _key(self):
        return ()
