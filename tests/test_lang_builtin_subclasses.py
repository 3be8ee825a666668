"""User subclasses of list and dict (sot/executor/builtin_subclasses.py):
instances made in the trace, and list-subclass arguments read by it, are
captured where CPython's own list/dict code runs for every operation; a
class overriding a special method breaks the graph, with eager's results."""
import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, assert_same, check

X = np.arange(12, dtype=np.float64).reshape(3, 4) / 7 - 0.5


class Stack(list):
    def top(self):
        return self[-1]

    def total(self):
        return sum(self)


class Tagged(list):
    def __init__(self, items, tag):
        super().__init__(items)
        self.tag = tag

    def append(self, v):          # a plain name shadowing list.append
        super().append(v * 2)


class Counts(dict):
    def __missing__(self, key):
        return 0


class Registry(dict):
    def register(self, name, value):
        self[name] = value
        return self


def list_subclass_methods(x):
    s = Stack([x, x + 1])
    s.append(x * 2)
    s.extend([x - 1])
    return s.top() + s.total(), len(s), isinstance(s, list), type(s) is Stack


def local_list_subclass(x):
    class L(list):
        def total(self):
            return sum(self)
    l2 = L([1, 2, 3])
    l2.append(4)
    return x * l2.total(), len(l2), l2 == [1, 2, 3, 4]


def init_and_shadowed_append(x):
    t = Tagged([x], "a")
    t.append(x)
    return t[0] + t[1], t.tag, len(t)


def dict_subclass_missing(x):
    c = Counts(a=1)
    c["b"] += 2
    return x * (c["a"] + c["b"] + c["zz"]), "zz" in c, len(c)


def dict_subclass_methods(x):
    r = Registry().register("w", x).register("b", x + 1)
    return r["w"] * r["b"], sorted(r.keys()), r.get("q", 0)


def slicing_gives_a_plain_list(x):
    s = Stack([x, x, x])
    part = s[1:] + [x]
    s += [x]
    return type(part) is list, type(s.copy()) is list, type(s * 2) is list, type([x] + s) is list, \
        type(s) is Stack, len(part), len(s), x * 2


@pytest.mark.parametrize("fn", [list_subclass_methods, local_list_subclass, init_and_shadowed_append,
                                dict_subclass_missing, dict_subclass_methods, slicing_gives_a_plain_list])
def test_subclass_instances_made_in_the_trace_are_captured_whole(fn):
    assert_captured_whole(fn, X)
    static = check(fn, (X,), (X[:2],))
    assert_same(fn(X), static(X), bitwise=True)


# -- leaving the graph: rebuilt with their class, items and attributes ------------------------

def returns_instances(x):
    t = Tagged([x], "t")
    c = Counts(k=x)
    return t, c, x + 1


def test_returned_instances_have_their_class_items_and_attributes():
    static = check(returns_instances, (X,))
    t, c, _ = static(X)
    assert type(t) is Tagged and t.tag == "t" and type(c) is Counts and c["missing"] == 0


def returns_a_local_subclass_instance(x):
    class L(list):
        pass
    return L([x]), x


def test_a_local_class_leaving_the_graph_is_each_calls_own():
    static = sot.to_static(returns_a_local_subclass_instance)
    results = [static(X)[0] for _ in range(3)]
    assert len({type(r) for r in results}) == 3   # eagerly, each call has its own class
    for r in results:
        assert type(r).__name__ == "L" and isinstance(r, list) and len(r) == 1
        assert_same(r[0], X)


# -- item access overridden: inlined, super() reaching list's/dict's own ------------------------

class Clipped(list):
    def __getitem__(self, i):
        if isinstance(i, int) and i >= len(self):
            i = len(self) - 1
        return super().__getitem__(i)

    def __setitem__(self, i, v):
        super().__setitem__(i, v * 10)

    def __delitem__(self, i):
        super().__delitem__(0)

    def __contains__(self, v):
        return v == "always" or super().__contains__(v)

    def __repr__(self):
        return "Clipped!"


class Defaulted(dict):
    def __getitem__(self, k):
        return super().__getitem__(k.lower())

    def __missing__(self, k):
        return -1


def overridden_item_access(x):
    c = Clipped([1.5, 2.5, 3])
    c[2] = 4
    del c[1]          # deletes the first item
    return x * c[0] + c[7], c[1:], "always" in c, 40 in c, 5 in c, c, len(c)


def overridden_dict_getitem_and_missing(x):
    d = Defaulted(a=x)
    return d["A"] * 2, d["Zz"], "A" in d, d.get("A"), x


