"""Which code objects sot translates, and which it never touches.

User code and installed packages (site-packages) are traced: most programs
are thin user code calling into libraries, and a layer's ``forward`` or an
optimizer's ``step`` is where the array work is.  What is not traced is
decided by one table, `DEFAULT_SKIPS`, plus what the user adjusted with
`skip` / `trace_into` (``sot.skip`` / ``sot.trace_into``).  The rule that
matches the longest path prefix of a code's file wins, so a package traced
into inside a skipped one (or skipped inside a traced one) is honoured.

A skipped code runs natively; the hook is told once (``SKIP``, kept in the
code's per-code state), so a skipped code costs one flag test per call.
The function the user decorated is always translated (see translate.py).

"Is this NumPy" is decided by the module object (`is_numpy_module`), never by
a prefix of a name: ``numpy_ml`` or ``numpyro`` are packages like any other.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
import threading

import numpy

from ._codemap import CodeMap

GENERATED_PREFIX = "<sot"
TRACED = None  # the decision for a code that is translated

SOT_WHY = "sot itself"  # never logged or listed: not the user's code

#: The default skip table: (top-level module names, why none of it is traced).
NUMPY_WHY = ("NumPy: its functions are captured as graph ops where the op registry knows them; "
             "its own Python source is dispatch around compiled code, which a trace cannot improve")
DEFAULT_SKIPS = (
    (("numpy",), NUMPY_WHY),
    (("scipy",), "SciPy: thin Python around compiled routines (LAPACK, Fortran, Cython): every call "
                 "would be a graph break"),
    (("onnx", "onnxruntime"), "onnx / onnxruntime: sot's backend runs them; no NumPy work to capture"),
    (("bytecode",), "bytecode: sot's code assembler"),
    (("pandas",), "pandas: its own compiled engine under Python glue; a trace would only break"),
    (("matplotlib",), "matplotlib: drawing and file I/O, no NumPy work to capture"),
    (("torch", "jax", "jaxlib", "tensorflow", "numba"),
     "another array framework or compiler: its values are not NumPy arrays a graph could hold"),
    (("sot",), SOT_WHY),
    # the standard library, by directory (see _stdlib_dirs): appended below
)
STDLIB_WHY = ("the standard library: its I/O, threading, logging and import machinery must run "
              "natively, and none of it does NumPy work a graph could hold (sot.trace_into(module) to trace one)")

_not_to_static_codes = CodeMap()   # code -> rule (sot.not_to_static / sot.skip of a function)
_skipped_by_rule = CodeMap()       # codes the translator told the hook to skip -> rule
_user_rules: list = []             # [(path prefix, rule or TRACED, label)] from skip / trace_into
_lock = threading.Lock()
_table: list | None = None         # [(prefix, rule or TRACED)], longest first (built lazily)
_decisions: dict = {}              # filename -> rule or TRACED


def _real(path: str) -> str:
    return os.path.realpath(path)


def _module_prefixes(name: str) -> list[str]:
    """Path prefixes of a module or package, found without importing it."""
    mod = sys.modules.get(name)
    if mod is not None:
        paths = list(getattr(mod, "__path__", None) or ())
        file = getattr(mod, "__file__", None)
        if paths:
            return [_real(p) + os.sep for p in paths]
        return [_real(file)] if isinstance(file, str) else []
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [_real(p) + os.sep for p in spec.submodule_search_locations]
    return [_real(spec.origin)] if spec.origin and os.path.isabs(spec.origin) else []


def _stdlib_dirs() -> list[str]:
    paths = sysconfig.get_paths()
    return sorted({_real(p) + os.sep for k in ("stdlib", "platstdlib") if (p := paths.get(k))})


def _site_dirs() -> list[str]:
    import site
    paths = sysconfig.get_paths()
    dirs = {paths.get(k) for k in ("purelib", "platlib")}
    try:
        dirs.update(site.getsitepackages())
    except AttributeError:  # some embedded Pythons have no getsitepackages
        pass
    dirs.add(getattr(site, "USER_SITE", None))
    return sorted({_real(d) + os.sep for d in dirs if d})


def _build_table() -> list:
    rows = [(d, STDLIB_WHY) for d in _stdlib_dirs()]
    rows += [(d, TRACED) for d in _site_dirs()]  # inside the stdlib dir on many installs
    for names, why in DEFAULT_SKIPS:
        for name in names:
            rows += [(p, why) for p in _module_prefixes(name)]
    # NumPy is library code wherever it was imported from (a PYTHONPATH or
    # source checkout is not under site-packages): by its module object.
    rows.append((_NUMPY_DIR, NUMPY_WHY))
    rows.append((_real(os.path.dirname(__file__)) + os.sep, SOT_WHY))
    rows += [(p, rule) for p, rule, _label in _user_rules]  # later rows win at equal prefix
    # longest prefix first; at equal length the later row (a user's) wins
    order = sorted(range(len(rows)), key=lambda i: (-len(rows[i][0]), -i))
    return [rows[i] for i in order]


def skip_rule(code) -> str | None:
    """Why `code` is never translated (the rule, in words), or None when it is traced."""
    rule = _not_to_static_codes.get(code)
    if rule is not None:
        return rule
    filename = code.co_filename
    if filename.startswith(GENERATED_PREFIX):
        return "code generated by sot"
    if filename.startswith("<frozen"):
        return "frozen import machinery"
    if filename.startswith("<"):
        return TRACED  # exec'd / interactive user code
    decision = _decisions.get(filename, 0)
    if decision != 0:
        return decision
    global _table
    with _lock:
        if _table is None:
            _table = _build_table()
        table = _table
    real = _real(filename)
    decision = TRACED
    for prefix, rule in table:
        if real == prefix or real.startswith(prefix):
            decision = rule
            break
    _decisions[filename] = decision
    return decision


def is_user_code(code) -> bool:
    """Whether `code` is translated (user code and installed packages not in the skip table)."""
    return skip_rule(code) is None


# -- sot.not_to_static / sot.skip / sot.trace_into ---------------------------------

def mark_not_to_static(code, rule: str = "marked sot.not_to_static") -> None:
    _not_to_static_codes[code] = rule


def is_not_to_static(code) -> bool:
    return code in _not_to_static_codes


def _prefixes_of(target) -> tuple[list[str], str]:
    if isinstance(target, str):
        return _module_prefixes(target), target
    name = getattr(target, "__name__", None)
    if type(target).__name__ == "module" and isinstance(name, str):
        return _module_prefixes(name), name
    raise TypeError(f"expected a module, a module name or a function, got {type(target).__name__}")


def adjust(target, traced: bool) -> None:
    """sot.skip(module) (traced=False) / sot.trace_into(module) (traced=True)."""
    prefixes, label = _prefixes_of(target)
    if not prefixes:
        raise ValueError(f"no module {label!r} is found")
    rule = TRACED if traced else f"sot.skip({label})"
    with _lock:
        _user_rules.extend((p, rule, label) for p in prefixes)
    forget()


def forget() -> None:
    """Decide again: drop the table and the decisions made with it, and let
    the hook ask again about the codes it was told to skip (sot.reset,
    explain, a skip/trace_into adjustment)."""
    global _table
    from . import _hook
    with _lock:
        _table = None
        _decisions.clear()
        codes = [code for code, _rule in _skipped_by_rule.items()]
        _skipped_by_rule.clear()
    for code in codes:
        _hook.unskip_code(code)


def note_skipped(code, rule: str) -> None:
    """The translator told the hook to skip `code` because of `rule`."""
    _skipped_by_rule[code] = rule


def is_numpy_module(name) -> bool:
    """Whether the module named `name` (or the module object) is NumPy or one
    of its submodules: by the module object where it is imported (its file
    lies in NumPy's directory), else by its top-level package."""
    mod = sys.modules.get(name) if isinstance(name, str) else name
    if mod is None:
        return isinstance(name, str) and name.partition(".")[0] == "numpy"
    if mod is numpy:
        return True
    cached = _numpy_modules.get(id(mod))
    if cached is not None and cached[0] is mod:
        return cached[1]
    file = getattr(mod, "__file__", None)
    answer = isinstance(file, str) and _real(file).startswith(_NUMPY_DIR)
    if not answer and not isinstance(file, str):  # a compiled-in submodule: by its package
        pkg = getattr(mod, "__package__", None) or ""
        answer = pkg.partition(".")[0] == "numpy" and sys.modules.get("numpy") is numpy
    _numpy_modules[id(mod)] = (mod, answer)
    return answer


_NUMPY_DIR = _real(os.path.dirname(numpy.__file__)) + os.sep
_numpy_modules: dict = {}


def is_numpy_object(value) -> bool:
    """Whether a function or class belongs to NumPy (by its module object)."""
    mod = getattr(value, "__module__", None)
    return isinstance(mod, str) and is_numpy_module(mod)


def in_package(module_name, package: str) -> bool:
    """Whether a module name is `package` or one of its submodules (never a
    mere prefix: ``numpy_ml`` is not in ``numpy``)."""
    return isinstance(module_name, str) and (module_name == package or module_name.startswith(package + "."))
