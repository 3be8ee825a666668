"""A decorated function pickles as the undecorated one would and arrives
decorated with the same options (sot/_pickling.py)."""
import json
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sot
from difftest import assert_same, check, python_env

import scaleout_work as work

X = np.linspace(-3, 3, 24).reshape(4, 6)


def roundtrip(obj, dumps=pickle.dumps, loads=pickle.loads):
    return loads(dumps(obj))


def test_module_level_decorated_function_pickles_by_reference():
    data = pickle.dumps(work.decorated_gelu)
    assert b"scaleout_work" in data and b"decorated_gelu" in data and b"redecorate" not in data
    assert pickle.loads(data) is work.decorated_gelu


def test_decorated_module_function_arrives_decorated_with_its_options():
    back = roundtrip(work.gelu_on_ort)
    assert back is not work.gelu_on_ort
    assert back.__sot_fn__ is work.gelu   # the function itself went by reference
    assert back.__sot_options__ == work.gelu_on_ort.__sot_options__
    assert back.__sot_options__["backend"] == "onnxruntime"
    assert back.__sot_static__.options.backend == "onnxruntime"
    back(X)
    assert sot.translation_count(back) == 1   # it translates where it arrives


def test_unpickled_function_behaves_like_the_undecorated_one():
    check(work.gelu, (X,), (X.astype(np.float32),), static=roundtrip(sot.to_static(work.gelu)))


def test_decorated_method_pickles_by_reference_and_bound_with_its_instance():
    assert roundtrip(work.Scale.method) is work.Scale.method
    obj = work.Scale(2.5)
    bound = roundtrip(obj.method)
    assert bound.__func__ is work.Scale.method and bound.__self__.factor == 2.5
    assert_same(obj.method(X), bound(X))


def test_decorated_callable_object_is_decorated_again_with_a_copy_of_it():
    static = sot.to_static(work.Scale(1.5), min_graph_size=1, freeze=True)
    back = roundtrip(static)
    assert isinstance(back.__sot_fn__, work.Scale) and back.__sot_fn__.factor == 1.5
    assert back.__sot_options__ == static.__sot_options__ and back.__sot_options__["freeze"] is True
    assert_same(work.Scale(1.5)(X), back(X))


def test_to_static_of_a_bound_method_is_decorated_again():
    static = sot.to_static(work.Scale(3.0).__call__)
    back = roundtrip(static)
    assert back.__sot_fn__.__self__.factor == 3.0
    assert_same(work.Scale(3.0)(X), back(X))


def test_every_option_travels():
    static = sot.to_static(work.gelu, backend="numpy", full_graph=True, cache_size=3, min_graph_size=4,
                           dynamic=False, freeze=True, cache_dir="/some/dir")
    back = roundtrip(static)
    assert back.__sot_options__ == dict(backend="numpy", device="cpu", full_graph=True, cache_size=3,
                                        min_graph_size=4, dynamic=False, freeze=True, cache_dir="/some/dir")
    o = back.__sot_static__.options
    assert (o.full_graph, o.cache_size, o.min_graph_size, o.dynamic, o.freeze, o.cache_dir) == \
        (True, 3, 4, False, True, "/some/dir")


def test_local_function_fails_under_pickle_as_the_undecorated_one_does():
    def local(x):
        return x + 1
    with pytest.raises(Exception) as plain:
        pickle.dumps(local)
    with pytest.raises(type(plain.value)):
        pickle.dumps(sot.to_static(local))


def test_local_function_pickles_by_value_under_cloudpickle():
    cloudpickle = pytest.importorskip("cloudpickle")
    k = np.float64(0.5)

    @sot.to_static(min_graph_size=1)
    def local(x):
        return np.tanh(x) * k

    back = roundtrip(local, cloudpickle.dumps, cloudpickle.loads)
    assert back is not local and back.__sot_options__["min_graph_size"] == 1
    assert_same(np.tanh(X) * k, back(X))


def test_a_static_function_not_made_by_to_static_refuses_to_pickle():
    from sot import _hook
    with pytest.raises(TypeError, match="not made by sot.to_static"):
        pickle.dumps(_hook.StaticFunction(work.gelu, lambda frame: None))


def test_pickling_keeps_reference_counts():
    static = sot.to_static(work.gelu)
    before = (sys.getrefcount(static), sys.getrefcount(work.gelu))
    for _ in range(200):
        static.__reduce__()
        pickle.dumps(work.decorated_gelu)
        pickle.dumps(static)
    assert (sys.getrefcount(static), sys.getrefcount(work.gelu)) == before


MAIN_SCRIPT = textwrap.dedent("""
    import pickle, sys
    import numpy as np
    import sot

    @sot.to_static(min_graph_size=1)
    def f(x):
        return np.tanh(x) * 3

    import cloudpickle
    by_ref, by_value = pickle.dumps(f), cloudpickle.dumps(f)
    assert pickle.loads(by_ref) is f   # a spawned child's __main__ resolves it
    open(sys.argv[1], "wb").write(by_value)
    print(len(by_ref), len(by_value))
""")


def test_function_of_main_goes_by_reference_under_pickle_and_by_value_under_cloudpickle(tmp_path):
    pytest.importorskip("cloudpickle")
    payload = tmp_path / "f.pkl"
    out = subprocess.run([sys.executable, "-c", MAIN_SCRIPT, str(payload)], capture_output=True, text=True,
                         env=python_env(), check=True, cwd=tmp_path).stdout.split()
    assert int(out[0]) < int(out[1])
    # another process, whose __main__ has no f, calls it decorated
    load = ("import pickle, sys, json, numpy as np\n"
            "f = pickle.load(open(sys.argv[1], 'rb'))\n"
            "print(json.dumps([type(f).__name__, f(np.arange(3.0)).tolist()]))")
    res = subprocess.run([sys.executable, "-c", load, str(payload)], capture_output=True, text=True,
                         env=python_env(), check=True, cwd=tmp_path).stdout
    name, values = json.loads(res)
    assert name == "StaticFunction" and values == (np.tanh(np.arange(3.0)) * 3).tolist()
