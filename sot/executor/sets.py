"""Sets made in the frame, of plain constants (ints, strs, tuples of them...).

`SetVariable` holds a real Python set of those values, so membership, the
operators and iteration order are Python's own. A set that would outlive
the graph is rebuilt only while its history is known to be eager's: made
empty (or from items added one at a time) and only ever added to, it is
made again by the same adds in the same order, so its hash table, and with
it its iteration order, is eager's. Any other set (removals, operators,
made from a set or dict, holding a NaN) is not rebuilt: that region runs
natively instead.
"""
from __future__ import annotations

import operator

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from .variables import ConstVariable, Variable

def const(value) -> ConstVariable:
    return ConstVariable(value)


def _plain(items, what: str, members=(), graph=None) -> list:
    """The set members standing for `items` (an object made in the trace,
    or its id(), as an IdKey), checked against the set's `members`;
    `graph` records the guards an object's member key needs."""
    from .functional import plain_values  # functional imports dispatch, which imports this module
    from .identities import check_kinds, member_key   # here: identities imports classes (an import cycle)
    items = list(items)
    keys = [member_key(v, graph) for v in items]
    values = [k if k is not None else plain_values([v], what)[0] for v, k in zip(items, keys)]
    check_kinds(members, values)
    return values


def _python(fn, *values):
    from .dispatch import _python
    return _python(fn, *values)


_OPERATORS = {"or_": operator.or_, "and_": operator.and_, "sub": operator.sub, "xor": operator.xor}


class SetVariable(Variable):
    def __init__(self, values=(), history=None):
        super().__init__(None)
        # the set itself, made by the operations eager makes (a copy would
        # lay out its table anew: another iteration order)
        self.values = values if type(values) is set else set(values)
        # what eager did to the set since it was empty, in order: values
        # added, or (_MERGED, a frozenset constant of the code) merged in; None: not known
        self.history = history

    def rebuild(self, builder) -> str:
        """The set made again by eager's adds (see the module docstring)."""
        if self.history is None or _has_nan(tuple(self.values)):
            raise FallbackError(UNSUPPORTED_OBJECT, f"{self.describe()} created during the trace cannot be rebuilt")
        from .identities import IdKey
        history = "".join((builder.expr(v.var) if type(v) is IdKey else builder._bind(v)) + ", " for v in self.history)
        return f"{builder._bind(_replayed)}(({history}))"

    def python_type(self):
        return set

    def truth(self) -> bool:
        return bool(self.values)

    def describe(self) -> str:
        return f"set of {len(self.values)}"

    @property
    def items(self) -> list[Variable]:
        from .identities import check_unordered
        check_unordered(self.values, "iteration")
        return [const(v) for v in self.values]


class _Merged(tuple):
    """A history entry: a frozenset merged in (SET_UPDATE of a constant)."""


def _replayed(history):
    s = set()
    for v in history:
        if type(v) is _Merged:
            s.update(v[0])
        else:
            s.add(v)
    return s


def _has_nan(v) -> bool:
    """A NaN hashes by identity: a rebuilt one would land elsewhere in the table."""
    if isinstance(v, float):
        return v != v
    if isinstance(v, (tuple, frozenset)):
        return any(_has_nan(x) for x in v)
    return isinstance(v, complex) and v != v


def build(items, one_at_a_time: bool = True, graph=None) -> SetVariable:
    """A set of `items`; `one_at_a_time`: eager adds them one by one (not
    set(a_set) or set(a_dict), which size the table first)."""
    values = _plain(items, "a set", graph=graph)
    return SetVariable(values, list(values) if one_at_a_time else None)


def add_all(target: SetVariable, items, one_at_a_time: bool = True, source: Variable | None = None,
            graph=None) -> None:
    values = _plain(items, "a set", target.values, graph)
    whole = _whole(source, values) if source is not None else None
    target.values.update(values if whole is None else whole)
    if target.history is None:
        return
    if one_at_a_time:
        target.history.extend(values)
    elif isinstance(source, ConstVariable) and source.tracker is None and type(source.value) is frozenset:
        target.history.append(_Merged((source.value,)))   # `{1, 2, 3}`: the code's own constant, merged
    else:
        target.history = None


def _whole(source: Variable, values: list):
    """What `set.update(source)` merges as a whole, as eager's update sees
    it (a set, frozenset or dict: its table is sized first and, for a set,
    copied slot by slot); None for an iterable added one item at a time."""
    real = _values(source)
    if real is not None:
        return real
    try:
        t = source.python_type()
    except FallbackError:
        return None
    return dict.fromkeys(values) if t is dict else None   # the keys, in order, with their hashes


