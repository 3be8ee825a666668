"""`import sot` from a clone's root, where the source tree (without a built
extension) shadows the installed package: it uses the installed sot's
compiled extension when the versions match, and otherwise fails saying
what to do (not with a "circular import" message)."""
import os
import shutil
import subprocess
import sys

import numpy as np

import sot
from difftest import python_env


def source_tree_copy(tmp_path, version=None):
    """A copy of sot's Python sources (no compiled extension) in tmp_path/clone,
    as a fresh clone has it; optionally of another version."""
    clone = tmp_path / "clone"
    shutil.copytree(os.path.dirname(sot.__file__), clone / "sot",
                    ignore=shutil.ignore_patterns("_C*.so", "_C*.pyd", "__pycache__"))
    if version is not None:
        (clone / "sot" / "_version.py").write_text(f'__version__ = "{version}"\n')
    return clone


def run_in(clone, code, with_installed=True):
    env = python_env()
    installed = os.path.dirname(os.path.dirname(sot.__file__))   # the sot that has _C
    env["PYTHONPATH"] = installed if with_installed else ""
    return subprocess.run([sys.executable, "-c", code], cwd=clone, env=env,
                          capture_output=True, text=True)


def test_the_source_tree_uses_the_installed_extension_of_its_version(tmp_path):
    clone = source_tree_copy(tmp_path)
    code = ("import numpy as np, sot\n"
            "print(sot.__file__)\nprint(sot._C.__file__)\n"
            "f = sot.to_static(lambda x: np.tanh(x) * 2)\n"
            "print(f(np.ones(3)).tolist(), sot.translation_count(f))")
    out = run_in(clone, code)
    assert out.returncode == 0, out.stderr
    module_file, extension_file, result = out.stdout.splitlines()
    assert module_file == str(clone / "sot" / "__init__.py")          # the source tree is imported ...
    assert os.path.dirname(extension_file) == os.path.dirname(sot._C.__file__)   # ... with the installed _C
    assert result == f"{[float(np.tanh(1.0) * 2)] * 3} 1"        # traced, through the hook


def test_another_version_fails_saying_how_to_build_or_where_to_run(tmp_path):
    clone = source_tree_copy(tmp_path, version="0.0.0.dev-other")
    out = run_in(clone, "import sot")
    assert out.returncode != 0
    assert "circular import" not in out.stderr
    assert "ImportError: sot 0.0.0.dev-other is imported from" in out.stderr
    assert f"but it is version {sot.__version__}, not 0.0.0.dev-other" in out.stderr
    assert "setup.py build_ext --inplace" in out.stderr and "another directory" in out.stderr


def test_without_an_installed_sot_the_error_says_what_to_do(tmp_path):
    clone = source_tree_copy(tmp_path)
    out = run_in(clone, "import sot", with_installed=False)
    if out.returncode == 0:     # sot is installed in this Python's site-packages (CI): it was used
        return
    assert "circular import" not in out.stderr
    assert "has no compiled extension" in out.stderr
    assert "setup.py build_ext --inplace" in out.stderr
