"""sot/_linetable.py: a code object's lines moved without recompiling, in
each version's table format (jumps over 127 lines, backwards, no-line
entries, more than 8 code units or 254 bytes on one line, nested code)."""
import pytest

from sot._linetable import relocate

SOURCE = ("def f(a, b):\n    x = a + b\n    y = x * 2\n" + "    y = y - 1\n" * 200
          + "    w = [q * y for q in (1, 2)]\n"
          + "    s = (a + b + a + b + a + b + a + b + a + b + a + b + a + b + a + b + a + b + a + b)\n"
          + "    return y + w[1] + s\n")


def _per_instruction(code, line_of=lambda ln: ln):
    found = {}
    for start, end, line in code.co_lines():
        for offset in range(start, end, 2):
            found[offset] = None if line is None else line_of(line)
    return found


def _codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, type(code)):
            yield from _codes(c)


@pytest.mark.parametrize("line_of", [lambda k: 1000 - 3 * k if k % 3 else 5 + k,   # jumps both ways
                                     lambda k: 42,                                  # all on one line
                                     lambda k: k + 10_000])                        # far away
def test_every_instruction_gets_the_line_asked_for(line_of):
    code = compile(SOURCE, "<generated>", "exec")
    moved = relocate(code, line_of)
    for old, new in zip(_codes(code), _codes(moved)):
        assert _per_instruction(new) == _per_instruction(old, line_of)
        assert new.co_code == old.co_code
    namespace, original = {}, {}
    exec(moved, namespace)
    exec(code, original)
    assert namespace["f"](1, 2) == original["f"](1, 2) == -552


def test_a_traceback_names_the_new_line():
    import traceback
    code = compile("def f(a):\n    b = a + 1\n    return b / 0\n", "user.py", "exec")
    namespace = {}
    exec(relocate(code, lambda k: 70 + k), namespace)
    with pytest.raises(ZeroDivisionError) as info:
        namespace["f"](1)
    assert traceback.extract_tb(info.tb)[-1].lineno == 73
