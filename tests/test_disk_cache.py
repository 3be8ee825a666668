"""onnxruntime's optimised models on disk (sot/backends/disk_cache.py):
off by default, shared by processes, never trusted when not intact."""
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import sot
from difftest import python_env
from sot.backends import disk_cache

pytest.importorskip("onnxruntime")

X = np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8)
W = np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8).copy()   # owns its data: freeze holds it


def mlp(x, w):
    h = np.maximum(x @ w + 1, 0)
    return np.tanh(h @ w) * 2


def layer(x):
    return np.maximum(x @ W + 0.5, 0)


def entries(directory):
    return sorted(p for p in os.listdir(directory) if p.endswith(disk_cache.SUFFIX))


def cached(fn, directory, **kw):
    return sot.to_static(fn, backend="onnxruntime", min_graph_size=1, cache_dir=str(directory), **kw)


@pytest.fixture(autouse=True)
def _no_env_cache(monkeypatch):
    monkeypatch.delenv("SOT_CACHE_DIR", raising=False)
    monkeypatch.delenv("SOT_CACHE_MAX_BYTES", raising=False)


def test_off_by_default(tmp_path):
    monkey_dir = tmp_path / "unused"
    report = sot.explain(sot.to_static(mlp, backend="onnxruntime", min_graph_size=1), X, W)
    assert report.disk_cache["misses"] == report.disk_cache["hits"] == 0
    assert not monkey_dir.exists()


def test_second_translation_loads_the_optimised_model_and_agrees(tmp_path):
    first = sot.explain(cached(mlp, tmp_path), X, W)
    assert (first.disk_cache["misses"], first.disk_cache["writes"], first.disk_cache["hits"]) == (1, 1, 0)
    assert first.disk_cache["optimise_seconds"] > 0
    assert len(entries(tmp_path)) == 1
    assert "1 miss(es)" in str(first)
    second = sot.explain(cached(mlp, tmp_path), X, W)   # explain translates afresh
    assert (second.disk_cache["hits"], second.disk_cache["misses"]) == (1, 0)
    assert second.disk_cache["optimise_seconds"] == 0 and second.disk_cache["load_seconds"] > 0
    assert "1 hit(s)" in str(second)
    # the same graph on the same machine: the same kernels, the same bytes
    np.testing.assert_array_equal(first.result, second.result)
    np.testing.assert_allclose(second.result, mlp(X, W), rtol=1e-5, atol=1e-6)
    assert second.result.dtype == mlp(X, W).dtype


def test_env_names_the_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("SOT_CACHE_DIR", str(tmp_path))
    sot.to_static(mlp, backend="onnxruntime", min_graph_size=1)(X, W)
    assert len(entries(tmp_path)) == 1


def test_a_different_graph_is_a_different_entry(tmp_path):
    cached(mlp, tmp_path)(X, W)
    cached(mlp, tmp_path)(X[:4], W)   # another shape: another model
    assert len(entries(tmp_path)) == 2


