"""Guards and the per-code cache: hits, recompiles, and the size limit."""
import logging

import numpy as np
import pytest

import sot
from difftest import check

SCALE = 2.0


def scaled(x):
    return x * SCALE


def test_second_call_with_same_shapes_hits_the_cache():
    static = sot.to_static(lambda x: np.tanh(x) + 1)
    x = np.ones((3, 4), np.float32)
    static(x)
    static(x.copy())
    assert sot.translation_count(static) == 1


def test_new_shape_or_dtype_translates_again():
    static = check(lambda x: x * 2 + 1, (np.ones((3, 4), np.float32),), (np.ones((5, 4), np.float32),),
                   (np.ones((3, 4), np.float64),))
    assert sot.translation_count(static) == 3


def test_changed_global_scalar_is_seen_on_next_call():
    global SCALE
    static = sot.to_static(scaled)
    x = np.ones(3)
    np.testing.assert_array_equal(static(x), x * 2.0)
    SCALE = 5.0
    try:
        np.testing.assert_array_equal(static(x), x * 5.0)
    finally:
        SCALE = 2.0
    assert sot.translation_count(static) == 2


def test_changed_closure_cell_is_seen():
    k = 1.0

    def f(x):
        return x + k
    static = sot.to_static(f)
    x = np.zeros(2)
    np.testing.assert_array_equal(static(x), x + 1.0)
    k = 4.0  # noqa: F841  (rebinds the cell f reads)
    np.testing.assert_array_equal(static(x), x + 4.0)


def test_global_array_is_an_input_not_a_constant():
    global W
    W = np.ones(3)

    def f(x):
        return x + W
    static = sot.to_static(f)
    x = np.zeros(3)
    static(x)
    W[:] = 7.0
    np.testing.assert_array_equal(static(x), np.full(3, 7.0))
    W = np.full(3, -1.0)
    np.testing.assert_array_equal(static(x), np.full(3, -1.0))
    assert sot.translation_count(static) == 1


def test_int_float_and_bool_arguments_are_distinguished():
    static = check(lambda x, s: x * s, (np.ones(2, np.float32), 1), (np.ones(2, np.float32), 1.0),
                   (np.ones(2, np.float32), True))
    assert sot.translation_count(static) == 3


def test_cache_limit_holds_and_overflow_is_logged(caplog):
    # dynamic=False: each size is its own entry (automatic dynamic shapes
    # would serve every size >= 2 from one entry)
    static = sot.to_static(lambda x: x + 1, cache_size=3, dynamic=False)
    sot.set_verbosity(1)
    try:
        with caplog.at_level(logging.INFO, logger="sot.cache"):
            for n in range(1, 8):
                np.testing.assert_array_equal(static(np.ones(n)), np.ones(n) + 1)
    finally:
        sot.set_verbosity(0)
    assert sot.translation_count(static) == 4  # 3 entries + the one that overflowed
    assert "cache limit of 3 entries reached" in caplog.text
    for n in range(1, 8):  # still correct, cached entries still used
        np.testing.assert_array_equal(static(np.ones(n)), np.ones(n) + 1)
    assert sot.translation_count(static) == 4


def test_failed_translation_is_remembered_for_its_guards():
    def f(x):
        print("hi")
        return x
    static = sot.to_static(f)
    x = np.ones(2)
    static(x)
    first = sot.translation_count(static)
    static(x)
    assert sot.translation_count(static) == first


def test_reset_drops_translations():
    static = sot.to_static(lambda x: x - 1)
    static(np.ones(2))
    sot.reset()
    static(np.ones(2))
    assert sot.translation_count(static) == 1


def test_invalid_options_are_rejected():
    with pytest.raises(ValueError):
        sot.to_static(lambda x: x, backend="tpu")
    with pytest.raises(ValueError):
        sot.to_static(lambda x: x, cache_size=0)


