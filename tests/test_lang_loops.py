"""A graph break inside a loop body: the loop runs natively, its body is a
function of its own (sot/breaks/loop_body.py) translated like any code, so
the statements of each iteration around the break keep their graphs."""
import numpy as np
import pytest

import sot
from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def static0(fn):
    return sot.to_static(fn, min_graph_size=0)


def for_range_print(x):
    y = np.tanh(x) * 2
    for i in range(3):
        y = y * 2 + 1
        print("step", i)
        y = np.exp(-y) + i
    return y * 3


def for_list_of_arrays(x, ws):
    h = x * 1
    for w in ws:
        h = np.maximum(h @ w, 0)
        print(h.shape)
        h = h - h.mean()
    return h


def for_enumerate(x):
    acc = x * 0
    for k, row in enumerate(x):
        acc = acc + row * k
        print(k)
        acc = acc / 2
    return acc


def for_zip(x, names):
    out = {}
    for name, row in zip(names, x):
        r = row * 2
        print(name)
        out[name] = r + 1
    return out


def while_counter(x, n):
    i = 0
    y = x + 1
    while i < n:
        y = y * 0.5
        print("i", i)
        i += 1
    return y, i


def break_and_continue(x, n):
    acc = x * 1
    last = -1
    for i in range(n):
        if i == 1:
            continue
        acc = acc + i
        print("step", i)
        if i == 3:
            break
        last = i
    return acc * 2, last


def return_inside(x, n):
    y = x * 2
    for i in range(n):
        y = y + 1
        print(i)
        if i == 2:
            return y.sum(), i
    return y, -1


def new_name_read_after(x, n):
    for i in range(n):
        fresh = x * i
        print(i)
        other = fresh + 1
    return fresh, other, i


def nested_loops(x):
    out = x + 0
    for i in range(2):
        out = out * 2
        for j in range(2):
            print(i, j)
            out = out + i * j
        out = out - 1
    return out.sum()


def data_dependent_condition_in_body(x):
    y = x * 1
    for i in range(4):
        y = y - 1
        if y.sum() > 0:
            y = y * 0.5
        else:
            y = y + 3
    return y


def exception_in_body(x, k):
    y = x * 2
    for i in range(3):
        print(i)
        y = y.reshape(k) + i
    return y


def loop_over_a_closure_cell(x):
    scale = 2.0
    fns = []
    for i in range(3):
        print(i)
        scale = scale + i
        fns.append(lambda v: v * scale)
    return [f(x) for f in fns]


def list_built_in_loop(x):
    parts = []
    for i in range(3):
        parts.append(x[i] * 2)
        print(i)
    return np.stack(parts) + 1


CASES = [
    (for_range_print, [(X,)]),
    (for_list_of_arrays, [(X, [np.eye(4, dtype=np.float32), np.ones((4, 4), np.float32)])]),
    (for_enumerate, [(X,)]),
    (for_zip, [(X, ["a", "b", "c"])]),
    (while_counter, [(X, 3), (X, 0)]),
    (break_and_continue, [(X, 2), (X, 6), (X, 0)]),
    (return_inside, [(X, 5), (X, 2)]),
    (new_name_read_after, [(X, 3), (X, 0), (X, 1)]),
    (nested_loops, [(X,)]),
    (data_dependent_condition_in_body, [(X,), (-X,)]),
    (exception_in_body, [(X, 12), (X, 5)]),
    (loop_over_a_closure_cell, [(X,)]),
    (list_built_in_loop, [(X,)]),
]


@pytest.mark.parametrize("fn,arg_sets", CASES, ids=[c[0].__name__ for c in CASES])
def test_loop_with_a_break_matches_eager(fn, arg_sets):
    check(fn, *arg_sets, static=static0(fn))
    check(fn, *arg_sets)  # default min_graph_size: the code before the loop runs natively


def _body_entries(report):
    return [e for e in report.entries if "loop body" in e.code_name]


