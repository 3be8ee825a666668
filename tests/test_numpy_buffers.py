"""The NumPy backend keeps large intermediates in buffers between calls.

Every differential test here runs the function eagerly and decorated on
several *different* inputs in turn, keeps every result, and compares them
all at the end: a later call reusing a buffer must not change what an
earlier call returned.  Results must be identical to eager: Python type,
dtype, shape, strides and bytes (NaN payloads and signed zeros included).
"""

from __future__ import annotations

import copy
import gc
import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

import sot
from sot.backends import compile_numpy
from sot.backends.numpy import buffers as numpy_buffers
from sot.backends.numpy.buffer_plan import plan_buffers
from sot.ir import StatementIR, TensorMeta
from difftest import assert_same
from test_ir_oracle import F, M, O

rng = np.random.default_rng(0)
N = 512  # a (512, 512) float32 array is 1 MiB: numpy_buffers.MIN_BYTES


class Holder:
    pass


def data(shape=(N, N), dtype=np.float32, scale=1.0):
    values = rng.standard_normal(shape) * scale
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def assert_identical(actual, expected, path="result"):
    assert_same(expected, actual, path, bitwise=True)


def check_calls(fn, *arg_sets, buffered=True):
    """``fn`` eagerly and decorated on each argument set in turn; every result
    (kept until the end) and every argument afterwards must be identical."""
    static = sot.to_static(fn)
    eager, traced = [], []
    with np.errstate(all="ignore"):
        for args in arg_sets:
            e_args, t_args = copy.deepcopy(args), copy.deepcopy(args)
            eager.append((fn(*e_args), e_args))
            traced.append((static(*t_args), t_args))
    for k, ((e, e_args), (t, t_args)) in enumerate(zip(eager, traced)):
        assert_identical(t, e, f"call {k} result")
        assert_identical(t_args, e_args, f"call {k} arguments")
    sources = graph_sources(fn, *copy.deepcopy(arg_sets[0]))
    assert any("out=b" in s for s in sources) == buffered, sources
    return static


def graph_sources(fn, *args):
    with np.errstate(all="ignore"):
        report = sot.explain(fn, *args)
    return [src for entry in report.entries for _ops, _backend, src in entry.graphs]


# ----------------------------------------------------------------------------
# the workloads

def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layernorm(x, w, b):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * w + b


def gelu_cube(x):
    return 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x * x * x)))


def test_softmax_layernorm_and_gelu_write_intermediates_into_buffers_and_match_eager():
    check_calls(softmax, (data(),), (data(),), (data(scale=30),))
    check_calls(layernorm, *[(data(), data((N,)), data((N,))) for _ in range(3)])
    check_calls(gelu_cube, (data(),), (data(scale=4),), (data(),))


def test_symbolic_dims_are_never_buffered():
    # a buffer's shape is fixed when the graph is compiled; a symbolic dim's is not
    static = sot.to_static(softmax, dynamic=True)
    with np.errstate(all="ignore"):
        for rows in (N, N + 64, N + 128, N):
            x = data((rows, N))
            assert_identical(static(x), softmax(x))
    assert not any("out=b" in s for s in graph_sources(static, data((N + 32, N))))


def test_small_graphs_keep_the_plain_source():
    check_calls(softmax, (data((8, 8)),), (data((8, 8)),), buffered=False)
    assert "pool" not in graph_sources(softmax, data((8, 8)))[0]


# ----------------------------------------------------------------------------
# what callers can see is never a buffer

def test_views_of_intermediates_that_are_returned_are_fresh_memory():
    def f(x):
        y = np.exp(x) * 2
        return y[::2], y.T, y.reshape(-1), (y + 1)[1:]
    check_calls(f, (data(),), (data(),), (data(),))


def test_intermediates_returned_in_tuples_lists_and_dicts_are_fresh_memory():
    def f(x):
        a = x * 2
        b = np.tanh(a)
        c = b + 1
        d = c * c
        return [a, d.sum()], {"b": b}, (c[0], d.max())
    check_calls(f, (data(),), (data(),), (data(),))


