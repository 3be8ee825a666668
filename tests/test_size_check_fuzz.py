"""The compiled size check against check_sizes on the symbolic graphs of
random programs (tests/fuzzgen.py, traced with dynamic=True): wherever the
compiled check answers, check_sizes accepts, with the same Python numbers."""
import copy
import itertools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import fuzzgen
import sot
import sot.runner
from sot.backends.size_check import _sources, compile_size_check
from sot.backends.symbolic_shapes import check_sizes
from sot.ir.meta import TensorMeta


def _graphs(prog):
    seen = []
    real = sot.runner.compile_graph

    def spy(graph, *args, **kwargs):
        seen.append(graph)
        return real(graph, *args, **kwargs)
    sot.runner.compile_graph = spy
    try:
        ns, _ = fuzzgen.load(prog.source, "sizes")
        static = sot.to_static(ns["f"], dynamic=True)
        with warnings.catch_warnings(), fuzzgen.time_limit(30):
            warnings.simplefilter("ignore")
            for args in prog.arg_sets:
                try:
                    static(*copy.deepcopy(args))
                except Exception:  # noqa: BLE001 - the program may raise; its graphs still count
                    pass
    finally:
        sot.runner.compile_graph = real
    # graphs with Python-number inputs run on NumPy (no size check to compile)
    return [g for g in seen if g.is_symbolic and not any(s.meta.is_python for s in g.inputs)]


def _at(graph, sources, sizes):
    shapes = [list(s.meta.shape) for s in graph.inputs]
    for axes, n in zip(sources, sizes):
        for i, a in axes:
            shapes[i][a] = n
    return [np.ones(s, sym.meta.dtype) if not sym.meta.is_scalar else sym.meta.dtype.type(1)
            for s, sym in zip(shapes, graph.inputs)]


@settings(max_examples=40, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(fuzzgen.programs())
def test_compiled_check_never_accepts_what_the_full_check_rejects(prog):
    for graph in _graphs(prog):
        sources = _sources(graph)
        traced = [graph.inputs[axes[0][0]].meta.shape[axes[0][1]] for axes in sources]
        inputs = _at(graph, sources, traced)
        if check_sizes(graph, inputs) is None:
            continue
        base = [TensorMeta.of(v) for v in inputs]
        check = compile_size_check(graph, base)
        if check is None:
            continue
        grid = range(0, 12) if len(sources) == 1 else range(0, 7)
        for sizes in itertools.islice(itertools.product(grid, repeat=len(sources)), 400):
            inputs = _at(graph, sources, sizes)
            fast = check(inputs)
            if fast is not None:
                full = check_sizes(graph, inputs)
                assert full is not None, f"{sizes}: compiled check accepts, check_sizes does not\n{graph}"
                assert fast == full
    sot.reset()
