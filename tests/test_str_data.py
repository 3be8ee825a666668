"""A str from outside that the trace only passes on (sot/executor/str_data.py):
once it changed between calls it is guarded by type, so a run name or tag
that is new on every call does not retranslate; every use that needs its
value redoes the trace with it value-guarded, as before. Every call behaves
as eager."""
from __future__ import annotations

import numpy as np
import pytest

import sot

from test_dict_data import X, run_calls


class Box:
    pass


def names(n=6):
    return ["run%d" % i for i in range(n)]


def test_passed_through_returned_and_stored():
    def helper(box, tag):
        box.name = tag
        return tag

    def step(box, history, tag, x):
        history.append(tag)
        out = helper(box, tag)
        return x * 2.0, out, (tag, 1)
    box, history = Box(), []
    static = run_calls(step, [(box, history, t, X) for t in names()])
    assert sot.translation_count(static) == 2


def test_returned_str_is_the_callers_object():
    def step(tag, x):
        return tag, x + 1.0
    static = sot.to_static(step)
    for i in range(4):
        tag = "".join(["tag", str(i)])   # a fresh object each call
        assert static(tag, X)[0] is tag
    assert sot.translation_count(static) == 2


def test_a_key_of_a_dict_from_outside():
    def step(history, name, x):
        history[name] = 1.5
        history[0] = 2          # an int key: still known
        return x * 3.0
    history = {}
    static = run_calls(step, [(history, t, X) for t in names() + ["run1", "run3"]])
    assert sot.translation_count(static) == 2

    def then_read(history, name, x):
        history[name] = 1.5
        history["count"] = history.get("count", 0) + 1   # a str key after a run-time str key: a break
        return x * len(history)
    run_calls(then_read, [(history, t, X) for t in names() + ["count", "run2"]])


def test_a_store_over_a_value_whose_release_runs_code():
    from test_dict_data import Box as Counter, Probe

    def step(history, box, name, x):
        history[name] = 1.0
        box.t += 1   # (replayed before the dict's stores: a release in the replay would see it)
        return x * 2.0
    box = Counter()
    history = {}
    calls = [(history, box, t, X) for t in names(4)] + [({"hit": Probe(box)}, box, "hit", X)]
    run_calls(step, calls)


CONST = "run3"


def _uses():
    def eq(tag, x):
        return x * 2.0 if tag == "run3" else x
    def member(tag, x):
        return x + 1.0, tag in ("run1", "run4"), tag in {"run2": 0}
    def formatted(tag, x):
        return f"<{tag}>", "%s!" % tag, tag + "_", x * 1.0
    def methods(tag, x):
        return tag.upper(), len(tag), tag.startswith("run1"), x * 1.0
    def made_dict(tag, x):
        return {tag: x * 2.0}, {tag}
    def branch(tag, x):
        if tag:
            return x
        return -x
    def identity(tag, x):
        return tag is CONST, x * 1.0
    def numpy_arg(tag, x):
        return x.astype("float32" if tag == "run2" else "float64"), np.einsum("ij->ji", x)
    def attribute(tag, x):
        return getattr(np, "float32" if tag.endswith("2") else "float64")(1.0), x + 0.0
    def printed(tag, x):
        print("tag", tag)
        return x * 2.0
    def builtins_on_it(tag, x):
        return str(tag), repr(tag), hash(tag) == hash("run3"), sorted([tag, "run2"]), max(tag, "run2"), x * 1.0
    def indexing(tag, x):
        return tag[-1], tag * 2, "-".join([tag, "a"]), tag.join("ab"), x * 1.0
    def types(tag, x):
        return isinstance(tag, str), type(tag).__name__, tag.__class__ is str, tag is None, x * 1.0
    def set_attribute(tag, x):
        box = Box()
        setattr(box, tag, 1)
        return vars(box), x * 1.0
    def matched(tag, x):
        match tag:
            case "run3":
                return x * 3.0
            case str():
                return x
    def deleted(tag, x):
        y = x * 2.0
        del tag
        return y
    return [eq, member, formatted, methods, made_dict, branch, identity, numpy_arg, attribute, printed,
            builtins_on_it, indexing, types, set_attribute, matched, deleted]


@pytest.mark.parametrize("fn", _uses(), ids=lambda f: f.__name__)
def test_uses_that_need_the_value(fn):
    tags = names() + ["", CONST, "run2", "run3"]
    run_calls(fn, [(t, X) for t in tags])
