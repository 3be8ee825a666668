"""What a class's metaclass decides: ``isinstance``/``issubclass`` against
a known class, and class attribute reads a metaclass descriptor takes over.

``isinstance(obj, cls)`` is True at once when ``type(obj) is cls``;
otherwise ``type(cls).__instancecheck__`` decides (``issubclass``:
``__subclasscheck__``). The trace knows the answer only when that hook is
``type``'s (the MRO decides) or ``abc.ABCMeta``'s (the MRO, the ABC's
registry and its ``__subclasshook__``); any other hook is user code that
runs natively.

Guards: the class, its bases and its metaclass stay as they were
(``ClassUnchangedGuard``: a metaclass that gains an ``__instancecheck__``
later is seen), and for an ABC no class was registered with any ABC since
(``AbcTokenGuard``: ``ABC.register(X)`` changes ``abc.get_cache_token()``).
"""
from __future__ import annotations

import abc
import inspect

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.invariants import AbcTokenGuard, ClassUnchangedGuard

__all__ = ["is_subclass", "check_class_attribute"]

_TYPE_HOOKS = (type.__dict__["__instancecheck__"], type.__dict__["__subclasscheck__"])
_ABC_HOOKS = (abc.ABCMeta.__dict__["__instancecheck__"], abc.ABCMeta.__dict__["__subclasscheck__"])


def is_subclass(graph, t: type, cls: type, instance: bool) -> bool:
    """Whether ``t`` (the exact type of an instance when ``instance``)
    counts as a subclass of ``cls``; adds the guards the answer rests on."""
    if instance and t is cls:
        return True  # CPython's fast path: no hook runs
    meta = type(cls)
    if meta is type:
        return issubclass(t, cls)  # type.__subclasscheck__: the MRO
    hook = "__instancecheck__" if instance else "__subclasscheck__"
    try:
        found = inspect.getattr_static(meta, hook)
    except AttributeError:  # pragma: no cover - type defines both
        found = None
    graph.add_guard(ClassUnchangedGuard(cls))  # with its metaclass: a hook added later is seen
    if found is _TYPE_HOOKS[not instance]:
        return type.__subclasscheck__(cls, t)
    if found is _ABC_HOOKS[not instance] and \
            inspect.getattr_static(meta, "__subclasscheck__") is _ABC_HOOKS[1]:
        graph.add_guard(AbcTokenGuard())
        return abc.ABCMeta.__subclasscheck__(cls, t)
    raise FallbackError(UNSUPPORTED_OBJECT, "%s() against %s, whose metaclass %s defines %s (user code)"
                        % ("isinstance" if instance else "issubclass", cls.__qualname__,
                           meta.__qualname__, hook))


def check_class_attribute(cls: type, name: str) -> None:
    """``cls.name`` is found in ``cls``'s MRO the way the trace reads it,
    unless a data descriptor of a user metaclass takes it over (it wins over
    the class's own attribute, and runs user code): then it runs natively.
    The class's guard covers its metaclass, so one added later is seen."""
    for k in type.__dict__["__mro__"].__get__(type(cls)):
        if name in k.__dict__:
            attr = k.__dict__[name]
            t = type(attr)
            if k.__flags__ & _HEAPTYPE and (hasattr(t, "__set__") or hasattr(t, "__delete__")):
                raise FallbackError(UNSUPPORTED_OBJECT, "%s.%s is a data descriptor of its metaclass %s"
                                    % (cls.__qualname__, name, type(cls).__qualname__))
            return


_HEAPTYPE = 1 << 9