def operand(source: Variable, what: str, graph=None):
    """`source` as eager's set operation iterates it: a set's own table, a
    dict's keys, or the list of the items of another iterable."""
    from .dispatch import get_iter
    real = _values(source)
    if real is not None:
        return real
    values = _plain(get_iter(graph, source).items, what, graph=graph)
    whole = _whole(source, values)
    return values if whole is None else whole


def one_at_a_time(source: Variable) -> bool:
    """Whether set.update(source) / set(source) adds source's items one by one."""
    try:
        return source.python_type() not in (set, frozenset, dict)
    except FallbackError:
        return False


def _check_kinds(a, b) -> None:
    from .identities import check_kinds   # here: identities imports classes (an import cycle)
    check_kinds(a, b)


def _values(v: Variable):
    """The members of a set, or of a frozenset constant (None for anything else)."""
    if isinstance(v, SetVariable):
        return v.values
    if isinstance(v, ConstVariable) and type(v.value) is frozenset:
        return v.value
    return None


def binary(name: str, a: Variable, b: Variable) -> Variable:
    inplace = name in ("ior", "iand", "isub", "ixor")
    base = {"ior": "or_", "iand": "and_", "isub": "sub", "ixor": "xor"}.get(name, name)
    fn = _OPERATORS.get(base)
    av, bv = _values(a), _values(b)
    if av is not None and bv is not None:
        _check_kinds(av, bv)
    if fn is None or av is None or bv is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"operator {name} on {a.describe()} and {b.describe()}")
    if inplace and isinstance(a, SetVariable):  # |= and friends update the set itself
        _python(getattr(operator, name), av, bv)
        a.history = None
        return a
    result = _python(fn, av, bv)   # on the sets themselves: eager's table, so eager's order
    if type(result) is frozenset:   # frozenset op set: a frozenset, as the left operand's type
        return const(result)
    return SetVariable(result)


def contains(item: Variable, s: SetVariable, graph=None) -> bool:
    return _plain([item], "`in` of a set", s.values, graph)[0] in s.values


def compare(name: str, a: Variable, b: Variable) -> Variable:
    av, bv = _values(a), _values(b)
    if av is not None and bv is not None:
        _check_kinds(av, bv)
    if av is None or bv is None:
        other = b if av is not None else a
        if name in ("eq", "ne") and not _set_like(other):
            return const(name == "ne")   # a set equals only a set, frozenset or set-like view
        return _bad(a, b)
    return const(_python(getattr(operator, name), set(av), set(bv)))


def _set_like(v: Variable) -> bool:
    """Whether `v` may compare equal to a set (a set-like type, or one not known)."""
    try:
        t = v.python_type()
    except FallbackError:
        return True
    return t in (set, frozenset) or t in (type({}.keys()), type({}.items())) or \
        not (t in (int, float, complex, str, bytes, bool, type(None), tuple, list, dict))


def _bad(a, b):
    raise FallbackError(UNSUPPORTED_OBJECT, f"comparison of {a.describe()} and {b.describe()}")


def method(s: SetVariable, name: str, args, kwargs, graph=None) -> Variable:
    if kwargs:
        raise FallbackError(UNSUPPORTED_CALL, f"set.{name} with keyword arguments")
    others = [operand(a, f"set.{name}", graph) for a in args] if name in _TAKES_ITERABLES else []
    for o in others:
        _check_kinds(s.values, o)
    if name in ("add", "discard", "remove"):
        (value,) = _plain(args, f"set.{name}", s.values, graph)
        _python(getattr(s.values, name), value)
        if name == "add" and s.history is not None:
            s.history.append(value)
        else:
            s.history = None
        return const(None)
    if name in ("update", "difference_update", "intersection_update", "symmetric_difference_update"):
        _python(getattr(s.values, name), *others)
        if name == "update" and s.history is not None and all(type(o) is list for o in others):
            s.history.extend(v for o in others for v in o)   # added one at a time
        else:
            s.history = None
        return const(None)
    if name in ("union", "intersection", "difference", "symmetric_difference"):
        return SetVariable(_python(getattr(s.values, name), *others))
    if name in ("issubset", "issuperset", "isdisjoint"):
        return const(_python(getattr(s.values, name), *others))
    if name == "copy":
        return SetVariable(s.values.copy())
    raise FallbackError(UNSUPPORTED_CALL, f"set.{name} is not modelled")


#: the methods whose arguments are iterables of members
_TAKES_ITERABLES = frozenset({"union", "intersection", "difference", "symmetric_difference", "update",
                              "difference_update", "intersection_update", "symmetric_difference_update",
                              "issubset", "issuperset", "isdisjoint"})
METHODS = _TAKES_ITERABLES | {"add", "discard", "remove", "copy"}
