"""Decorated functions through the real engines that pickle them into other
processes: a spawn multiprocessing.Pool, joblib's loky backend and a Dask
distributed cluster of worker processes; each result is compared with eager
NumPy. The workers import sot and scaleout_work through the sys.path they
inherit (spawn hands it over) and PYTHONPATH."""
import multiprocessing
import os

import numpy as np
import pytest

import sot
from difftest import assert_same
from ort_tolerance import assert_ort_close

import scaleout_work as work

CHUNKS = [np.linspace(-3, 3, 48).reshape(6, 8) + i for i in range(4)]


def test_spawn_pool_runs_the_decorated_function_in_its_workers():
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        by_reference = pool.map(work.decorated_gelu, CHUNKS)
        reports = pool.starmap(work.apply, [(work.gelu_on_ort, c) for c in CHUNKS])
    for chunk, got in zip(CHUNKS, by_reference):
        assert_same(work.gelu(chunk), got)   # NumPy backend: exact
    for chunk, (got, decorated, translations, options) in zip(CHUNKS, reports):
        assert_ort_close(got, work.gelu(chunk))
        assert got.dtype == np.float64 and decorated and translations == 1
        assert options == work.gelu_on_ort.__sot_options__


def test_joblib_loky_runs_decorated_functions_methods_and_objects():
    joblib = pytest.importorskip("joblib")
    obj = work.Scale(2.0)
    static_obj = sot.to_static(work.Scale(2.0), min_graph_size=1)
    with joblib.parallel_config(backend="loky", n_jobs=2):
        results = joblib.Parallel()(
            joblib.delayed(f)(c) for c in CHUNKS for f in (work.decorated_gelu, obj.method, static_obj))
        reports = joblib.Parallel()(joblib.delayed(work.apply)(static_obj, c) for c in CHUNKS)
    undecorated_method = work.Scale.method.__wrapped__
    expected = [e(c) for c in CHUNKS for e in (work.gelu, lambda c: undecorated_method(obj, c), work.Scale(2.0))]
    for e, got in zip(expected, results):
        assert_same(e, got)
    assert all(decorated for _result, decorated, _n, _options in reports)


@pytest.fixture(scope="module")
def dask_client():
    """One two-process cluster for the module (starting one costs seconds)."""
    pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


def test_dask_map_blocks_with_a_decorated_function(dask_client):
    import dask.array as da
    x = np.linspace(-4, 4, 64 * 32).reshape(64, 32)
    got = da.from_array(x, chunks=(16, 32)).map_blocks(work.decorated_gelu, dtype=x.dtype).compute()
    assert_same(work.gelu(x), got)


def test_dask_map_blocks_with_a_local_function_on_onnxruntime_shares_the_cache_dir(dask_client, tmp_path):
    import dask.array as da
    scale = np.float32(1.5)

    @sot.to_static(backend="onnxruntime", min_graph_size=1, cache_dir=str(tmp_path))
    def local(block):   # pickled by value (cloudpickle)
        return np.tanh(block @ block.T) * scale + 1

    x = np.linspace(-1, 1, 64 * 16, dtype=np.float32).reshape(64, 16)
    got = da.from_array(x, chunks=(16, 16)).map_blocks(local, chunks=(16, 16), dtype=np.float32).compute()
    want = np.concatenate([np.tanh(b @ b.T) * scale + 1 for b in np.split(x, 4)])
    assert_ort_close(got, want)
    # one graph, one shape: the workers share one entry
    assert [p for p in os.listdir(tmp_path) if p.endswith(".sotort")]


def test_dask_worker_receives_a_decorated_function_and_translates_it_once(dask_client):
    futures = [dask_client.submit(work.apply, work.gelu_on_ort, c, pure=False) for c in CHUNKS]
    for chunk, (got, decorated, translations, options) in zip(CHUNKS, dask_client.gather(futures)):
        assert_ort_close(got, work.gelu(chunk))
        assert decorated and translations == 1 and options == work.gelu_on_ort.__sot_options__
