"""Exceptions of builtin operations on Python values, and graph breaks in handlers.

* An error a builtin operation raises on values the trace guards (a missing
  dict key, a missing attribute of a plain object, a list index out of range, an integer division by zero, a bad
  `int()` literal, `list.index` of a missing value, `list.pop` of an empty list) is raised in the
  trace, so the frame's own `except` catches it inside the graph: one graph,
  no break; type, args and text as eager's (dispatch.python_op).
* A graph break inside a handler of an exception raised in the trace (a
  print() in the except clause, `sys.exc_info()`, `__context__`) goes where the
  exception first entered the frame: the graph before it is kept, the raise
  and everything after it run natively, so the exception state is eager's
  (executor.first_raise, breaks/tries.plan_raise).
"""
import sys
import traceback

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def missing_key(x, d):
    try:
        v = d["k"]
    except KeyError as e:
        return x * 2, e.args, str(e), repr(e)
    return x + v


def index_out_of_range(x, seq):
    try:
        v = seq[4]
    except IndexError as e:
        return x - 1, str(e), f"{e}"
    return x * v


def zero_division(x, n):
    try:
        s = 10 // n
    except ZeroDivisionError as e:
        s = -1
        return x + s, e.args
    return x * s


def bad_literal(x, text):
    try:
        n = int(text)
    except ValueError as e:
        n = 0
        return x + n, str(e)
    return x * n


def list_index_and_pop(x, items):
    out = []
    try:
        out.append(items.index(9))
    except ValueError as e:
        out.append(str(e))
    try:
        out.append(items.pop())
    except IndexError as e:
        out.append(e.args)
    return x + len(out), out, items


def type_error_of_an_operator(x, a, b):
    try:
        c = a + b
    except TypeError as e:
        return x, str(e)
    return x + c, None


def finally_after_a_caught_key_error(x, d):
    log = []
    try:
        try:
            v = d["k"]
        finally:
            log.append("finally")
    except LookupError as e:   # a base class catches it
        v = 1.5
        log.append(type(e) is KeyError)
    return x * v, log


def del_of_a_missing_key(x, d):
    try:
        del d["gone"]
    except KeyError:
        return x + 1, d
    return x, d


CAUGHT = [
    (missing_key, [(X, {}), (X, {"k": 2.0})]),
    (index_out_of_range, [(X, [1, 2]), (X, (1, 2)), (X, [0, 1, 2, 3, 4])]),
    (zero_division, [(X, 0), (X, 3)]),
    (bad_literal, [(X, "x1"), (X, "12")]),
    (list_index_and_pop, [(X, []), (X, [9, 1.0])]),
    (type_error_of_an_operator, [(X, 1, "a"), (X, 1, 2)]),
    (finally_after_a_caught_key_error, [(X, {}), (X, {"k": 3.0})]),
    (del_of_a_missing_key, [(X, {}), (X, {"gone": 1})]),
]


@pytest.mark.parametrize("fn, arg_sets", CAUGHT, ids=[f.__name__ for f, _ in CAUGHT])
def test_error_of_a_builtin_operation_is_caught_as_eager(fn, arg_sets):
    static = sot.to_static(fn, min_graph_size=0)
    check(fn, *arg_sets, static=static)  # each set after the others: the guards choose the entry


@pytest.mark.parametrize("fn, arg_sets", CAUGHT, ids=[f.__name__ for f, _ in CAUGHT])
def test_error_of_a_builtin_operation_caught_in_the_frame_is_one_graph(fn, arg_sets):
    assert_captured_whole(fn, *arg_sets[0])


class Plain:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class Lazy(Plain):
    def __getattr__(self, name):   # called for a missing name: no AttributeError
        if name.startswith("__"):
            raise AttributeError(name)   # (copy.deepcopy looks for __deepcopy__)
        return 10.0


def missing_attribute(x, o):
    try:
        v = o.scale
    except AttributeError as e:
        return x * 2, str(e), e.args
    return x * v


def missing_attribute_name_read(x, o):
    try:
        return x * o.scale
    except AttributeError as e:
        return x, e.name   # .name is not modelled: this frame runs natively from the error


def test_missing_attribute_is_caught_as_eager():
    static = sot.to_static(missing_attribute, min_graph_size=0)
    check(missing_attribute, (X, Plain()), (X, Plain(scale=3.0)), (X, Lazy()), (X, Plain()), static=static)
    assert_captured_whole(missing_attribute, X, Plain())
    check(missing_attribute_name_read, (X, Plain()), (X, Plain(scale=2.0)))


def test_an_attribute_set_later_is_seen():
    static = sot.to_static(missing_attribute)
    o = Plain()
    check(missing_attribute, (X, o), static=static)
    o.scale = 5.0
    check(missing_attribute, (X, o), static=static)


