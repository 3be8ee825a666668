"""Calling a Variable: inline user code, record graph ops, model builtins.

`call(executor, fn, args, kwargs)` is the single entry; builtins are a table
from the real builtin object to a handler, so adding one is one entry.
"""
from __future__ import annotations

import builtins
import inspect
import math

import numpy as np

from ..breaks.reasons import (
    DATA_DEPENDENT, FORCED, SIDE_EFFECT, UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError,
)
from ..guards.tracker import AttrTracker, ConstTracker
from .. import psdb
from ..ir import data_numbers, registry
from . import (attr_presence, builtin_values, classes, copies, iter_tools, contexts, dispatch, exceptions, functional, introspect, list_data, live_iterators,
               metaclass, numpy_counts, numpy_forms, numpy_iteration, records, sets, user_protocols, writes)
from . import array_numbers, numpy_callables
from . import collections_models, container_values, dict_data, functools_models, heapq_bisect, itertools_shared, operator_models   # the stdlib's
from . import statistics_models
from . import builtin_subclasses, dict_runtime_reads, identities, instance_dicts, str_runtime
from . import iterator_rebuild, tuple_reuse
from .generators import GeneratorVariable
from .dispatch import SEQUENCES, const
from .variables.base import RealObjectVariable
from .variables.modelled import ModelledObject, ask
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
        err.no_break = True  # see FallbackError
        raise err
    if contexts.is_contextmanager_call(fn):
        return contexts.contextmanager_call(executor, fn, args, kwargs)
    if isinstance(fn, UserFunctionVariable):
        if _not_to_static(fn):
            raise FallbackError(UNSUPPORTED_CALL, f"{fn.name} is marked not_to_static")
        return executor.inline_call(fn, args, kwargs)
    if isinstance(fn, BoundMethodVariable):
        return call(executor, fn.func, [fn.self_var] + list(args), kwargs)
    if isinstance(fn, ModelledObject) and (r := fn.call(executor, args, kwargs)) is not NotImplemented:
        return r
    if isinstance(fn, (functional.PartialVariable, classes.ObjectInit, contexts.ContextMethodVariable,
                       contexts.ContextFactoryVariable, records.RecordMethod)):
        return fn.call(executor, args, kwargs)
    if isinstance(fn, NumpyCallableVariable):
        if numpy_callables.is_modelled(fn.value):   # it calls a Python function passed in
            return numpy_callables.call(executor, args, kwargs)
        return call_numpy(graph, fn, args, kwargs)
    if isinstance(fn, BuiltinVariable):
        handler = BUILTINS.get(fn.value)
        if handler is None:
            raise _unsupported_call(fn.value)
        return handler(executor, *args, **kwargs)
    if isinstance(fn, BuiltinMethodVariable):
        return call_method(executor, fn.self_var, fn.name, args, kwargs)
    if isinstance(fn, ObjectVariable):
        return call(executor, _type_call(executor, fn), args, kwargs)
    if isinstance(fn, classes.NewObjectVariable):
        method = dispatch.getattr_(executor, fn, "__call__")
        return call(executor, method, args, kwargs)
    if isinstance(fn, ConstVariable) and isinstance(fn.value, type) and issubclass(fn.value, np.generic):
        known = introspect.scalar_of_constants(fn.value, args, kwargs)
        if known is not None:
            return known
        op = registry.lookup_function(fn.value)
        if op is not None:
            return graph.call_op(op, args, kwargs)
    if isinstance(fn, ClassVariable):
        if issubclass(fn.value, BaseException) and exceptions.can_model(fn.value):
            return exceptions.create(executor, fn.value, args, kwargs)
        if contexts.is_errstate_call(fn):
            return contexts.errstate_call(args, kwargs)
        if classes.is_enum_class(fn.value):
            return records.enum_call(executor, fn.value, args, kwargs)
        known = introspect.class_call(fn.value, args, kwargs) or \
            numpy_iteration.class_call(graph, fn.value, args, kwargs)
        if known is not None:
            return known
        return classes.create(executor, fn, args, kwargs)
    value = getattr(fn, "value", None)
    raise _unsupported_call(value) if value is not None else FallbackError(
        UNSUPPORTED_CALL, f"calling {fn.describe()} is not captured")


