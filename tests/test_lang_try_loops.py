"""Graph breaks where loops and try/with blocks nest.

* A break inside a try/with body inside a loop: the loop runs natively (its
  try with it), the graph before the loop and the resume function after it
  are translated (breaks/resume.stop_offset).
* A break inside a loop inside a try/with body: the replacement enters the
  loop inside the block (3.11+: the handlers keep their stack depths; 3.10:
  the blocks are set up again), the resume function after the loop re-enters
  the block, so the handler still catches what the loop or the code after it
  raises and `finally`/`__exit__` run once (breaks/tries.in_block).
* 3.11+ place an except handler after the code: its backward jump to the
  loop head is not a loop of its own reaching over the code after the loop
  (opcode_table.loop_ranges), so a break after such a loop keeps the loop's graph.
Each case runs with the compiled prefix (min_graph_size=0) and the native prefix.
"""
import inspect
import sys

import numpy as np
import pytest

import sot
from difftest import check
from test_lang_block_breaks import Log   # records enter/exit; suppresses IndexError only

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def native(v, fail=False):
    print("native", v.shape)   # a graph break
    if fail:
        raise ValueError("the native step failed")
    return v


def try_in_a_loop(x, fail_at):
    out = []
    y = x * 2
    for i in range(3):
        try:
            v = native(y * i, fail=i == fail_at) + 1
            if i == fail_at + 1:
                raise KeyError(i)
        except (ValueError, KeyError) as e:
            v = x - len(e.args)
        finally:
            y = y + 1
        out.append(v)
    return out, y * 3


def loop_in_a_try(x, fail_at):
    y = x * 2
    log = []
    try:
        for i in range(3):
            y = native(y + i, fail=i == fail_at) * 2
        if fail_at == 3:
            raise KeyError("after the loop")
        y = y - 1
    except (ValueError, KeyError) as e:
        log.append(type(e) is ValueError)
        y = x
    finally:
        log.append("finally")
    return y + 1, log


def loop_in_a_with(x, fail_at):
    m = Log()
    y = x + 1
    try:
        with m:
            for i in range(2):
                y = native(y * 2, fail=i == fail_at)
            y = y + 3
    except ValueError:
        y = x
    return y, m.events


def while_loop_in_a_try(x, fail_at):
    y = x + 0.5
    i = 0
    try:
        while i < 3:
            y = native(y, fail=i == fail_at) + i
            i += 1
    except ValueError:
        y = -y
    return y * 2, i


def break_after_a_loop_with_a_handler(x, fail_at):
    for i in range(3):
        try:
            x = x + i
            if i == fail_at:
                raise ValueError(i)
        except ValueError:
            x = x * 2
            continue
        x = x - 1
    y = native(x * 2)
    return y + 1


CASES = [try_in_a_loop, loop_in_a_try, loop_in_a_with, while_loop_in_a_try, break_after_a_loop_with_a_handler]


@pytest.mark.parametrize("min_graph_size", [0, 100])
@pytest.mark.parametrize("fn", CASES)
def test_break_where_loops_and_blocks_nest_keeps_eager_behaviour(fn, min_graph_size):
    static = sot.to_static(fn, min_graph_size=min_graph_size)
    for fail_at in (-1, 0, 1, 3):
        check(fn, (X, fail_at), static=static)


# 3.10 has no exception table: every offset after a block's setup counts as
# inside a try (opcode_table.exception_ranges), so a loop holding a try cannot be
# told from one overlapping it and the frame splits around the loop's statement only.
TRY_INSIDE_THE_LOOP_SPLITS = sys.version_info >= (3, 11)


@pytest.mark.parametrize("fn, graphs", [
    (try_in_a_loop, 2 if TRY_INSIDE_THE_LOOP_SPLITS else 1),
    (loop_in_a_try, 2),
    (loop_in_a_with, 2),
    (break_after_a_loop_with_a_handler, 2 if TRY_INSIDE_THE_LOOP_SPLITS else 1),
])
def test_break_where_loops_and_blocks_nest_keeps_graphs(fn, graphs):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X, -1)
    top = report.entries[0]
    assert top.fallback is None and top.graph_break is not None, str(report)
    assert report.graph_count >= graphs, str(report)


