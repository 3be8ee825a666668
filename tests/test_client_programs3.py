"""Client programs, third set (benchmarks/client_programs3.py: a trainer
class with a config dataclass and callbacks, a particle filter and a
Metropolis chain drawing from a Generator passed in, an image pipeline over
images of many sizes, a tokenizer with a bag-of-words vocabulary, Dijkstra
with heapq, a finite-difference solver writing its boundary in place, a
whole decorated Kalman loop, a small autograd engine, a recommender with
np.add.at and bincount, L-BFGS with a deque, a recursive decision tree)
decorated as users decorate them give eager's results bitwise, eager's
stdout, the same random numbers consumed, and do to their arguments what
eager does; over two sizes and two seeds, so re-translations and cached
entries both run."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import client_programs3 as CP3  # noqa: E402
from test_client_programs import assert_program_matches  # noqa: E402


@pytest.mark.parametrize("name", list(CP3.PROGRAMS))
def test_client_program_decorated_is_eager_bitwise(name):
    assert_program_matches(CP3.PROGRAMS, name)


# -- closures made anew on every call are guarded by their code ----------------------------

import types  # noqa: E402

import numpy as np  # noqa: E402

import sot  # noqa: E402
from difftest import assert_same, check  # noqa: E402
from sot import translate  # noqa: E402
from sot.explain import ExplainReport  # noqa: E402


def _scaler(k, offset=0.0):
    def scale(x):
        return x * k + offset
    return scale


def _apply_all(fns, x):
    for f in fns:
        x = f(x)
    return x


def _translations(static, calls):
    report = ExplainReport()
    translate._recorders.append(report.entries)
    try:
        for args in calls:
            static(*args)
    finally:
        translate._recorders.remove(report.entries)
    return report.translation_count


def test_a_closure_made_per_call_is_not_translated_again():
    # an autograd node's _backward, a callback made per step: pinned by
    # identity, each new closure failed the guard (one translation per call
    # up to the cache limit, then the frame ran natively)
    x = np.arange(4.0)
    static = sot.to_static(_apply_all)
    calls = [([_scaler(np.full(4, k)), _scaler(np.full(4, -k))], x) for k in range(6)]
    assert _translations(static, calls) == 1
    check(_apply_all, *[([_scaler(k), _scaler(-k)], x) for k in (1, 2.5, 3)], static=static)


def _is_tests(a, b, x):
    return a is b, a is None, a is not _scaler, a(x)


def _returns_it(a, x):
    return a, [a], a(x)


def _name_and_attr(a, x):
    return a.__name__, a.__qualname__, getattr(a, "tag", None), a(x)


def test_what_depends_on_which_closure_it_is_matches_eager():
    x = np.arange(3.0)
    c, d = _scaler(2.0), _scaler(2.0)
    check(_is_tests, (c, c, x), (c, d, x), (d, d, x), (_scaler(4.0), c, x))
    s = sot.to_static(_returns_it)
    for f in (c, d, _scaler(7.0)):
        r = s(f, x)
        assert r[0] is f and r[1][0] is f
    renamed, tagged = _scaler(5.0), _scaler(6.0)
    renamed.__name__ = "renamed"
    tagged.tag = "t"
    check(_name_and_attr, (c, x), (renamed, x), (tagged, x), (d, x))


def test_a_closure_of_other_globals_or_defaults_is_seen():
    x = np.arange(3.0)
    base = _scaler(2.0)
    other_globals = types.FunctionType(base.__code__, {"__builtins__": __builtins__, "np": np}, "scale",
                                       None, base.__closure__)
    check(_apply_all, ([base], x), ([other_globals], x), ([_scaler(3.0, 1.0)], x), ([base], x))


def _counter():
    n = 0

    def bump(x):
        nonlocal n
        n += 1
        return x + n

    def read():
        return n
    return bump, read


def _shared_cell(bump, read, x):
    y = bump(x)
    return y, read(), bump(y), read()


def test_closures_sharing_a_cell_see_each_others_writes():
    # the closures keep state between calls: eager and decorated each get
    # counters of their own, made alike
    x = np.arange(3.0)
    static = sot.to_static(_shared_cell)
    for pairing in ("same", "crossed", "same", "crossed", "same"):
        results = []
        for fn in (_shared_cell, static):
            (b1, r1), (b2, r2) = _counter(), _counter()
            b2(x)
            args = (b1, r1) if pairing == "same" else (b1, r2)
            results.append([fn(*args, x), fn(*args, x), r1(), r2()])
        assert_same(results[0], results[1], pairing, bitwise=True)


# -- each code decoded once per translation, copied per use ---------------------------------

def _branchy(xs):
    total = 0
    for x in xs:
        try:
            if x > 2:
                continue
            total += 1 / x
        except ZeroDivisionError:
            total -= 1
    return total


def test_a_copied_bytecode_builds_the_same_code_and_shares_no_item():
    from bytecode import Bytecode
    from sot.breaks.abstract_cache import copy
    original = Bytecode.from_code(_branchy.__code__)
    copied = copy(original)
    assert copied.to_code().co_code == original.to_code().co_code
    assert not {id(i) for i in original} & {id(i) for i in copied}
    lines = list(original.to_code().co_lines())
    for i in copied:   # what is set on the copy (resume.py sets line numbers) stays there
        if type(i).__name__ == "Instr":
            i.location = None
            i.lineno = 1
    assert list(original.to_code().co_lines()) == lines != list(copied.to_code().co_lines())


def test_recent_codes_keep_the_latest_by_identity():
    from sot._codemap import RecentCodes
    kept = RecentCodes(2)
    codes = [compile(f"x = {k}", "<same>", "exec") for k in range(3)]
    calls = []
    for c in codes[:2] + codes[:2]:
        kept.get(c, lambda c=c: calls.append(c) or c.co_consts)
    assert calls == codes[:2]
    kept.get(codes[2], lambda: calls.append(codes[2]))
    kept.get(codes[0], lambda: calls.append(codes[0]))   # the oldest went
    assert calls == codes + [codes[0]]
    twin = compile("x = 1", "<same>", "exec")   # == codes[1], another object
    assert twin == codes[1] and kept.get(twin, lambda: "twin") == "twin"
