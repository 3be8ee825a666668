"""Generated code without bytecode's control-flow analysis (sot/executor/assemble.py).

Each function breaks its graph somewhere with values on the stack, inside a
loop, a try/with block or a zero-argument super() (instructions inserted
into the original): with ``assemble.CHECK`` every code sot builds is also
built by the full analysis, and its stack size must not exceed our bound
and its exception table must be the same; the decorated function must also
behave as the undecorated one (difftest.check). The per-code caches must
not serve a code's translation to another: a function whose ``__code__``
is replaced between calls runs the new code.
"""
from __future__ import annotations

import numpy as np
import pytest
from bytecode import Bytecode, Instr

import sot
from sot.executor import assemble
from difftest import check
from test_lang_block_breaks import Log   # __exit__ suppresses IndexError

X = np.arange(6.0)


def native(v):
    print("native", float(np.sum(v)))   # a graph break
    return v


def deep_stack(x):
    # the break happens with several partial results on the stack
    return x + (x * 2 - (x / 3 + native(x + 1) * (x - 4))) * 5


def break_in_loop(x):
    total = x * 0
    for k in range(3):
        total = total + x * k
        if float(total.sum()) > 20:   # data-dependent
            total = total - 1
    return total


def break_in_try(x, fail):
    y = x * 2
    try:
        y = native(y) + 1
        if fail:
            raise KeyError("after the break")
    except KeyError:
        y = y - 100
    finally:
        y = y * 3
    return y


def break_in_with(x, fail):
    m = Log()
    with m:
        y = native(x * 2) + 1
        if fail:
            raise IndexError("suppressed")
    return y, m.events


class Base:
    def scale(self, v):
        return v * 2


class Child(Base):
    def scale(self, v):
        w = native(v + 1)
        return super().scale(w) + 1   # zero-argument super(): rewritten explicitly


def method_with_super(x):
    return Child().scale(x)


CASES = [(deep_stack, (X,)), (break_in_loop, (X,)), (break_in_try, (X, False)), (break_in_try, (X, True)),
         (break_in_with, (X, False)), (break_in_with, (X, True)), (method_with_super, (X,))]


@pytest.fixture
def checked(monkeypatch):
    """assemble.CHECK on; the number of codes built without the analysis."""
    monkeypatch.setattr(assemble, "CHECK", True)
    built = []
    bound = assemble.stack_bound

    def counting(bc, original, kept):
        result = bound(bc, original, kept)
        built.append(result)
        return result
    monkeypatch.setattr(assemble, "stack_bound", counting)
    return built


@pytest.mark.parametrize("min_graph_size", [0, 100])   # compiled prefix / native prefix
@pytest.mark.parametrize("fn,args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_generated_code_matches_the_analysis(checked, fn, args, min_graph_size):
    check(fn, args, static=sot.to_static(fn, min_graph_size=min_graph_size))
    assert any(b is not None for b in checked), "no code was built without the analysis"


def test_bound_covers_inserted_pushes():
    def f(a, b):
        return a + b
    original = f.__code__
    bc = Bytecode.from_code(original)
    kept = list(bc)
    # five values pushed (and popped) before the body: the original's size is not enough
    k = next(i for i, item in enumerate(bc) if isinstance(item, Instr) and item.name.startswith("LOAD_FAST"))
    bc[k:k] = [Instr("LOAD_CONST", j) for j in range(5)] + [Instr("POP_TOP") for _ in range(5)]
    exact = bc.compute_stacksize()
    assert exact > original.co_stacksize
    assert assemble.stack_bound(bc, original, kept) >= exact
    assert assemble.to_code(bc, original, kept).co_stacksize >= exact


def test_code_replaced_between_calls_runs_the_new_code():
    def first(x):
        y = native(x * 2)
        return y + 1

    def second(x):
        y = native(x * 3)
        return y - 1

    def eager(x):
        return first(x)
    static = sot.to_static(eager)
    for call in range(2):
        np.testing.assert_array_equal(static(X), X * 2 + 1)
    first.__code__ = second.__code__
    for call in range(2):
        assert np.array_equal(static(X), X * 3 - 1)
    check(eager, (X,))
