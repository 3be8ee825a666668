"""functools.lru_cache and functools.cache applied during the trace (to a
function defined in the frame): the cache is modelled as CPython's C
wrapper keeps it, so a hit returns the very object the first call returned
and skips the body (and its side effects), a miss runs it inlined, and
`maxsize` evicts the least recently used entry. Arguments must be plain
constants (hashing an array computed in the graph would need its data).

A cached function from outside the frame is a C object the trace calls
natively (a graph break), so its cache is eager's own.
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


def register(table: dict) -> None:
    table[functools.lru_cache] = b_lru_cache
    table[functools.cache] = b_cache
