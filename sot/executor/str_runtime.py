"""Operations on a passed-through str, replayed when the call runs.

A str that changes on every call and is *used* (``name.lower()``,
``f"{prefix}/{name}"``, ``len(tag)``) needed its value: the trace was redone
with it value-guarded (str_data.specialise_at), one translation per string
up to the cache limit.  As for numbers read from array data
(ir/data_numbers.py), the result is known only when the call runs: it is
another `PassStrVariable` whose tracker (`StrOpTracker`) computes it from
its operands' trackers in the generated code, before the graph runs, so it
is eager's own result.  Only operations whose result is an exact str for
every exact-str operand, and that raise for none (their errors depend on
the constant arguments' types only, and the trace-time call succeeded):
the str methods in `STR_METHODS`, ``+``, f-string pieces, ``sep.join`` of
a list or tuple of strs, ``template.format(...)`` and ``template % s`` of a
constant template that reads its arguments as whole values (no
``{0[1]}``, ``%c``).  ``len(s)`` is a Python-number graph input
(list_data.LenTracker).  A dict key computed from one such str is
recomputed from it by the guards (`key_reader`, dict_runtime_reads.py).

Everything else (``==``, ``in``, ``startswith``, a branch, ``split``, a
NumPy argument, ``getattr(obj, s)``) still needs the value and is
specialised as before: the failing instruction's operands are
`PassStrVariable`s, whose `sources` (the strs they were computed from) are
value-guarded on the redo (str_data.specialise_at).  So is ``len(s)`` once
a trace needed its value.
"""
from __future__ import annotations

import operator
import re

from ..breaks.reasons import DATA_DEPENDENT, FallbackError
from ..guards.tracker import Tracker, _short
from .list_data import LenTracker
from .str_data import PassStrVariable, guardable
from .variables import ConstVariable, ListVariable, TupleVariable

NO = NotImplemented   # not an operation of this module: the generic path decides

#: methods of str giving an exact str for an exact-str receiver, whose only
#: errors are about their arguments' types or count (checked by the trace's call)
STR_METHODS = frozenset((
    "lower", "upper", "casefold", "title", "capitalize", "swapcase", "strip", "lstrip", "rstrip",
    "replace", "removeprefix", "removesuffix", "expandtabs", "zfill", "center", "ljust", "rjust",
))

#: argument types a method may take as constants (their repr is bound, never spliced)
_CONST_TYPES = (str, int, type(None))


def _concat(*parts):
    return "".join(parts)


def _join(sep, *parts):
    return sep.join(parts)


def _format(template, names, *values):
    """``template.format(*positional, **dict(zip(names, keyword values)))``."""
    n = len(values) - len(names)
    return template.format(*values[:n], **dict(zip(names, values[n:])))


def _plain_template(template: str) -> bool:
    """Whether ``template.format`` reads its arguments only as whole values
    with constant specs: no ``{0[1]}`` / ``{0.attr}`` (an index into a str
    fails for some values) and no nested ``{:{w}}`` spec."""
    import string
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return False
    return all(f is None or ("[" not in f and "." not in f and "{" not in (spec or ""))
               for _, f, spec, _ in fields)


#: ``%c`` takes a str of length 1 only; ``%(key)s`` a mapping: their errors depend on the value
_VALUE_CONVERSIONS = re.compile(r"%[-#0 +*.\d]*c|%\(")


class StrOpTracker(Tracker):
    """``fn(*parts)``: each part a Tracker (a str the trace passes on) or a
    constant (bound).  Never guarded: its type is str whenever its operands'
    types are the guarded ones.  `base` is the first tracker part (for
    `root()`); `roots()` gives every part's root (the cells the loader needs)."""

    __slots__ = ("fn", "parts", "label", "base")

    def __init__(self, fn, parts: tuple, label: str):
        self.fn, self.parts, self.label = fn, parts, label
        self.base = next(p for p in parts if isinstance(p, Tracker))

    def expr(self, ctx):
        args = ", ".join(ctx.ref(p) if isinstance(p, Tracker) else ctx.const(p) for p in self.parts)
        return "%s(%s)" % (ctx.bind(self.fn), args)

    def name(self):
        return "%s(%s)" % (self.label, ", ".join(p.name() if isinstance(p, Tracker) else _short(p, 20)
                                                 for p in self.parts))

    def load(self, g, args, cells):
        return self.fn(*(p.load(g, args, cells) if isinstance(p, Tracker) else p for p in self.parts))

    def needs_guard(self):
        return False

    def roots(self) -> tuple:
        return tuple(r for p in self.parts if isinstance(p, Tracker) for r in _roots(p))

    def _key(self):
        return (self.fn, tuple((type(p), p) for p in self.parts))


class StrLenTracker(LenTracker):
    """``len(s)`` of a str computed when the call runs: the loader needs every root."""

    __slots__ = ()

    def roots(self) -> tuple:
        return _roots(self.base)


class _KeyFrom:
    """The value of a StrOpTracker with one tracker part, from that part's
    source str (`key_reader`): pure str operations, no user code."""

    __slots__ = ("tracker", "part", "inner")

    def __init__(self, tracker, part, inner):
        self.tracker, self.part, self.inner = tracker, part, inner

    def __call__(self, v):
        w = v if self.inner is None else self.inner(v)
        return self.tracker.fn(*(w if p is self.part else p for p in self.tracker.parts))


