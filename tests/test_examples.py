"""The programs in examples/ run (at their small sizes, SOT_EXAMPLES_SMALL=1),
agree with eager NumPy (each checks its results) and print the comparison
and sot's explain report."""
import os
import subprocess
import sys

import pytest

from difftest import python_env

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
PROGRAMS = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py") and not f.startswith("_")) \
    if os.path.isdir(EXAMPLES) else []


def test_there_are_examples():
    assert {"gpt2_small.py", "heat_stencil.py", "kmeans.py"} <= set(PROGRAMS)


@pytest.mark.parametrize("program", PROGRAMS)
def test_example_runs_and_explains_itself(program, tmp_path):
    pytest.importorskip("onnxruntime")
    env = python_env()
    env["SOT_EXAMPLES_SMALL"] = "1"
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, program)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    assert "eager NumPy" in out.stdout and "sot (numpy backend)" in out.stdout
    assert "sot (onnxruntime backend)" in out.stdout
    assert "sot explain: 1 graph(s)" in out.stdout