def test_intermediates_stored_into_outside_objects_are_fresh_memory(monkeypatch):
    monkeypatch.setenv("SOT_MIN_GRAPH_SIZE", "1")  # the short graphs before each break are compiled too

    def f(x, box, holder, d):
        a = np.exp(x)
        b = a * 3
        box.append(b)
        c = b + 1
        holder.value = c
        e = c * 2
        d["e"] = e
        return (e - 1).sum()
    check_calls(f, *[(data(), [], Holder(), {}) for _ in range(3)])


def test_zero_d_results_stay_numpy_scalars():
    def f(x):
        y = np.exp(x) - 1
        z = y * y
        return y.sum(), z.max(), z[3, 4], 2 * y.mean(), (z > 1).all()
    check_calls(f, (data(),), (data(),), (data(),))


def test_buffered_values_with_nans_and_signed_zeros_keep_their_bits():
    def f(x):
        y = np.sqrt(x) * -0.0
        return np.copysign(1.0, y * 1).sum(), np.isnan(np.sqrt(x) + 1).sum(), (y + np.sqrt(-x)).sum()
    check_calls(f, (data(),), (data(),))


def test_in_place_operators_on_buffered_intermediates():
    def updated(x):
        y = x * 2
        y += 1
        y *= x
        return np.tanh(y).sum()

    def returned(x):
        y = x * 2
        y += 1
        return y, (y * 3).sum()

    def through_a_view(x):
        y = np.exp(x)
        z = y[::2]
        z *= 0
        return (y + 1).sum(), (y * 2).sum()

    for f in (updated, returned, through_a_view):
        check_calls(f, (data(),), (data(),), (data(),))


