"""`match` statements: MATCH_SEQUENCE, MATCH_MAPPING, GET_LEN, MATCH_KEYS,
MATCH_CLASS and 3.10's COPY_DICT_WITHOUT_KEYS, decided as CPython's ceval
decides them (Python/ceval.c match_keys / match_class).

Sequence and mapping patterns ask the subject's *type flags*
(Py_TPFLAGS_SEQUENCE / MAPPING), never isinstance(): an ndarray, a str, a
dict view are not sequences to `match`. The type is what the subject's
Variable is guarded on. Anything where eager would raise (a bad
__match_args__, duplicate keys or attributes) or where reading an attribute
may fail in user code runs natively instead. The per-version stack shapes
are one fact in opcode_table (FACTS.match_pushes_bool).
"""
from __future__ import annotations

import inspect

from ...breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ...guards.invariants import ClassUnchangedGuard
from ...guards.tracker import AttrTracker, ConstTracker
from .. import attr_presence, calls, dispatch, pyidentity
from ..dispatch import const
from ..function_graph import is_user_class
from ..opcode_table import FACTS
from ..signals import RaiseSignal
from ..variables import ConstVariable, DictVariable, TupleVariable, Variable
from ._registry import handler
from .operators import dict_key

_TPFLAGS_SEQUENCE = 1 << 5
_TPFLAGS_MAPPING = 1 << 6
_TPFLAGS_MATCH_SELF = 1 << 22      # int(x), str(x), ...: the subject itself is the one positional
_TPFLAGS_HEAPTYPE = 1 << 9
_MISSING = object()


def _flag(v: Variable, flag: int) -> bool:
    return bool(v.python_type().__flags__ & flag)


@handler("MATCH_SEQUENCE")
def match_sequence(ex, instr):
    ex.push(const(_flag(ex.peek(), _TPFLAGS_SEQUENCE)))


@handler("MATCH_MAPPING")
def match_mapping(ex, instr):
    ex.push(const(_flag(ex.peek(), _TPFLAGS_MAPPING)))


@handler("GET_LEN")
def get_len(ex, instr):
    ex.push(calls.b_len(ex, ex.peek()))


def _plain_dict(subject: Variable, what: str) -> DictVariable:
    """A subject whose `.get` is dict.get (no __missing__, no user code)."""
    if not isinstance(subject, DictVariable) or getattr(subject.python_type(), "get", None) is not dict.get:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{what} on {subject.describe()}")
    return subject


def _keys(keys: Variable) -> list:
    if not isinstance(keys, TupleVariable) or not all(isinstance(k, ConstVariable) for k in keys.items):
        raise FallbackError(UNSUPPORTED_OBJECT, "a mapping pattern whose keys are not constants")
    values = [dict_key(k) for k in keys.items]
    if any(pyidentity.identity_decides(k) for k in values):
        raise FallbackError(UNSUPPORTED_OBJECT, "a mapping pattern with a NaN key depends on object identity")
    if len(set(values)) != len(values):
        raise FallbackError(UNSUPPORTED_OBJECT, "a mapping pattern checks a key twice (eager raises ValueError)")
    return values


@handler("MATCH_KEYS")
def match_keys(ex, instr):
    keys = _keys(ex.peek())
    subject = _plain_dict(ex.peek(2), "a mapping pattern")
    found = [subject.entries[k] for k in keys if k in subject.entries]
    result = TupleVariable(found) if len(found) == len(keys) else const(None)
    ex.push(result)
    if FACTS.match_pushes_bool:
        ex.push(const(len(found) == len(keys)))


@handler("COPY_DICT_WITHOUT_KEYS")
def copy_dict_without_keys(ex, instr):
    keys = _keys(ex.pop())
    subject = _plain_dict(ex.peek(), "`**rest` in a mapping pattern")
    ex.push(DictVariable({k: v for k, v in subject.entries.items() if k not in keys}))