@pytest.mark.parametrize("damage", ["payload", "header", "truncated"])
def test_a_damaged_entry_is_ignored_and_rewritten(tmp_path, damage):
    cached(mlp, tmp_path)(X, W)
    [name] = entries(tmp_path)
    path = tmp_path / name
    blob = path.read_bytes()
    if damage == "payload":
        blob = blob[:-10] + bytes(b ^ 0xFF for b in blob[-10:])
    elif damage == "header":   # another format version
        blob = blob.replace(b"sot-ort-cache 1", b"sot-ort-cache 0", 1)
    else:
        blob = blob[: len(blob) // 2]
    path.write_bytes(blob)
    sot.reset()
    report = sot.explain(cached(mlp, tmp_path), X, W)
    assert (report.disk_cache["rejected"], report.disk_cache["misses"], report.disk_cache["writes"]) == (1, 1, 1)
    np.testing.assert_allclose(report.result, mlp(X, W), rtol=1e-5, atol=1e-6)
    sot.reset()
    again = sot.explain(cached(mlp, tmp_path), X, W)
    assert (again.disk_cache["hits"], again.disk_cache["rejected"]) == (1, 0)


def test_an_intact_entry_onnxruntime_refuses_is_not_trusted(tmp_path):
    cached(mlp, tmp_path)(X, W)
    [name] = entries(tmp_path)
    disk_cache._write(str(tmp_path / name), name[:-len(disk_cache.SUFFIX)], b"not a model")
    sot.reset()
    report = sot.explain(cached(mlp, tmp_path), X, W)
    assert (report.disk_cache["rejected"], report.disk_cache["misses"], report.disk_cache["writes"]) == (1, 1, 1)
    np.testing.assert_allclose(report.result, mlp(X, W), rtol=1e-5, atol=1e-6)


def test_an_unusable_directory_only_costs_the_cache(tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    report = sot.explain(cached(mlp, not_a_dir), X, W)
    assert report.disk_cache["writes"] == 0
    np.testing.assert_allclose(report.result, mlp(X, W), rtol=1e-5, atol=1e-6)


def test_frozen_weights_are_never_written(tmp_path):
    report = sot.explain(cached(layer, tmp_path, freeze=True), X)
    assert report.entries[0].frozen == ["W"]
    assert report.disk_cache["bypassed"] == 1 and report.disk_cache["writes"] == 0
    assert entries(tmp_path) == []
    np.testing.assert_allclose(report.result, layer(X), rtol=1e-5, atol=1e-6)


def test_the_directory_is_bounded(tmp_path, monkeypatch):
    cached(mlp, tmp_path)(X, W)
    [old] = entries(tmp_path)
    os.utime(tmp_path / old, (1, 1))   # least recently used
    monkeypatch.setenv("SOT_CACHE_MAX_BYTES", str(int(os.path.getsize(tmp_path / old) * 1.5)))
    cached(mlp, tmp_path)(X[:4], W)
    assert len(entries(tmp_path)) == 1 and old not in entries(tmp_path)


def test_concurrent_writers_leave_one_complete_entry(tmp_path):
    key = "k" * 64
    path = str(tmp_path / (key + disk_cache.SUFFIX))
    payloads = [bytes([i]) * (1 << 16) for i in range(4)]

    def write(p):
        for _ in range(25):
            disk_cache._write(path, key, p)
            assert disk_cache._read(path, key) in payloads   # never half of one
    threads = [threading.Thread(target=write, args=(p,)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert disk_cache._read(path, key) in payloads
    assert os.listdir(tmp_path) == [key + disk_cache.SUFFIX]   # no temporary file left


def test_key_follows_the_library_versions(monkeypatch):
    import onnx
    model = onnx.helper.make_model(onnx.helper.make_graph([], "g", [], []))
    import onnxruntime as ort
    options = ort.SessionOptions()
    key = disk_cache.entry_key(model, options, ["CPUExecutionProvider"])
    env = disk_cache._environment()
    monkeypatch.setattr(disk_cache, "_environment", lambda: (*env[:3], "0.0.0", *env[4:]))
    assert disk_cache.entry_key(model, options, ["CPUExecutionProvider"]) != key


WORKER = textwrap.dedent("""
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    import sot
    from workloads import MLP
    f = sot.to_static(MLP(layers=6, width=64), backend="onnxruntime", cache_dir=sys.argv[1])
    report = sot.explain(f, np.ones((2, 64), np.float32))
    print(json.dumps(report.to_dict()["disk_cache"]))
""")


def test_a_second_process_with_a_warm_directory_skips_optimisation(tmp_path):
    benchmarks = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")

    def run():
        out = subprocess.run([sys.executable, "-c", WORKER, str(tmp_path / "cache"), benchmarks],
                             capture_output=True, text=True, env=python_env(), check=True).stdout
        return json.loads(out.splitlines()[-1])
    cold, warm = run(), run()
    assert cold["misses"] >= 1 and cold["writes"] == cold["misses"] and cold["hits"] == 0
    assert cold["optimise_seconds"] > 0
    assert warm["hits"] == cold["misses"] and warm["misses"] == 0
    assert warm["optimise_seconds"] == 0 and warm["load_seconds"] > 0
