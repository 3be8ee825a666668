"""README.md's Python blocks run as written, so the README cannot drift.

The convention (see CONTRIBUTING.md): every ```python block of README.md is
a complete program. The blocks run in order, each as its own script, all in
one temporary directory (a file one block writes is there for the blocks
after it), with the sot under test importable. A block that must not run
has the line ``<!-- readme-test: skip -->`` (optionally with a reason
after "skip") right above its opening fence; use it sparingly.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from difftest import python_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
SKIP = re.compile(r"^<!--\s*readme-test:\s*skip\b.*-->\s*$")
FENCE = re.compile(r"^```python\s*$")


def python_blocks(text: str) -> list[tuple[int, str, bool]]:
    """(line number of the opening fence, source, skipped) of each ```python block."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            start = i
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            skipped = start > 0 and bool(SKIP.match(lines[start - 1].strip()))
            blocks.append((start + 1, "\n".join(lines[start + 1:j]) + "\n", skipped))
            i = j
        i += 1
    return blocks


def _readme_blocks():
    if not os.path.isfile(README):      # tests run from an installed copy without the README
        return []
    with open(README, encoding="utf-8") as f:
        return python_blocks(f.read())


BLOCKS = _readme_blocks()


class Runner:
    """Runs the README's blocks in order, once, in one directory."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.results: dict[int, subprocess.CompletedProcess] = {}

    def result(self, line: int) -> subprocess.CompletedProcess:
        for number, source, skipped in BLOCKS:
            if skipped or number in self.results:
                continue
            path = os.path.join(self.workdir, f"readme_line_{number}.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(source)
            self.results[number] = subprocess.run(
                [sys.executable, path], cwd=self.workdir, env=python_env(), capture_output=True,
                text=True, timeout=600)
            if number == line:
                break
        return self.results[line]


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    return Runner(str(tmp_path_factory.mktemp("readme")))


@pytest.mark.skipif(not BLOCKS, reason="README.md is not next to the tests")
@pytest.mark.parametrize("line", [n for n, _s, skipped in BLOCKS if not skipped],
                         ids=lambda n: f"README.md:{n}")
def test_readme_python_block_runs(runner, line):
    out = runner.result(line)
    assert out.returncode == 0, (
        f"the Python block at README.md:{line} failed (make it run as written, or, if it cannot run "
        f"anywhere, put <!-- readme-test: skip (why) --> above it):\n{out.stderr[-4000:]}")


def test_blocks_are_found_and_the_skip_marker_is_honoured():
    text = ("intro\n```python\nprint(1)\n```\n"
            "<!-- readme-test: skip (needs a GPU) -->\n```python\nraise SystemExit(1)\n```\n"
            "```sh\nls\n```\n```python\nx = 2\n\nprint(x)\n```\n")
    assert python_blocks(text) == [(2, "print(1)\n", False), (6, "raise SystemExit(1)\n", True),
                                   (12, "x = 2\n\nprint(x)\n", False)]


@pytest.mark.skipif(not BLOCKS, reason="README.md is not next to the tests")
def test_the_readme_keeps_the_commands_ci_runs():
    with open(README, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert "python -m pip install . && python benchmarks/run.py" in lines
    tests = [ln for ln in lines if re.match(r"^python -m pip install .*&& (python -m )?pytest", ln)]
    assert tests and tests[0] == 'python -m pip install ".[test]" && pytest -q tests'
    assert len(BLOCKS) >= 5
