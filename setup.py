"""Build the frame-evaluation hook as ``sot._C``.

The hook reads CPython's internal frame structures, so it is compiled with
``Py_BUILD_CORE`` against the internal headers that every CPython install
ships under ``include/pythonX.Y/internal``. Everything else about the
package is in pyproject.toml.
"""
import os
import shutil
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

hook = Extension(
    "sot._C",
    sources=["csrc/eval_frame_hook.c", "csrc/hook_types.c", "csrc/code_state.c",
             "csrc/guard_program.c", "csrc/guard_parse.c", "csrc/guard_class.c",
             "csrc/static_function.c", "csrc/monitoring.c", "csrc/fp_state.c", "csrc/array_binding.c",
             "csrc/traceback_fixup.c", "csrc/thread_owner.c"],
    depends=["csrc/frame_adapter.h", "csrc/frame_info.h", "csrc/hook_types.h", "csrc/thread_owner.h", "csrc/code_state.h",
             "csrc/guard_program.h", "csrc/guard_ops.h", "csrc/static_function.h",
             "csrc/fp_state.h", "csrc/array_binding.h", "csrc/ndarray_head.h", "csrc/stack_guard.h",
             "csrc/traceback_fixup.h"],
    extra_compile_args=["-Wall", "-Wextra"],
)

HOW_TO_GET_A_COMPILER = """\
sot has a C extension (sot._C: the frame-evaluation hook) and building it needs
a C compiler and this Python's headers ({include}).
{what}
Install them, then run the same command again:
    Debian/Ubuntu:  sudo apt-get install gcc python3-dev   (python{ver}-dev for a distribution Python)
    Fedora/RHEL:    sudo dnf install gcc python3-devel
    macOS:          xcode-select --install
    conda:          conda install -c conda-forge c-compiler
(pyenv, uv and python.org builds ship the headers; they only need the compiler.)
"""


def _missing_build_tools(compiler) -> str | None:
    """What is missing to compile the extension, in words, or None."""
    executable = getattr(compiler, "compiler_so", None) or getattr(compiler, "compiler", None)
    if executable and shutil.which(executable[0]) is None:
        return f"The C compiler `{executable[0]}` was not found (set CC to use another one)."
    include = sysconfig.get_paths()["include"]
    if not os.path.isfile(os.path.join(include, "Python.h")):
        return f"This Python's headers are missing: no Python.h in {include}."
    return None


class build_ext_explained(build_ext):
    """build_ext that says what is missing (a C compiler, Python's headers)
    and how to get it, instead of setuptools' raw error."""

    def build_extensions(self):
        missing = _missing_build_tools(self.compiler)
        if missing is not None:
            sys.stderr.write("\n" + HOW_TO_GET_A_COMPILER.format(
                include=sysconfig.get_paths()["include"], what=missing,
                ver=sysconfig.get_python_version()) + "\n")
            raise SystemExit("error: cannot build sot._C: " + missing)
        super().build_extensions()


def _license() -> dict:
    """Apache-2.0, as an SPDX expression where setuptools knows them (>= 77),
    else the older free-text field (the dev venvs' setuptools 65 builds too)."""
    import setuptools
    major = int(setuptools.__version__.split(".")[0])
    if major >= 77:
        return {"license_expression": "Apache-2.0", "license_files": ["LICENSE"]}
    return {"license": "Apache-2.0", "license_files": ["LICENSE"]}


setup(ext_modules=[hook], cmdclass={"build_ext": build_ext_explained}, **_license())
