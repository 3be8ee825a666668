"""Operators on objects of user classes: `a + b`, `a += b`, `-a`, `a < b`,
`a == b`, inlined as the dunder methods CPython's abstract.c calls.

Binary: the right operand's reflected method goes first when its class is a
proper subclass of the left's that overrides it; then `a.__op__(b)`, then
`b.__rop__(a)` (not for two objects of one class); a NotImplemented moves
on. In-place: `a.__iop__(b)` first. Comparisons: the reflected partner of
`<` is `>` (`==`'s is `==`); when every method declines, `==` and `!=`
compare identity. Only methods that are plain Python functions found on the
*type* are inlined (an instance attribute is never asked, as in CPython);
each class involved is guarded unchanged, so a method added or rebound
later retranslates. Where every method declines and eager raises
TypeError, or an operand is an array (NumPy decides), the frame runs natively.
"""
from __future__ import annotations

import types

from ..breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from ..guards.invariants import ClassUnchangedGuard
from ..guards.tracker import AttrTracker, ConstTracker
from . import pyidentity
from .classes import NewObjectVariable
from .function_graph import is_user_class
from .variables import (BoundMethodVariable, ConstVariable, DictVariable, ListVariable, ObjectVariable, SymScalarVariable,
                        TensorVariable, TupleVariable, Variable)

_CONTAINERS = (ListVariable, TupleVariable, DictVariable)
_REFLECTED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def user_class(v: Variable) -> type | None:
    """The class of a user object whose dunders are inlined, or None."""
    if isinstance(v, NewObjectVariable):
        cls = v.cls
    elif isinstance(v, ObjectVariable):
        cls = type(v.value)
    else:
        return None
    return cls if is_user_class(cls) else None


def _lookup(cls: type, name: str):
    """(attribute, defining class) of `name` through cls's MRO, or (None, None)."""
    owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
    return (None, None) if owner is None else (owner.__dict__[name], owner)


def _invoke(ex, cls: type | None, name: str, self_var: Variable, other: Variable | None) -> Variable | None:
    """`type(self).name(self, other)` inlined; None where it is absent or
    returns NotImplemented. object's own defaults: `__eq__` declines (the
    identity fallback answers), `__ne__` inverts `__eq__`, the orderings decline."""
    if cls is None:
        return None
    attr, owner = _lookup(cls, name)
    if owner is object:
        if name != "__ne__":
            return None
        eq = _invoke(ex, cls, "__eq__", self_var, other)
        return None if eq is None else ConstVariable(not eq.truth())
    if attr is None:
        return None
    if not isinstance(attr, types.FunctionType):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{cls.__qualname__}.{name} is not a plain function")
    fn_var = ex.graph.wrap(attr, AttrTracker(ConstTracker(cls), name))
    result = ex.call_function(BoundMethodVariable(fn_var, self_var), [] if other is None else [other], {})
    return None if getattr(result, "value", None) is NotImplemented else result


def _involved(ex, a: Variable, b: Variable | None) -> tuple | None:
    """(class of a, class of b) where a user object is involved and the
    other operand is no array, else None (not this module's case)."""
    ca, cb = user_class(a), user_class(b) if b is not None else None
    if ca is None and cb is None:
        return None
    for v, c in ((a, ca), (b, cb)):
        if v is not None and c is None and isinstance(v, (TensorVariable, SymScalarVariable)):
            if v is a or ca is None:   # the array's own operator decides (NumPy's deferral rules)
                raise FallbackError(UNSUPPORTED_OBJECT, f"an operator between {a.describe()} and "
                                    f"{b.describe() if b is not None else ''} decided by NumPy")
    for c in {ca, cb} - {None}:
        ex.graph.add_guard(ClassUnchangedGuard(c))   # no dunder added, removed or rebound later
    return ca, cb


def _reflected_first(ca, cb, rname: str, comparison: bool) -> bool:
    """CPython tries the right operand first when its class is a proper
    subclass of the left's (for arithmetic: one overriding the reflected method)."""
    return cb is not None and ca is not None and cb is not ca and issubclass(cb, ca) and \
        (comparison or _lookup(cb, rname)[0] is not _lookup(ca, rname)[0])


