"""operator.itemgetter/attrgetter/methodcaller objects, operator.index,
functools.cmp_to_key, math.prod/fsum over sequences, dict.fromkeys and
itertools.chain.from_iterable in a traced frame.

The callables made during the trace are Variables that apply their
operation through dispatch when called (so a getter over an array records
a graph op); one that outlives the trace is rebuilt from its arguments.
"""
from __future__ import annotations

import functools
import itertools
import math
import operator

from ..breaks.reasons import DATA_DEPENDENT, UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from .variables import (
    BuiltinVariable, ConstVariable, DictVariable, LazyIteratorVariable, ListVariable, SymScalarVariable,
    TensorVariable, TupleVariable, Variable,
)
from .variables.modelled import ModelledObject


def _dispatch():
    from . import dispatch
    return dispatch


def const(value) -> ConstVariable:
    return ConstVariable(value)


class _Made(Variable, ModelledObject):
    """A callable made by calling `cls` with `args`/`kwargs` (Variables)."""

    cls: type = object

    def __init__(self, args: list, kwargs: dict | None = None):
        super().__init__(None)
        self.args, self.kwargs = list(args), dict(kwargs or {})

    def python_type(self):
        return self.cls

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return self.cls.__name__

    def rebuild(self, builder) -> str:
        args = "".join(builder.expr(a) + ", " for a in self.args)
        kwargs = "".join(f"{k}={builder.expr(v)}, " for k, v in self.kwargs.items())
        return f"{builder._bind(self.cls)}({args}{kwargs})"


class ItemGetterVariable(_Made):
    cls = operator.itemgetter

    def call(self, executor, args, kwargs):
        if len(args) != 1 or kwargs:
            return NotImplemented
        got = [_dispatch().getitem(executor.graph, args[0], k) for k in self.args]
        return got[0] if len(got) == 1 else TupleVariable(got)


class AttrGetterVariable(_Made):
    cls = operator.attrgetter

    def call(self, executor, args, kwargs):
        if len(args) != 1 or kwargs:
            return NotImplemented
        got = []
        for name in self.args:
            obj = args[0]
            for part in name.value.split("."):
                obj = _dispatch().getattr_(executor, obj, part)
            got.append(obj)
        return got[0] if len(got) == 1 else TupleVariable(got)


class MethodCallerVariable(_Made):
    cls = operator.methodcaller

    def call(self, executor, args, kwargs):
        if len(args) != 1 or kwargs:
            return NotImplemented
        method = _dispatch().getattr_(executor, args[0], self.args[0].value)
        return executor.call_function(method, self.args[1:], self.kwargs)


def _names(args, what: str) -> list:
    for a in args:
        if not (isinstance(a, ConstVariable) and type(a.value) is str):
            raise FallbackError(UNSUPPORTED_CALL, f"{what} of {a.describe()}, not a constant str")
    return list(args)


def b_itemgetter(executor, *items):
    if not items:
        return _op(operator.itemgetter)   # TypeError, as eager
    return ItemGetterVariable(items)


def b_attrgetter(executor, *names):
    if not names:
        return _op(operator.attrgetter)
    return AttrGetterVariable(_names(names, "attrgetter"))


def b_methodcaller(executor, name, *args, **kwargs):
    return MethodCallerVariable([_names([name], "methodcaller")[0], *args], kwargs)


def _op(fn, *args, **kwargs):
    return _dispatch().python_op(fn, *args, **kwargs)


def b_index(executor, v):
    """operator.index: an int as is; a NumPy integer of the graph reads its data."""
    if isinstance(v, SymScalarVariable) and v.meta.type is int:
        return v
    if isinstance(v, ConstVariable):
        return const(_op(operator.index, v.value))
    if isinstance(v, TensorVariable):
        raise FallbackError(DATA_DEPENDENT, "operator.index() of an array reads its data into Python")
    raise FallbackError(UNSUPPORTED_OBJECT, f"operator.index() of {v.describe()}")


def b_length_hint(executor, obj, default=None):
    """operator.length_hint of a sized value is its len(); an iterator's hint is not modelled."""
    if isinstance(obj, (ListVariable, TupleVariable, DictVariable)) or \
            isinstance(obj, ConstVariable) and hasattr(type(obj.value), "__len__"):
        from .calls import b_len
        return b_len(executor, obj)
    raise FallbackError(UNSUPPORTED_CALL, f"operator.length_hint() of {obj.describe()}")


# -- functools.cmp_to_key ------------------------------------------------------------------

