"""Hostile use, round 3: seeded random programs that make generators with
cleanup code (try/finally, `except GeneratorExit`, a `with` inside, `yield
from`), consume them partly (next, a loop's break, zip, any), drop, close or
rebind them, mixed with graph breaks (print), context managers and caught
exceptions; each compared with eager over several calls (values, the log of
cleanups in its order, stdout). Before executor/generators.py
check_left_open about a third of them lost a cleanup."""
from __future__ import annotations

import random

import numpy as np
import pytest

from difftest import check

_LIBRARY = '''
import contextlib


@contextlib.contextmanager
def CM(log, name):
    log.append(name + " enter")
    try:
        yield name
    except ValueError:
        log.append(name + " caught")
    finally:
        log.append(name + " exit")


def G1(x, log):
    try:
        log.append("g1 start")
        yield x
        yield x + 1
        log.append("g1 end")
    finally:
        log.append("g1 fin")


def G2(x, log):
    for i in range(3):
        yield x * i


def G3(x, log):
    with CM(log, "g3"):
        yield x
        yield -x


def G4(x, log):
    try:
        yield x
    except GeneratorExit:
        log.append("g4 exit")
        raise
    yield x * 3


def G5(x, log):
    yield from G1(x, log)
'''

_GENERATORS = ["G1", "G2", "G3", "G4", "G5"]
_STATEMENTS = [
    "g = {G}(x, log)\nv = next(g)\nacc = acc + v",
    "for v in {G}(x, log):\n    acc = acc + v\n    if k > 1:\n        break",
    "acc = acc + sum({G}(x, log))",
    "g = {G}(x, log)\nacc = acc + next(g)\ndel g",
    "g = {G}(x, log)\nacc = acc + next(g)\ng = None\nlog.append('after drop')",
    "acc = acc + next(iter({G}(x, log)))",
    "print('p', k)",
    "log.append(k)",
    "with CM(log, 'cm') as nm:\n    acc = acc * 2\n    if k == 2:\n        raise ValueError('v')",
    "try:\n    g = {G}(x, log)\n    acc = acc + next(g)\n    if k == 3:\n        raise KeyError(k)\nexcept KeyError:\n    log.append('ke')",
    "if any(v.sum() > k for v in {G}(x, log)):\n    acc = acc + 1",
    "a, b = next(zip({G}(x, log), {G2}(x, log)))\nacc = acc + a + b",
    "g = {G}(x, log)\nnext(g)\ng.close()\nlog.append('closed')",
]


def _program(seed: int) -> str:
    rng = random.Random(seed)
    body = ["acc = x * 1"]
    for _ in range(rng.randint(1, 5)):
        body += rng.choice(_STATEMENTS).format(G=rng.choice(_GENERATORS), G2=rng.choice(_GENERATORS)).split("\n")
    body.append("return acc, list(log)")
    return "def f(x, k, log):\n" + "".join(f"    {line}\n" for line in body)


@pytest.mark.parametrize("seed", range(16))
def test_random_generator_programs_match_eager(seed):
    namespace = {"np": np}
    source = _LIBRARY + "\n\n" + _program(seed)
    exec(compile(source, f"<generator program {seed}>", "exec"), namespace)
    check(namespace["f"], *[(np.arange(3.0), k, []) for k in (0, 1, 2, 3)], calls=2)
