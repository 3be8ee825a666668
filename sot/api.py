"""The public API: to_static, not_to_static, reset, translation_count."""
from __future__ import annotations

import functools
import os
import types
from typing import Callable

from . import _env, _hook, _skip
from .guards import cache



def to_static(fn: Callable | None = None, *, backend: str | None = None, device: str = "cpu",
              full_graph: bool = False, cache_size: int | None = None, min_graph_size: int | None = None,
              dynamic: bool | None = None, freeze: bool = False,
              cache_dir: str | os.PathLike | None = None) -> Callable:
    """Translate `fn` on call: ``@sot.to_static`` or ``sot.to_static(fn, **options)``.

    `fn` is a function, method, bound method or callable object. The result
    is a callable that behaves exactly like `fn` (values, types, dtypes,
    shapes, side effects, output, exceptions); the NumPy array computation
    `fn` performs is captured into graphs, compiled for a backend and cached
    behind guards on what the trace read. Code that cannot be captured runs
    natively around a *graph break* (see ``sot.explain``). Used with options
    only (``@sot.to_static(backend="onnxruntime")``) it returns a decorator.

    backend: how graphs run. "numpy" (default; env SOT_BACKEND): generated
        NumPy code, bitwise equal to eager. "onnxruntime": lowered to ONNX
        and run by onnxruntime (ops without an exact ONNX form stay on
        NumPy). "auto": both are timed on the first calls, the faster kept.
    device: "cpu" (default) or "gpu" (onnxruntime's CUDA provider; needs
        backend "onnxruntime" or "auto" and onnxruntime-gpu with working
        CUDA libraries, else RuntimeError at once).
    full_graph: True raises sot.GraphBreakError instead of breaking the
        graph, for code that must be captured whole.
    cache_size: translations kept per code object (default 8, env
        SOT_CACHE_SIZE); past it, new inputs run natively.
    min_graph_size: around a graph break, a graph of fewer ops runs
        natively instead (default 10, env SOT_MIN_GRAPH_SIZE).
    dynamic: symbolic array dims. None (default; env SOT_DYNAMIC=0/1):
        automatic, a dim whose size changed since the code's previous
        translation becomes symbolic, so one entry serves every size >= 2
        of it. True: every dim symbolic from the first call. False: only
        dims forced by ``sot.mark_dynamic``.
    freeze: True promises that the arrays `fn` reads from outside its
        arguments (attributes, globals, closures, container items: its
        weights) are not updated in place. Each becomes a graph constant,
        guarded by identity, which onnxruntime can pre-pack (a 42-layer MLP
        at batch 1: about 2x faster). sot enforces it: such an array is
        read-only once a graph holds it, so an in-place update raises
        ValueError instead of being missed; assigning a new array is fine
        (it retranslates); ``sot.reset()`` makes them writeable again.
        Arrays that are views of other memory are not frozen.

    cache_dir: a directory where onnxruntime's optimised models are kept
        for other processes (and later runs) to load instead of optimising
        again (default: env SOT_CACHE_DIR; unset, no disk cache). See
        sot/backends/disk_cache.py.

    The decorated callable pickles (pickle, cloudpickle): by reference when
    its module and qualified name find it, else as `fn` decorated again
    with these options; either way it translates afresh in the process
    that unpickles it (sot/_pickling.py).

    Raises TypeError if `fn` is not callable and ValueError for an unknown
    option value (also one given through an environment variable).
    """
    # The translator and backends load on first use, keeping `import sot` light.
    from .backends import BACKENDS, DEVICES
    from .translate import Options, Translator

    if fn is None:
        return functools.partial(to_static, backend=backend, device=device, full_graph=full_graph,
                                 cache_size=cache_size,
                                 min_graph_size=min_graph_size, dynamic=dynamic, freeze=freeze,
                                 cache_dir=cache_dir)
    if isinstance(fn, (staticmethod, classmethod)):
        # Below @staticmethod/@classmethod in a class body: the descriptor
        # stays outermost, so the class binds (or does not bind) as eagerly.
        return type(fn)(to_static(fn.__func__, backend=backend, device=device, full_graph=full_graph,
                                  cache_size=cache_size, min_graph_size=min_graph_size, dynamic=dynamic,
                                  freeze=freeze, cache_dir=cache_dir))
    if not callable(fn):
        raise TypeError(f"sot.to_static() needs a function, method or callable object, "
                        f"not {type(fn).__name__} {_short_repr(fn)}")
    if backend is None:
        backend = os.environ.get("SOT_BACKEND") or "numpy"
        if backend not in BACKENDS:
            raise ValueError(f"environment variable SOT_BACKEND={backend!r} is not a backend; "
                             f"expected one of {', '.join(BACKENDS)}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; expected one of {', '.join(DEVICES)}")
    if device == "gpu":
        if backend == "numpy":
            raise ValueError("device='gpu' needs backend='onnxruntime' (or 'auto')")
        from .backends.onnx.session import providers_for
        providers_for("gpu")  # a clear error now, not at the first graph
        from .backends.gpu_check import check_gpu
        check_gpu()           # listed is not enough: the CUDA libraries must load too
    if cache_size is None:
        cache_size = _env.integer("SOT_CACHE_SIZE", cache.DEFAULT_CACHE_SIZE, 1)
    cache_size = _option_int("cache_size", cache_size, 1)
    if min_graph_size is None:
        min_graph_size = _env.integer("SOT_MIN_GRAPH_SIZE", 10, 0)
    min_graph_size = _option_int("min_graph_size", min_graph_size, 0)
    full_graph, freeze = _option_bool("full_graph", full_graph), _option_bool("freeze", freeze)
    strict = _env.flag("SOT_STRICT")
    _env.flag("SOT_DISABLE")  # read per call in C (static_function.c); a typo is an error here
    if dynamic is None:
        env_dynamic = os.environ.get("SOT_DYNAMIC", "").strip()
        if env_dynamic not in ("", "0", "1"):
            raise ValueError(f"environment variable SOT_DYNAMIC={env_dynamic!r} must be 0, 1 or unset")
        dynamic = None if env_dynamic == "" else env_dynamic == "1"
    if dynamic not in (None, True, False):
        raise ValueError(f"dynamic must be None, True or False, not {dynamic!r}")
    target_code = _target_code(fn)
    translator = Translator(Options(backend=backend, device=device, full_graph=full_graph, cache_size=cache_size,
                                    min_graph_size=min_graph_size, top_code=target_code, dynamic=dynamic,
                                    freeze=bool(freeze), cache_dir=None if cache_dir is None else os.fspath(cache_dir),
                                    strict=strict))

    # A C callable: sets the translator as this thread's frame callback around
    # each call (SOT_DISABLE=1 in the environment runs `fn` natively).
    static_call = _hook.StaticFunction(fn, translator)
    if isinstance(fn, (types.FunctionType, types.MethodType)):
        functools.update_wrapper(static_call, fn)
    else:
        static_call.__wrapped__ = fn
        static_call.__name__ = getattr(fn, "__name__", type(fn).__name__)
        static_call.__doc__ = getattr(fn, "__doc__", None)
    static_call.__sot_static__ = translator
    # what a process that unpickles it decorates with (sot/_pickling.py)
    static_call.__sot_options__ = dict(backend=backend, device=device, full_graph=full_graph, cache_size=cache_size,
                                       min_graph_size=min_graph_size, dynamic=dynamic, freeze=bool(freeze),
                                       cache_dir=translator.options.cache_dir)
    if not full_graph and not translator.options.strict:
        from . import governor
        static_call.__sot_governor__ = governor.install(static_call, fn, translator)
    return static_call


