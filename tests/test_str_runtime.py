"""A str that changes on every call and is used (sot/executor/str_runtime.py),
and reads of a dict from outside with such a str as the key
(sot/executor/dict_runtime_reads.py): computed when the call runs, guarded
by type, so a new string does not retranslate; every call behaves as eager
(results, types, arguments after the call, stdout, exceptions). Where a
branch, a dtype, an axis or a shape needs the value, the str is
value-guarded as before, and the answers are still eager's.
"""
from __future__ import annotations

import numpy as np
import pytest

import sot

from difftest import check

X = np.linspace(-1.0, 1.0, 6)
NAMES = ["  Run%d " % (i * 37) for i in range(10)]


def calls(fn, arg_sets, static=None):
    """Each argument set once, eager against decorated; the decorated fn."""
    static = static or sot.to_static(fn)
    for args in arg_sets:
        check(fn, args, calls=1, static=static)
    return static


# -- str operations replayed when the call runs ------------------------------------------

def methods(x, name):
    a = name.strip().lower()
    return x * 2.0, a, name.replace("Run", "r").upper(), a.removeprefix("run"), name.center(12, "*")


def fstrings(x, name):
    a = name.strip()
    s = f"{a}/{name!r}:{name:>12}|{a!a}" + "_x"
    s += a
    return x + 1.0, s, "<" + a, f"{a}"


def templates(x, name):
    a = name.strip()
    return (x * 2.0, "{}/{!r}:{:>9}".format(a, name, a), "{n}_{k:.2f}".format(n=a, k=0.5), "%s.w" % a,
            "[%-8s]" % name)


def joins(x, name):
    a = name.strip()
    return x * 2.0, "-".join([a, "k", name]), a.join(("p", "q")), ", ".join((a,))


def lengths(x, name):
    return x * len(name), len(name.strip()) + 1


def stores(x, name, hist, log):
    hist["last"] = name.lower()
    log.append(f"step {name.strip()}")
    return x - 1.0


@pytest.mark.parametrize("fn", [methods, fstrings, templates, joins, lengths])
def test_str_operations_do_not_retranslate_for_a_new_string(fn):
    static = calls(fn, [(X, n) for n in NAMES])
    assert sot.translation_count(static) <= 2   # one with the value, one by type


def test_strs_computed_at_run_time_are_stored_into_objects_from_outside():
    hist, log = {}, []
    static = calls(stores, [(X, n, hist, log) for n in NAMES])
    assert sot.translation_count(static) <= 2


def test_a_str_from_a_closure_combined_with_an_argument():
    prefix = "model"

    def f(x, name):
        return x + 1.0, prefix + "." + name.lower(), f"{prefix}/{name}"
    static = calls(f, [(X, n) for n in NAMES])
    assert sot.translation_count(static) <= 2


def test_second_call_with_the_same_string_hits_the_cache():
    static = calls(methods, [(X, NAMES[0]), (X, NAMES[1])])
    n = sot.translation_count(static)
    calls(methods, [(X, NAMES[1]), (X, NAMES[5])], static)
    assert sot.translation_count(static) == n


def test_a_changed_type_retranslates_and_is_eager():
    def f(x, name):
        return x * 2.0, name + name, f"<{name}>"
    static = calls(f, [(X, n) for n in NAMES[:3]] + [(X, 3), (X, 4.5)])
    assert sot.translation_count(static) >= 3


class Loud(str):
    def lower(self):
        return "LOUD"

    def __add__(self, other):
        return "added"


def test_a_str_subclass_is_not_taken_for_a_str():
    def f(x, name):
        return x * 2.0, name.lower(), name + "!", f"{name}", len(name)
    static = calls(f, [(X, n) for n in NAMES[:3]] + [(X, Loud("a")), (X, Loud("bb")), (X, NAMES[4])])
    assert static is not None


# -- uses that need the value: value-guarded as before ------------------------------------

def branch(x, name):
    if name.lower().strip() == "run37":
        return x * 2.0
    return x - 1.0


def contains(x, name):
    return x * (3.0 if "7" in name else 1.0), name.strip().startswith("Run1")


def indexed_template(x, name):
    return x * 2.0, "{0[1]}".format(name.strip()), "%c" % name.strip()


def dtype_name(x, name):
    return np.zeros(3, dtype=name.strip().lower())


def axis_from_len(x, name):
    return np.ones((2, 3, 4)).sum(axis=len(name) - 3)


def shape_from_len(x, name):
    return np.ones(len(name.strip())) + 1.0


class Holder:
    run37 = 1.5
    run74 = 2.5
    run0 = 0.5


def attribute_named(x, name, obj):
    return x * getattr(obj, name.strip().lower())


