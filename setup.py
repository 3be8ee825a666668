"""Build the frame-evaluation hook as ``sot._C``.

The hook reads CPython's internal frame structures, so it is compiled with
``Py_BUILD_CORE`` against the internal headers that every CPython install
ships under ``include/pythonX.Y/internal``.
"""
from setuptools import Extension, setup

hook = Extension(
    "sot._C",
    sources=["csrc/eval_frame_hook.c", "csrc/code_state.c", "csrc/guard_program.c",
             "csrc/guard_parse.c", "csrc/static_function.c", "csrc/monitoring.c", "csrc/fp_state.c"],
    depends=["csrc/frame_adapter.h", "csrc/frame_info.h", "csrc/code_state.h",
             "csrc/guard_program.h", "csrc/guard_ops.h", "csrc/static_function.h", "csrc/fp_state.h"],
    extra_compile_args=["-Wall", "-Wextra"],
)

setup(ext_modules=[hook])
