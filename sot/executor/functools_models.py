"""functools.lru_cache and functools.cache applied during the trace (to a
function defined in the frame), and functools.wraps/update_wrapper.

The cache is modelled as CPython's C
wrapper keeps it, so a hit returns the very object the first call returned
and skips the body (and its side effects), a miss runs it inlined, and
`maxsize` evicts the least recently used entry. Arguments must be plain
constants (hashing an array computed in the graph would need its data).

A cached function from outside the frame is a C object the trace calls
natively (a graph break), so its cache is eager's own.

update_wrapper(wrapper, wrapped) on a wrapper function made in the frame
gives it the wrapped function's __module__, __name__, __qualname__,
__doc__, __dict__ entries and __wrapped__ (`func_attrs` on its Variable,
read by `function_attribute`); the wrapped function's are read as CPython
made them (a real function of its code for one made in the frame, guarded
attributes for one from outside). A wrapper from outside would be mutated:
that runs natively. __annotations__ and __type_params__ are not modelled
(reading them breaks).
"""
from __future__ import annotations

import collections
import functools

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from .variables import ConstVariable, Variable
from .variables.modelled import ModelledObject

_KWD_MARK = object()


def make_key(args: tuple, kwds: dict, typed: bool):
    """The cache key CPython's C lru_cache makes (Modules/_functoolsmodule.c, lru_cache_make_key)."""
    if not typed and not kwds:
        if len(args) == 1 and type(args[0]) in (int, str):
            return args[0]
        return args
    key = list(args)
    if kwds:
        key.append(_KWD_MARK)
        for k, v in kwds.items():
            key += [k, v]
    if typed:
        key += [type(v) for v in args]
        key += [type(v) for v in kwds.values()]
    return tuple(key)


class CachedFunctionVariable(Variable, ModelledObject):
    def __init__(self, fn: Variable, maxsize: int | None, typed: bool):
        super().__init__(None)
        self.fn, self.maxsize, self.typed = fn, maxsize, typed
        self.cache: collections.OrderedDict = collections.OrderedDict()   # key -> result Variable, LRU order
        self.hits = self.misses = 0

    def python_type(self):
        return type(functools.lru_cache(lambda: None))

    def truth(self) -> bool:
        return True

    def describe(self) -> str:
        return f"lru_cache of {self.fn.describe()}"

    def rebuild(self, builder) -> str:
        raise FallbackError(UNSUPPORTED_OBJECT, "a cached function made during the trace cannot be rebuilt "
                            "with its cache")

    def _key(self, args, kwargs):
        from .functional import plain_values
        values = plain_values(list(args) + list(kwargs.values()), "an lru_cache key")
        return make_key(tuple(values[:len(args)]), dict(zip(kwargs, values[len(args):])), self.typed)

    def call(self, executor, args, kwargs):
        if self.maxsize == 0:   # no caching: every call runs
            self.misses += 1
            return executor.call_function(self.fn, args, kwargs)
        key = self._key(args, kwargs)
        if key in self.cache:
            self.hits += 1
            self.cache.move_to_end(key)
            return self.cache[key]
        self.misses += 1
        result = executor.call_function(self.fn, args, kwargs)
        if self.maxsize is None:   # unbounded: stored after the call, over what a recursive call stored
            self.cache[key] = result
        elif key not in self.cache:   # bounded: an entry a recursive call stored meanwhile stays
            self.cache[key] = result
            if len(self.cache) > self.maxsize:
                self.cache.popitem(last=False)
        return result

    def attribute(self, executor, name):
        if name == "__wrapped__":
            return self.fn
        if name in ("cache_info", "cache_clear", "cache_parameters"):
            from .variables import BuiltinMethodVariable
            return BuiltinMethodVariable(self, name)
        return NotImplemented

    def method(self, executor, name, args, kwargs):
        if args or kwargs:
            raise FallbackError(UNSUPPORTED_CALL, f"{name}() with arguments (eager raises)")
        if name == "cache_info":
            info = functools._CacheInfo(self.hits, self.misses, self.maxsize, len(self.cache))
            from .classes import NamedTupleVariable
            return NamedTupleVariable([ConstVariable(v) for v in info], None, cls=functools._CacheInfo)
        if name == "cache_clear":
            self.cache.clear()
            self.hits = self.misses = 0
            return ConstVariable(None)
        if name == "cache_parameters":
            from .variables import DictVariable
            return DictVariable({"maxsize": ConstVariable(self.maxsize), "typed": ConstVariable(self.typed)})
        return NotImplemented


class CacheDecoratorVariable(Variable, ModelledObject):
    """`functools.lru_cache(maxsize, typed)`: applied to a function, caches it."""

    def __init__(self, maxsize, typed):
        super().__init__(None)
        self.maxsize, self.typed = maxsize, typed

    def python_type(self):
        return type(functools.lru_cache())

    def truth(self) -> bool:
        return True

    def call(self, executor, args, kwargs):
        if len(args) != 1 or kwargs:
            return NotImplemented
        return _cached(args[0], self.maxsize, self.typed)