@pytest.mark.skipif(not TRY_INSIDE_THE_LOOP_SPLITS, reason="3.10: see TRY_INSIDE_THE_LOOP_SPLITS")
def test_a_handler_s_jump_back_is_no_loop_over_the_code_after_it():
    report = sot.explain(sot.to_static(break_after_a_loop_with_a_handler, min_graph_size=0), X, 1)
    top = report.entries[0]
    # the break is at native(...) itself, after the loop: the loop is in the first graph
    assert top.graph_break is not None and "native(x * 2)" in (top.graph_break.source or ""), str(report)
    assert not any("resumed after `for" in e.code_name for e in report.entries), str(report)


def branch_on_data_in_a_try(x, fail_at):
    y = x * 2
    log = []
    try:
        if y.sum() > fail_at:   # data-dependent: the resume function takes the branch inside the block
            y = y + 1
            if fail_at == 0:
                raise KeyError("after the branch")
        else:
            y = native(y, fail=fail_at == 1) - 1
        z = y * 3
    except (KeyError, ValueError) as e:
        log.append(type(e) is KeyError)
        z = x
    finally:
        log.append("finally")
        y = y + 100
    return y, z, log


def branch_on_data_in_a_with(x, limit):
    m = Log()
    with m:
        y = x + 1
        if (y > 0).sum() > limit:
            y = y * 2
        else:
            y = y * 3
    return y, m.events


@pytest.mark.parametrize("min_graph_size", [0, 100])
def test_data_dependent_branch_inside_a_block_splits_there(min_graph_size):
    static = sot.to_static(branch_on_data_in_a_try, min_graph_size=min_graph_size)
    for fail_at in (-1000, 0, 1, 1000):
        check(branch_on_data_in_a_try, (X, fail_at), static=static)
    static = sot.to_static(branch_on_data_in_a_with, min_graph_size=min_graph_size)
    check(branch_on_data_in_a_with, (X, 3), (X, 100), static=static)


def test_data_dependent_branch_inside_a_block_keeps_graphs_on_both_sides():
    report = sot.explain(sot.to_static(branch_on_data_in_a_try, min_graph_size=0), X, 1000)
    top = report.entries[0]
    assert top.fallback is None and "data-dependent" in str(top.graph_break), str(report)
    lines, first = inspect.getsourcelines(branch_on_data_in_a_try)
    line = first + next(k for k, text in enumerate(lines) if "y.sum() > fail_at" in text)
    at_branch = [e for e in report.entries if e.code_name.endswith(f"line {line})")]  # resumed at the branch
    assert at_branch and all(e.fallback is None for e in report.entries), str(report)
    assert report.graph_count >= 2, str(report)


# `while True:` holding a try, left only from its handler: 3.12+ place the
# handler right after the loop's backward jump and inline the code after a
# `break`, so the instruction after the loop is no exit of it. Planned as one,
# the resume function entered the handler with no exception (a segfault).
def while_true_left_by_a_handler_return(x, fail_at):
    i = 0
    while True:
        try:
            y = x[i]          # out of bounds at i == 3: a break in the trace
        except IndexError:
            return i
        i += 1


def while_true_left_by_a_handler_break(x, fail_at):
    out = []
    i = 0
    while True:
        try:
            out.append(x[i] * 2)
        except IndexError:
            break
        i += 1
    return len(out), i


def while_true_with_a_native_step_and_code_after(x, fail_at):
    i = 0
    y = x + 1
    while True:
        try:
            y = native(y, fail=i == fail_at)
            if i == 2:
                raise KeyError(i)
        except (ValueError, KeyError):
            break
        i += 1
    return y * 2, i


@pytest.mark.parametrize("min_graph_size", [0, 100])
@pytest.mark.parametrize("fn", [while_true_left_by_a_handler_return, while_true_left_by_a_handler_break,
                                while_true_with_a_native_step_and_code_after])
def test_while_true_left_from_its_handler_keeps_eager_behaviour(fn, min_graph_size):
    static = sot.to_static(fn, min_graph_size=min_graph_size)
    for fail_at in (-1, 0, 1):
        check(fn, (X, fail_at), static=static)