@pytest.mark.parametrize("fn,args", [(for_range_print, (X,)), (for_enumerate, (X,)), (while_counter, (X, 3)),
                                     (new_name_read_after, (X, 3)), (list_built_in_loop, (X,))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_loop_body_is_translated_as_its_own_function(fn, args):
    report = sot.explain(static0(fn), *args)
    assert not report.fallbacks, [str(f) for f in report.fallbacks]
    bodies = _body_entries(report)
    assert bodies, [e.code_name for e in report.entries]
    assert any(e.graph_break is not None for e in bodies)   # the break falls inside the body function


def test_statements_around_the_break_in_each_iteration_are_graphs():
    report = sot.explain(static0(for_range_print), X)
    # before the loop, the body before and after print() (one per translation of the body), after the loop
    in_body = [e for e in report.entries if e.graphs and e.code_name != "for_range_print"]
    assert len(in_body) >= 3, [(e.code_name, len(e.graphs)) for e in report.entries]


def test_second_call_hits_the_cache():
    static = static0(for_range_print)
    static(X)
    n = sot.translation_count(static)
    for _ in range(3):
        static(X)
    assert sot.translation_count(static) == n


def test_loop_counter_stops_retranslating_the_body():
    # the counter is a Python number: specialised once, then a graph input
    static = static0(for_range_print)
    static(X)
    first = sot.translation_count(static)
    def g(x):
        y = np.tanh(x) * 2
        for i in range(8):
            y = y * 2 + 1
            print("step", i)
            y = np.exp(-y) + i
        return y * 3
    sg = static0(g)
    sg(X)
    assert sot.translation_count(sg) <= first + 2


def test_print_order_inside_the_loop_is_eager_order(capsys):
    static0(break_and_continue)(X, 6)
    traced = capsys.readouterr().out
    break_and_continue(X, 6)
    assert traced == capsys.readouterr().out == "step 0\nstep 2\nstep 3\n"


def for_else_with_break(x, stop):
    y = x * 1
    for i in range(4):
        y = y + 1
        print(i)
        if i == stop:
            break
    else:
        y = y * 10
    return y


def while_else(x, n):
    i = 0
    y = x * 1
    while i < n:
        y = y - 1
        print(i)
        i += 1
    else:
        y = y * 2
    return y


def reads_the_previous_iterations_value(x):
    y = x * 1
    for i in range(3):
        if i > 0:
            y = y + prev
        print(i)
        prev = y * 2
    return y


def deletes_a_local(x):
    y = x * 1
    for i in range(3):
        t = y + i
        print(i)
        y = t * 2
        del t
    return y


def loop_over_an_iterator(x, vals):
    it = iter(vals)
    y = x * 1
    for v in it:
        y = y + v
        print(v)
    return y, list(it)


def generator_with_loop(x):
    for i in range(3):
        print(i)
        yield x * i


def indexes_with_the_counter(x):
    out = x[0] * 0
    for i in range(40):
        out = out + x[i % 3]
        print(i)
    return out


EXTRA = [
    (for_else_with_break, [(X, 1), (X, 9)]),
    (while_else, [(X, 2), (X, 0)]),
    (reads_the_previous_iterations_value, [(X,)]),
    (deletes_a_local, [(X,)]),
    (loop_over_an_iterator, [(X, [1.0, 2.0, 3.0])]),
    (lambda x: list(generator_with_loop(x)), [(X,)]),
    (indexes_with_the_counter, [(X,)]),
]


@pytest.mark.parametrize("fn,arg_sets", EXTRA, ids=[c[0].__name__ for c in EXTRA])
def test_other_loops_with_a_break_match_eager(fn, arg_sets):
    check(fn, *arg_sets, static=static0(fn))


def while_true_left_by_return(x):
    y = x * 1
    k = 0
    while True:
        y = y * 0.5
        k += 1
        if float(np.abs(y).max()) < 0.5:
            return y, k


def loop_variable_in_a_cell(x):
    fns = []
    for i in range(3):
        print(i)
        fns.append(lambda: x * i)
    return [f() for f in fns], i


def unpack_enumerate_zip_of_rows(x):
    acc = x * 0
    for k, (a, b) in enumerate(zip(x, x[::-1])):
        acc = acc + a * b
        print(k)
    return acc


def _callee_with_loop(x):
    for i in range(2):
        x = x + 1
        print("callee", i)
    return x


def loop_in_an_inlined_callee(x):
    y = x * 2
    z = _callee_with_loop(y)
    return z - 1


class _Model:
    def __init__(self):
        self.w = np.ones((4, 4), np.float32)

    def run(self, x):
        for i in range(2):
            x = x @ self.w
            print(i)
        return x


def loop_in_a_method(x):
    return _Model().run(x)


def many_iterations_with_a_data_dependent_break(x):
    y = x * 1
    total = 0.0
    for i in range(200):
        y = y * 0.99 + 0.01
        total += float(str(y.sum()))   # text made from the data: a break
    return y, total


MORE = [
    (while_true_left_by_return, [(X,)]),
    (loop_variable_in_a_cell, [(X,)]),
    (unpack_enumerate_zip_of_rows, [(X,)]),
    (loop_in_an_inlined_callee, [(X,)]),
    (loop_in_a_method, [(X,)]),
    (many_iterations_with_a_data_dependent_break, [(X,)]),
]


@pytest.mark.parametrize("fn,arg_sets", MORE, ids=[c[0].__name__ for c in MORE])
def test_more_loops_with_a_break_match_eager(fn, arg_sets):
    check(fn, *arg_sets, static=static0(fn))


@pytest.mark.parametrize("fn", [while_true_left_by_return, loop_in_an_inlined_callee, loop_in_a_method,
                                many_iterations_with_a_data_dependent_break], ids=lambda f: f.__name__)
def test_these_loop_bodies_are_functions_too(fn):
    report = sot.explain(static0(fn), X)
    assert not report.fallbacks, [str(f) for f in report.fallbacks]
    assert _body_entries(report)


def test_many_iterations_translate_the_body_a_bounded_number_of_times():
    static = static0(many_iterations_with_a_data_dependent_break)
    static(X)
    n = sot.translation_count(static)
    assert n < 20   # not one per iteration: the counter and the total become inputs
    static(X)
    assert sot.translation_count(static) == n


def python_values_only(x, n):
    total = 0
    for i in range(n):
        total += len(str(i))
        print(i)
    return x * total


def test_a_loop_over_python_values_only_runs_natively_whole():
    # a body function would cost a call per iteration and save nothing
    check(python_values_only, (X, 5), (X, 0), static=static0(python_values_only))
    report = sot.explain(static0(python_values_only), X, 5)
    assert not report.fallbacks and not _body_entries(report)


def test_iterable_the_runner_cannot_hand_over_is_computed_natively():
    # enumerate(zip(rows, rows)) is lazy: the graph stops before the `for` statement
    report = sot.explain(static0(unpack_enumerate_zip_of_rows), X)
    assert not report.fallbacks and _body_entries(report)


def arrays_made_by_numpy_in_the_body(n):
    acc = 0.0
    for i in range(n):
        a = np.ones(3, np.float32) * i
        print(i)
        acc += float(np.tanh(a).sum())
    return acc


def test_a_body_that_makes_arrays_with_numpy_is_a_function():
    check(arrays_made_by_numpy_in_the_body, (4,), (0,), static=static0(arrays_made_by_numpy_in_the_body))
    report = sot.explain(static0(arrays_made_by_numpy_in_the_body), 4)
    assert not report.fallbacks and _body_entries(report)