def _type_call(executor, obj: ObjectVariable) -> Variable:
    """`obj(...)` runs ``type(obj).__call__``: an instance attribute named
    ``__call__`` is never looked at (CPython calls the type's tp_call)."""
    cls = type(obj.value)
    attr = next((k.__dict__["__call__"] for k in cls.__mro__ if "__call__" in k.__dict__), None)
    if attr is None:
        raise FallbackError(UNSUPPORTED_CALL, f"{obj.describe()} is not callable (its class has no __call__)")
    if not classes.binds_like_function(attr):   # a decorated __call__ is inlined as what it wraps
        raise FallbackError(UNSUPPORTED_CALL, f"__call__ of {cls.__qualname__} is not a plain function")
    fn = executor.graph.wrap(attr, AttrTracker(ConstTracker(cls), "__call__"))
    return BoundMethodVariable(fn, obj)


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
    known = introspect.numpy_call(graph, fn.value, args, kwargs) or numpy_forms.call_form(graph, fn.value, args, kwargs) \
        or numpy_counts.count_form(graph, fn.value, args, kwargs)
    if known is not None:
        return known
    if fn.op is None:
        raise _unsupported_call(fn.value)
    if fn.value in (np.asarray, np.array, np.asanyarray) and len(args) == 1 and not kwargs:
        args = [list_data.as_graph_input(graph, args[0]) or args[0]]
    else:
        args = list_data.numpy_data_args(graph, fn.value, args)
    return numpy_forms.named_result(fn.op, graph.call_op(fn.op, args, kwargs))


def call_method(executor, obj: Variable, name: str, args, kwargs) -> Variable:
    graph = executor.graph
    if isinstance(obj, ModelledObject) and (r := obj.method(executor, name, args, kwargs)) is not NotImplemented:
        return r
    if isinstance(obj, GeneratorVariable) and name in GeneratorVariable.METHODS:
        return obj.method(executor, name, args, kwargs)
    if isinstance(obj, sets.SetVariable):
        return sets.method(obj, name, args, kwargs, graph)
    if isinstance(obj, TensorVariable):
        if name == "item" and not kwargs and (read := array_numbers.read_number(graph, obj, "item") if not args
                                              else array_numbers.item_at(graph, obj, args)):
            return read
        if name == "tolist" and not args and not kwargs and (read := array_numbers.to_list(graph, obj)) is not None:
            return read
        if name in ("item", "tolist", "tobytes"):
            raise FallbackError(DATA_DEPENDENT, f".{name}() reads array data into Python",
                                hint="keep the value as an array")
        written = writes.call_method(graph, obj, name, list(args), kwargs)
        if written is None:
            written = numpy_forms.method_form(graph, obj, name, list(args), kwargs)
        if written is not None:
            return written
        op = registry.lookup_method(name)
        if op is None:
            raise FallbackError(UNSUPPORTED_CALL, f"ndarray.{name} is not captured")
        return numpy_forms.named_result(op, graph.call_op(op, [obj] + list(args), kwargs))
    if isinstance(obj, ListVariable):
        return _list_method(executor, obj, name, args, kwargs)
    if isinstance(obj, DictVariable):
        if name == "get" and not kwargs and 1 <= len(args) <= 2 and (r := dict_runtime_reads.read(
                graph, obj, args[0], args[1] if len(args) > 1 else const(None))) is not dict_runtime_reads.NO:   # a str key from outside
            return r
        if (r := dict_data.method(obj, name, [dispatch.as_dict_key(obj, a) for a in args[:1]] + list(args[1:]),
                                  kwargs)) is not dict_data.NO:
            return r
        return _dict_method(obj, name, args, kwargs)
    if type(obj) is TupleVariable and name in builtin_values.TUPLE_METHODS and not kwargs:
        return builtin_values.tuple_method(obj, name, list(args))
    if isinstance(obj, ConstVariable) and type(obj.value) is str and (r := str_runtime.const_method(
            obj, name, args, kwargs)) is not str_runtime.NO:   # of strs known when the call runs
        return r
    if isinstance(obj, ConstVariable) and type(obj.value) is str and name == "join" and len(args) == 1 \
            and not kwargs and not isinstance(args[0], (ConstVariable, TupleVariable, ListVariable, sets.SetVariable)):
        args = [b_list(executor, args[0])]   # str.join takes any iterable whole first (PySequence_Fast)
    if isinstance(obj, ConstVariable) and dispatch.is_pure_method(obj.value, name):
        values = [functional.python_value(a) for a in args]
        kw = {k: functional.python_value(v) for k, v in kwargs.items()}
        return dispatch.folded(dispatch.python_op(getattr(obj.value, name), *values, **kw))
    raise FallbackError(UNSUPPORTED_CALL, f"method {name} of {obj.describe()} is not captured")


