"""Which code objects sot translates, and which it never touches."""
from __future__ import annotations

import os
import sysconfig

import numpy

from ._codemap import CodeMap

_not_to_static_codes = CodeMap()

_LIB_DIRS = tuple(
    os.path.realpath(p) + os.sep
    for key in ("stdlib", "platstdlib", "purelib", "platlib")
    if (p := sysconfig.get_paths().get(key))
)
# NumPy is library code wherever it was imported from (a PYTHONPATH or source
# checkout is not under the install's site-packages).
_NUMPY_DIR = os.path.dirname(os.path.realpath(numpy.__file__)) + os.sep
_SOT_DIR = os.path.dirname(os.path.realpath(__file__)) + os.sep
GENERATED_PREFIX = "<sot"


def mark_not_to_static(code) -> None:
    _not_to_static_codes[code] = True


def is_not_to_static(code) -> bool:
    return code in _not_to_static_codes


def is_user_code(code) -> bool:
    """Library, sot's own and generated code is never translated."""
    if code in _not_to_static_codes:
        return False
    filename = code.co_filename
    if filename.startswith(GENERATED_PREFIX) or filename.startswith("<frozen"):
        return False
    if filename == "<string>" and code.co_names == ("_tuple_new",):
        return False  # collections.namedtuple's __new__ (np.linalg's results, among others)
    if filename.startswith("<"):
        return True  # exec'd / interactive user code
    real = os.path.realpath(filename)
    if real.startswith(_SOT_DIR) or real.startswith(_NUMPY_DIR):
        return False
    return not real.startswith(_LIB_DIRS)