def key_reader(tracker):
    """``(t, fn)``: a tracker guards can read (its type guarded: an exact
    str or int) and ``fn`` (None: identity) giving `tracker`'s value from
    it; None where there is none (a str computed from two strs, a value
    read from a dict when the call runs)."""
    if guardable(tracker):
        return tracker, None
    if type(tracker) is not StrOpTracker:
        return None
    parts = {p for p in tracker.parts if isinstance(p, Tracker)}
    if len(parts) != 1:
        return None
    part = parts.pop()
    inner = key_reader(part)
    if inner is None:
        return None
    return inner[0], _KeyFrom(tracker, next(p for p in tracker.parts if p == part), inner[1])


def _roots(tracker) -> tuple:
    roots = getattr(tracker, "roots", None)
    return roots() if roots is not None else (tracker.root(),)


def sources(var) -> tuple:
    """The trackers of the strs from outside that `var` was computed from."""
    return getattr(var, "sources", None) or (var.tracker,)


def _result(fn, label: str, operands: list):
    """The PassStrVariable of ``fn(*operands)`` (each a PassStrVariable or a
    constant), or NO where the trace-time call fails (the generic path then
    specialises, and eager's error is raised by the redone trace)."""
    values = [v.value for v in operands]
    try:
        value = fn(*values)
    except Exception:   # noqa: BLE001 - an error eager raises: left to the specialised trace
        return NO
    if type(value) is not str:
        return NO
    parts = tuple(v.tracker if type(v) is PassStrVariable else v.value for v in operands)
    from . import local_classes
    if any(isinstance(p, Tracker) and any(local_classes.rooted_in_trace_class(r) for r in _roots(p)) for p in parts):
        return NO   # (a class made in the trace: check_tracker looks at `base` only)
    var = PassStrVariable(value, StrOpTracker(fn, parts, label))
    var.sources = tuple(dict.fromkeys(s for v in operands if type(v) is PassStrVariable for s in sources(v)))
    return var


def _operand(v) -> bool:
    return type(v) is PassStrVariable or (isinstance(v, ConstVariable) and type(v.value) in _CONST_TYPES)


def _is_str(v) -> bool:
    return type(v) is PassStrVariable or (isinstance(v, ConstVariable) and type(v.value) is str)


# -- the hooks PassStrVariable answers (variables/modelled.py) ----------------------------

def attribute(graph, obj, name: str):
    if name in STR_METHODS or name == "join":
        from .variables import BuiltinMethodVariable
        return BuiltinMethodVariable(obj, name)
    return NO


def method(graph, obj, name: str, args, kwargs):
    if name == "join" and len(args) == 1 and not kwargs:
        return join(obj, args[0])
    if name not in STR_METHODS or kwargs or not all(_operand(a) for a in args):
        return NO
    return _result(getattr(str, name), f"str.{name}", [obj] + list(args))


def binary(graph, obj, name: str, other, left: bool):
    if name == "mod" and not left and isinstance(other, ConstVariable) and type(other.value) is str \
            and not _VALUE_CONVERSIONS.search(other.value):   # "%s.w" % name
        return _result(operator.mod, "mod", [other, obj])
    if name not in ("add", "iadd") or not _is_str(other):
        return NO
    return _result(operator.add, "add", [obj, other] if left else [other, obj])


def length(graph, obj):
    """``len(s)``: a Python-number graph input, computed when the call runs."""
    tracker = StrLenTracker(obj.tracker)
    if graph.numbers is None or graph.numbers.needs_value(tracker):
        raise FallbackError(DATA_DEPENDENT, f"len({obj.tracker.name()}) is needed as a value")
    n = graph._memo.get(tracker)
    if n is None:
        n = graph._memo[tracker] = graph._number_input(len(obj.value), tracker, guard=False)
    return n


# -- formatting and joining (handlers/operators.py, calls.py) --------------------------------

def formatted(value, conversion, spec):
    """An f-string piece of a PassStrVariable: ``conversion`` None, str, repr
    or ascii; `spec` a Variable."""
    if not (isinstance(spec, ConstVariable) and type(spec.value) is str):
        return NO
    if conversion not in (None, str):
        value = _result(conversion, conversion.__name__, [value])
        if value is NO:
            return NO
    if not spec.value:
        return value   # format(s, "") of an exact str is s itself
    return _result(format, "format", [value, spec])


def concat(parts: list):
    """BUILD_STRING of constants and PassStrVariables."""
    if not all(_is_str(p) for p in parts):
        return NO
    return _result(_concat, "concat", parts)


def const_method(template, name: str, args, kwargs):
    """``sep.join(strs)`` / ``template.format(...)`` of a constant str with a PassStrVariable among the arguments."""
    if name == "join" and len(args) == 1 and not kwargs:
        return join(template, args[0])
    if name == "format":
        return format_template(template, args, kwargs)
    return NO


def format_template(template, args, kwargs):
    """``template.format(...)`` of a constant template with a
    PassStrVariable among the arguments (the rest constants)."""
    values = list(args) + list(kwargs.values())
    if not any(type(v) is PassStrVariable for v in values) or not _plain_template(template.value) or \
            not all(_operand(v) or (isinstance(v, ConstVariable) and type(v.value) is float) for v in values):
        return NO
    names = ConstVariable(tuple(kwargs), None)
    return _result(_format, "str.format", [template, names] + values)


def join(sep, items):
    """``sep.join(items)``: `sep` a str, `items` a list or tuple of strs, one a PassStrVariable."""
    if not isinstance(items, (ListVariable, TupleVariable)) or items.python_type() not in (list, tuple):
        return NO
    if not _is_str(sep) or not all(_is_str(p) for p in items.items) or \
            not any(type(v) is PassStrVariable for v in [sep] + list(items.items)):
        return NO
    return _result(_join, "join", [sep] + list(items.items))
