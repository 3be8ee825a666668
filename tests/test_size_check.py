"""The compiled size check of a symbolic graph (backends/size_check) against
the full re-inference (symbolic_shapes.check_sizes), over many sizes: where
the compiled check answers, the full check accepts with the same Python
numbers; where it does not (a size below its base, an equality that was not
there, a Python number that raises), the caller runs the full check.  The
functions include derived dims that reach 0 or 1 and Python numbers that
raise at one size."""
import os
import sys

import numpy as np
import pytest

import sot
import sot.runner
from sot.backends.size_check import compile_size_check
from sot.backends.symbolic_shapes import check_sizes
from sot.ir.meta import TensorMeta

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from benchmarks.gpt2 import GPT2, generate, generate_cached  # noqa: E402

RNG = np.random.default_rng(0)


@pytest.fixture
def graphs(monkeypatch):
    """The graphs compiled while the test runs, with what compile_graph made of them."""
    seen = []
    real = sot.runner.compile_graph

    def spy(graph, *args, **kwargs):
        compiled = real(graph, *args, **kwargs)
        seen.append((graph, compiled))
        return compiled
    monkeypatch.setattr(sot.runner, "compile_graph", spy)
    return seen


def symbolic_graph(graphs, fn, *args):
    """The graph of ``fn`` with axis 0 of each argument symbolic."""
    for a in args:
        sot.mark_dynamic(a, 0)
    sot.to_static(fn, dynamic=False)(*args)
    symbolic = [g for g, _ in graphs if g.is_symbolic]
    assert len(symbolic) == 1
    return symbolic[0]


def at(graph, sizes):
    """Inputs of ``graph`` with symbolic source k (in order) of size sizes[k]."""
    from sot.backends.size_check import _sources
    shapes = [list(s.meta.shape) for s in graph.inputs]
    for axes, n in zip(_sources(graph), sizes):
        for i, a in axes:
            shapes[i][a] = n
    return [np.zeros(s, sym.meta.dtype) for s, sym in zip(shapes, graph.inputs)]


def differential(graph, base, sizes_list):
    """Compile at ``base``, compare with check_sizes at every sizes; the sizes
    the compiled check answered."""
    check = compile_size_check(graph, [TensorMeta.of(v) for v in at(graph, base)])
    assert check is not None
    answered = []
    for sizes in sizes_list:
        inputs = at(graph, sizes)
        fast, full = check(inputs), check_sizes(graph, inputs)
        if fast is not None:
            assert full is not None, f"compiled check accepts {sizes}, check_sizes does not"
            assert fast == full and all(type(fast[k]) is type(full[k]) for k in full)
            answered.append(sizes)
    return answered


def shifted(x):
    return x[1:] * x[:-1] + x[-4:].sum()


def grown(x):
    return np.concatenate([x, x[2:]]) * 2 + x.shape[0]


def reshaped(x):
    return x.reshape(-1, 3) + 1


def zeros_minus_three(x):
    return np.zeros((x.shape[0] - 3, 2)) + x.sum()


def python_numbers(x):
    n = x.shape[0]
    return x * 2, x.size, x.nbytes, n * 2 - 1, n / 3, -n, n == 7, 1 / (n - 7)


def two_sources(x, y):
    return np.concatenate([x, y]).sum(0) + (x @ y.T).sum() + x.shape[0] * y.shape[0]


SINGLE = [(shifted, (6,)), (grown, (6,)), (reshaped, (6,)), (zeros_minus_three, (6,)), (python_numbers, (9,))]


@pytest.mark.parametrize("fn, tail", SINGLE, ids=[f.__name__ for f, _ in SINGLE])
@pytest.mark.parametrize("base", [2, 5, 9])
def test_single_source_agrees_with_full_check(graphs, fn, tail, base):
    graph = symbolic_graph(graphs, fn, RNG.standard_normal((5, *tail)).astype(np.float32))
    if check_sizes(graph, at(graph, (base,))) is None:
        assert compile_size_check(graph, [TensorMeta.of(v) for v in at(graph, (base,))]) is None
        return
    sizes = [(n,) for n in list(range(0, 80)) + [127, 128, 1000, 4097]]
    answered = differential(graph, (base,), sizes)
    # every size from the base on, but for coincidences with the graph's sizes
    # (0, 1, static dims) and Python numbers that raise there (1 / (n - 7))
    missed = [n for (n,) in sizes if n >= base and (n,) not in answered]
    assert len(missed) <= 12, missed
    assert all((n,) not in answered for n in range(base))


