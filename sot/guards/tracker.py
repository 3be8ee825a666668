"""Trackers: where a value came from, and how to load it again.

A Tracker is the single owner of "where did this value come from". Guards
use it to read the value they check; the entry runner uses it to fetch graph
inputs. Both run as *generated* Python functions with the calling convention
of the C hook::

    fn(g, a0, a1, ..., c0, c1, ...)

``g`` is the frame's ``f_globals``; ``a<i>`` is entry ``i`` of the frame's
argument vector (positional params, keyword-only params, the ``*args``
tuple, the ``**kwargs`` dict, in ``co_varnames`` order); ``c<i>`` is the
cell object of ``co_freevars[i]``.

Tracker kinds (every one has ``expr(ctx)``, ``name()``, ``load(...)``,
``base`` and value equality, so one source is shared):

========================  ==================================  ================
kind                      loads                               ``name()``
========================  ==================================  ================
``LocalTracker(i, n)``    ``a<i>``                            ``x``
``GlobalTracker(n)``      ``g[k]``                            ``scale``
``BuiltinTracker(n)``     ``<builtins of g>[k]``              ``__builtins__.len``
``CellTracker(i, n)``     ``c<i>.cell_contents``              ``scale``
``AttrTracker(b, a)``     ``<b>.a`` or ``getattr(<b>, k)``    ``self.w``
``ItemTracker(b, key)``   ``<b>[k]``                          ``self.layers[3]``
``ConstTracker(v)``       ``k`` (the bound value)             ``repr(v)``
========================  ==================================  ================

Rule: user data is never spliced into generated source. A name, key or
constant is bound into the generated function's namespace with
``ctx.bind(value)`` and referred to by the returned identifier. The only
values written literally are exact ``int``, ``bool`` and ``None`` (their
``repr`` is always a plain literal); see :func:`literal`.

Reading through a tracker can run user code (``__getattr__``, properties,
``__getitem__``). The tracker does not prevent that: whoever builds guards
(the simulator) must guard a base object's type or identity *before* any
guard that reads an attribute or item of it, so the base is known to be a
plain object whose reads run no user code. The guard compiler keeps the
given order.
"""

from __future__ import annotations

import builtins as _builtins
import inspect as _inspect
import keyword
import struct
import sys as _sys
import weakref as _weakref
from types import ModuleType
from typing import Any

__all__ = [
    "Tracker",
    "LocalTracker",
    "GlobalTracker",
    "BuiltinTracker",
    "BuiltinsDictTracker",
    "CellTracker",
    "AttrTracker",
    "ItemTracker",
    "ConstTracker",
    "LoadContext",
    "literal",
    "builtins_of",
    "value_key",
]


# --------------------------------------------------------------------------
# helpers shared with guard.py / compile.py


def builtins_of(g: dict) -> Any:
    """The builtins mapping CPython uses for a frame with globals ``g``.

    Like ``_PyEval_BuiltinsFromGlobals``: ``g['__builtins__']`` if present
    (a module stands for its ``__dict__``), else the interpreter's builtins.

    Caveat: since 3.10 a *function* captures its builtins when it is
    created, so a later rebinding of ``g['__builtins__']`` is not seen by
    frames of existing functions. Rebinding it is vanishingly rare.
    """
    try:
        b = g["__builtins__"]
    except KeyError:
        return _builtins.__dict__
    if issubclass(type(b), ModuleType):  # PyModule_Check: no __class__ lookup
        return b.__dict__
    return b


_MAX_LITERAL_INT = 1 << 63


def literal(value: Any) -> str | None:
    """Source text for ``value`` if it may be written literally, else None.

    Only exact ``int`` (of bounded size), ``bool``, ``None`` and tuples of
    those qualify: their ``repr`` is a literal that evaluates back to an
    equal value of the same type. Everything else must be bound.
    """
    t = type(value)
    if value is None or t is bool:
        return repr(value)
    if t is int:
        return int.__repr__(value) if -_MAX_LITERAL_INT < value < _MAX_LITERAL_INT else None
    if t is tuple:
        parts = [literal(v) for v in value]
        if any(p is None for p in parts):
            return None
        if len(parts) == 1:
            return "(" + parts[0] + ",)"
        return "(" + ", ".join(parts) + ")"
    return None


def _float_key(x: float) -> bytes:
    # bit-exact: -0.0 is not 0.0, and a NaN's sign and payload count (a
    # graph that took the float as a constant reproduces its bits)
    return struct.pack("<d", x)


