"""Guards on facts that are not one value's type or value.

=============================  ===========================================  ==============================
kind                           compiled check                               ``describe()``
=============================  ===========================================  ==============================
``SameGuard(t, u, same)``      ``(v is u) == same``                         ``act is Act.RELU``
``KeyAbsentGuard(t, key)``     ``type(v) is dict and key not in v``         ``'sum' not in f.__globals__``
``ClassUnchangedGuard(T)``     what the trace read of T holds               ``class Foo is unchanged``
``PlainKeysGuard(t)``          ``type(v) is dict``, keys exact str/int       ``d: dict with str/int keys only``
``AbcTokenGuard()``            ``abc.get_cache_token()`` unchanged          ``no class was registered...``
=============================  ===========================================  ==============================

* ``SameGuard``: a trace that decided ``x is y`` on two objects whose
  identity no guard pins (user objects are guarded by type) holds only
  while the answer is the same.
* ``KeyAbsentGuard``: ``GlobalAbsentGuard`` for a globals dict reached
  through a tracker (an inlined function of another module): the builtin
  the trace used is only the builtin while no global shadows it.
* ``ClassUnchangedGuard``: the trace read a user class (an attribute, a
  method, that it has no ``__bool__``/``__len__``/``__getattr__``, which
  names are data descriptors). CPython gives a class a new version tag
  whenever an attribute of it or of a base is set or deleted: while the
  tag is the one last seen to hold, the check costs no lookup; when it
  differs, the class's dicts are compared with the trace's snapshot, name
  by name, so a class that only rebinds a plain attribute the trace read
  through a guarded tracker (``Counter.calls += 1``) keeps its entry.
  A user metaclass is covered the same way (``__instancecheck__``,
  ``__getattr__`` or a descriptor added to it later).
* ``AbcTokenGuard``: ``isinstance(x, SomeABC)`` also depends on what was
  registered with the ABC (``SomeABC.register(X)``); every registration
  changes ``abc.get_cache_token()``.

None of these reads anything that runs user code: identity, an exact
dict's membership, fields of the type struct, a builtin counter.
"""
from __future__ import annotations

import abc
import weakref as _weakref
from types import FunctionType as _FunctionType

from .. import _C
from .guard import _GONE, Guard, _type_name, _weak
from .program import ANY
from .program_ref import _is_descriptor
from .tracker import ConstTracker, Tracker, _short

__all__ = ["SameGuard", "KeyAbsentGuard", "ClassUnchangedGuard", "PlainKeysGuard", "AbcTokenGuard"]


class SameGuard(Guard):
    """``(v is u) == same`` for the values of two trackers."""

    def __init__(self, tracker: Tracker, other: Tracker, same: bool):
        self.tracker, self.other, self.same = tracker, other, bool(same)

    def describe(self):
        return "%s %s %s" % (self.tracker.name(), "is" if self.same else "is not", self.other.name())

    def explain(self, read):
        return "%s %s %s no longer" % (self.tracker.subject(), "is" if self.same else "is not",
                                       self.other.subject())

    def c_ops(self, prog):
        return [("same", prog.reg(self.tracker), prog.reg(self.other), self.same)]

    def _key(self):
        return (self.other, self.same)


class KeyAbsentGuard(Guard):
    """``key not in v`` where ``v`` is an exact dict (a globals dict)."""

    def __init__(self, tracker: Tracker, key: str):
        self.tracker, self.key = tracker, key

    def describe(self):
        return "%s not in %s" % (_short(self.key), self.tracker.name())

    def explain_failure(self, value):
        return "%s is now defined in %s (it shadows the builtin)" % (_short(self.key),
                                                                    self.tracker.subject())

    def c_ops(self, prog):
        return [("notin", prog.reg(self.tracker), self.key)]

    def _key(self):
        return (self.key,)


class ClassUnchangedGuard(Guard):
    """What the trace read of class ``cls`` still holds: no name of it or
    of a base (or of a user metaclass) was added or removed, and no
    descriptor or protocol name bound to another object; a plain value
    (``Counter.calls``) may change, since the trace reads those only through
    trackers whose own guards check them (see ``_free``). The version tag
    is the fast path (the "class" op, ``csrc/guard_class.c``)."""

    on_const = True

    def __init__(self, cls: type):
        if not isinstance(cls, type):
            raise TypeError("ClassUnchangedGuard needs a class")
        self.tag = _C.type_version(cls)  # 0: no tag; the precise check decides
        self._id = id(cls)
        # a class the user's code makes (one per call, say) is held weakly:
        # its state refers to it only through the weakref (_weak_state)
        self._ref = _weak(cls)
        self.tracker = ConstTracker(cls if self._ref is None else self._ref)
        meta = type(cls)
        self._states = [_state(cls)] + ([_state(meta)] if meta.__flags__ & _HEAPTYPE else [])

    @property
    def cls(self):
        if self._ref is None:
            return self.tracker.value
        cls = self._ref()
        return _GONE if cls is None else cls

    def is_dead(self) -> bool:
        return self._ref is not None and self._ref() is None

    def describe(self):
        return "class %s is unchanged" % _type_name(self.cls)

    def explain(self, read):
        return "class %s (or a base, or its metaclass) was changed" % _type_name(self.cls)

    def c_ops(self, prog):
        ops = []
        for t, tag, mro, meta, dicts in self._states:
            weak = type(t) is _weakref.ref
            cls = t() if weak else t
            if cls is None:
                return [("wtypever", t, 0)]  # died before its entry was made: never holds
            read = prog.read_names(cls)
            snapshot = tuple((k, {n: ANY if _free(n, _held(v), read) else v for n, v in d.items()})
                             for k, d in dicts)
            if weak:
                ops.append(("wclass", t, tag, (mro, meta, snapshot, ANY, OWN)))
            else:
                ops.append(("class", t, tag, (mro, meta, snapshot, ANY)))
        return ops

    def _key(self):
        return (self._id, self.tag)