def _list_method(executor, obj: ListVariable, name, args, kwargs):
    if name == "sort":
        obj.check_mutable("list.sort")
        obj.items = functional.b_sorted(executor, obj, **kwargs).items
        return const(None)
    if kwargs:
        raise FallbackError(UNSUPPORTED_CALL, f"list.{name} with keyword arguments")
    if name in ("append", "extend", "insert", "pop", "clear", "reverse", "remove"):
        obj.check_mutable(f"list.{name}")
    if name == "append":
        obj.grow("append", (args[0],))
    elif name == "extend":
        obj.grow("extend", (list(dispatch.get_iter(None, args[0]).items),))
    elif name == "insert":
        obj.grow("insert", (_int(args[0]), args[1]))
    elif name == "pop":
        return dispatch.python_op(obj.items.pop, *[_int(a) for a in args])
    elif name == "clear":
        obj.items.clear()
    elif name == "reverse":
        obj.items.reverse()
    elif name == "copy":
        return ListVariable(obj.items)
    elif name in ("count", "index", "remove"):
        values = functional.plain_values(obj.items + list(args[:1]), f"list.{name}")
        found = dispatch.python_op(getattr(values[:-1], name), values[-1], *[_int(a) for a in args[1:]])
        if name == "remove":
            del obj.items[values.index(values[-1])]
            return const(None)
        return const(found)
    else:
        raise FallbackError(UNSUPPORTED_CALL, f"list.{name} is not modelled")
    return const(None)


def _dict_method(obj: DictVariable, name, args, kwargs):
    args = [dispatch.as_dict_key(obj, args[0]), *args[1:]] if args else args
    if name in ("update", "setdefault", "pop", "popitem", "clear"):
        obj.check_mutable(f"dict.{name}")
    if name in ("get", "setdefault", "pop") and not (args and _dict_key(args[0])):
        raise FallbackError(UNSUPPORTED_CALL, f"dict.{name} with a key that is not a plain constant")
    if name == "get":
        default = args[1] if len(args) > 1 else const(None)
        return obj.entries.get(args[0].value, default)
    if name == "keys":
        return DictViewVariable(obj, "keys")
    if name == "values":
        return DictViewVariable(obj, "values")
    if name == "items":
        return DictViewVariable(obj, "items")
    if name == "copy":
        return DictVariable(obj.entries)
    if name == "update":
        for k, v in (_pairs(args[0]) if args else []) + list(kwargs.items()):
            obj.entries[k] = v
        return const(None)
    if name == "setdefault":
        return obj.entries.setdefault(args[0].value, args[1] if len(args) > 1 else const(None))
    if name == "pop":
        if args[0].value in obj.entries:
            return obj.entries.pop(args[0].value)
        if len(args) > 1:
            return args[1]
        raise FallbackError(UNSUPPORTED_OBJECT, f"dict.pop of a missing key {args[0].value!r} (eager raises)")
    if name == "popitem":
        if not obj.entries:
            raise FallbackError(UNSUPPORTED_OBJECT, "popitem of an empty dict (eager raises)")
        k, v = obj.entries.popitem()
        return TupleVariable([const(k), v])
    if name == "clear":
        obj.entries.clear()
        return const(None)
    raise FallbackError(UNSUPPORTED_CALL, f"dict.{name} is not modelled")