def value_key(value: Any) -> Any:
    """A hashable key equal only for values that are interchangeable.

    Unlike ``==``: type-tagged (``1``, ``1.0`` and ``True`` differ), floats
    are bit-exact (``0.0`` and ``-0.0`` differ, a NaN equals only a NaN of
    the same sign and payload), recursive
    through tuples. Unhashable or other objects are keyed by identity.
    """
    t = type(value)
    if t is float:
        return (t, _float_key(value))
    if t is complex:
        return (t, _float_key(value.real), _float_key(value.imag))
    if t is tuple:
        return (t,) + tuple(value_key(v) for v in value)
    if t in (int, bool, str, bytes, type(None)):
        return (t, value)
    return ("id", id(value))


def _is_plain_identifier(s: str) -> bool:
    # ASCII only: a non-ASCII identifier is NFKC-normalised by the parser,
    # so `a0.ﬁ` would read attribute "fi".
    return (
        type(s) is str and s.isascii() and s.isidentifier()
        and not keyword.iskeyword(s)
    )


def _short(value: Any, limit: int = 60) -> str:
    """A short repr that never runs user code (for names and messages)."""
    t = type(value)
    if t in (int, bool, float, complex, str, bytes, type(None)) or (
        t is tuple and len(value) <= 8
        and all(type(v) in (int, bool, float, complex, str, bytes, type(None)) for v in value)
    ):
        if t is int and not -_MAX_LITERAL_INT < value < _MAX_LITERAL_INT:
            return "<int with %d bits>" % value.bit_length()
        r = repr(value)
        return r if len(r) <= limit else r[: limit - 3] + "..."
    if isinstance(value, type):
        return "<class %s>" % _qualname(value)
    if isinstance(value, ModuleType):
        return "<module %s>" % object.__getattribute__(value, "__name__")
    return "<%s object>" % _qualname(t)


def _qualname(t: type) -> str:
    mod = t.__module__
    qn = t.__qualname__
    return qn if mod in ("builtins", None) else "%s.%s" % (mod, qn)


# --------------------------------------------------------------------------
# load context


class LoadContext:
    """Naming and binding for one generated function.

    Parameters are ``g``, ``a0..a<nargs-1>``, ``c0..c<ncells-1>``. Bound
    values are named ``k<n>``; :meth:`bind` returns the same name for the
    same object. ``ref(tracker)`` returns an expression for a tracker's
    value; this base class writes it inline, the guard compiler's subclass
    caches it in a local.
    """

    def __init__(self, nargs: int, ncells: int):
        if nargs < 0 or ncells < 0:
            raise ValueError("nargs and ncells must be >= 0")
        self.nargs = nargs
        self.ncells = ncells
        self.namespace: dict[str, Any] = {}
        self._bound: dict[int, str] = {}

    @property
    def params(self) -> list[str]:
        return ["g"] + [self.arg(i) for i in range(self.nargs)] + [
            self.cell(i) for i in range(self.ncells)
        ]

    def arg(self, index: int) -> str:
        if not 0 <= index < self.nargs:
            raise IndexError("argument index %d out of range (nargs=%d)" % (index, self.nargs))
        return "a%d" % index

    def cell(self, index: int) -> str:
        if not 0 <= index < self.ncells:
            raise IndexError("cell index %d out of range (ncells=%d)" % (index, self.ncells))
        return "c%d" % index

    def bind(self, value: Any) -> str:
        """Bind ``value`` into the namespace; return its identifier."""
        name = self._bound.get(id(value))
        if name is None:
            name = "k%d" % len(self._bound)
            self._bound[id(value)] = name
            self.namespace[name] = value  # also keeps id(value) alive
        return name

    def const(self, value: Any) -> str:
        """A literal if ``value`` is safe to write, else a bound name."""
        lit = literal(value)
        return lit if lit is not None else self.bind(value)

    def helper(self, name: str, fn: Any) -> str:
        """Bind a helper of ours under a fixed, readable name (``_x``)."""
        assert name.startswith("_")
        old = self.namespace.setdefault(name, fn)
        assert old is fn, name
        return name

    def ref(self, tracker: "Tracker") -> str:
        return tracker.expr(self)


# --------------------------------------------------------------------------
# trackers


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE


