"""try/except/else/finally and `with` are simulated: a body that raises
nothing, and exceptions the frame raises itself (`raise ValueError(...)`,
StopIteration of next()), caught in the frame or in an inlined caller, are
captured with no break on every Python (exception table on 3.11+, block
stack on 3.10). An error of a NumPy operation at run time is not known to
the graph: the frame reruns natively, exactly as eager. `@contextmanager`
functions and np.errstate blocks are modelled; `yield from` delegates."""
import contextlib
import warnings

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
W = np.arange(40, dtype=np.float32).reshape(10, 4)


class MyError(ValueError):
    pass


def try_body_raises_nothing(x):
    try:
        y = x + 1
    except ValueError:
        y = x
    else:
        y = y * 2
    finally:
        x = x - 1
    return y, x


def raise_caught_with_binding(x):
    try:
        raise ValueError("bad", 3)
    except ValueError as e:
        y = x * e.args[1]
    return y


def finally_runs_on_both_paths(x):
    log = []
    for fail in (False, True):
        try:
            try:
                y = x * 2
                if fail:
                    raise KeyError("k")
            finally:
                log.append(("finally", fail))
        except (TypeError, KeyError):
            y = x + 1
            log.append("caught")
        else:
            log.append("else")
    return y, log


def reraise_reaches_the_outer_handler(x):
    try:
        try:
            raise MyError
        except ValueError:
            x = x + 1
            raise
    except MyError as e:
        return x * 3, type(e) is MyError, e.args


def _checked(v):
    if v > 1:
        raise RuntimeError("too big")
    return v


def raised_in_a_callee_caught_in_the_caller(x):
    try:
        _checked(5)
    except RuntimeError:
        return x + 100
    return x


def raise_from_and_class_raise(x):
    try:
        raise IndexError("outer") from KeyError("cause")
    except LookupError:
        pass
    try:
        raise ZeroDivisionError
    except ArithmeticError as e:
        return x - len(e.args)


# compiled here: pytest rewrites the assert statements of test modules
exec(compile("""
def assert_caught(x):
    assert x.shape[0] == 3, "rows"
    try:
        assert x.shape[0] == 2, "two rows"
    except AssertionError as e:
        return x, e.args
""", __file__, "exec"))


def stop_iteration_of_next_caught(x):
    it = iter([x, x + 1])
    out = []
    while True:
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


SIMULATED = [try_body_raises_nothing, raise_caught_with_binding, finally_runs_on_both_paths,
             reraise_reaches_the_outer_handler, raised_in_a_callee_caught_in_the_caller,
             raise_from_and_class_raise, assert_caught, stop_iteration_of_next_caught]


@pytest.mark.parametrize("fn", SIMULATED)
def test_exception_raised_and_caught_in_the_trace_is_one_graph(fn):
    check(fn, (X,), (X * 2,))
    assert_captured_whole(fn, X)


def test_uncaught_raise_runs_natively_and_raises_as_eager():
    def f(x):
        y = x * 2
        if y.shape[0] == 3:
            raise MyError("out", 1)
        return y
    check(f, (X,))


def test_exception_that_escapes_the_trace_runs_natively():
    def f(x):
        try:
            raise ValueError("kept")
        except ValueError as e:
            err = e
        return x + 1, err
    static = sot.to_static(f)
    for _ in range(2):
        y, err = static(X)
        assert type(err) is ValueError and err.args == ("kept",) and err.__traceback__ is not None
        np.testing.assert_array_equal(y, X + 1)


def test_user_exception_class_changed_after_the_trace_is_seen():
    class Late(ValueError):
        pass

    def f(x):
        try:
            raise Late(1)
        except Late as e:
            return x * len(e.args)
    static = check(f, (X,))
    Late.__init__ = lambda self, *a: ValueError.__init__(self, *a, *a)
    try:
        np.testing.assert_array_equal(static(X), f(X))
        np.testing.assert_array_equal(static(X), X * 2)
    finally:
        del Late.__init__


def test_numpy_error_at_run_time_inside_try_stays_eager():
    def f(a):
        try:
            y = np.linalg.inv(a) * 2
        except np.linalg.LinAlgError:
            y = np.zeros_like(a)
        return y
    good = np.array([[2.0, 1.0], [1.0, 3.0]])
    check(f, (good,), (np.zeros((2, 2)),), (good,))

    def g(ids, log):
        try:
            y = W[ids] * 2
        except IndexError as e:
            log.append(str(e))
            y = None
        return y
    check(g, ([1, 2], []), ([1, 20], []))


# -- with ------------------------------------------------------------------------

class Recorder:
    def __init__(self, suppress=()):
        self.events = []
        self.suppress = suppress

    def __enter__(self):
        self.events.append("enter")
        return self

    def __exit__(self, kind, value, tb):
        self.events.append(("exit", kind, None if value is None else value.args, tb is None))
        return kind is not None and issubclass(kind, self.suppress)