def _dict_key(v: Variable) -> bool:
    return isinstance(v, ConstVariable) and (type(v.value) in (int, str) or container_values.plain_key(v) is not None)


def _pairs(source: Variable) -> list:
    """(key, value) pairs of a dict or of an iterable of 2-sequences, keys plain constants."""
    if isinstance(source, DictVariable):
        return list(source.entries.items())
    pairs = []
    for item in dispatch.get_iter(None, source).items:
        kv = dispatch.get_iter(None, item).items if isinstance(item, (TupleVariable, ListVariable)) else None
        if kv is None or len(kv) != 2 or not _dict_key(kv[0]):
            raise FallbackError(UNSUPPORTED_OBJECT, "dict items that are not (constant key, value) pairs")
        pairs.append((kv[0].value, kv[1]))
    return pairs


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
    if (r := ask(executor.graph, obj, "length")) is not NotImplemented:
        return r
    if (n := user_protocols.length(executor, obj)) is not None:
        return n
    if isinstance(obj, sets.SetVariable):
        return const(len(obj.values))
    if isinstance(obj, ListVariable) and (n := list_data.source_length(executor.graph, obj)) is not None:
        return const(n) if type(n) is int else n
    if isinstance(obj, (TupleVariable, ListVariable)):
        return const(len(obj.items))
    if (n := dict_data.length(executor.graph, obj)) is not dict_data.NO:
        return n
    if isinstance(obj, DictVariable):
        return const(len(obj.entries))
    if isinstance(obj, DictViewVariable):
        return const(len(obj.items))
    if isinstance(obj, TensorVariable):
        if not obj.meta.shape:
            raise FallbackError(UNSUPPORTED_OBJECT, "len() of a 0-d array")
        return executor.graph.dim(obj, 0)
    if isinstance(obj, ConstVariable):
        return dispatch.folded(dispatch.python_op(len, obj.value))
    raise FallbackError(UNSUPPORTED_OBJECT, f"len() of {obj.describe()}")


def _python_builtin(fn):
    """A builtin computed on constants; on arrays it reads data (a break)."""
    def handler(executor, *args, **kwargs):
        if fn in (str, repr) and len(args) == 1 and (exc := exceptions.instance(args[0])) is not None:
            return const(fn(exc))
        if len(args) == 1 and not kwargs and (text := user_protocols.text(executor, fn, args[0])) is not None:
            return text   # a user class's own __str__/__repr__, inlined
        if fn in (str, repr) and len(args) == 1 and not kwargs and \
                (plain := container_values.plain_value(args[0])) is not None:
            return const(fn(plain))   # a container of constants: its text is Python's own
        values = _consts(*args, *kwargs.values())
        if values is not None:
            return dispatch.folded(dispatch.python_op(fn, *[a.value for a in args], **{k: v.value for k, v in kwargs.items()}))
        if any(isinstance(a, TensorVariable) or container_values.holds_array(a) for a in args):
            raise FallbackError(DATA_DEPENDENT, f"{fn.__name__}() of an array reads its data into Python",
                                hint=f"`{fn.__name__}(x.sum())` forces a break; keep the value as an array")
        raise FallbackError(UNSUPPORTED_CALL, f"{fn.__name__}() on {', '.join(a.describe() for a in args)}")
    return handler