def test_caught_in_the_caller_of_an_inlined_function():
    def lookup(d, k):
        return d[k]

    def f(x, d):
        try:
            return x + lookup(d, "a")
        except KeyError as e:
            return x - 1, e.args
    check(f, (X, {}), (X, {"a": 1}))
    assert_captured_whole(f, X, {})


def test_uncaught_error_is_eager_s_with_the_graph_before_it():
    def f(x, d):
        y = x * 2
        try:
            return y + d["missing"]
        finally:
            y = y + 1
    static = check(f, (X, {}))
    report = sot.explain(sot.to_static(f, min_graph_size=0), X, {"missing": 1})
    assert report.graph_count >= 1 and report.entries[0].fallback is None, str(report)


def test_a_key_added_later_is_seen():
    def f(x, d):
        try:
            return x + d["k"]
        except KeyError:
            return x
    static = sot.to_static(f)
    d = {}
    check(f, (X, d), static=static)
    d["k"] = 4.0
    check(f, (X, d), static=static)


def noisy(v):
    print("handling", v.shape)
    return v


def print_in_the_handler(x, fail):
    y = x + 1
    try:
        if fail:
            raise ValueError("bad", 2)
        y = y * 3
    except ValueError as e:
        y = noisy(y) * 2
        print(e.args)
    return y


def exc_info_in_the_handler(x, d):
    y = x * 2
    try:
        v = d["k"]
    except KeyError:
        kind, value, _ = sys.exc_info()
        print(kind.__name__, value.args)
        v = 1
    return y + v


def context_chaining(x, d):
    y = x - 1
    try:
        v = d["k"]
    except KeyError:
        try:
            raise ValueError("inner")
        except ValueError as e:
            print(repr(e.__context__), e.__context__.args)
        v = 2
    return y * v


def bare_reraise_to_the_caller(x, items):
    y = x + 1
    try:
        return y * items[7]
    except IndexError:
        print("re-raising")
        raise


def reraise_of_an_exception_made_in_the_frame(x, n):
    y = x * 3
    err = KeyError("made", n)
    try:
        if n > 1:
            raise err
    except KeyError as e:
        print(e is err)
        raise
    return y


HANDLERS = [
    (print_in_the_handler, [(X, True), (X, False)]),
    (exc_info_in_the_handler, [(X, {}), (X, {"k": 3})]),
    (context_chaining, [(X, {}), (X, {"k": 3})]),
    (bare_reraise_to_the_caller, [(X, [1]), (X, list(range(9)))]),
    (reraise_of_an_exception_made_in_the_frame, [(X, 2), (X, 0)]),
]


@pytest.mark.parametrize("min_graph_size", [0, 100])
@pytest.mark.parametrize("fn, arg_sets", HANDLERS, ids=[f.__name__ for f, _ in HANDLERS])
def test_break_inside_a_handler_keeps_eager_s_exception_state(fn, arg_sets, min_graph_size):
    check(fn, *arg_sets, static=sot.to_static(fn, min_graph_size=min_graph_size))


@pytest.mark.parametrize("fn, args", [(f, a[0]) for f, a in HANDLERS[:3]], ids=[f.__name__ for f, _ in HANDLERS[:3]])
def test_break_inside_a_handler_keeps_the_graph_before_the_raise(fn, args):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), *args)
    top = report.entries[0]
    assert top.fallback is None and top.graph_break is not None, str(report)
    assert report.graph_count >= 1, str(report)


def _frames(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # the traceback is compared
        return [(f.filename, f.lineno, f.name) for f in traceback.extract_tb(e.__traceback__)][1:]
    raise AssertionError("no exception")


@pytest.mark.parametrize("fn, args", [
    (bare_reraise_to_the_caller, (X, [1])),
    (reraise_of_an_exception_made_in_the_frame, (X, 2)),
    (finally_after_a_caught_key_error, (X, None)),   # TypeError: None is not subscriptable
])
def test_traceback_of_an_exception_leaving_the_frame_is_eager_s(fn, args, capsys):
    static = sot.to_static(fn, min_graph_size=0)
    eager = _frames(fn, *args)
    for _ in range(2):   # translating, then the cached entry
        assert _frames(static, *args) == eager


def print_in_finally(x, d):
    y = x + 1
    try:
        y = y * d["k"]
    finally:
        print("finally", sys.exc_info()[0])
        y = y + 3
    return y


def print_in_a_with_exit_path(x, d):
    class Noisy:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            print("exit", kind, value)
            return kind is KeyError

    y = x * 2
    with Noisy():
        y = y + d["k"]
    return y


@pytest.mark.parametrize("min_graph_size", [0, 100])
@pytest.mark.parametrize("fn", [print_in_finally, print_in_a_with_exit_path])
def test_break_inside_finally_or_exit_keeps_eager_behaviour(fn, min_graph_size):
    check(fn, (X, {}), (X, {"k": 2.0}), static=sot.to_static(fn, min_graph_size=min_graph_size))
