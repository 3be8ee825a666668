"""Calling a Variable: inline user code, record graph ops, model builtins.

`call(executor, fn, args, kwargs)` is the single entry; builtins are a table
from the real builtin object to a handler, so adding one is one entry.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ..breaks.reasons import (
    DATA_DEPENDENT, FORCED, SIDE_EFFECT, UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError,
)
from ..guards.tracker import AttrTracker, ConstTracker
from .. import psdb
from ..ir import registry
from . import dispatch, writes
from .dispatch import SEQUENCES, const
from .variables import (
    BoundMethodVariable, BuiltinMethodVariable, BuiltinVariable, ClassVariable, ConstVariable,
    DictVariable, DictViewVariable, IteratorVariable, ListVariable, NumpyCallableVariable, ObjectVariable,
    OpaqueVariable, SymScalarVariable, TensorVariable, TupleVariable, UserFunctionVariable, Variable,
)

NONDETERMINISTIC_MODULES = ("numpy.random", "random", "time", "secrets", "uuid", "os")


def call(executor, fn: Variable, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    graph = executor.graph
    value = getattr(fn, "value", None)
    if value is psdb.breakgraph:
        raise FallbackError(FORCED, "sot.psdb.breakgraph() forces a graph break")
    if value is psdb.fallback:
        err = FallbackError(FORCED, "sot.psdb.fallback() makes this frame run natively")
        err.no_break = True
        raise err
    if isinstance(fn, UserFunctionVariable):
        if _not_to_static(fn):
            raise FallbackError(UNSUPPORTED_CALL, f"{fn.name} is marked not_to_static")
        return executor.inline_call(fn, args, kwargs)
    if isinstance(fn, BoundMethodVariable):
        return call(executor, fn.func, [fn.self_var] + list(args), kwargs)
    if isinstance(fn, NumpyCallableVariable):
        return call_numpy(graph, fn, args, kwargs)
    if isinstance(fn, BuiltinVariable):
        handler = BUILTINS.get(fn.value)
        if handler is None:
            raise _unsupported_call(fn.value)
        return handler(executor, *args, **kwargs)
    if isinstance(fn, BuiltinMethodVariable):
        return call_method(executor, fn.self_var, fn.name, args, kwargs)
    if isinstance(fn, ObjectVariable):
        method = dispatch.getattr_(executor, fn, "__call__")
        return call(executor, method, args, kwargs)
    if isinstance(fn, ConstVariable) and isinstance(fn.value, type) and issubclass(fn.value, np.generic):
        op = registry.lookup_function(fn.value)
        if op is not None:
            return graph.call_op(op, args, kwargs)
    if isinstance(fn, ClassVariable):
        raise FallbackError(UNSUPPORTED_CALL, f"creating an instance of {fn.value.__qualname__} is not captured")
    value = getattr(fn, "value", None)
    raise _unsupported_call(value) if value is not None else FallbackError(
        UNSUPPORTED_CALL, f"calling {fn.describe()} is not captured")


def _not_to_static(fn: UserFunctionVariable) -> bool:
    from .. import _skip
    return _skip.is_not_to_static(fn.code)


def _unsupported_call(value) -> FallbackError:
    from .. import _skip
    module = getattr(value, "__module__", None) or ""
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__name__
    if value is builtins.print:
        return FallbackError(UNSUPPORTED_CALL, "print() writes output: it runs natively")
    if any(_skip.in_package(module, m) for m in NONDETERMINISTIC_MODULES):
        return FallbackError(UNSUPPORTED_CALL, f"{module}.{name} is nondeterministic or does I/O: it is never captured")
    return FallbackError(UNSUPPORTED_CALL, f"call of {module + '.' if module else ''}{name} is not captured")


def call_numpy(graph, fn: NumpyCallableVariable, args, kwargs) -> Variable:
    written = writes.call_function(graph, fn, args, kwargs)
    if written is not None:
        return written
    if fn.op is None:
        raise _unsupported_call(fn.value)
    return graph.call_op(fn.op, args, kwargs)


def call_method(executor, obj: Variable, name: str, args, kwargs) -> Variable:
    graph = executor.graph
    if isinstance(obj, TensorVariable):
        if name in ("item", "tolist", "tobytes"):
            raise FallbackError(DATA_DEPENDENT, f".{name}() reads array data into Python",
                                hint="keep the value as an array")
        written = writes.call_method(graph, obj, name, list(args), kwargs)
        if written is not None:
            return written
        op = registry.lookup_method(name)
        if op is None:
            raise FallbackError(UNSUPPORTED_CALL, f"ndarray.{name} is not captured")
        return graph.call_op(op, [obj] + list(args), kwargs)
    if isinstance(obj, ListVariable):
        return _list_method(obj, name, args, kwargs)
    if isinstance(obj, DictVariable):
        return _dict_method(obj, name, args, kwargs)
    if isinstance(obj, ConstVariable) and type(obj.value) is str:
        if all(isinstance(a, ConstVariable) for a in list(args) + list(kwargs.values())):
            return const(dispatch._python(getattr(obj.value, name), *[a.value for a in args],
                                          **{k: v.value for k, v in kwargs.items()}))
    raise FallbackError(UNSUPPORTED_CALL, f"method {name} of {obj.describe()} is not captured")


def _list_method(obj: ListVariable, name, args, kwargs):
    if kwargs:
        raise FallbackError(UNSUPPORTED_CALL, f"list.{name} with keyword arguments")
    if name == "append":
        obj.check_mutable("list.append")
        obj.items.append(args[0])
        return const(None)
    if name == "extend":
        obj.check_mutable("list.extend")
        obj.items.extend(dispatch.get_iter(None, args[0]).items)
        return const(None)
    if name == "insert":
        obj.check_mutable("list.insert")
        obj.items.insert(_int(args[0]), args[1])
        return const(None)
    if name == "pop":
        obj.check_mutable("list.pop")
        return dispatch._python(obj.items.pop, *[_int(a) for a in args])
    if name == "copy":
        return ListVariable(obj.items)
    raise FallbackError(UNSUPPORTED_CALL, f"list.{name} is not modelled")


def _dict_method(obj: DictVariable, name, args, kwargs):
    if name == "get" and args and isinstance(args[0], ConstVariable):
        default = args[1] if len(args) > 1 else const(None)
        return obj.entries.get(args[0].value, default)
    if name == "keys":
        return DictViewVariable([const(k) for k in obj.entries], "keys")
    if name == "values":
        return DictViewVariable(list(obj.entries.values()), "values")
    if name == "items":
        return DictViewVariable([TupleVariable([const(k), v]) for k, v in obj.entries.items()], "items")
    if name == "copy":
        return DictVariable(obj.entries)
    raise FallbackError(UNSUPPORTED_CALL, f"dict.{name} is not modelled")


def _int(v: Variable) -> int:
    dispatch.concrete("an int argument", v)
    if isinstance(v, ConstVariable) and type(v.value) in (int, bool):
        return v.value
    raise FallbackError(UNSUPPORTED_OBJECT, f"{v.describe()} is not a Python int")


# -- builtins ------------------------------------------------------------------

def _consts(*vs):
    dispatch.concrete("a Python builtin", *vs)
    if all(isinstance(v, ConstVariable) for v in vs):
        return [v.value for v in vs]
    return None


def b_len(executor, obj):
    if isinstance(obj, (TupleVariable, ListVariable)):
        return const(len(obj.items))
    if isinstance(obj, DictVariable):
        return const(len(obj.entries))
    if isinstance(obj, DictViewVariable):
        return const(len(obj.items))
    if isinstance(obj, TensorVariable):
        if not obj.meta.shape:
            raise FallbackError(UNSUPPORTED_OBJECT, "len() of a 0-d array")
        return executor.graph.dim(obj, 0)
    if isinstance(obj, ConstVariable):
        return const(dispatch._python(len, obj.value))
    raise FallbackError(UNSUPPORTED_OBJECT, f"len() of {obj.describe()}")


def _python_builtin(fn):
    """A builtin computed on constants; on arrays it reads data (a break)."""
    def handler(executor, *args, **kwargs):
        values = _consts(*args, *kwargs.values())
        if values is not None:
            return const(dispatch._python(fn, *[a.value for a in args], **{k: v.value for k, v in kwargs.items()}))
        if any(isinstance(a, TensorVariable) for a in args):
            raise FallbackError(DATA_DEPENDENT, f"{fn.__name__}() of an array reads its data into Python",
                                hint=f"`{fn.__name__}(x.sum())` forces a break; keep the value as an array")
        raise FallbackError(UNSUPPORTED_CALL, f"{fn.__name__}() on {', '.join(a.describe() for a in args)}")
    return handler


def b_range(executor, *args):
    values = _consts(*args)
    if values is None or not all(type(v) in (int, bool) for v in values):
        raise FallbackError(UNSUPPORTED_OBJECT, "range() of non-constant bounds")
    return const(dispatch._python(range, *values))


def b_isinstance(executor, obj, classinfo):
    if isinstance(classinfo, TupleVariable):
        return const(any(b_isinstance(executor, obj, c).value for c in classinfo.items))
    cls = getattr(classinfo, "value", None)
    if not isinstance(cls, type):
        raise FallbackError(UNSUPPORTED_OBJECT, "isinstance() with a non-class")
    try:
        t = obj.python_type()
    except FallbackError:
        raise
    return const(issubclass(t, cls))


def b_enumerate(executor, iterable, start=None):
    n = 0 if start is None else _int(start)
    items = dispatch.get_iter(executor.graph, iterable).items
    return IteratorVariable([TupleVariable([const(n + i), v]) for i, v in enumerate(items)])


def b_zip(executor, *iterables, **kwargs):
    if kwargs:
        raise FallbackError(UNSUPPORTED_CALL, "zip(strict=...) is not modelled")
    lists = [dispatch.get_iter(executor.graph, it).items for it in iterables]
    return IteratorVariable([TupleVariable(list(t)) for t in zip(*lists)])


def b_reversed(executor, seq):
    if isinstance(seq, (TupleVariable, ListVariable)):
        return IteratorVariable(seq.items[::-1])
    if isinstance(seq, ConstVariable) and isinstance(seq.value, (range, tuple, str)):
        return IteratorVariable([const(v) for v in reversed(seq.value)])
    raise FallbackError(UNSUPPORTED_OBJECT, f"reversed() of {seq.describe()}")


def b_iter(executor, obj):
    return dispatch.get_iter(executor.graph, obj)


def b_next(executor, it, *default):
    if isinstance(it, IteratorVariable):
        v = it.next()
        if v is None:
            if default:
                return default[0]
            raise FallbackError(UNSUPPORTED_OBJECT, "next() of an exhausted iterator raises StopIteration")
        return v
    raise FallbackError(UNSUPPORTED_OBJECT, f"next() of {it.describe()}")


def b_tuple(executor, iterable=None):
    if iterable is None:
        return TupleVariable([])
    if isinstance(iterable, TupleVariable):
        return iterable
    return TupleVariable(dispatch.get_iter(executor.graph, iterable).items)


def b_list(executor, iterable=None):
    if iterable is None:
        return ListVariable([])
    return ListVariable(dispatch.get_iter(executor.graph, iterable).items)


def b_dict(executor, *args, **kwargs):
    if args:
        raise FallbackError(UNSUPPORTED_CALL, "dict() from an iterable is not modelled")
    return DictVariable(dict(kwargs))


def b_minmax(fn):
    def handler(executor, *args, **kwargs):
        if kwargs:
            raise FallbackError(UNSUPPORTED_CALL, f"{fn.__name__}() with keyword arguments")
        items = args
        if len(args) == 1:
            items = dispatch.get_iter(executor.graph, args[0]).items
        values = _consts(*items)
        if values is None:
            raise FallbackError(DATA_DEPENDENT, f"{fn.__name__}() compares values that are arrays",
                                hint=f"use np.{'maximum' if fn is max else 'minimum'} to keep it in the graph")
        return const(dispatch._python(fn, values))
    return handler


def b_sum(executor, iterable, start=None):
    total = start if start is not None else const(0)
    for item in dispatch.get_iter(executor.graph, iterable).items:
        total = dispatch.binary_op(executor.graph, "add", total, item)
    return total


def b_abs(executor, x):
    if isinstance(x, (TensorVariable, SymScalarVariable)):
        return executor.graph.call_op(registry.lookup_operator("abs"), (x,))
    return const(dispatch._python(abs, x.value if isinstance(x, ConstVariable) else _bad(x, "abs")))


def _bad(x, what):
    raise FallbackError(UNSUPPORTED_OBJECT, f"{what}() of {x.describe()}")


def b_getattr(executor, obj, name, *default):
    if not (isinstance(name, ConstVariable) and type(name.value) is str):
        raise FallbackError(UNSUPPORTED_OBJECT, "getattr() with a non-constant name")
    try:
        return dispatch.getattr_(executor, obj, name.value)
    except FallbackError:
        if default:
            raise FallbackError(UNSUPPORTED_OBJECT, "getattr() with a default on a missing attribute")
        raise


def b_type(executor, obj):
    t = obj.python_type()
    return executor.graph.wrap(t, ConstTracker(t))


def b_bool_like(fn):
    def handler(executor, *args):
        if len(args) == 1 and isinstance(args[0], SymScalarVariable) and args[0].meta.type is fn:
            return args[0]  # int(n) of an int computed from shapes is n itself
        if len(args) == 1 and not isinstance(args[0], (ConstVariable, TensorVariable, SymScalarVariable)):
            if fn is bool:
                return const(args[0].truth())
        return _python_builtin(fn)(executor, *args)
    return handler


BUILTINS = {
    builtins.len: b_len,
    builtins.range: b_range,
    builtins.isinstance: b_isinstance,
    builtins.enumerate: b_enumerate,
    builtins.zip: b_zip,
    builtins.reversed: b_reversed,
    builtins.iter: b_iter,
    builtins.next: b_next,
    builtins.tuple: b_tuple,
    builtins.list: b_list,
    builtins.dict: b_dict,
    builtins.min: b_minmax(min),
    builtins.max: b_minmax(max),
    builtins.sum: b_sum,
    builtins.abs: b_abs,
    builtins.getattr: b_getattr,
    builtins.type: b_type,
    builtins.float: b_bool_like(float),
    builtins.int: b_bool_like(int),
    builtins.bool: b_bool_like(bool),
    builtins.round: _python_builtin(round),
    builtins.divmod: _python_builtin(divmod),
    builtins.pow: _python_builtin(pow),
    builtins.str: _python_builtin(str),
    builtins.repr: _python_builtin(repr),
    builtins.hash: _python_builtin(hash),
    builtins.callable: lambda ex, obj: const(not isinstance(obj, (ConstVariable, TensorVariable, SymScalarVariable, TupleVariable, ListVariable, DictVariable))),
    operator.add: lambda ex, a, b: dispatch.binary_op(ex.graph, "add", a, b),
    operator.mul: lambda ex, a, b: dispatch.binary_op(ex.graph, "mul", a, b),
    operator.getitem: lambda ex, a, b: dispatch.getitem(ex.graph, a, b),
}
for _name in ("sqrt", "exp", "log", "sin", "cos", "tanh", "floor", "ceil", "pi", "prod", "isclose", "fabs",
              "log2", "log10", "erf", "gamma", "atan", "atan2", "hypot", "pow", "isnan", "isinf", "isfinite"):
    _fn = getattr(math, _name, None)
    if callable(_fn):
        BUILTINS[_fn] = _python_builtin(_fn)

BUILTINS_BY_ID = {id(fn): fn for fn in BUILTINS}

__all__ = ["call", "BUILTINS", "BUILTINS_BY_ID", "SIDE_EFFECT", "SEQUENCES", "AttrTracker", "OpaqueVariable"]