def binary(ex, name: str, a: Variable, b: Variable) -> Variable | None:
    """`a op b` (`name`: operator-module name, "iadd" for in-place), or None
    when no user object is involved."""
    classes = _involved(ex, a, b)
    if classes is None:
        return None
    ca, cb = classes
    inplace = name.startswith("i") and name != "is_"
    base = (name[1:] if inplace else name).rstrip("_")
    if inplace:
        result = _invoke(ex, ca, f"__i{base}__", a, b)
        if result is not None:
            return result
    op, rop = f"__{base}__", f"__r{base}__"
    result = _dispatch(ex, a, b, ca, cb, op, rop, allow_same_class_reflection=False)
    if result is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"operator {name} of {a.describe()} and {b.describe()}: "
                            "every method declines (eager raises TypeError)")
    return result


def _dispatch(ex, a, b, ca, cb, op: str, rop: str, allow_same_class_reflection: bool):
    """CPython's slot_nb_* / do_richcompare order; None when all decline.
    `allow_same_class_reflection`: a comparison (its reflection is also
    asked of an object of the same class)."""
    tried_reflected = _reflected_first(ca, cb, rop, comparison=allow_same_class_reflection)
    if tried_reflected and (result := _invoke(ex, cb, rop, b, a)) is not None:
        return result
    if ca is None and (not isinstance(a, ConstVariable) or type(a.value) not in _PLAIN or
                       op == "__mod__" and type(a.value) in (str, bytes)):   # "%s" % obj formats
        raise FallbackError(UNSUPPORTED_OBJECT, f"the operator of {a.describe()} with a user object is not modelled")
    if (result := _invoke(ex, ca, op, a, b)) is not None:
        return result
    if not tried_reflected and (cb is not ca or allow_same_class_reflection):
        return _invoke(ex, cb, rop, b, a)
    return None


def _plain_sequences(a: Variable, b: Variable) -> bool:
    """Two modelled lists or two tuples (exact types) holding something other
    than constants (those dispatch compares in Python)."""
    return type(a) is type(b) and type(a) in (ListVariable, TupleVariable) and \
        a.python_type() is b.python_type() and a.python_type() in (list, tuple) and \
        not all(isinstance(v, ConstVariable) for v in a.items + b.items)


def _sequences_equal(ex, a: Variable, b: Variable) -> bool:
    """list/tuple `==`: lengths, then each pair by PyObject_RichCompareBool
    (identity first, then `==` and its truth)."""
    from . import user_protocols
    from .dispatch import compare_op
    if len(a.items) != len(b.items):
        return False
    for x, y in zip(a.items, b.items):
        if isinstance(x, ConstVariable) and isinstance(y, ConstVariable):
            if pyidentity.items_equal(x, y):   # breaks where identity decides (NaN)
                continue
            return False
        if x is y or _identical(ex, x, y):
            continue
        result = compare(ex, "eq", x, y)
        if result is None:
            result = compare_op(ex.graph, "eq", x, y)
        if not user_protocols.truth(ex, result):
            return False
    return True


def _identical(ex, x: Variable, y: Variable) -> bool:
    """`x is y` for the identity shortcut. Where it is unknown for two
    modelled containers, False is as good: `==` of one container with itself
    is True item by item (each item pair is one Variable)."""
    from .dispatch import is_op
    try:
        return is_op(x, y, ex.graph)
    except FallbackError:
        if isinstance(x, _CONTAINERS) and isinstance(y, _CONTAINERS):
            return False
        raise


# builtin values whose own operators decline (return NotImplemented) for a user object
_PLAIN = (int, float, complex, bool, str, bytes, type(None))


def unary(ex, name: str, a: Variable) -> Variable | None:
    if name == "not_" or _involved(ex, a, None) is None:
        return None
    if _lookup(user_class(a), f"__{name}__")[0] is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"unary {name} of {a.describe()} (eager raises TypeError)")
    result = _invoke(ex, user_class(a), f"__{name}__", a, None)
    if result is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"unary {name} of {a.describe()} returned NotImplemented")
    return result



def compare(ex, name: str, a: Variable, b: Variable) -> Variable | None:
    if name in ("eq", "ne") and _plain_sequences(a, b):
        return ConstVariable(_sequences_equal(ex, a, b) == (name == "eq"))
    classes = _involved(ex, a, b)
    if classes is None:
        return None
    ca, cb = classes
    result = _dispatch(ex, a, b, ca, cb, f"__{name}__", f"__{_REFLECTED[name]}__", allow_same_class_reflection=True)
    if result is not None:
        return result
    if name in ("eq", "ne"):   # both decline: identity
        from .dispatch import is_op   # dispatch asks this module for `obj.__class__`
        return ConstVariable(is_op(a, b, ex.graph) == (name == "eq"))
    raise FallbackError(UNSUPPORTED_OBJECT, f"comparison {name} of {a.describe()} and {b.describe()}: "
                        "every method declines (eager raises TypeError)")