def _cached(fn: Variable, maxsize, typed) -> CachedFunctionVariable:
    from .variables import UserFunctionVariable
    if not isinstance(fn, UserFunctionVariable):
        raise FallbackError(UNSUPPORTED_CALL, f"lru_cache of {fn.describe()} is not modelled")
    return CachedFunctionVariable(fn, maxsize, typed)


def _const(v, what):
    if v is None:
        return None
    if not isinstance(v, ConstVariable):
        raise FallbackError(UNSUPPORTED_CALL, f"{what} of {v.describe()}, not a constant")
    return v.value


def b_lru_cache(executor, maxsize=None, typed=None):
    if maxsize is not None and not isinstance(maxsize, ConstVariable):   # @lru_cache without parentheses
        return _cached(maxsize, 128, bool(_const(typed, "lru_cache(typed=)")))
    n = 128 if maxsize is None else _const(maxsize, "lru_cache(maxsize=)")
    if n is not None and type(n) is not int:
        from .dispatch import python_op
        return python_op(functools.lru_cache, n)   # TypeError, as eager
    return CacheDecoratorVariable(max(n, 0) if n is not None else None, bool(_const(typed, "lru_cache(typed=)")))


def b_cache(executor, fn):
    return _cached(fn, None, False)


# -- wraps / update_wrapper -------------------------------------------------------------------

_ASSIGNED = ("__module__", "__name__", "__qualname__", "__doc__")


def _wrapped_attrs(executor, wrapped) -> dict:
    """The attributes update_wrapper copies from `wrapped`, as Variables."""
    from .variables import UserFunctionVariable
    from ..guards.guard import DictKeysGuard
    from ..guards.tracker import AttrTracker
    if not isinstance(wrapped, UserFunctionVariable):
        raise FallbackError(UNSUPPORTED_CALL, f"update_wrapper of {wrapped.describe()} is not modelled")
    own = dict(getattr(wrapped, "func_attrs", {}))
    if wrapped.value is not None and wrapped.tracker is not None:   # a function from outside: guarded reads
        real = wrapped.value
        if real.__dict__:
            raise FallbackError(UNSUPPORTED_CALL, "update_wrapper of a function with attributes in its __dict__")
        executor.graph.add_guard(DictKeysGuard(AttrTracker(wrapped.tracker, "__dict__"), real.__dict__))
        return {a: executor.graph.wrap(getattr(real, a), AttrTracker(wrapped.tracker, a)) for a in _ASSIGNED}
    if wrapped.value is not None:
        raise FallbackError(UNSUPPORTED_CALL, f"update_wrapper of {wrapped.describe()} is not modelled")
    import types
    made = types.FunctionType(wrapped.code, wrapped.globals, wrapped.code.co_name, None,
                              tuple(types.CellType() for _ in wrapped.code.co_freevars))
    attrs = {a: ConstVariable(getattr(made, a)) for a in _ASSIGNED}
    attrs["__qualname__"] = ConstVariable(getattr(wrapped, "qualname", wrapped.code.co_name))
    attrs.update(own)   # its own assigned names and __dict__ entries (an earlier update_wrapper)
    return attrs


def update_wrapper(executor, wrapper, wrapped) -> Variable:
    from .variables import UserFunctionVariable
    if not (isinstance(wrapper, UserFunctionVariable) and wrapper.value is None and wrapper.tracker is None):
        raise FallbackError(UNSUPPORTED_CALL, f"update_wrapper of {wrapper.describe()}: it mutates a function "
                            "made outside the frame")
    attrs = _wrapped_attrs(executor, wrapped)
    wrapper.func_attrs = {**getattr(wrapper, "func_attrs", {}), **attrs, "__wrapped__": wrapped}
    return wrapper


class WrapsVariable(Variable, ModelledObject):
    """functools.wraps(wrapped): applied to a function, update_wrapper(it, wrapped)."""

    def __init__(self, wrapped):
        super().__init__(None)
        self.wrapped = wrapped

    def python_type(self):
        return functools.partial

    def truth(self) -> bool:
        return True

    def call(self, executor, args, kwargs):
        if len(args) != 1 or kwargs:
            return NotImplemented
        return update_wrapper(executor, args[0], self.wrapped)


def b_wraps(executor, wrapped, *rest, **kwargs):
    if rest or kwargs:
        raise FallbackError(UNSUPPORTED_CALL, "functools.wraps with assigned=/updated= is not modelled")
    return WrapsVariable(wrapped)


def b_update_wrapper(executor, wrapper, wrapped, *rest, **kwargs):
    if rest or kwargs:
        raise FallbackError(UNSUPPORTED_CALL, "functools.update_wrapper with assigned=/updated= is not modelled")
    return update_wrapper(executor, wrapper, wrapped)


def function_attribute(obj: Variable, name: str):
    """An attribute update_wrapper gave a function made in the frame, or None."""
    attrs = getattr(obj, "func_attrs", None)
    return attrs.get(name) if attrs else None


def register(table: dict) -> None:
    table[functools.lru_cache] = b_lru_cache
    table[functools.cache] = b_cache
    table[functools.wraps] = b_wraps
    table[functools.update_wrapper] = b_update_wrapper