def with_exit_sees_the_exception(x):
    r = Recorder()
    try:
        with r:
            y = x * 2
            raise ValueError("in body")
    except ValueError:
        y = y + 1
    return y, r.events


def with_exit_suppresses(x):
    r = Recorder(suppress=KeyError)
    with r:
        y = x * 2
        raise KeyError("gone")
    return y, r.events


def with_exit_called_once_on_return(x):
    r = Recorder()
    with r:
        return x - 1, r.events


@contextlib.contextmanager
def scope(log, k):
    log.append("enter")
    try:
        yield k
    except ValueError as e:
        log.append(("caught", e.args))
    finally:
        log.append("exit")


def contextmanager_plain(x):
    log = []
    with scope(log, 2.0) as k:
        y = x * k
    return y, log


def contextmanager_generator_catches(x):
    log = []
    with scope(log, 3.0) as k:
        y = x * k
        raise ValueError("inside")
    return y, log


def contextmanager_exception_passes_through(x):
    log = []
    try:
        with scope(log, 3.0) as k:
            y = x * k
            raise KeyError("through")
    except KeyError:
        y = -x
    return y, log


def errstate_without_errors(x):
    with np.errstate(all="raise"):
        y = x * 2 + 1
    return y


WITH = [with_exit_sees_the_exception, with_exit_suppresses, with_exit_called_once_on_return,
        contextmanager_plain, contextmanager_generator_catches, contextmanager_exception_passes_through,
        errstate_without_errors]


@pytest.mark.parametrize("fn", WITH)
def test_with_blocks_are_one_graph(fn):
    check(fn, (X,), (X * 2,))
    assert_captured_whole(fn, X)


def test_contextmanager_that_does_not_yield_raises_as_eager():
    @contextlib.contextmanager
    def empty():
        if False:
            yield

    def f(x):
        with empty():
            return x
    check(f, (X,))


def _warned(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = fn(*args)
        except FloatingPointError as e:
            value = ("raised", str(e))
    return value, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_errstate_block_gives_eager_values_warnings_and_errors(backend):
    def ignore(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            y = np.log(x * 0) + x / 0
        return y * 2

    def raises(x):
        with np.errstate(divide="raise"):
            y = x / 0
        return y

    def warns_inside_an_ignoring_caller(x):
        with np.errstate(divide="warn"):
            y = x / 0
        return y + np.log(x - x)

    for fn in (ignore, raises, warns_inside_an_ignoring_caller):
        static = sot.to_static(fn, backend=backend)
        with np.errstate(all="ignore"):
            for _ in range(3):
                e_val, e_warn = _warned(fn, X)
                t_val, t_warn = _warned(static, X)
                assert e_warn == t_warn, fn.__name__
                if isinstance(e_val, tuple):
                    assert e_val == t_val
                else:
                    np.testing.assert_array_equal(e_val, t_val)
        assert_captured_whole(ignore, X)   # the graph runs; the error makes the frame rerun natively
    assert_captured_whole(errstate_without_errors, X)


# -- yield from -------------------------------------------------------------------

def _inner(x, log):
    log.append("inner start")
    yield x
    yield x + 1
    log.append("inner end")
    return x * 10


def _outer(x, log):
    r = yield from _inner(x, log)
    yield r
    yield from [x - 1, x - 2]
    yield from (x * k for k in range(2))


def yield_from_into_a_list(x):
    log = []
    return list(_outer(x, log)), log


def yield_from_interleaved_with_next(x):
    log = []
    g = _outer(x, log)
    a = next(g)
    log.append("between")
    b = next(g)
    return a + b, log, sum(1 for _ in g)


def _acc():
    total = 0
    while True:
        v = yield total
        total += v


def _delegate():
    yield from _acc()


def yield_from_passes_sent_values(x):
    g = _delegate()
    next(g)
    g.send(2)
    return x * g.send(3)


@pytest.mark.parametrize("fn", [yield_from_into_a_list, yield_from_interleaved_with_next,
                                yield_from_passes_sent_values])
def test_yield_from_is_one_graph(fn):
    check(fn, (X,))
    assert_captured_whole(fn, X)


def _two():
    yield 1
    v = yield 2
    if v == "ret":
        return 5


def stop_iteration_of_send_carries_the_return_value(x):
    out = []
    for sent in ("ret", "none"):
        g = _two()
        next(g)
        next(g)
        try:
            g.send(sent)
        except StopIteration as e:
            out.append((e.args, e.value))
    return x, out


def test_stop_iteration_of_send_carries_the_return_value():
    check(stop_iteration_of_send_carries_the_return_value, (X,))
    assert_captured_whole(stop_iteration_of_send_carries_the_return_value, X)
