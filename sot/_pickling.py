"""Pickling a decorated function (``StaticFunction.__reduce__``).

Multiprocessing, joblib, Dask and Ray hand a function to another process by
pickling it. A decorated function goes there the way the undecorated one
would, and arrives decorated with the same options:

* by reference (module and qualified name), when that is what finds it:
  a module-level ``@sot.to_static`` function, or a decorated method looked
  up on its class; the other process imports it, decorated by its module;
* otherwise as "decorate ``fn`` again with these options": ``sot.to_static(f)``
  of a module-level function (``f`` itself pickles by reference), a
  decorated bound method or callable object (pickled as they pickle), and a
  function defined in ``__main__`` or locally under cloudpickle, which
  pickles such functions by value.

What arrives translates on its first call there: guards and traces hold live
objects of one process and never travel (onnxruntime's optimised models may,
through the disk cache: sot/backends/disk_cache.py).
"""
from __future__ import annotations

import sys


def reduce_static(static):
    """``__reduce__`` of a decorated function: its qualified name (pickle
    then saves it by reference), or ``(redecorate, (fn, options))``."""
    options = static.__dict__.get("__sot_options__")
    if options is None:
        raise TypeError(f"cannot pickle {static!r}: not made by sot.to_static")
    name = _reference(static)
    if name is not None:
        return name
    return redecorate, (static.__sot_fn__, dict(options))


def redecorate(fn, options: dict):
    """What an unpickled decorated function is: ``fn`` decorated again."""
    from .api import to_static
    return to_static(fn, **options)


def _reference(static) -> str | None:
    """The qualified name under which pickle finds ``static`` in its module
    (as it finds a function), or None where the undecorated function would
    not be pickled by reference."""
    module_name = static.__dict__.get("__module__")
    qualname = static.__dict__.get("__qualname__")
    if not isinstance(module_name, str) or not isinstance(qualname, str) or "<locals>" in qualname:
        return None
    module = sys.modules.get(module_name)
    if module is None:
        return None
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    if obj is not static:
        return None
    if _cloudpickle_by_value(module_name):
        return None
    return qualname


def _cloudpickle_by_value(module_name: str) -> bool:
    """Whether a cloudpickle pickler on this thread's stack is what pickles
    us and would pickle a function of ``module_name`` by value: one of
    ``__main__`` (which another process does not have) or of a module
    registered with ``cloudpickle.register_pickle_by_value``. Plain pickle
    saves those by reference, which a spawned ``__main__`` resolves."""
    frame = sys._getframe(2)
    while frame is not None:
        g = frame.f_globals
        if frame.f_code.co_name == "dump" and "cloudpickle" in g.get("__name__", ""):
            if module_name == "__main__":
                return True
            registered = g.get("_PICKLE_BY_VALUE_MODULES", ())
            return module_name in registered or any(module_name.startswith(m + ".") for m in registered)
        frame = frame.f_back
    return False