def test_two_sources_agree_with_full_check(graphs):
    x, y = RNG.standard_normal((5, 4)).astype(np.float32), RNG.standard_normal((7, 4)).astype(np.float32)
    graph = symbolic_graph(graphs, two_sources, x, y)
    sizes = [(a, b) for a in range(0, 24) for b in range(0, 24)] + [(300, 2), (2, 300), (5, 5), (64, 64)]
    answered = differential(graph, (3, 4), sizes)
    assert len(answered) > 300
    assert all(a >= 3 and b >= 4 for a, b in answered)
    assert (5, 5) not in answered       # x and y of equal size: an equality the base did not have


@pytest.mark.parametrize("fn", [lambda x: x[: x.shape[0] // 2] - 1, lambda x: np.zeros(x.shape[0] // 3) + x.sum(),
                                lambda x: x[:50] + 1])
def test_not_affine_is_not_compiled(graphs, fn):
    graph = symbolic_graph(graphs, fn, RNG.standard_normal((8, 3)).astype(np.float32))
    assert compile_size_check(graph, [TensorMeta.of(v) for v in at(graph, (8,))]) is None


def test_gpt2_forward_agrees_with_full_check(graphs):
    model = GPT2(layers=2, d=32, heads=4, vocab=50, ctx=128)
    graph = symbolic_graph(graphs, model.forward, np.arange(6))
    answered = differential(graph, (6,), [(n,) for n in range(0, 129)])
    assert len(answered) >= 110


@pytest.mark.parametrize("backend", ["onnxruntime", "auto"])
def test_decode_loop_checks_each_new_length_once_compiled(graphs, backend):
    pytest.importorskip("onnxruntime")
    model = GPT2(layers=2, d=32, heads=4, vocab=50, ctx=128)
    static = sot.to_static(model.forward, backend=backend)
    prompt = RNG.integers(0, 50, 10)
    want = generate(model.forward, prompt, 12)
    assert generate(static, prompt, 12) == want        # argmax: float32 noise does not flip a random model's picks
    assert sot.translation_count(static) == 2           # the prompt's length, then one symbolic entry
    symbolic = [c for g, c in graphs if g.is_symbolic]
    assert len(symbolic) == 1
    onnx = getattr(symbolic[0], "onnx", symbolic[0])    # auto holds the symbolic graph as .onnx
    report = onnx.size_check_report()
    assert report["compiled"] and report["full_checks"] == 1
    # every later length on onnxruntime was checked by the compiled check (auto
    # runs onnxruntime only on some calls: its trials, then if it wins)
    assert report["compiled_checks"] == 10 if backend == "onnxruntime" else report["compiled_checks"] >= 1


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_kv_cache_loop_runs_cached_graphs(graphs, backend):
    if backend != "numpy":
        pytest.importorskip("onnxruntime")
    model = GPT2(layers=2, d=32, heads=4, vocab=50, ctx=128)
    static = sot.to_static(model.forward_cached, backend=backend)
    prompt = RNG.integers(0, 50, 10)
    want = generate_cached(model.forward_cached, prompt, 12)
    counts = []

    def counting(ids, past):
        result = static(ids, past)
        counts.append(sot.translation_count(static))
        return result
    assert generate_cached(counting, prompt, 12) == want
    # the prompt (no cache), the first cached step, the step that makes the
    # cache's length symbolic (it replaces the previous entry); then none
    assert counts[2:] == [3] * 10
    from sot.guards import cache
    code = model.forward_cached.__func__.__code__
    assert cache.replaced_count(code) == 1 and len(cache.entries(code)) == 2
    assert len([g for g, _ in graphs if g.is_symbolic]) == 1
