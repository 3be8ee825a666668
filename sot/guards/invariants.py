"""Guards on facts that are not one value's type or value.

=============================  ===========================================  ==============================
kind                           compiled check                               ``describe()``
=============================  ===========================================  ==============================
``SameGuard(t, u, same)``      ``(v is u) == same``                         ``act is Act.RELU``
``KeyAbsentGuard(t, key)``     ``type(v) is dict and key not in v``         ``'sum' not in f.__globals__``
``ClassUnchangedGuard(T)``     T's version tag still valid and equal        ``class Foo is unchanged``
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
  whenever an attribute of it or of a base is set or deleted; the check
  compares the tag (``sot._C.type_version``), so it costs no lookup.

None of these reads anything that runs user code: identity, an exact
dict's membership, a field of the type struct.
"""
from __future__ import annotations

from typing import Any

from .. import _C
from .guard import Guard, _qualname
from .tracker import ConstTracker, Tracker, _short

__all__ = ["SameGuard", "KeyAbsentGuard", "ClassUnchangedGuard"]


class SameGuard(Guard):
    """``(v is u) == same`` for the values of two trackers."""

    def __init__(self, tracker: Tracker, other: Tracker, same: bool):
        self.tracker, self.other, self.same = tracker, other, bool(same)

    def emit(self, ctx):
        return "(%s is %s) is %s" % (ctx.ref(self.tracker), ctx.ref(self.other), self.same)

    def code(self, v, ctx):  # pragma: no cover - emit() is used instead
        raise TypeError("SameGuard reads two values")

    def evaluate(self, g, args, cells):
        return self.failure(g, args, cells) is None

    def failure(self, g, args, cells):
        try:
            a = self.tracker.load(g, args, cells)
            b = self.other.load(g, args, cells)
        except Exception as e:
            return "%s could not be read (%s)" % (self.describe(), type(e).__name__)
        if (a is b) == self.same:
            return None
        return "%s %s %s no longer" % (self.tracker.subject(), "is" if self.same else "is not",
                                       self.other.subject())

    def check(self, value):  # pragma: no cover - evaluate() is used instead
        raise TypeError("SameGuard reads two values")

    def describe(self):
        return "%s %s %s" % (self.tracker.name(), "is" if self.same else "is not", self.other.name())

    def explain_failure(self, value):  # pragma: no cover - failure() is used instead
        return self.describe()

    def c_ops(self, prog):
        return [("same", prog.reg(self.tracker), prog.reg(self.other), self.same)]

    def _key(self):
        return (self.other, self.same)


class KeyAbsentGuard(Guard):
    """``key not in v`` where ``v`` is an exact dict (a globals dict)."""

    def __init__(self, tracker: Tracker, key: str):
        self.tracker, self.key = tracker, key

    def code(self, v, ctx):
        return "type(%s) is dict and %s not in %s" % (v, ctx.bind(self.key), v)

    def check(self, value):
        return type(value) is dict and self.key not in value

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
    """No attribute of class ``cls`` (or of a base) was set or deleted
    since the trace: its version tag is the one seen then."""

    on_const = True

    def __init__(self, cls: type):
        if not isinstance(cls, type):
            raise TypeError("ClassUnchangedGuard needs a class")
        self.tracker = ConstTracker(cls)
        self.cls = cls
        self.tag = _C.type_version(cls)  # 0: CPython gives no tag; the guard never holds

    def emit(self, ctx):
        return "%s(%s, %d)" % (ctx.helper("_type_unchanged", _C.type_unchanged), ctx.bind(self.cls),
                               self.tag)

    def code(self, v, ctx):  # pragma: no cover - emit() is used instead
        raise TypeError("ClassUnchangedGuard reads no value")

    def evaluate(self, g, args, cells):
        return bool(_C.type_unchanged(self.cls, self.tag))

    def failure(self, g, args, cells):
        return None if self.evaluate(g, args, cells) else self.explain_failure(None)

    def check(self, value):  # pragma: no cover - evaluate() is used instead
        return self.evaluate(None, (), ())

    def describe(self):
        return "class %s is unchanged" % _qualname(self.cls)

    def explain_failure(self, value: Any):
        return "class %s (or a base) was changed" % _qualname(self.cls)

    def c_ops(self, prog):
        return [("typever", self.cls, self.tag)]

    def _key(self):
        return (id(self.cls), self.tag)
