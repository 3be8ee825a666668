"""`import sot` stays light: heavy optional modules load only when needed."""
import subprocess
import sys

from difftest import python_env


def test_import_sot_does_not_import_onnx_or_numpy_lazy_submodules(tmp_path):
    code = ("import sys, sot; "
            "print(sorted(m for m in ('onnx', 'onnxruntime', 'numpy.testing', 'numpy.f2py') "
            "if m in sys.modules))")
    # From an empty directory: the installed package, not the source tree.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=tmp_path, env=python_env())
    assert out.stdout.strip() == "[]"