def weak_class_ref(obj: Any):
    """A weak reference to ``obj`` if it is a class the user's code may
    make and drop -- one that is not its module's attribute of its
    qualified name (a class statement in a function, a ``type(...)``
    call) -- else None. Classes of modules (and builtins) live as long as
    their module."""
    if not isinstance(obj, type) or not obj.__flags__ & _HEAPTYPE or _module_class(obj):
        return None
    try:
        return _weakref.ref(obj)
    except TypeError:
        return None


def _module_class(t: type) -> bool:
    """``t`` is what its module's namespace names by ``t.__qualname__``
    (a static read: no user ``__getattr__`` runs)."""
    obj = _sys.modules.get(type.__dict__["__module__"].__get__(t))
    for part in type.__dict__["__qualname__"].__get__(t).split("."):
        try:
            obj = _inspect.getattr_static(obj, part)
        except AttributeError:
            return False
    return obj is t


class Tracker:
    """Base class. Subclasses set ``base`` (a Tracker or None) and define
    ``expr``, ``name``, ``load`` and ``_key``. Trackers are immutable;
    the hash is computed once (paths are hashed often while guards are
    collected and compiled)."""

    __slots__ = ("_hash",)
    base: "Tracker | None" = None

    def expr(self, ctx: LoadContext) -> str:
        raise NotImplementedError

    def name(self) -> str:
        raise NotImplementedError

    def load(self, g: dict, args: tuple, cells: tuple) -> Any:
        """Reference (interpreted) load of the value; may raise."""
        raise NotImplementedError

    runtime_key = False   # read at a key known when the call runs (dict_runtime_reads.RuntimeListTracker)

    def load_op(self, prog) -> tuple | None:
        """The C guard program's load of this value, without its register
        (``("attr", prog.reg(self.base), name)``; see
        ``csrc/guard_program.c``), or None if it has no C form."""
        return None

    def needs_guard(self) -> bool:
        return True

    def root(self) -> "Tracker":
        t = self
        while t.base is not None:
            t = t.base
        return t

    def subject(self) -> str:
        """``name()`` with the kind of its root, for messages."""
        root = self.root()
        if isinstance(root, GlobalTracker):
            return "global " + self.name()
        if isinstance(root, CellTracker):
            return "free variable " + self.name()
        return self.name()

    def _key(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._key() == other._key()  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            h = self._hash = hash((type(self).__name__, self._key()))
            return h

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, self.name())


class LocalTracker(Tracker):
    """Entry ``index`` of the argument vector (``co_varnames[index]``)."""

    __slots__ = ("index", "local_name")

    def __init__(self, index: int, name: str):
        if type(index) is not int or index < 0:
            raise ValueError("LocalTracker index must be an int >= 0")
        self.index = index
        self.local_name = name

    def expr(self, ctx: LoadContext) -> str:
        return ctx.arg(self.index)

    def name(self) -> str:
        return self.local_name

    def load(self, g, args, cells):
        return args[self.index]

    def load_op(self, prog):
        return ("arg", prog.arg_index(self.index))

    def _key(self):
        return (self.index, self.local_name)


class GlobalTracker(Tracker):
    """``f_globals[name]``."""

    __slots__ = ("global_name",)

    def __init__(self, name: str):
        if type(name) is not str:
            raise TypeError("global name must be a str")
        self.global_name = name

    def expr(self, ctx):
        return "g[%s]" % ctx.bind(self.global_name)

    def name(self):
        return self.global_name

    def load(self, g, args, cells):
        return g[self.global_name]

    def load_op(self, prog):
        return ("global", self.global_name)

    def _key(self):
        return (self.global_name,)


class BuiltinsDictTracker(Tracker):
    """The builtins mapping of the frame (see :func:`builtins_of`)."""

    __slots__ = ()

    def expr(self, ctx):
        return "%s(g)" % ctx.helper("_builtins_of", builtins_of)

    def name(self):
        return "__builtins__"

    def load(self, g, args, cells):
        return builtins_of(g)

    def load_op(self, prog):
        return ("builtins",)

    def _key(self):
        return ()


