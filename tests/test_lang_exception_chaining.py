"""Exceptions raised and caught in the trace carry CPython's chaining
(executor/exceptions.py set_context): __context__ is the exception being
handled when raised (not itself; a cycle is cut), `raise ... from c` sets
__cause__ and __suppress_context__, an explicit re-raise chains again and a
bare `raise` does not. A __context__ that comes from the caller's handled
exception is not known to the trace: reading it runs the frame natively."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def nested_handlers(x):
    try:
        try:
            raise KeyError("in")
        except KeyError:
            raise IndexError("out")
    except IndexError as e:
        return x + 1, type(e.__context__).__name__, e.__context__.args, e.__cause__ is None, \
            e.__suppress_context__


def from_none(x):
    try:
        try:
            raise KeyError("a")
        except KeyError:
            raise ValueError("b") from None
    except ValueError as e:
        return x + 1, e.__suppress_context__, e.__cause__ is None, type(e.__context__).__name__


def from_cause(x):
    try:
        try:
            {}["k"]
        except KeyError as inner:
            raise ValueError("b") from inner
    except ValueError as e:
        return x + 1, type(e.__cause__).__name__, e.__cause__.args, e.__suppress_context__, \
            e.__context__ is e.__cause__


def from_a_class(x):
    try:
        raise ValueError("b") from TypeError
    except ValueError as e:
        return x, type(e.__cause__).__name__, e.__cause__.args


def finally_replaces(x):
    try:
        try:
            raise KeyError("a")
        finally:
            raise ValueError("b")
    except ValueError as e:
        return type(e.__context__).__name__, x + 1


def operation_error_in_handler(x):
    try:
        try:
            raise KeyError("a")
        except KeyError:
            [][1]              # an IndexError of the operation, chained to the KeyError
    except IndexError as e:
        return type(e.__context__).__name__, x


def bare_reraise_keeps_chain(x):
    try:
        try:
            try:
                raise KeyError("a")
            except KeyError:
                raise ValueError("b")
        except ValueError:
            raise
    except ValueError as e:
        return type(e.__context__).__name__, x


@pytest.mark.parametrize("fn", [nested_handlers, from_none, from_cause, from_a_class, finally_replaces,
                                operation_error_in_handler, bare_reraise_keeps_chain])
def test_chaining_follows_eager(fn):
    check(fn, (X,))
    assert_captured_whole(fn, X)


def test_reraising_the_handled_exception_does_not_chain_it_to_itself():
    def f(x):
        try:
            try:
                raise KeyError("a")
            except KeyError as e:
                raise e
        except KeyError as e:
            return e.__context__ is None, x   # the first raise's context is the caller's: natively

    check(f, (X,))


def test_context_from_the_callers_handled_exception_runs_natively():
    def f(x):
        try:
            raise ValueError("b")
        except ValueError as e:
            return type(e.__context__).__name__, x

    static = sot.to_static(f)

    def caller(fn):
        try:
            raise KeyError("outer")
        except KeyError:
            return fn(X)

    assert caller(f)[0] == caller(static)[0] == "KeyError"
    assert f(X)[0] == static(X)[0] == "NoneType"


def test_setattr_and_getattr_with_constant_names():
    class Box:
        def __init__(self, k):
            self.k = k

    def f(x, outside):
        b = Box(1)
        setattr(b, "k", 5)
        setattr(outside, "seen", True)
        return getattr(b, "k") * x, b.k, getattr(outside, "seen")

    check(f, (X, Box(2)))
    assert_captured_whole(f, X, Box(2))
