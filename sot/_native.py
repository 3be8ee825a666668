"""Find sot's compiled extension ``sot._C`` (the frame hook and C guards).

Python puts the current directory (or a script's folder) first on
``sys.path``, so in a clone of the repository ``import sot`` imports the
source tree, which has no ``_C`` unless it was built in place. Then the
extension of an installed sot of the same version (``pip install .``) is
used; otherwise ``import sot`` fails with an error that says what to do.
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import sys

from ._version import __version__

_HERE = os.path.dirname(os.path.abspath(__file__))
_VERSION_RE = re.compile(r"""^__version__\s*=\s*["']([^"']+)["']""", re.M)


def installed_version(package_dir: str) -> str | None:
    """The ``__version__`` of the sot package in ``package_dir``, read from its files."""
    for name in ("_version.py", "__init__.py"):
        try:
            with open(os.path.join(package_dir, name), encoding="utf-8") as f:
                found = _VERSION_RE.search(f.read())
        except OSError:
            continue
        if found:
            return found.group(1)
    return None


def installed_extensions():
    """(path of _C, version) of every other sot package on sys.path that has one."""
    for entry in sys.path:
        package_dir = os.path.join(entry or os.getcwd(), "sot")
        try:
            if os.path.samefile(package_dir, _HERE):
                continue
        except OSError:
            continue        # no such directory
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(package_dir, "_C" + suffix)
            if os.path.isfile(path):
                yield path, installed_version(package_dir)
                break


def missing_extension_message(found) -> str:
    root = os.path.dirname(_HERE)
    lines = [f"sot {__version__} is imported from {_HERE}, which has no compiled extension "
             f"(sot._C for this Python, {sys.implementation.cache_tag})."]
    for path, version in found:
        lines.append(f"An installed sot at {os.path.dirname(path)} has one, but it is version "
                     f"{version or 'unknown'}, not {__version__}.")
    lines.append("Either build it in place:\n"
                 f"    cd {root} && {os.path.basename(sys.executable) or 'python'} setup.py build_ext --inplace\n"
                 "or run Python from another directory, so that the installed sot "
                 "(`python -m pip install .`) is imported instead of the source tree.")
    return "\n".join(lines)


def load():
    """Make ``sot._C`` importable; returns the module."""
    if importlib.util.find_spec("sot._C") is not None:
        from . import _C           # built in place, or this is the installed package
        return _C
    found = list(installed_extensions())
    for path, version in found:
        if version == __version__:
            spec = importlib.util.spec_from_file_location("sot._C", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules["sot._C"] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules["sot._C"]
                raise
            sys.modules["sot"]._C = module
            return module
    raise ImportError(missing_extension_message(found), name="sot._C")