def _option_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__} {_short_repr(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, not {value!r}")
    return value


def _option_bool(name: str, value) -> bool:
    """True/False (or 1/0): a string such as "no" would be read as on."""
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, not {type(value).__name__} {_short_repr(value)}")


def _short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _target_code(fn):
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if isinstance(fn, types.FunctionType):
        return fn.__code__
    call = getattr(type(fn), "__call__", None)
    return getattr(call, "__code__", None)


def not_to_static(fn: Callable) -> Callable:
    """Never translate `fn`: calls to it always run natively (the functions
    it calls are not translated either). Returns `fn`, so it works as a
    decorator."""
    code = _target_code(fn)
    if code is not None:
        _skip.mark_not_to_static(code)
        _hook.skip_code(code)
    return fn


def skip(target):
    """Never trace `target`: a function (calls to it run natively, as with
    not_to_static), or a module / package (object or name) whose code then
    runs natively wherever it is called from. Returns `target`."""
    code = _target_code(target) if not isinstance(target, (str, types.ModuleType)) else None
    if code is not None:
        _skip.mark_not_to_static(code, f"sot.skip({getattr(target, '__qualname__', code.co_name)})")
        _hook.skip_code(code)
    else:
        _skip.adjust(target, traced=False)
    return target


def trace_into(target):
    """Trace the code of a module / package (object or name) that the
    default skip table leaves alone (e.g. a standard-library module), or
    one skipped earlier with sot.skip. Returns `target`."""
    _skip.adjust(target, traced=True)
    return target


def reset() -> None:
    """Drop every cached translation (and the sizes seen for automatic
    dynamic shapes); arrays frozen by `to_static(freeze=True)` are
    writeable again."""
    cache.reset()
    _skip.forget()
    from . import governor
    governor.restart_all()
    from .executor import freeze, list_lengths, scalar_policy, shape_policy
    shape_policy.reset()
    scalar_policy.reset()
    list_lengths.reset()
    freeze.release_all()


def translation_count(fn: Callable) -> int:
    """How many times the code of `fn`, and the resume functions split from
    it at graph breaks, have been translated (for tests and tools)."""
    from .breaks.resume import RESUME_ORIGIN

    fn = getattr(fn, "__wrapped__", fn)
    code = _target_code(fn)
    if code is None:
        return 0
    resumes = [r for r, (origin, _) in RESUME_ORIGIN.items() if origin is code]
    return cache.translation_count(code) + sum(cache.translation_count(r) for r in resumes)
