"""Writes into arrays (in-place operators, item assignment, ufunc out=,
copyto, fill, ...) are captured as graph statements that change the same
memory as eagerly (sot/ir/ops_write.py, sot/executor/writes.py).

Each differential test builds fresh arguments twice (one set for eager, one
for the decorated function), including views of them made before the call,
and compares results, the arguments afterwards, those views, and which
returned objects are the caller's.  NumPy is compared bitwise; onnxruntime
with a float tolerance.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import sot
from difftest import assert_same, check
from ort_tolerance import assert_ort_close

BACKENDS = ["numpy", "onnxruntime"]


# ----------------------------------------------------------------------------
# helpers

def _close(e, t, path):
    assert type(e) is type(t), f"{path}: type {type(e).__name__} != {type(t).__name__}"
    if isinstance(e, (np.ndarray, np.generic)):
        assert e.dtype == t.dtype and np.shape(e) == np.shape(t), f"{path}: dtype/shape"
        if e.dtype.kind in "fc":
            assert_ort_close(t, e, path)
        else:
            assert np.array_equal(e, t), f"{path}: values differ"
    elif isinstance(e, (list, tuple)):
        assert len(e) == len(t), path
        for i, (a, b) in enumerate(zip(e, t)):
            _close(a, b, f"{path}[{i}]")
    elif isinstance(e, dict):
        assert list(e) == list(t), path
        for k in e:
            _close(e[k], t[k], f"{path}[{k!r}]")
    elif hasattr(e, "__dict__") and not callable(e):
        _close(vars(e), vars(t), f"{path}.__dict__")
    else:
        assert e == t, f"{path}: {e!r} != {t!r}"


def _same(e, t, backend, path):
    if backend == "numpy":
        assert_same(e, t, path, bitwise=True)
    else:
        _close(e, t, path)


def _identities(result, known):
    items = result if isinstance(result, tuple) else (result,)
    return [next((k for k, obj in enumerate(known) if obj is item), None) for item in items]


def differential(fn, make, backend="numpy", calls=3):
    """``make()`` -> (args, watched): fresh arguments, and the objects to
    compare after the call besides them (views made before the call, globals)."""
    static = sot.to_static(fn, backend=backend)
    for _ in range(calls):
        e_args, e_watch = make()
        e = fn(*e_args)
        t_args, t_watch = make()
        t = static(*t_args)
        _same(e, t, backend, "result")
        _same(list(e_args), list(t_args), backend, "arguments after the call")
        _same(list(e_watch), list(t_watch), backend, "views and globals after the call")
        known_e, known_t = list(e_args) + list(e_watch), list(t_args) + list(t_watch)
        assert _identities(e, known_e) == _identities(t, known_t), "identity of returned objects"
    return static


def function(params: str, *lines: str):
    """``def f(params): lines`` (each a statement), with ``np`` in scope."""
    ns = {"np": np}
    exec(f"def f({params}):\n" + "".join(f"    {line}\n" for line in lines), ns)
    return ns["f"]


def no_breaks(fn, *args):
    report = sot.explain(fn, *copy.deepcopy(args))
    assert report.breaks == [], [str(b) for b in report.breaks]
    assert report.graph_count == 1
    return report


# ----------------------------------------------------------------------------
# the writes: each changes `a` (float64 (4, 6)) using `b` (same shape)

def w_setitem_int(a, b):
    a[1] = b[0]


def w_setitem_slices(a, b):
    a[::-1, 1:5:2] = b[:, :2] * 2.0


def w_setitem_none_ellipsis(a, b):
    a[None, ..., 2] = b[:, 0]


def w_setitem_int_list(a, b):
    a[[2, 0, 3]] = b[:3]


def w_setitem_traced_index(a, b):
    a[np.argmax(b, axis=0)] = 0.5


def w_setitem_mask(a, b):
    a[b > 0.5] = 0.0


def w_setitem_row_mask(a, b):
    a[b[:, 0] > 0.5] = b[0]


def w_setitem_augmented(a, b):
    a[1:, ::-2] *= b[1:, ::-2]


def w_iadd(a, b):
    a += b


def w_isub(a, b):
    a -= b * 3.0


def w_imul(a, b):
    a *= b


def w_itruediv(a, b):
    a /= b + 2.0


def w_ifloordiv(a, b):
    a //= b + 0.25


def w_imod(a, b):
    a %= b + 0.5


def w_ipow(a, b):
    a **= 2


def w_imatmul(a, b):
    a @= b.T @ b


def w_ufunc_out(a, b):
    np.multiply(b, 2.0, out=a)


def w_ufunc_out_positional(a, b):
    np.add(a, b, a)


def w_ufunc_out_tuple_where(a, b):
    np.subtract(a, b, out=(a,), where=b > 0.5)


def w_copyto(a, b):
    np.copyto(a, b * 3.0)


def w_copyto_where(a, b):
    np.copyto(a, b, where=b < 0.3)


def w_fill(a, b):
    a.fill(2.5)


def w_putmask(a, b):
    np.putmask(a, b > 0.5, -1.0)


def w_fill_diagonal(a, b):
    np.fill_diagonal(a, 7.0)


def w_sort(a, b):
    a.sort(axis=0)


def w_put(a, b):
    np.put(a, [0, 7, -1], b[0, :3])


def w_put_traced(a, b):
    np.put(a, np.argsort(b[0]), b[1])


def w_place(a, b):
    np.place(a, b > 0.5, b[0, :2])


def w_add_at(a, b):
    np.add.at(a, [0, 0, 2, -1], b[:4])      # repeated indices: each applied, in order


def w_multiply_at_traced(a, b):
    np.multiply.at(a, (np.argmax(b, axis=0), 1), 0.5)


def w_negative_at(a, b):
    np.negative.at(a, [1, 1, 3])


WRITES = [w_setitem_int, w_setitem_slices, w_setitem_none_ellipsis, w_setitem_int_list,
          w_setitem_traced_index, w_setitem_mask, w_setitem_row_mask, w_setitem_augmented, w_iadd,
          w_isub, w_imul, w_itruediv, w_ifloordiv, w_imod, w_ipow, w_imatmul, w_ufunc_out,
          w_ufunc_out_positional, w_ufunc_out_tuple_where, w_copyto, w_copyto_where, w_fill,
          w_putmask, w_fill_diagonal, w_sort, w_put, w_put_traced, w_place,
          w_add_at, w_multiply_at_traced, w_negative_at]


def _pair(seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((4, 6)), rng.random((4, 6))


class Holder:
    def __init__(self, state):
        self.state = state


STATE = None


def _targets(write):
    """(name, fn, make) for each kind of array the write reaches."""

    def local(x, y):
        a = x * 1.0
        write(a, y)
        return a, a.sum()

    def argument(x, y):
        write(x, y)
        return x, x * 2.0

    def attribute(obj, y):
        write(obj.state, y)
        return obj.state.sum()

    def global_(y):
        write(STATE, y)
        return STATE

    def item(d, y):
        write(d["a"], y)
        return d

    def view_of_argument(x, y):
        v = x[1:5]
        write(v, y)
        return v, x

    def overlapping(x, y):
        write(x, y)
        return x, y

    def make_argument():
        x, y = _pair()
        return (x, y), (x[::2], x.T)

    def make_attribute():
        x, y = _pair()
        return (Holder(x), y), (x[1:],)

    def make_global():
        global STATE
        x, y = _pair()
        STATE = x
        return (y,), (x, x[:, 1])

    def make_item():
        x, y = _pair()
        return ({"a": x}, y), (x[0],)

    def make_view():
        x, y = _pair()
        base = np.concatenate([x[:1], x, x[:1]])
        return (base, y), (base[2:4],)

    def make_overlapping():
        base = _pair()[0]
        both = np.concatenate([base, base])
        return (both[:4], both[2:6]), (both,)   # two arguments sharing rows 2-3

    return [("local", local, make_argument), ("argument", argument, make_argument),
            ("attribute", attribute, make_attribute), ("global", global_, make_global),
            ("item", item, make_item), ("view", view_of_argument, make_view),
            ("overlapping", overlapping, make_overlapping)]


CASES = [(w, name, fn, make) for w in WRITES for name, fn, make in _targets(w)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("write, target, fn, make", CASES,
                         ids=[f"{w.__name__[2:]}-{name}" for w, name, _, _ in CASES])
def test_write_is_captured_and_exact(write, target, fn, make, backend):
    differential(fn, make, backend)
    args, _ = make()
    no_breaks(fn, *args)


INT_WRITES = ["a &= b", "a |= b", "a ^= b", "a <<= b % 4", "a >>= b % 4", "a //= b + 1",
              "a %= b + 1", "a[a > 3] = -1", "a[1:, 0] += b[:-1, 1]"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("source", INT_WRITES)
def test_integer_writes(source, backend):
    f = function("a, b", source, "return a")

    def make():
        rng = np.random.default_rng(1)
        a = rng.integers(0, 100, (3, 5))
        return (a, rng.integers(0, 100, (3, 5))), (a[1],)

    differential(f, make, backend)
    no_breaks(f, *make()[0])


# ----------------------------------------------------------------------------
# identity, order, exceptions

def test_ufunc_out_returns_the_out_array():
    def f(a, b, c):
        r = np.add(a, b, out=c)
        return r, r is c

    static = sot.to_static(f)
    a, b, c = np.ones(3), np.arange(3.0), np.zeros(3)
    r, same = static(a, b, c)
    assert r is c and same is True
    np.testing.assert_array_equal(c, [1.0, 2.0, 3.0])


def test_returned_local_is_the_written_object():
    def f(x):
        out = np.zeros_like(x)
        out[1:] = x[:-1]
        v = out[::2]
        out += 1.0
        return out, v

    static = sot.to_static(f)
    out, v = static(np.arange(6.0))
    assert v.base is out or np.shares_memory(v, out)
    assert_same(f(np.arange(6.0)), (out, v), bitwise=True)


def test_print_between_two_writes_sees_the_first():
    def f(x):
        x[0] = 1.0
        print(x)
        x[1] = 2.0
        return x.sum()

    check(f, (np.zeros(3),))


def test_a_write_before_a_break_is_visible_after_it():
    def f(x):
        x *= 2.0
        s = float(x.sum())   # reads data: a break
        x[0] = s
        return x

    check(f, (np.arange(4.0),))


def test_an_exception_between_two_writes_leaves_exactly_the_first():
    def f(x, i):
        x[0] += 7.0          # done twice if the graph were rerun natively
        y = x[i]             # out of bounds on the second set: IndexError in the graph
        x[1] = 8.0
        return y

    check(f, (np.zeros(3), np.array([1])), (np.zeros(3), np.array([5])))


def test_an_exception_before_any_write_into_an_argument_reruns_natively():
    def f(x, i):
        y = x[i]
        x[0] = 7.0
        return y

    check(f, (np.zeros(3), np.array([1])), (np.zeros(3), np.array([5])))


def test_read_only_argument_raises_as_eagerly():
    def f(x):
        x[0] = 1.0
        return x

    def make():
        x = np.zeros(3)
        x.flags.writeable = False
        return x

    static = sot.to_static(f)
    for _ in range(2):
        with pytest.raises(ValueError, match="read-only"):
            f(make())
        with pytest.raises(ValueError, match="read-only"):
            static(make())


def test_out_of_range_constant_raises_as_eagerly():
    def f(x):
        x[0] = 300
        return x

    check(f, (np.zeros(3, np.uint8),))


def test_same_kind_casting_error_raises_as_eagerly():
    def f(x, y):
        x += y
        return x

    check(f, (np.zeros(3, np.int64), np.ones(3)))


def test_write_into_a_numpy_scalar_is_not_an_array_write():
    def f(x):
        s = x.sum()
        s += 1.0           # a NumPy scalar: a new value, as Python does
        return s

    check(f, (np.arange(3.0),))


# ----------------------------------------------------------------------------
# aliasing guards

def test_changed_overlap_between_arguments_retranslates():
    def f(x, y):
        x += y
        return x

    static = sot.to_static(f)
    for make in (lambda: (np.arange(6.0), np.ones(6)),
                 lambda: (np.arange(6.0), np.arange(6.0)[::-1].copy())):
        e, t = make(), make()
        assert_same(f(*e), static(*t), bitwise=True)
    assert sot.translation_count(static) == 1

    def overlapping():
        base = np.arange(8.0)
        return base[:6], base[2:]

    e, t = overlapping(), overlapping()
    assert_same(f(*e), static(*t), bitwise=True)
    assert_same(e, t, bitwise=True)
    assert sot.translation_count(static) == 2
    report = sot.explain(static, *overlapping())
    assert any("may share memory" in g for g in report.guards)


def test_same_array_passed_twice():
    def f(x, y):
        x[1:] += y[:-1]
        return y

    def make():
        a = np.arange(5.0)
        return (a, a), ()

    differential(f, make)


# ----------------------------------------------------------------------------
# preallocate-then-fill, Paddle SOT style in-place functions

def test_preallocate_then_fill_loop_is_one_graph():
    def f(x):
        out = np.empty((x.shape[0], 3))
        for i in range(x.shape[0]):
            out[i] = np.tanh(x[i, :3]) * 2.0
        return out

    def make():
        return (np.random.default_rng(2).random((8, 5)),), ()

    for backend in BACKENDS:
        differential(f, make, backend)
    report = no_breaks(f, *make()[0])
    assert report.op_count >= 8


def inplace_in_branches(x, y, flag):
    if flag:
        x[:] = y * 2.0
    else:
        x -= y
    x[0] += 1.0
    return x


def inplace_in_loop(x, y):
    for i in range(4):
        x += y
        if i % 2 == 0:
            x *= 0.5
        x[i] = float(i)
    return x


def inplace_chain(x):
    y = x.reshape(2, 3)
    y += 1.0
    np.multiply(y, y, out=y)
    y.T[0] = -1.0
    return x, y


def inplace_on_self_state(obj, dt):
    obj.state[...] += dt * np.tanh(obj.state)
    obj.state[obj.state > 1.0] = 1.0
    return obj.state


@pytest.mark.parametrize("backend", BACKENDS)
def test_paddle_style_inplace_functions_are_captured(backend):
    def pair():
        rng = np.random.default_rng(3)
        x = rng.random(6)
        return x, rng.random(6)

    for flag in (True, False):
        def make(flag=flag):
            x, y = pair()
            return (x, y, flag), (x[1:],)
        differential(inplace_in_branches, make, backend)
        no_breaks(inplace_in_branches, *make()[0])

    def make_loop():
        x, y = pair()
        return (x, y), (x[::-1],)

    differential(inplace_in_loop, make_loop, backend)
    no_breaks(inplace_in_loop, *make_loop()[0])

    def make_chain():
        x = pair()[0]
        return (x,), (x[:3],)

    differential(inplace_chain, make_chain, backend)
    no_breaks(inplace_chain, *make_chain()[0])

    def make_state():
        x = pair()[0] * 3.0
        return (Holder(x), 0.25), (x[2:],)

    differential(inplace_on_self_state, make_state, backend)
    no_breaks(inplace_on_self_state, *make_state()[0])


# ----------------------------------------------------------------------------
# what still breaks, and export

def test_export_names_the_line_of_a_write_into_an_argument(tmp_path):
    def f(x):
        y = x * 2.0
        x[0] = 1.0
        return y

    with pytest.raises(sot.ExportError, match=r"test_writes.py:\d+.*writes in place into x"):
        sot.save(f, tmp_path / "f", input_spec=[sot.InputSpec([3], "float64")])


def test_graph_listing_shows_writes():
    def f(x, y):
        x[1:] = y[:-1]
        x += y
        np.add(x, y, out=y)
        return y

    static = sot.to_static(f)
    static(np.zeros(4), np.ones(4))
    report = sot.explain(static, np.zeros(4), np.ones(4))
    assert report.graph_count == 1


def _closure():
    state = np.arange(4.0)

    def step(y):
        state[1:] += y[:-1]
        state[0] = y.sum()
        return state

    return step, state


@pytest.mark.parametrize("backend", BACKENDS)
def test_write_into_a_closure_cell(backend):
    step_e, state_e = _closure()
    step_t, state_t = _closure()
    view_e, view_t = state_e[::2], state_t[::2]
    static = sot.to_static(step_t, backend=backend)
    for k in range(3):
        y = np.full(4, float(k))
        e, t = step_e(y), static(y.copy())
        assert e is state_e and t is state_t
        _same([state_e, view_e], [state_t, view_t], backend, "closure state")
    step, _ = _closure()
    no_breaks(step, np.ones(4))


# ----------------------------------------------------------------------------
# `place op= value` stores back the same object: no break

def aug_attribute(h, y):
    h.state += y
    h.state[0] = -1.0
    return h.state


def aug_global(y):
    global STATE
    STATE *= y
    return STATE


def aug_items(d, lst, y):
    d["a"] -= y
    lst[0] **= 2
    return d, lst


@pytest.mark.parametrize("backend", BACKENDS)
def test_augmented_assignment_to_attribute_global_and_items_is_captured(backend):
    def make_attribute():
        x = np.arange(4.0)
        return (Holder(x), np.ones(4)), (x[1:],)

    def make_global():
        global STATE
        STATE = np.arange(4.0) + 1.0
        return (np.full(4, 2.0),), (STATE, STATE[::2])

    def make_items():
        a, b = np.arange(4.0), np.arange(4.0) * 3
        return ({"a": a}, [b], np.ones(4)), (a[:2], b[1:])

    for fn, make in ((aug_attribute, make_attribute), (aug_global, make_global), (aug_items, make_items)):
        differential(fn, make, backend)
        no_breaks(fn, *make()[0])


def test_augmented_assignment_to_a_nonlocal_array_is_captured():
    def outer():
        s = np.arange(3.0)

        def step(y):
            nonlocal s
            s += y
            return s
        return step, s

    step_e, s_e = outer()
    step_t, s_t = outer()
    static = sot.to_static(step_t)
    for _ in range(3):
        assert step_e(np.ones(3)) is s_e and static(np.ones(3)) is s_t
        assert_same(s_e, s_t, bitwise=True)
    no_breaks(outer()[0], np.ones(3))


def test_storing_a_different_array_still_breaks_and_is_exact():
    def f(h, y):
        h.state = h.state + y      # a new object: an attribute assignment
        return h.state

    check(f, (Holder(np.arange(3.0)), np.ones(3)))
    assert sot.explain(f, Holder(np.arange(3.0)), np.ones(3)).breaks


def test_a_weight_the_function_writes_is_not_frozen():
    class Model:
        def __init__(self):
            self.w = np.ones(3)

        def __call__(self, x):
            self.w[0] += 1.0
            return self.w * x

    eager, traced = Model(), Model()
    static = sot.to_static(traced, freeze=True)
    for _ in range(3):
        assert_same(eager(np.ones(3)), static(np.ones(3)), bitwise=True)
        assert_same(eager.w, traced.w, bitwise=True)
    assert traced.w.flags.writeable


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_written_arguments_one_read_only_write_neither_twice(backend):
    def f(x, y):
        x += 1.0
        y += 1.0
        return x.sum() + y.sum()

    def make(read_only):
        x, y = np.zeros(4), np.zeros(4)
        y.flags.writeable = not read_only
        return x, y

    static = sot.to_static(f, backend=backend)
    static(*make(False))
    for _ in range(2):
        e, t = make(True), make(True)
        with pytest.raises(ValueError, match="read-only"):
            f(*e)
        with pytest.raises(ValueError, match="read-only"):
            static(*t)
        assert_same(e, t, bitwise=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_with_python_numbers_that_vary_between_calls(backend):
    def f(x, s, n):
        x[0] = s
        x *= s
        x[n] = 2
        y = np.empty(n + 1)
        y[n] = s
        np.add(x, s, out=x)
        return x, y[n]

    static = sot.to_static(f, backend=backend)
    for s, n in [(1.0, 1), (2.0, 2), (3.5, 3), (4.0, 2)]:
        e, t = np.arange(5.0), np.arange(5.0)
        _same(f(e, s, n), static(t, s, n), backend, "result")
        _same(e, t, backend, "argument")
    assert not sot.explain(static, np.arange(5.0), 5.0, 1).breaks


@pytest.mark.parametrize("backend", BACKENDS)
def test_floating_point_error_handler_after_a_write_is_called_as_eagerly(backend):
    def f(x, y):
        x += 1.0
        return x / y          # divides by zero: NumPy calls the handler, raises nothing

    static = sot.to_static(f, backend=backend)
    for _ in range(3):
        calls_e, calls_t = [], []
        e, t = np.zeros(3), np.zeros(3)
        with np.errstate(divide="call", invalid="call", call=lambda *a: calls_e.append(a[0])):
            re = f(e, np.array([1.0, 0.0, 2.0]))
        with np.errstate(divide="call", invalid="call", call=lambda *a: calls_t.append(a[0])):
            rt = static(t, np.array([1.0, 0.0, 2.0]))
        _same(re, rt, backend, "result")
        _same(e, t, backend, "argument")
        assert calls_e == calls_t and len(calls_e) == 1