class CmpToKeyVariable(_Made):
    """functools.cmp_to_key(cmp): sorted()/list.sort() with it compare
    items by calling `cmp` (inlined) in the order CPython's sort asks."""

    cls = functools.cmp_to_key

    def rebuild(self, builder) -> str:
        raise FallbackError(UNSUPPORTED_OBJECT, "a cmp_to_key key alive after the graph cannot be rebuilt")

    def order(self, executor, items: list, reverse: bool) -> list[int]:
        """The sorted order of `items`' indices, as sorted(items, key=this, reverse=reverse)."""
        def cmp(i, j):
            r = executor.call_function(self.args[0], [items[i], items[j]], {})
            _dispatch().concrete("a cmp_to_key comparison", r)
            if not (isinstance(r, ConstVariable) and type(r.value) in (int, float, bool)):
                raise FallbackError(DATA_DEPENDENT, "a cmp_to_key comparison whose result is not a Python number")
            return r.value
        return sorted(range(len(items)), key=functools.cmp_to_key(cmp), reverse=reverse)


def b_cmp_to_key(executor, cmp):
    return CmpToKeyVariable([cmp])


# -- math.prod / math.fsum over sequences -----------------------------------------------------

def _sequence(executor, v: Variable) -> list[Variable] | None:
    """The items of an iterable Variable (taken, as the builtin takes them); None for a constant."""
    if isinstance(v, ConstVariable):
        return None
    return list(_dispatch().get_iter(executor.graph, v).items)


def b_prod(executor, iterable, *, start=None):
    """math.prod: constants folded by math.prod itself; otherwise `*` in order (eager's fallback
    for non-number items is PyNumber_Multiply, the same operation)."""
    items = _sequence(executor, iterable)
    if items is None:
        items = list(_dispatch().get_iter(executor.graph, iterable).items) \
            if not isinstance(iterable.value, (int, float)) else None
    if items is None:
        return _op(math.prod, iterable.value)   # TypeError, as eager
    acc = start if start is not None else const(1)
    if all(isinstance(v, ConstVariable) for v in [acc, *items]):
        return _dispatch().folded(_op(math.prod, [v.value for v in items], start=acc.value))
    for v in items:
        acc = _dispatch().binary_op(executor.graph, "mul", acc, v)
    return acc


def b_fsum(executor, iterable):
    items = _sequence(executor, iterable)
    if items is None:
        return const(_op(math.fsum, iterable.value))
    _dispatch().concrete("math.fsum()", *items)
    if not all(isinstance(v, ConstVariable) for v in items):
        raise FallbackError(DATA_DEPENDENT, "math.fsum() of values computed in the graph reads their data")
    return const(_op(math.fsum, [v.value for v in items]))


# -- class attributes: dict.fromkeys, itertools.chain.from_iterable ---------------------------

class ClassMethodVariable(Variable, ModelledObject):
    """`cls.name` (a classmethod of a builtin class), called through `handler(executor, *args, **kw)`."""

    def __init__(self, cls: type, name: str, handler):
        super().__init__(None)
        self.cls, self.name, self.handler = cls, name, handler

    def python_type(self):
        return type(getattr(self.cls, self.name))

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"{self.cls.__name__}.{self.name}"

    def call(self, executor, args, kwargs):
        return self.handler(executor, *args, **kwargs)

    def rebuild(self, builder) -> str:
        return f"{builder._bind(getattr)}({builder._bind(self.cls)}, {builder._bind(self.name)})"


def b_dict_fromkeys(executor, iterable, value=None):
    from .collections_models import _key
    keys = [_key(k, "dict.fromkeys") for k in _dispatch().get_iter(executor.graph, iterable).items]
    value = value if value is not None else const(None)
    return DictVariable({k: value for k in keys})


def b_chain_from_iterable(executor, iterable):
    outer = _dispatch().get_iter(executor.graph, iterable)
    current: list = [None]

    def step():
        while True:
            if current[0] is None:
                nxt = outer.next()
                if nxt is None:
                    return None
                current[0] = _dispatch().get_iter(executor.graph, nxt)   # iter() of each when reached
            item = current[0].next()
            if item is not None:
                return item
            current[0] = None
    return LazyIteratorVariable(step, itertools.chain)


CLASS_METHODS = {
    (dict, "fromkeys"): b_dict_fromkeys,
    (itertools.chain, "from_iterable"): b_chain_from_iterable,
}


def class_attribute(obj: Variable, name: str) -> Variable | None:
    """A modelled classmethod of a builtin class held by a BuiltinVariable, or None."""
    if not isinstance(obj, BuiltinVariable):
        return None
    handler = next((h for (cls, n), h in CLASS_METHODS.items() if cls is obj.value and n == name), None)
    return ClassMethodVariable(obj.value, name, handler) if handler is not None else None


def register(table: dict) -> None:
    """Add the constructors and functions to the builtins table of calls.py."""
    table.update({
        operator.itemgetter: b_itemgetter,
        operator.attrgetter: b_attrgetter,
        operator.methodcaller: b_methodcaller,
        operator.index: b_index,
        operator.length_hint: b_length_hint,
        functools.cmp_to_key: b_cmp_to_key,
        math.prod: b_prod,
        math.fsum: b_fsum,
    })