def b_range(executor, *args):
    values = _consts(*args)
    if values is None or not all(type(v) in (int, bool) for v in values):
        raise FallbackError(UNSUPPORTED_OBJECT, "range() of non-constant bounds")
    return dispatch.folded(dispatch.python_op(range, *values))


def b_isinstance(executor, obj, classinfo):
    if isinstance(classinfo, TupleVariable):
        return const(any(b_isinstance(executor, obj, c).value for c in classinfo.items))
    cls = getattr(classinfo, "value", None)
    if not isinstance(cls, type):
        raise FallbackError(UNSUPPORTED_OBJECT, "isinstance() with a non-class")
    t = obj.python_type()
    if isinstance(obj, ObjectVariable) and _class_attribute(t) is not _OBJECT_CLASS:
        # isinstance() also asks obj.__class__: a property there is user code
        raise FallbackError(UNSUPPORTED_OBJECT, f"isinstance() of {obj.describe()}, whose class overrides __class__")
    return const(metaclass.is_subclass(executor.graph, t, cls, instance=True))


def b_issubclass(executor, cls, classinfo):
    if isinstance(classinfo, TupleVariable):
        return const(any(b_issubclass(executor, cls, c).value for c in classinfo.items))
    sub, sup = getattr(cls, "value", None), getattr(classinfo, "value", None)
    if not isinstance(sub, type) or not isinstance(sup, type):
        raise FallbackError(UNSUPPORTED_OBJECT, "issubclass() of values that are not known classes")
    return dispatch.folded(dispatch.python_op(metaclass.is_subclass, executor.graph, sub, sup, False))


_OBJECT_CLASS = object.__dict__["__class__"]


def _class_attribute(t: type):
    return next((k.__dict__["__class__"] for k in t.__mro__ if "__class__" in k.__dict__), None)


def b_enumerate(executor, iterable, start=None):
    n = 0 if start is None else _int(start)
    it = dispatch.get_iter(executor.graph, iterable)
    if it is iterable or it.live:  # an iterator others may also advance, or over a list that may
        # still change: take items when asked, as eager
        return functional.lazy_enumerate(it, n)
    return IteratorVariable([TupleVariable([const(n + i), v]) for i, v in enumerate(it.items)], enumerate)


def b_zip(executor, *iterables, **kwargs):
    if kwargs:
        raise FallbackError(UNSUPPORTED_CALL, "zip(strict=...) is not modelled")
    its = [dispatch.get_iter(executor.graph, it) for it in iterables]
    if any(it is src or it.live for it, src in zip(its, iterables)):
        return functional.lazy_zip(executor, its)
    lists = [it.items for it in its]
    return IteratorVariable([TupleVariable(list(t)) for t in zip(*lists)], zip)


def b_reversed(executor, seq):
    if (r := ask(executor.graph, seq, "reverse_iterate")) is not NotImplemented:
        return r
    if isinstance(seq, ListVariable):
        return live_iterators.ListIteratorVariable(seq, reverse=True)
    if isinstance(seq, TupleVariable):
        return IteratorVariable(seq.items[::-1], type(reversed(())))
    if isinstance(seq, DictVariable) and seq.python_type() is dict:
        return live_iterators.DictIteratorVariable(seq, "keys", reverse=True)
    if isinstance(seq, DictViewVariable) and seq.dict.python_type() is dict:
        return live_iterators.DictIteratorVariable(seq.dict, seq.kind, reverse=True)
    if isinstance(seq, ConstVariable) and isinstance(seq.value, (range, tuple, str)):
        return iterator_rebuild.from_constant([const(v) for v in reversed(seq.value)], reversed, seq.value)
    if isinstance(seq, TensorVariable) and (rows := numpy_iteration.reversed_rows(executor.graph, seq)) is not None:
        return rows
    raise FallbackError(UNSUPPORTED_OBJECT, f"reversed() of {seq.describe()}")


