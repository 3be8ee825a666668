"""Containers made in the frame: list and dict methods, del x[i], dict(iterable),
slices, * unpacking, f-strings of shapes, string comparisons, any() over
Python bools; a mutation of a container from outside still breaks."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def list_methods(x):
    xs = [x, x + 1, x + 2]
    xs.append(x * 2)
    xs.insert(0, x - 1)
    last = xs.pop()
    xs.reverse()
    first = xs.pop(0)
    xs.clear()
    xs.extend([first, last])
    return xs


def list_count_index_remove_sort(x):
    names = ["b", "a", "c", "a"]
    n = names.count("a") + names.index("c") + names.index("a", 2)
    names.remove("a")
    names.sort()
    sizes = [3, 1, 2]
    sizes.sort(key=lambda v: -v, reverse=True)
    return x * n, names, sizes


def dict_methods(x):
    d = {"w": x}
    d.update({"b": x + 1}, c=x * 2)
    d.update([("e", 1.0)])
    got = d.setdefault("w", None), d.setdefault("f", 7)
    v = d.pop("w")
    missing = d.pop("zz", 0)
    last = d.popitem()
    return d, v, got, missing, last, d.get("nope", -1)


def dict_from_pairs(x):
    d = dict(zip(["a", "b"], [x, x * 2]))
    e = dict(d, c=3)
    return d["b"] - d["a"], e


def del_items(x):
    xs = [x, x + 1, x + 2, x + 3]
    del xs[1]
    del xs[-1:]
    d = {"a": x, "b": x * 2}
    del d["a"]
    return xs, d


def slices_and_star(x):
    xs = [x * i for i in range(5)]
    a, *rest = xs[1:4]
    t = (*xs[:2], x + 1)
    return xs[::-2], a, rest, [*t, *rest], t[1:]


def fstrings_and_strings(x, mode):
    tag = f"shape={x.shape} n={x.ndim:d} {x.dtype} {[1, 2]!r}"
    same = mode == "same"
    return (x + 1 if same else x), tag, "{}x{}".format(*x.shape), "-".join(["a", "b"]).upper()


def any_of_python_bools(x):
    r, c = x.shape
    if any([r <= 0, c <= 0]):
        return x
    return x * all((r > 1, c > 1))


def slice_builtin(x):
    s = slice(1, None)
    return x[s], x[slice(None, None, 2)]


@pytest.mark.parametrize("fn, args", [
    (list_methods, (X,)),
    (list_count_index_remove_sort, (X,)),
    (dict_methods, (X,)),
    (dict_from_pairs, (X,)),
    (del_items, (X,)),
    (slices_and_star, (X,)),
    (fstrings_and_strings, (X, "same")),
    (fstrings_and_strings, (X, "valid")),
    (any_of_python_bools, (X,)),
    (slice_builtin, (X,)),
])
def test_container_constructs_are_one_graph_and_match_eager(fn, args):
    check(fn, args)
    assert_captured_whole(fn, *args)


def test_mutating_an_argument_list_or_dict_breaks_and_matches_eager():
    def f(x, xs, d):
        xs.reverse()
        del d["a"]
        d.update(b=x)
        xs.sort()
        return x * len(xs)
    check(f, (X, [3, 1, 2], {"a": 1}))


def test_list_index_of_a_missing_value_raises_as_eager():
    def f(x):
        return x * ["a", "b"].index("z")
    check(f, (X,))


def test_count_over_arrays_runs_natively_and_matches():
    def f(x):
        xs = [x, x]
        return xs.count(x)
    check(f, (X,))


def set_literals_and_operations(x):
    s = {1, 2, 3}
    t = s | {4}
    t |= {9}
    u = {v * 2 for v in range(4)}
    s.add(7)
    s.discard(1)
    hits = len(t & {2, 4, 9}) + (3 in s) + (5 in u) + len(s - t) + len(s ^ {2})
    same = {1, 2} == set([2, 1]) and {1} < {1, 2} and s.union([0]).issuperset({0, 7})
    return x * hits, same, sorted(t), sorted(u.intersection({0, 2, 5}))


def test_sets_of_constants_are_one_graph_and_match_eager():
    check(set_literals_and_operations, (X,))
    assert_captured_whole(set_literals_and_operations, X)


def test_returned_set_runs_natively_and_matches_eager():
    def f(x):
        s = {int(d) for d in x.shape}
        s.add(0)
        return x * len(s), s
    check(f, (X,))


def test_set_of_arrays_matches_eager():
    def f(x):
        return len({x, x})
    check(f, (X,))