def test_overridden_item_access_is_inlined():
    for fn in (overridden_item_access, overridden_dict_getitem_and_missing):
        assert_captured_whole(fn, X)
        static = check(fn, (X,), (X[:2],))
        assert_same(fn(X), static(X), bitwise=True)


def explicit_base_call(x):
    class E(list):
        def __getitem__(self, i):
            return list.__getitem__(self, i) * 2
    return E([x])[0]


def explicit_base_calls(x):
    class E(dict):
        def __setitem__(self, k, v):
            dict.__setitem__(self, k.upper(), v)

        def __getitem__(self, k):
            return dict.__getitem__(self, k.upper()) * 2
    class Init(list):
        def __init__(self, items):
            list.__init__(self, items)
            self.n = len(self)
    e = E()
    e["a"] = x
    plain = [1]
    list.append(plain, 2)
    i = Init([3, 4])
    return e["a"], list(e), dict.get(e, "A") is x, plain, i.n, i[1]


def test_explicit_base_class_calls_are_the_containers_own():
    for fn in (explicit_base_call, explicit_base_calls):
        assert_captured_whole(fn, X)
        check(fn, (X,))


def base_call_on_the_wrong_object(x):
    return list.__getitem__((1, 2), 0), x


def test_a_base_class_call_on_another_type_runs_as_eager():
    check(base_call_on_the_wrong_object, (X,))   # eager raises TypeError


# -- other special methods overridden: a graph break, eager's results --------------------------

def overrides_len_and_iter(x):
    class Odd(list):
        def __len__(self):
            return 7

        def __iter__(self):
            return iter([1, 2])
    o = Odd([x, x])
    return len(o), sum(o), bool(o), x


def overrides_eq(x):
    class Always(list):
        def __eq__(self, other):
            return True
    return Always([1]) == [2], x


@pytest.mark.parametrize("fn", [overrides_len_and_iter, overrides_eq])
def test_overridden_special_methods_break_with_eagers_results(fn):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), X)
    assert report.breaks
    check(fn, (X,))


# -- a list subclass from outside ----------------------------------------------------------

def reads_an_argument(x, s):
    return x * s.total() + s.top(), len(s), s.tag


def mutates_an_argument(x, s):
    s.append(1)
    return x * len(s)


def test_an_argument_is_read_and_guarded_by_type_and_length():
    s = Stack([1.0, 2.0])
    s.tag = "t"
    static = sot.to_static(reads_an_argument, min_graph_size=0)
    report = sot.explain(static, X, s)
    assert not report.breaks, [str(b) for b in report.breaks]
    check(reads_an_argument, (X, s), static=static)
    longer = Stack([1.0, 2.0, 3.0])
    longer.tag = "u"
    check(reads_an_argument, (X, longer), static=static)   # length and tag guarded: retranslated
    other = Tagged([1.0], "z")
    other.total = lambda: 5.0   # noqa: E731 (an instance attribute shadowing nothing on Tagged)
    with pytest.raises(AttributeError):
        static(X, other)   # another class: the guard sees it, eager's AttributeError (no .top)


def test_mutating_an_argument_runs_as_eager():
    check(mutates_an_argument, (X, Stack([1, 2])))


def test_a_class_copied_before_still_qualifies():
    import copy
    copy.copy(Stack([1]))   # copyreg caches __slotnames__ on the class
    assert "__slotnames__" in vars(Stack)
    assert_captured_whole(list_subclass_methods, X)


class Hundred(list):
    def __getitem__(self, i):
        return 100

    def __setitem__(self, i, v):
        super().__setitem__(i, v * 10)


def store_through_operator_then_read(x):
    import operator
    c = Hundred([1, 2])
    operator.setitem(c, 0, 5)   # not captured: the frame resumes with `c` from outside
    return list(c), c[0], x + 1


def test_an_instance_whose_class_overrides_item_access_is_not_loaded_by_subscripting():
    check(store_through_operator_then_read, (X,))   # list(c) is the stored items, not __getitem__'s


class Growing(list):
    pass


def length_of_a_new_instance(x):
    return len(Growing([1, 2])), bool(Growing()), x * 2


def test_a_special_method_added_to_the_class_later_is_seen():
    static = sot.to_static(length_of_a_new_instance)
    assert static(X)[:2] == (2, False)
    Growing.__len__ = lambda self: 7
    try:
        assert static(X)[:2] == length_of_a_new_instance(X)[:2] == (7, True)
    finally:
        del Growing.__len__
    assert static(X)[:2] == (2, False)