class BuiltinTracker(Tracker):
    """``builtins[name]``, the builtins resolved from ``f_globals`` as
    CPython does (``__builtins__`` may be a module or a dict).

    This is only the builtins entry: that the name is not shadowed by a
    global is a separate guard (``GlobalAbsentGuard``)."""

    __slots__ = ("builtin_name", "base")

    def __init__(self, name: str):
        if type(name) is not str:
            raise TypeError("builtin name must be a str")
        self.builtin_name = name
        self.base = BuiltinsDictTracker()

    def expr(self, ctx):
        return "%s[%s]" % (ctx.ref(self.base), ctx.bind(self.builtin_name))

    def name(self):
        return "__builtins__." + self.builtin_name

    def load(self, g, args, cells):
        return builtins_of(g)[self.builtin_name]

    def load_op(self, prog):
        return ("item", prog.reg(self.base), self.builtin_name)

    def _key(self):
        return (self.builtin_name,)


class CellTracker(Tracker):
    """``cell.cell_contents`` of free variable ``co_freevars[index]``."""

    __slots__ = ("index", "cell_name")

    def __init__(self, index: int, name: str):
        if type(index) is not int or index < 0:
            raise ValueError("CellTracker index must be an int >= 0")
        self.index = index
        self.cell_name = name

    def expr(self, ctx):
        return "%s.cell_contents" % ctx.cell(self.index)

    def name(self):
        return self.cell_name

    def load(self, g, args, cells):
        return cells[self.index].cell_contents

    def load_op(self, prog):
        return ("cell", prog.cell_index(self.index))

    def _key(self):
        return (self.index, self.cell_name)


class AttrTracker(Tracker):
    """``base.attr``: plain attribute syntax when ``attr`` is a plain ASCII
    identifier, otherwise ``getattr(base, k)`` with the name bound."""

    __slots__ = ("base", "attr")

    def __init__(self, base: Tracker, attr: str):
        if not isinstance(base, Tracker):
            raise TypeError("AttrTracker base must be a Tracker")
        if type(attr) is not str:
            raise TypeError("attribute name must be a str")
        self.base = base
        self.attr = attr

    def expr(self, ctx):
        b = ctx.ref(self.base)
        if _is_plain_identifier(self.attr):
            return "%s.%s" % (b, self.attr)
        return "%s(%s, %s)" % (ctx.helper("_getattr", getattr), b, ctx.bind(self.attr))

    def name(self):
        if _is_plain_identifier(self.attr):
            return "%s.%s" % (self.base.name(), self.attr)
        return "getattr(%s, %r)" % (self.base.name(), self.attr)

    def load(self, g, args, cells):
        return getattr(self.base.load(g, args, cells), self.attr)

    def load_op(self, prog):
        return ("attr", prog.reg(self.base), self.attr)

    def _key(self):
        return (self.base, self.attr)


class ItemTracker(Tracker):
    """``base[key]``; ``key`` is a hashable constant, bound as a value
    (an exact int/bool/None key is written as its literal)."""

    __slots__ = ("base", "key")

    def __init__(self, base: Tracker, key: Any):
        if not isinstance(base, Tracker):
            raise TypeError("ItemTracker base must be a Tracker")
        hash(key)  # must be hashable: raises TypeError otherwise
        self.base = base
        self.key = key

    def expr(self, ctx):
        return "%s[%s]" % (ctx.ref(self.base), ctx.const(self.key))

    def name(self):
        return "%s[%s]" % (self.base.name(), _short(self.key, 40))

    def load(self, g, args, cells):
        return self.base.load(g, args, cells)[self.key]

    def load_op(self, prog):
        return ("item", prog.reg(self.base), self.key)

    def _key(self):
        return (self.base, value_key(self.key))


class ConstTracker(Tracker):
    """A constant: loads the bound value itself; needs no guard. A class
    the user's code makes (``weak_class_ref``) is held weakly: the guards
    and loads of an entry do not keep it alive, and once it dies its load
    fails (op ``wconst``), so the entry never holds again."""

    __slots__ = ("_value", "_ref", "_id")

    def __init__(self, value: Any):
        self._ref = weak_class_ref(value)
        self._value = value if self._ref is None else None
        self._id = id(value)

    @property
    def value(self) -> Any:
        return self._value if self._ref is None else self._ref()

    def expr(self, ctx):
        if self._ref is not None:
            return "%s()" % ctx.bind(self._ref)
        return ctx.const(self._value)

    def name(self):
        return _short(self.value)

    def load(self, g, args, cells):
        if self._ref is not None and self._ref() is None:
            raise ReferenceError("the class was collected")
        return self.value

    def needs_guard(self):
        return False

    def load_op(self, prog):
        if self._ref is not None:
            return ("wconst", self._ref)
        return ("const", self._value)

    def _key(self):
        return (("id", self._id),) if self._ref is not None else (value_key(self._value),)