def b_iter(executor, obj, *sentinel):
    if sentinel:  # iter(callable, sentinel): calls until the sentinel; not modelled
        raise FallbackError(UNSUPPORTED_OBJECT, "iter() of a callable and a sentinel")
    it = user_protocols.get_iter(executor, obj)
    return it if it is not None else dispatch.get_iter(executor.graph, obj)


def b_next(executor, it, *default):
    if isinstance(it, IteratorVariable):
        v = it.next()
        if v is None:
            if default:
                return default[0]
            raise it.stop_iteration() if isinstance(it, GeneratorVariable) else exceptions.stop_iteration()
        return v
    raise FallbackError(UNSUPPORTED_OBJECT, f"next() of {it.describe()}")


def b_set(executor, iterable=None):
    if iterable is None:
        return sets.SetVariable(history=[])
    values = sets.operand(iterable, "set()", executor.graph)
    if type(values) is list:   # added one at a time: eager's adds make it again
        return sets.SetVariable(values, list(values))
    return sets.SetVariable(set(values))


def b_frozenset(executor, iterable=None):
    """frozenset of plain constants: an immutable constant, as eager builds it from these items."""
    if iterable is None:
        return const(frozenset())
    values = sets.operand(iterable, "frozenset()", executor.graph)
    identities.check_unordered(values, "a frozenset constant")   # (no constant holds a traced object)
    return const(frozenset(values))


def b_tuple(executor, iterable=None):
    if iterable is None:
        return TupleVariable([])
    if (same := tuple_reuse.same_tuple(iterable)) is not None:
        return same   # tuple(t) is t; tuple(a namedtuple) is a new plain tuple
    return TupleVariable(dispatch.get_iter(executor.graph, iterable).items)


def b_list(executor, iterable=None):
    if iterable is None:
        return ListVariable([])
    return ListVariable(dispatch.get_iter(executor.graph, iterable).items)


def b_dict(executor, *args, **kwargs):
    if len(args) > 1:
        raise FallbackError(UNSUPPORTED_CALL, "dict() takes at most one positional argument (eager raises)")
    return DictVariable(dict(_pairs(args[0]) if args else [], **kwargs))


def b_sum(executor, iterable, start=None):
    """CPython adds leading int/float items in C, floats with compensated
    summation on 3.12+ (not a chain of `+`); from the first other item on it
    uses `+`.  The leading known items are summed by the real builtin of the
    running Python; the rest are added one by one."""
    items = dispatch.get_iter(executor.graph, iterable).items
    total = start if start is not None else const(0)
    symbolic = [v for v in (total, *items) if isinstance(v, SymScalarVariable)]
    if symbolic and any(_is_python_float(v) for v in (total, *items)):
        dispatch.concrete("sum() of Python floats (summed with compensation)", *symbolic)
    known = 0
    if isinstance(total, ConstVariable):
        while known < len(items) and isinstance(items[known], ConstVariable):
            known += 1
        if known:
            total = dispatch.folded(dispatch.python_op(sum, [v.value for v in items[:known]], total.value))
    for item in items[known:]:
        total = dispatch.binary_op(executor.graph, "add", total, item)
    return total


def _is_python_float(v: Variable) -> bool:
    if isinstance(v, ConstVariable):
        return type(v.value) is float
    return isinstance(v, SymScalarVariable) and v.meta.type is float


def b_callable(executor, obj):
    """callable(x) is whether type(x) has __call__; for a known object ask
    the builtin itself (it runs no user code)."""
    if isinstance(obj, RealObjectVariable):
        return const(callable(obj.value))
    if isinstance(obj, (UserFunctionVariable, BoundMethodVariable, BuiltinMethodVariable)):
        return const(True)
    t = obj.python_type()
    return const(any("__call__" in k.__dict__ for k in t.__mro__))


