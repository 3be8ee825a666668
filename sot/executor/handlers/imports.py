"""`import x` / `from x import y` inside a traced function.

An import of a module already in ``sys.modules`` (fully initialised) runs no
module code: IMPORT_NAME is the lookup CPython's fast path does
(PyImport_ImportModuleLevelObject), loaded on every call from
``sys.modules[name]`` and guarded on that entry's identity, so a module
removed or replaced later is imported again natively. IMPORT_FROM reads the
module's own dict (dispatch's module attribute, guarded). Anything that
would run the import system — a module not yet imported or still
initialising, a fromlist name that is a not-yet-imported submodule, a
replaced ``builtins.__import__``, ``*`` — breaks the graph at the
instruction, which then runs natively.
"""
from __future__ import annotations

import builtins
import importlib.util
import sys

from ...breaks.reasons import UNSUPPORTED_OPCODE, FallbackError
from ...guards.tracker import AttrTracker, BuiltinTracker, ConstTracker, ItemTracker
from .. import dispatch
from ..variables import ConstVariable, ModuleVariable, TupleVariable
from ._registry import handler, unsupported

_SYS_MODULES = AttrTracker(ConstTracker(sys), "modules")
_IMPORT = builtins.__import__   # the import system's own; a replacement is user code


def _native(why: str) -> FallbackError:
    return FallbackError(UNSUPPORTED_OPCODE, f"import runs natively: {why}")


@handler("IMPORT_NAME")
def import_name(ex, instr):
    fromlist = ex.pop()
    level = ex.pop()
    name = instr.argval
    _check_import_function(ex)
    if not (isinstance(level, ConstVariable) and type(level.value) is int):
        raise _native("a non-constant level")
    names = _fromlist(fromlist)
    absolute = _absolute_name(ex, name, level.value)
    if "*" in names:
        raise _native("`from ... import *`")
    module = _module(ex, absolute)   # eager finds it in sys.modules: no code runs
    if names:
        if hasattr(module.value, "__path__") and any(n not in vars(module.value) for n in names):
            raise _native(f"a name of the fromlist may be a submodule of {absolute} to import")
        ex.push(module)
        return
    # `import a.b.c` binds the top package (relative: the part above `name`)
    top = absolute[:len(absolute) - len(name) + len(name.partition(".")[0])]
    ex.push(module if top == absolute else _module(ex, top))


def _check_import_function(ex) -> None:
    """IMPORT_NAME calls the frame's builtins' __import__; only the real one is modelled."""
    if ex.builtins.get("__import__") is not _IMPORT:
        raise _native("builtins.__import__ is replaced")
    ex.graph.wrap(_IMPORT, BuiltinTracker("__import__"))   # guarded by identity


def _fromlist(v) -> tuple:
    if isinstance(v, ConstVariable) and v.value is None:
        return ()
    if isinstance(v, TupleVariable) and all(isinstance(i, ConstVariable) and type(i.value) is str for i in v.items):
        return tuple(i.value for i in v.items)
    raise _native("a fromlist that is not constant names")


def _absolute_name(ex, name: str, level: int) -> str:
    if level == 0:
        return name
    package = ex.globals.get("__package__")
    spec = ex.globals.get("__spec__")
    if type(package) is not str or not package or (spec is not None and getattr(spec, "parent", None) != package):
        raise _native("a relative import whose package is not a plain __package__")
    ex.load_global("__package__")   # guarded: a changed package resolves again
    try:
        return importlib.util.resolve_name("." * level + name, package)
    except ImportError:
        raise _native("a relative import beyond the top-level package") from None


def _module(ex, name: str) -> ModuleVariable:
    """sys.modules[name], guarded on that entry's identity."""
    module = sys.modules.get(name)
    if module is None:
        raise _native(f"{name} is not imported yet (the import runs its code)")
    spec = vars(module).get("__spec__") if isinstance(module, type(sys)) else None
    if spec is not None and getattr(spec, "_initializing", False):
        raise _native(f"{name} is still being initialised")
    v = ex.graph.wrap(module, ItemTracker(_SYS_MODULES, name))   # identity guard on sys.modules[name]
    if not isinstance(v, ModuleVariable):
        raise _native(f"sys.modules[{name!r}] is not a module")
    return v


@handler("IMPORT_FROM")
def import_from(ex, instr):
    module = ex.peek()
    if not isinstance(module, ModuleVariable):
        raise _native(f"`from` import out of {module.describe()}")
    if instr.argval not in vars(module.value):   # eager then looks for a submodule in sys.modules
        raise _native(f"{instr.argval} is not in the module's dict")
    ex.push(dispatch.getattr_(ex, module, instr.argval))


unsupported("`from x import *` writes the frame's namespace", "IMPORT_STAR")
