"""Sets made in the frame, of plain constants (ints, strs, tuples of them...).

`SetVariable` holds a real Python set of those values, so membership, the
operators and iteration order are Python's own. A set that would outlive
the graph is not rebuilt (its iteration order depends on its history, which
a rebuilt set would not share): that region runs natively instead.
"""
from __future__ import annotations

import operator

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from .variables import ConstVariable, Variable

def const(value) -> ConstVariable:
    return ConstVariable(value)


def _plain(items, what: str) -> list:
    from .functional import plain_values  # functional imports dispatch, which imports this module
    return plain_values(list(items), what)


def _python(fn, *values):
    from .dispatch import _python
    return _python(fn, *values)


_OPERATORS = {"or_": operator.or_, "and_": operator.and_, "sub": operator.sub, "xor": operator.xor}


class SetVariable(Variable):
    def __init__(self, values=()):
        super().__init__(None)
        self.values = set(values)

    def python_type(self):
        return set

    def truth(self) -> bool:
        return bool(self.values)

    def describe(self) -> str:
        return f"set of {len(self.values)}"

    @property
    def items(self) -> list[Variable]:
        return [const(v) for v in self.values]


def build(items) -> SetVariable:
    return SetVariable(_plain(items, "a set"))


def add_all(target: SetVariable, items) -> None:
    target.values.update(_plain(items, "a set"))


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
    if fn is None or av is None or bv is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"operator {name} on {a.describe()} and {b.describe()}")
    result = fn(set(av), set(bv))
    if not isinstance(a, SetVariable):   # frozenset op set: a frozenset, as the left operand's type
        return const(frozenset(result))
    if inplace:  # |= and friends update the set itself
        a.values = result
        return a
    return SetVariable(result)


def contains(item: Variable, s: SetVariable) -> bool:
    return _plain([item], "`in` of a set")[0] in s.values


def compare(name: str, a: Variable, b: Variable) -> Variable:
    av, bv = _values(a), _values(b)
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


def method(s: SetVariable, name: str, args, kwargs) -> Variable:
    if kwargs:
        raise FallbackError(UNSUPPORTED_CALL, f"set.{name} with keyword arguments")
    from .dispatch import get_iter
    others = [a if isinstance(a, SetVariable) else build(get_iter(None, a).items) for a in args] \
        if name in ("union", "intersection", "difference", "update", "issubset", "issuperset") else []
    if name in ("add", "discard", "remove"):
        (value,) = _plain(args, f"set.{name}")
        _python(getattr(s.values, name), value)
        return const(None)
    if name == "update":
        for o in others:
            s.values |= o.values
        return const(None)
    if name in ("union", "intersection", "difference"):
        return SetVariable(getattr(s.values, name)(*[o.values for o in others]))
    if name in ("issubset", "issuperset"):
        return const(getattr(s.values, name)(others[0].values))
    if name == "copy":
        return SetVariable(s.values)
    raise FallbackError(UNSUPPORTED_CALL, f"set.{name} is not modelled")


METHODS = {"add", "discard", "remove", "update", "union", "intersection", "difference", "issubset",
           "issuperset", "copy"}
