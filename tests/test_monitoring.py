"""sys.monitoring (3.12+): while a tool watches (coverage.py's sysmon core sets
PY_START globally and LINE per code object), the hook stands aside as for
sys.settrace, so the tool sees the user's lines exactly as eagerly."""
import sys

import numpy as np
import pytest

import sot

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring is 3.12+")


def _helper(y):
    return y * 3


def f(x):
    y = x + 1
    z = _helper(y)
    w = np.tanh(z)
    return w - y


def _lines_seen(fn, how):
    """Lines of f and _helper reported to a tool while fn runs once."""
    mon = sys.monitoring
    tool = mon.PROFILER_ID if mon.get_tool(mon.PROFILER_ID) is None else 5
    watched = {f.__code__, _helper.__code__}
    seen = []

    def on_line(code, line):
        if code in watched:
            seen.append((code.co_name, line))

    def on_start(code, offset):   # coverage.py's sysmon core: LINE switched on per code
        if code in watched:
            mon.set_local_events(tool, code, mon.events.LINE)

    mon.use_tool_id(tool, "sot-test")
    try:
        mon.register_callback(tool, mon.events.LINE, on_line)
        if how == "global":
            mon.set_events(tool, mon.events.LINE)
        else:
            mon.register_callback(tool, mon.events.PY_START, on_start)
            mon.set_events(tool, mon.events.PY_START)
        result = fn(np.ones(3))
    finally:
        mon.set_events(tool, 0)
        for code in watched:
            mon.set_local_events(tool, code, 0)
        mon.register_callback(tool, mon.events.LINE, None)
        mon.register_callback(tool, mon.events.PY_START, None)
        mon.free_tool_id(tool)
    return seen, result


@pytest.mark.parametrize("how", ["global", "per-code"])
def test_monitoring_lines_match_eager(how):
    static = sot.to_static(f)
    static(np.ones(3))                 # translated before the tool starts
    eager_lines, eager = _lines_seen(f, how)
    static_lines, traced = _lines_seen(static, how)
    assert eager_lines and static_lines == eager_lines
    np.testing.assert_array_equal(traced, eager)


def test_local_events_left_on_a_code_keep_the_hook_aside():
    mon = sys.monitoring
    static = sot.to_static(f)
    static(np.ones(3))
    seen = []
    tool = 4
    mon.use_tool_id(tool, "sot-test-local")
    try:
        mon.register_callback(tool, mon.events.LINE, lambda code, line: seen.append(line))
        mon.set_local_events(tool, f.__code__, mon.events.LINE)   # no global event at all
        static(np.ones(3))
    finally:
        mon.set_local_events(tool, f.__code__, 0)
        mon.register_callback(tool, mon.events.LINE, None)
        mon.free_tool_id(tool)
    first = f.__code__.co_firstlineno
    assert seen == [first + 1, first + 2, first + 3, first + 4]


def test_hook_captures_again_after_the_tool_stops():
    static = sot.to_static(f)
    _lines_seen(static, "per-code")
    np.testing.assert_array_equal(static(np.ones(3)), f(np.ones(3)))
    assert "graph" in str(sot.explain(static, np.ones(3)))