@pytest.mark.parametrize("fn", [branch, contains])
def test_a_branch_on_the_string_is_eager(fn):
    calls(fn, [(X, n) for n in NAMES] + [(X, NAMES[1])])


def test_formatting_whose_errors_depend_on_the_value_is_eager():
    calls(indexed_template, [(X, n) for n in ["ab", "cd", " x ", "e", "fg"]])


def test_a_str_naming_a_dtype_is_eager():
    calls(dtype_name, [(X, n) for n in ["float32 ", " Int8", "float64", "uint16", " bool"]])


def test_a_str_length_as_an_axis_or_a_shape_is_eager():
    calls(axis_from_len, [(X, n) for n in ["abc", "abcd", "xyz", "abcde", "pq"]])
    calls(shape_from_len, [(X, n) for n in NAMES[:4] + ["a", " b "]])


def test_getattr_with_a_computed_name_is_eager():
    calls(attribute_named, [(X, n, Holder) for n in ["Run37", " run74", "RUN0", "run37", "nope"]])


# -- dict reads with a run-time str key ----------------------------------------------------

VOCAB = {"w%d" % k: k for k in range(6)}


def lookup(x, vocab, tok):
    j = vocab.get(tok)
    if j is not None:
        x = x * 2.0
        x[j] += 1.0
    return x, j


def scaled(x, scales, name):
    return x * scales[name], scales.get(name, "none")


def test_dict_get_with_a_new_key_each_call_does_not_retranslate():
    static = calls(lookup, [(X.copy(), VOCAB, "w%d" % (i % 8)) for i in range(16)])
    assert sot.translation_count(static) <= 4   # value, by type, and the same for a missing key


def test_dict_item_with_a_new_key_each_call_does_not_retranslate():
    scales = {"s%d" % k: k * 1.5 for k in range(12)}
    static = calls(scaled, [(X, scales, "s%d" % i) for i in range(12)])
    assert sot.translation_count(static) <= 2


def test_dict_values_of_other_types_retranslate_and_are_eager():
    d = {"a": 1, "b": 2.5, "c": None, "d": "text", "e": [1, 2], "f": True, "g": np.ones(6)}
    calls(scaled, [(X, d, k) for k in "abcdefgab"])
    calls(lookup, [(X.copy(), d, k) for k in "abzcab"])


def test_a_missing_key_raises_as_eager():
    scales = {"a": 1.0, "b": 2.0}
    calls(scaled, [(X, scales, k) for k in ["a", "b", "c", "a"]])


def test_a_value_in_a_branch_is_eager():
    def f(x, d, name):
        v = d.get(name, 0)
        return x * 2.0 if v > 2 else x - 1.0
    d = {"k%d" % i: i for i in range(8)}
    calls(f, [(X, d, "k%d" % i) for i in range(8)] + [(X, d, "zz")])


def test_a_read_after_a_write_sees_the_write():
    def f(x, d, name):
        d["a"] = d.get("a", 0) + 1
        return x, d.get(name), d[name] if name in d else None
    d = {"a": 0, "b": 5}
    calls(f, [(X, d, k) for k in ["b", "a", "c", "a", "b"]])


def test_a_key_computed_from_the_string_does_not_retranslate():
    def f(x, d, name):
        return x * 2.0, d.get(name + "_b", 0.5), d.get(name.lower())
    d = {"s%d_b" % i: float(i) for i in range(12)} | {"s1": 3}
    static = calls(f, [(X, d, "s%d" % i) for i in range(2, 12)])
    assert sot.translation_count(static) <= 2
    calls(f, [(X, d, "s%d" % i) for i in range(14)] + [(X, d, "S1"), (X, d, "S2")], static)


def test_a_store_with_a_computed_key_does_not_retranslate():
    def f(history, name, x):
        key = name.lower().strip()
        history[f"{key}/loss"] = 1.0
        return x * len(name)
    history = {"run3/loss": [1.0]}   # a value whose release could run code: replaced only where plain
    static = calls(f, [(history, " Run%d " % i, X) for i in range(10)])
    assert sot.translation_count(static) <= 3


def test_a_key_computed_from_two_strings_is_eager():
    def f(x, d, a, b):
        return x * 2.0, d.get(a + b), d.get(f"{a}.{b}", "none")
    d = {"ab": 1.0, "a.b": 2.0, "xy": 3.0}
    calls(f, [(X, d, *k) for k in ["ab", "xy", "ab", "cd", "xb"]])


def test_a_str_from_a_closure_that_changes_combined_with_an_argument():
    prefix = "layer"

    def rename(p):
        nonlocal prefix
        prefix = p

    def f(x, name):
        return x * len(name + prefix), f"{name}:{prefix}"
    static = sot.to_static(f)
    for i in range(1, 8):
        rename("p" * i)
        calls(f, [(X, "n%d" % i)], static)
    assert sot.translation_count(static) <= 3