_HEAPTYPE = 1 << 9


def _state(t: type) -> tuple:
    """(t, its tag, its MRO, its metaclass, (heap type, copy of its dict)
    for each heap type of the MRO): what the "class" op compares. For a
    class held weakly (``_weak``), nothing in it refers to ``t``: a weakref
    for ``t`` itself, its MRO without it, ``OWN`` for its own
    ``__dict__``/``__weakref__`` descriptors (which refer to it) -- the
    "wclass" op."""
    mro = type.__dict__["__mro__"].__get__(t)
    dicts = tuple((k, dict(type.__dict__["__dict__"].__get__(k))) for k in mro
                  if k.__flags__ & _HEAPTYPE)
    ref = _weak(t)
    if ref is None:
        return (t, _C.type_version(t), mro, type(t), dicts)
    dicts = tuple((ref, {n: _weak_value(v, t) for n, v in d.items()}) if k is t else (k, d)
                  for k, d in dicts)
    return (ref, _C.type_version(t), mro[1:], type(t), dicts)


_DEAD_METHOD = property()


def _held(v):
    """A snapshot value as the class holds it (a weakly held method)."""
    if type(v) is _weakref.ref:
        v = v()
        return _DEAD_METHOD if v is None else v   # (dead: still a descriptor, never free)
    return v


def _weak_value(v, t: type):
    """What the weak snapshot of ``t``'s own dict holds for ``v``: OWN for
    its own ``__dict__``/``__weakref__``/slot descriptors, a weakref for a
    function (a method using ``super()`` refers to ``t`` through its
    ``__class__`` cell), else ``v``. The "wclass" op compares a weakref
    in the snapshot by its referent: a weakref the class itself holds as
    a value then fails the precise check -- a miss, never a wrong hit."""
    if type(v) in _OWN_KINDS and v.__objclass__ is t:
        return OWN
    if type(v) is _FunctionType:
        return _weakref.ref(v)
    return v


_OWN_KINDS = (type(type.__dict__["__dict__"]), type(type("_W", (), {"__slots__": ("a",)}).__dict__["a"]))


class _Own:
    """The "wclass" op's marker of a class's own __dict__/__weakref__ descriptor."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "OWN"


OWN = _Own()


def _free(name, value, read: frozenset) -> bool:
    """Whether the "class" op lets ``name`` hold another object: a plain
    (non-descriptor) value that the trace either read through a guarded
    tracker (its guards check it) or did not read at all. The simulator
    reads a class's values only through trackers, except protocol names
    (``__bool__``, ``__init__``, namedtuple's ``_fields``): a name starting
    with ``_`` stays pinned unless a tracker read it, a dunder always."""
    if _is_descriptor(value) or type(name) is not str:
        return False
    if name[:2] == name[-2:] == "__" and len(name) > 4:
        return False
    return name in read or not name.startswith("_")


class PlainKeysGuard(Guard):
    """``type(v) is dict`` and every key an exact str or int: looking up a
    str/int key in it (the guards and loads of what the trace read,
    executor/dict_data.py) runs no user ``__eq__`` -- a key of a user class
    whose hash collides with the key looked up would be called."""

    def __init__(self, tracker: Tracker):
        self.tracker = tracker

    def describe(self):
        return "%s: dict with str/int keys only" % self.tracker.name()

    def explain_failure(self, value):
        if type(value) is not dict:
            return self._type_changed(dict, value)
        return "%s now has a key that is not a str or int" % self.tracker.subject()

    def c_ops(self, prog):
        return [("plainkeys", prog.reg(self.tracker))]

    def _key(self):
        return ()


class AbcTokenGuard(Guard):
    """No class was registered with any ABC since the trace
    (``abc.get_cache_token()`` is unchanged): the trace decided
    ``isinstance(x, SomeABC)`` from the ABC's registry."""

    on_const = True

    def __init__(self):
        self.tracker = ConstTracker(abc.get_cache_token)
        self.token = abc.get_cache_token()

    def describe(self):
        return "no class was registered with an ABC (abc cache token %r)" % (self.token,)

    def explain(self, read):
        return "a class was registered with an ABC (ABC.register) since the trace"

    def c_ops(self, prog):
        return [("call", abc.get_cache_token, self.token)]

    def _key(self):
        return (self.token,)