def test_in_place_update_of_an_input_mutates_it_like_eager():
    def f(x):
        x += 1
        y = np.exp(x) * 3
        return (y + x).sum()
    check_calls(f, (data(),), (data(),))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_dtype_changing_ops_write_buffers_of_their_result_dtype():
    def f(x, i):
        m = x > 0
        a = np.where(m, x, 0.0)
        b = i / 3
        c = i * 2.5
        d = np.add(x, 1, dtype=np.float64)
        e = m & (i > 0)
        g = np.sqrt(x.astype(np.complex64) * 2)
        return (a * 2).sum(), (b + 1).sum(), (c - 1).sum(), (d * d).sum(), (e | m).sum(), (g + 1).sum()
    check_calls(f, *[(data(), data((N, N), np.int32, 100)) for _ in range(3)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("exponent", [2, 0.5, -1, 3, 1, 0, 2.0], ids=repr)
def test_powers_are_the_ufunc_numpy_itself_picks(dtype, exponent):
    if np.dtype(dtype).kind == "i" and exponent in (-1, 0.5):
        exponent = 2  # an integer to a negative power raises; 0.5 makes floats
    def f(x):
        y = x + 1
        return (y ** exponent + 1).sum(axis=0)
    check_calls(f, (data(dtype=dtype, scale=3),), (data(dtype=dtype),))


def test_power_with_a_traced_exponent_is_left_as_written():
    def f(x, p):
        y = x + 1
        return (y ** p + 1).sum(), (2.0 ** y + 1).sum()
    check_calls(f, (data(), np.float32(2)), (data(), np.float32(0.5)))
    source = graph_sources(f, data(), np.float32(2))[0]
    assert "t1 ** i1" in source or "** i1" in source
    assert "np.power(i1" not in source and "np.power(t0, i1" not in source


@pytest.mark.parametrize("layout", ["fortran", "transposed", "strided", "odd-unit-stride", "interior", "reversed",
                                    "one-wide", "rows-reversed"])
def test_inputs_of_any_layout_give_eager_layout_and_bits(layout):
    def make():
        x = data((N, N + 1))
        if layout == "fortran":
            return np.asfortranarray(x)
        if layout == "transposed":
            return x.T
        if layout == "interior":      # C-ordered slice: buffered (numpy_buffers.c_ordered)
            return data((N + 2, N + 3))[1:-1, 1:-1]
        if layout == "reversed":
            return x[:, ::-1]
        if layout == "one-wide":
            return data((N, 3, N + 1))[:, 1:2, :]
        if layout == "rows-reversed":
            return x[::-1]
        if layout == "strided":
            return data((N, 2 * N))[:, ::2]
        row = data((1, 4 * N * N // 4))
        return np.lib.stride_tricks.as_strided(row.copy(), strides=(12345 * 4, 4))

    def f(x):
        y = np.exp(x) * 2
        z = y - x
        return z.sum(axis=0), z.sum(axis=-1), z * 1, z.T * 1
    check_calls(f, (make(),), (make(),))


def test_rounding_an_integer_array_may_return_it_so_it_is_never_buffered():
    from sot.ir import lookup_function, lookup_method
    assert lookup_function(np.round).aliases and lookup_method("round").aliases

    def f(i):
        y = i * 3
        return np.round(y), y.round(), np.round(y + 1, 2)
    check_calls(f, *[(data((N, N), np.int32, 100),) for _ in range(3)], buffered=False)


def test_recursive_decorated_function():
    def f(x, n):
        y = np.tanh(x) * 2
        if n == 0:
            return (y + 1).sum()
        return (y - 1).sum() + f(x * 0.5, n - 1)
    check_calls(f, (data(), 3), (data(), 2))


# ----------------------------------------------------------------------------
# the compiled graph and its pool

def _softmax_graph(shape=(N, N), dtype=np.float32):
    g = StatementIR("softmax")
    x = g.add_input(TensorMeta(shape, dtype))
    m = g.add_op(M("max"), (x, -1), {"keepdims": True})
    e = g.add_op(F(np.exp), (g.add_op(O("sub"), (x, m)),))
    s = g.add_op(M("sum"), (e,), {"axis": -1, "keepdims": True})
    g.set_outputs([g.add_op(O("truediv"), (e, s))])
    return g


def _eager_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_generated_source_takes_a_set_of_buffers_and_gives_it_back():
    compiled = compile_numpy(_softmax_graph())
    assert compiled.source == (
        "def softmax(i0):\n"
        "    bufs = pool.acquire()\n"
        "    try:\n"
        "        (b0,) = bufs\n"
        "        t0 = i0.max(-1, keepdims=True)\n"
        "        t1 = np.subtract(i0, t0, out=b0) if c_ordered(i0) and c_ordered(t0) "
        "else i0 - t0\n"
        "        del t0\n"
        "        t2 = np.exp(t1, out=t1) if c_ordered(t1) else np.exp(t1)\n"
        "        del t1\n"
        "        t3 = t2.sum(axis=-1, keepdims=True)\n"
        "        t4 = t2 / t3\n"
        "        del t2, t3\n"
        "        return (t4,)\n"
        "    finally:\n"
        "        pool.release(bufs)\n"
    )
    assert compiled.buffers.nbytes == N * N * 4


def test_repeated_calls_reuse_one_set_of_buffers():
    compiled = compile_numpy(_softmax_graph())
    pool = compiled.buffers
    assert (pool.made, pool.reused, pool.idle) == (0, 0, 0)
    for _ in range(5):
        x = data()
        assert_identical(compiled(x)[0], _eager_softmax(x))
    assert (pool.made, pool.reused, pool.idle) == (1, 4, 1)


def test_a_call_that_raises_gives_its_buffers_back():
    g = StatementIR("f")
    x = g.add_input(TensorMeta((N, N), np.float32))
    idx = g.add_input(TensorMeta((3,), np.intp))
    e = g.add_op(F(np.exp), (x,))
    g.set_outputs([g.add_op(M("sum"), (g.add_op(O("getitem"), (e, idx)),))])
    compiled = compile_numpy(g)
    with pytest.raises(IndexError):
        compiled(data(), np.array([0, N, 1]))
    assert (compiled.buffers.made, compiled.buffers.idle) == (1, 1)
    value = data()
    assert_identical(compiled(value, np.array([0, 5, 1]))[0], np.exp(value)[[0, 5, 1]].sum())
    assert (compiled.buffers.made, compiled.buffers.reused) == (1, 1)


def _track_sets(pool):
    """Wrap ``pool`` so that handing out a set already in use is recorded."""
    in_use, reused_while_in_use, lock = set(), [], threading.Lock()
    acquire, release = pool.acquire, pool.release

    def tracked_acquire():
        bufs = acquire()
        with lock:
            if id(bufs) in in_use:
                reused_while_in_use.append(bufs)
            in_use.add(id(bufs))
        return bufs

    def tracked_release(bufs):
        with lock:
            in_use.discard(id(bufs))
        release(bufs)

    pool.acquire, pool.release = tracked_acquire, tracked_release
    return reused_while_in_use


def test_threads_calling_one_graph_never_share_buffers():
    compiled = compile_numpy(_softmax_graph())
    shared = _track_sets(compiled.buffers)
    inputs = [[data() for _ in range(3)] for _ in range(4)]
    expected = [[_eager_softmax(x) for x in xs] for xs in inputs]
    barrier = threading.Barrier(4)
    failures = []

    def work(k):
        barrier.wait()
        for _ in range(15):
            for x, want in zip(inputs[k], expected[k]):
                got = compiled(x)[0]
                if got.tobytes() != want.tobytes():
                    failures.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and shared == []
    pool = compiled.buffers
    assert pool.made + pool.reused == 4 * 15 * 3
    assert 1 <= pool.made and pool.idle <= numpy_buffers.MAX_IDLE_SETS


def test_a_re_entrant_call_in_the_middle_of_a_graph_gets_its_own_buffers():
    compiled = compile_numpy(_softmax_graph())
    compiled(data())  # one set waits in the free list
    shared = _track_sets(compiled.buffers)
    outer_x, inner_x = data(), data()
    inner = []
    line = next(k for k, text in enumerate(compiled.source.splitlines(), 1) if "np.exp(" in text)

    def local(frame, event, arg):
        if event == "line" and frame.f_lineno == line and not inner:
            inner.append(compiled(inner_x)[0])  # after t1 was written into the outer call's buffer
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename.startswith("<sot numpy graph") else None

    sys.settrace(tracer)
    try:
        (outer,) = compiled(outer_x)
    finally:
        sys.settrace(None)
    assert len(inner) == 1
    assert_identical(inner[0], _eager_softmax(inner_x))
    assert_identical(outer, _eager_softmax(outer_x))
    assert shared == []
    assert (compiled.buffers.made, compiled.buffers.reused, compiled.buffers.idle) == (2, 1, 2)


def test_idle_memory_is_bounded_and_freed_with_the_graph(monkeypatch):
    while gc.collect():  # graphs of earlier tests may be garbage behind garbage
        pass
    before = numpy_buffers.idle_bytes()
    compiled = compile_numpy(_softmax_graph())
    pool = compiled.buffers
    sets = [pool.acquire() for _ in range(numpy_buffers.MAX_IDLE_SETS + 2)]
    for bufs in sets:
        pool.release(bufs)
    assert pool.idle == numpy_buffers.MAX_IDLE_SETS
    assert numpy_buffers.idle_bytes() == before + numpy_buffers.MAX_IDLE_SETS * pool.nbytes
    del compiled, pool, sets
    gc.collect()
    assert numpy_buffers.idle_bytes() == before

    monkeypatch.setattr(numpy_buffers, "IDLE_LIMIT", numpy_buffers.idle_bytes())
    compiled = compile_numpy(_softmax_graph())
    for _ in range(3):
        x = data()
        assert_identical(compiled(x)[0], _eager_softmax(x))
    assert (compiled.buffers.made, compiled.buffers.reused, compiled.buffers.idle) == (3, 0, 0)


def test_buffers_are_shared_by_intermediates_whose_lifetimes_do_not_overlap():
    g = StatementIR("f")
    x = g.add_input(TensorMeta((N, N), np.float32))
    a = g.add_op(O("mul"), (x, 2.0))          # a lives until d
    b = g.add_op(F(np.exp), (x,))             # b dies at c
    c = g.add_op(M("sum"), (g.add_op(O("add"), (b, 1.0)),))
    d = g.add_op(O("add"), (a, g.add_op(O("gt"), (x, 0))))
    g.set_outputs([c, g.add_op(M("sum"), (d,))])
    plan = plan_buffers(g, min_bytes=N * N)  # the bool mask too
    writes = {graph_index: w.out for graph_index, w in plan.writes.items()}
    assert writes == {0: "b0", 1: "b1", 2: "t1", 4: "b2", 5: "t0"}
    assert plan.slots == [N * N * 4, N * N * 4]  # the bool mask reuses the buffer of b
    value = data()
    compiled = compile_numpy(g, min_buffer_bytes=N * N)
    for _ in range(2):
        got = compiled(value)
        assert_identical(got[0], (np.exp(value) + 1.0).sum())
        assert_identical(got[1], (value * 2.0 + (value > 0)).sum())


def test_no_write_over_an_operand_that_is_a_view_or_still_viewed():
    g = StatementIR("f")
    x = g.add_input(TensorMeta((N, N), np.float32))
    a = g.add_op(F(np.exp), (x,))
    view = g.add_op(O("getitem"), (a, slice(None, None, -1)))
    b = g.add_op(O("mul"), (a, 2.0))         # a dies here, but its view is read below
    c = g.add_op(O("add"), (view, b))        # view is not a buffered result itself
    g.set_outputs([g.add_op(M("sum"), (c,))])
    writes = {k: w.out for k, w in plan_buffers(g).writes.items()}
    assert writes[2] != "t0" and writes[3] not in ("t1", "t0")
    value = data()
    compiled = compile_numpy(g)
    for _ in range(2):
        assert_identical(compiled(value)[0], (np.exp(value)[::-1] + np.exp(value) * 2.0).sum())


@pytest.mark.parametrize("name", ["pool", "bufs", "b0"])
def test_graph_name_never_shadows_the_buffer_names(name):
    g = _softmax_graph()
    g.name = name
    x = data()
    assert_identical(compile_numpy(g)(x)[0], _eager_softmax(x))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # fork() of a process with threads
def test_a_forked_child_runs_graphs_even_if_another_thread_held_the_pool_lock():
    compiled = compile_numpy(_softmax_graph())
    x = data()
    expected = _eager_softmax(x)
    holding, done = threading.Event(), threading.Event()

    def hold():
        with numpy_buffers._LOCK:
            holding.set()
            done.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait()
    try:
        pid = os.fork()
        if pid == 0:  # the child: only this thread exists, the lock's owner does not
            ok = compiled(x)[0].tobytes() == expected.tobytes()
            os._exit(0 if ok else 1)
    finally:
        done.set()
        holder.join()
    deadline = time.monotonic() + 30
    while (status := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    if status[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the child hung on the buffer pool's lock")
    assert os.waitstatus_to_exitcode(status[1]) == 0


def test_reset_frees_graphs_and_their_buffers_without_the_cycle_collector():
    import weakref
    from sot.guards import cache
    static = sot.to_static(softmax)
    x = data()
    gc.collect()
    gc.disable()
    try:
        static(x)
        static(x)
        runner = cache.entries(softmax.__code__)[0].direct
        graph = weakref.ref(runner.__globals__["__graph"])
        del runner
        sot.reset()
        assert graph() is None
    finally:
        gc.enable()
