"""The package's metadata and build: a free distribution name, a license,
classifiers for every supported Python, and a build that says what is
missing when there is no C compiler."""
import os
import re
import shutil
import subprocess
import sys

import pytest

import sot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYPROJECT = os.path.join(ROOT, "pyproject.toml")
pytestmark = pytest.mark.skipif(not os.path.isfile(PYPROJECT), reason="not run from a clone")


def pyproject() -> str:
    with open(PYPROJECT, encoding="utf-8") as f:
        return f.read()


def test_the_distribution_is_sot_jit_and_the_version_is_sots():
    text = pyproject()
    assert re.search(r'^name = "sot-jit"$', text, re.M)    # `sot` on the package index is another project
    assert 'version = { attr = "sot._version.__version__" }' in text
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", sot.__version__)


def test_metadata_is_complete():
    text = pyproject()
    for v in ("3.10", "3.11", "3.12", "3.13"):
        assert f'"Programming Language :: Python :: {v}"' in text
    for key in ("authors", "keywords", "Homepage", "Repository", "Issues", "Changelog"):
        assert key in text
    with open(os.path.join(ROOT, "LICENSE"), encoding="utf-8") as f:
        assert "Apache License" in f.read(2000)
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert "pip install sot-jit" in readme and "pip install sot\n" not in readme


def test_building_without_a_compiler_says_what_is_missing(tmp_path):
    pytest.importorskip("setuptools")          # a fresh venv of 3.12+ has none (pip builds in isolation)
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(os.path.join(ROOT, name), tmp_path)
    shutil.copytree(os.path.join(ROOT, "csrc"), tmp_path / "csrc")
    shutil.copytree(os.path.dirname(sot.__file__), tmp_path / "sot",
                    ignore=shutil.ignore_patterns("_C*.so", "_C*.pyd", "__pycache__"))
    env = dict(os.environ, CC="no-such-cc-for-sot")
    out = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode != 0
    assert "The C compiler `no-such-cc-for-sot` was not found" in out.stderr
    assert "apt-get install gcc python3-dev" in out.stderr and "xcode-select --install" in out.stderr