def b_abs(executor, x):
    if isinstance(x, (TensorVariable, SymScalarVariable)):
        return executor.graph.call_op(registry.lookup_operator("abs"), (x,))
    return dispatch.folded(dispatch.python_op(abs, x.value if isinstance(x, ConstVariable) else _bad(x, "abs")))


def _bad(x, what):
    raise FallbackError(UNSUPPORTED_OBJECT, f"{what}() of {x.describe()}")


def _attr_name(name: Variable, what: str) -> str:
    if not (isinstance(name, ConstVariable) and type(name.value) is str):
        raise FallbackError(UNSUPPORTED_OBJECT, f"{what}() with a non-constant name")
    return name.value


def b_getattr(executor, obj, name, *default):
    if len(default) > 1:
        raise FallbackError(UNSUPPORTED_CALL, "getattr() with more than three arguments")
    if default:
        return attr_presence.getattr_default(executor, obj, _attr_name(name, "getattr"), default[0])
    return dispatch.getattr_(executor, obj, _attr_name(name, "getattr"))


def b_setattr(executor, obj, name, value):
    from .handlers.names import set_attribute
    set_attribute(executor, obj, _attr_name(name, "setattr"), value)
    return const(None)


def b_delattr(executor, obj, name):
    from .handlers.names import delete_attribute
    delete_attribute(executor, obj, _attr_name(name, "delattr"))
    return const(None)


def b_hasattr(executor, obj, name):
    return attr_presence.hasattr_(executor, obj, _attr_name(name, "hasattr"))


def b_hash(executor, obj):
    if (hashed := identities.user_hash(executor, obj)) is not None:
        return hashed
    folded = builtin_values.hash_of(obj)
    return folded if folded is not None else _python_builtin(hash)(executor, obj)


def b_type(executor, obj, *rest):
    if rest:   # type(name, bases, namespace): a class made at run time
        raise FallbackError(UNSUPPORTED_CALL, "type() with three arguments (a class made at run time)")
    t = obj.python_type()
    return executor.graph.wrap(t, ConstTracker(t))


def b_bool_like(fn):
    def handler(executor, *args):
        if len(args) == 1 and isinstance(args[0], SymScalarVariable) and args[0].meta.type is fn:
            return args[0]  # int(n) of an int computed from shapes is n itself
        if fn is not bool and len(args) == 1 and (read := array_numbers.read_number(executor.graph, args[0], fn)
                                                  or array_numbers.convert_number(executor.graph, args[0], fn)):
            return read
        if len(args) == 1 and not isinstance(args[0], (ConstVariable, TensorVariable, SymScalarVariable)):
            if fn is bool:
                return const(user_protocols.truth(executor, args[0]))
        return _python_builtin(fn)(executor, *args)
    return handler


def b_divmod(executor, *operands, **kwargs):
    """``divmod()`` with an ndarray operand is ``np.divmod`` (``ndarray.__divmod__``
    / ``__rdivmod__``, which a NumPy scalar defers to); a number pair folds."""
    if len(operands) == 2 and not kwargs and any(isinstance(v, TensorVariable) and not v.meta.is_scalar
                                                 for v in operands) and all(
            isinstance(v, TensorVariable) or (isinstance(v, ConstVariable) and type(v.value) in (bool, int, float))
            for v in operands):
        from .writes_out import multi_output_ufunc
        if (result := multi_output_ufunc(executor.graph, np.divmod, list(operands), {})) is not None:
            return result
    return _python_builtin(divmod)(executor, *operands, **kwargs)