@handler("MATCH_CLASS")
def match_class(ex, instr):
    names = ex.pop()
    cls_var = ex.pop()
    subject = ex.peek() if FACTS.match_pushes_bool else ex.pop()
    attrs = _match_class(ex, subject, cls_var, instr.arg, names)
    if not FACTS.match_pushes_bool:
        ex.push(const(None) if attrs is None else attrs)
        return
    if attrs is not None:
        ex.pop()
        ex.push(attrs)
    ex.push(const(attrs is not None))


def _match_class(ex, subject: Variable, cls_var: Variable, count: int, names: Variable):
    """The tuple of extracted attributes, or None: CPython's match_class."""
    cls = getattr(cls_var, "value", None)
    if not isinstance(cls, type):
        raise FallbackError(UNSUPPORTED_OBJECT, "a class pattern on something not a class (eager raises TypeError)")
    if not calls.b_isinstance(ex, subject, cls_var).value:
        return None
    if not isinstance(names, TupleVariable) or not all(
            isinstance(n, ConstVariable) and type(n.value) is str for n in names.items):
        raise FallbackError(UNSUPPORTED_OBJECT, "class pattern keywords that are not constants")
    wanted = _positional_names(ex, cls_var, cls, count) + [n.value for n in names.items]
    named = [n for n in wanted if n is not None]
    if len(set(named)) != len(named):
        raise FallbackError(UNSUPPORTED_OBJECT, "a class pattern reads an attribute twice (eager raises TypeError)")
    items = []
    for name in wanted:
        if name is None:   # a MATCH_SELF class: the subject itself
            items.append(subject)
            continue
        attr = _attribute(ex, subject, name)
        if attr is None:
            return None
        items.append(attr)
    return TupleVariable(items)


def _positional_names(ex, cls_var: Variable, cls: type, count: int) -> list:
    """Attribute names of the `count` positional sub-patterns (None: the subject)."""
    if not count:
        return []
    if inspect.getattr_static(cls, "__match_args__", _MISSING) is _MISSING:
        if cls.__flags__ & _TPFLAGS_HEAPTYPE:
            ex.graph.add_guard(ClassUnchangedGuard(cls))   # no __match_args__ is added later
        if cls.__flags__ & _TPFLAGS_MATCH_SELF and count == 1:
            return [None]
        raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__name__}() takes no positional sub-patterns "
                            "(eager raises TypeError)")
    args = _match_args(ex, cls_var, cls)
    if not (isinstance(args, TupleVariable) and args.python_type() is tuple and all(
            isinstance(a, ConstVariable) and type(a.value) is str for a in args.items)):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__name__}.__match_args__ is not a tuple of str")
    if count > len(args.items):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__name__}() accepts {len(args.items)} positional "
                            f"sub-patterns ({count} given; eager raises TypeError)")
    return [a.value for a in args.items[:count]]


def _match_args(ex, cls_var: Variable, cls: type) -> Variable:
    """`cls.__match_args__`, guarded. A class deriving from a builtin (a
    namedtuple) is no user class to dispatch; its plain class-dict value is
    read under a guard on that attribute (the metaclass must be `type`)."""
    if is_user_class(cls) or type(cls) is not type:
        return dispatch.getattr_(ex, cls_var, "__match_args__")
    value = next(k.__dict__["__match_args__"] for k in cls.__mro__ if "__match_args__" in k.__dict__)
    if not cls.__flags__ & _TPFLAGS_HEAPTYPE:
        return const(value)
    return ex.graph.wrap(value, AttrTracker(getattr(cls_var, "tracker", None) or ConstTracker(cls), "__match_args__"))


def _attribute(ex, subject: Variable, name: str):
    """`subject.name`, or None where eager's lookup raises AttributeError."""
    if attr_presence.is_missing(ex, subject, name):
        return None
    try:
        return dispatch.getattr_(ex, subject, name)
    except RaiseSignal:   # the lookup raised in the trace (eager's match would catch an AttributeError)
        raise FallbackError(UNSUPPORTED_OBJECT, f"a class pattern's attribute {name!r} raised") from None