def test_logs_are_silent_by_default_and_shown_with_verbosity(capsys):
    def f(x):
        print("side")
        return x
    sot.to_static(f, cache_size=1)(np.ones(1))
    sot.to_static(f, cache_size=1)(np.ones(2))
    assert "cache limit" not in capsys.readouterr().err
    sot.set_verbosity(1)
    try:
        sot.reset()
        sot.to_static(f)(np.ones(1))
        err = capsys.readouterr().err
        assert "print() writes output" in err and 'print("side")' in err
    finally:
        sot.set_verbosity(0)


def test_translated_calls_leave_reference_counts_unchanged():
    import sys
    static = sot.to_static(lambda x, w: (x @ w, x))
    x, w = np.ones((2, 3)), np.ones((3, 2))
    static(x, w)
    before = sys.getrefcount(x), sys.getrefcount(w)
    for _ in range(100):
        out = static(x, w)
    del out
    assert (sys.getrefcount(x), sys.getrefcount(w)) == before


def test_recompilation_log_names_the_input_and_the_change(caplog):
    static = sot.to_static(lambda x, scale: x * scale)
    sot.set_verbosity(2)
    try:
        with caplog.at_level(logging.INFO, logger="sot"):
            static(np.ones(8), 2.0)
            static(np.ones(16), 2.0)
            static(np.ones(16), 3.0)
    finally:
        sot.set_verbosity(0)
    assert "x.shape changed from (8,) to (16,)" in caplog.text
    assert "scale changed from 2.0 to 3.0" in caplog.text
    report_entries = sot.explain(static, np.ones(4), 1.0).entries
    assert report_entries[0].recompile_reason is None


def test_code_level_prints_graph_source_and_bytecode(capsys):
    sot.set_code_level(2)
    try:
        sot.to_static(lambda x: np.tanh(x) * 2)(np.ones(3))
    finally:
        sot.set_code_level(0)
    err = capsys.readouterr().err
    assert "np.tanh" in err and "--- replacement bytecode" in err and "RETURN_VALUE" in err


def test_strict_mode_raises_on_fallback(monkeypatch):
    monkeypatch.setenv("SOT_STRICT", "1")

    def f(x):
        sot.psdb.fallback()
        return x
    with pytest.raises(sot.GraphBreakError):
        sot.to_static(f)(np.ones(2))


def test_disable_runs_everything_natively(monkeypatch):
    monkeypatch.setenv("SOT_DISABLE", "1")
    static = sot.to_static(lambda x: x + 1)
    static(np.ones(2))
    assert sot.translation_count(static) == 0


def test_gpu_device_without_cuda_is_a_clear_error():
    import onnxruntime
    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        pytest.skip("a CUDA provider is present")
    with pytest.raises(RuntimeError, match="onnxruntime-gpu"):
        sot.to_static(lambda x: x, backend="onnxruntime", device="gpu")
    with pytest.raises(ValueError, match="backend"):
        sot.to_static(lambda x: x, device="gpu")


def _helper_without_arrays(a):
    return a + 1


def test_code_without_array_ops_is_skipped_after_a_few_translations():
    import sot._hook as hook

    def f(x, n):
        total = 0
        for i in range(n):
            total = _helper_without_arrays(total)
        print("loop done")
        return x * total
    check(f, (np.ones(2), 1500), static=sot.to_static(f, min_graph_size=0))
    assert hook.is_skipped(_helper_without_arrays.__code__)
    sot.reset()
    assert not hook.is_skipped(_helper_without_arrays.__code__)


def _add_three(a):
    return a + 3


def _loop_over_limit(x):
    total = 0
    for _ in range(3000):  # past the unroll limit: the loop runs natively after a break
        total = _add_three(total) % 7
    return x * total


def test_loop_resumed_after_a_break_does_not_retranslate_per_call():
    # the resume function receives a fresh range iterator on every call: it is
    # guarded by type, not identity
    static = check(_loop_over_limit, (np.ones(3),), calls=2)
    settled = sot.translation_count(static)
    for _ in range(5):
        check(_loop_over_limit, (np.ones(3),), calls=1, static=static)
    assert sot.translation_count(static) == settled