def b_round(executor, *args, **kwargs):
    """``round(s, n)`` of a NumPy scalar (not bool) is NumPy's own rounding: a
    NumPy scalar of s's type, ``np.round(s, n)`` in the graph; ``round(s)``
    is a Python int from the data (a break)."""
    x, n = (args[0] if args else None), list(args[1:]) + list(kwargs.values())
    if set(kwargs) <= {"ndigits"} and len(n) == 1 and isinstance(x, TensorVariable) and x.meta.is_scalar \
            and x.meta.dtype.kind in "iuf" and isinstance(n[0], ConstVariable) and type(n[0].value) is int:
        return executor.graph.call_op(registry.lookup_function(np.round), [x, n[0]])
    if set(kwargs) <= {"ndigits"} and (r := array_numbers.round_number(executor.graph, x, n)) is not None:
        return r
    return _python_builtin(round)(executor, *args, **kwargs)


BUILTINS = {
    builtins.len: b_len,
    builtins.range: b_range,
    builtins.isinstance: b_isinstance,
    builtins.issubclass: b_issubclass,
    builtins.enumerate: b_enumerate,
    builtins.zip: b_zip,
    builtins.reversed: b_reversed,
    builtins.iter: b_iter,
    builtins.next: b_next,
    builtins.tuple: b_tuple,
    builtins.set: b_set,
    builtins.frozenset: b_frozenset,
    builtins.list: b_list,
    builtins.dict: b_dict,
    builtins.sum: b_sum,
    builtins.abs: b_abs,
    builtins.getattr: b_getattr,
    builtins.hasattr: b_hasattr,
    builtins.setattr: b_setattr,
    builtins.delattr: b_delattr,
    builtins.type: b_type,
    builtins.float: b_bool_like(float),
    builtins.int: b_bool_like(int),
    builtins.bool: b_bool_like(bool),
    builtins.round: b_round,
    builtins.slice: _python_builtin(slice),
    builtins.divmod: b_divmod,
    builtins.pow: _python_builtin(pow),
    builtins.str: _python_builtin(str),
    builtins.repr: _python_builtin(repr),
    builtins.hash: b_hash,
    builtins.callable: b_callable,
}
# pure functions of constants: the math module's (math.gcd, math.isqrt, math.degrees...) and
# the builtins that format or convert numbers and characters
for _fn in [getattr(math, _name) for _name in dir(math) if not _name.startswith("_")] + [
        builtins.bin, builtins.hex, builtins.oct, builtins.format, builtins.chr, builtins.ord, builtins.ascii]:
    if callable(_fn):
        BUILTINS.setdefault(_fn, _python_builtin(_fn))


def _math_of_numbers(fn):
    """``math.sqrt(m)`` of a number read from data: in the graph (array_numbers); else as before."""
    plain = BUILTINS[fn]

    def handler(executor, *args, **kwargs):
        if not kwargs and (r := array_numbers.python_function(executor.graph, fn, args)) is not None:
            return r
        return plain(executor, *args, **kwargs)
    return handler


for _fn in [_fn for _fn in BUILTINS if id(_fn) in data_numbers.PYTHON_FUNCTION_OPS and _fn not in (min, max)]:
    BUILTINS[_fn] = _math_of_numbers(_fn)

functional.register(BUILTINS)
copies.register(BUILTINS)
records.register(BUILTINS)
contexts.register(BUILTINS)
user_protocols.register(BUILTINS)
iter_tools.register(BUILTINS)
collections_models.register(BUILTINS)
operator_models.register(BUILTINS)
itertools_shared.register(BUILTINS)
instance_dicts.register(BUILTINS)
identities.register(BUILTINS)
builtin_subclasses.register_unbound_methods()
functools_models.register(BUILTINS)
heapq_bisect.register(BUILTINS)
statistics_models.register(BUILTINS)
BUILTINS[builtins.super] = classes.b_super
BUILTINS_BY_ID = {id(fn): fn for fn in BUILTINS}

__all__ = ["call", "BUILTINS", "BUILTINS_BY_ID", "SIDE_EFFECT", "SEQUENCES", "AttrTracker", "OpaqueVariable"]
