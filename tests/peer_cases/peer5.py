"""A fifth slice of peer-style cases, after the kinds of tests in Paddle's
test/sot (side effects on arguments, mutable data, SIR rollback on a break
inside a callee, branches on NumPy values, output restoration, guards on
user functions and dtypes, in-place APIs, builtin dispatch) and
TorchDynamo's test/dynamo (functions, misc, repros, recompiles, sources,
higher-order functions, a Python autograd, model outputs, list/dict/tuple
ops, NumPy interop and unspecialized Python numbers), written by us for
NumPy (no code is taken from them)."""
from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import math
import operator

import numpy as np

from . import I, V, X, Y, case

# -- side effects on argument containers (Paddle test_side_effects, test_mutable_data) --

@case({0: X, 1: 5})
def p5_se_dict_setitem_array_then_read(d):
    d[0] = d[0] + 1
    return d[0] * 2, d[1]


@case({0: X, 1: X + 1, 2: "keep"})
def p5_se_dict_delitem_then_len(d):
    del d[0]
    return len(d), sorted(d)


@case({0: {0: 1, 1: 2}, 1: {0: 3, 1: 4}})
def p5_se_dict_nested_inner_writes(d):
    d[0][0] = 42
    d[1][0] = d[0][0] + d[0][1]
    d[2] = {1: 2}
    return d


@case({0: {0: 1, 1: 2}, 1: {0: 3, 1: 4}})
def p5_se_dict_nested_alias_then_delete(d):
    a, b = d[0], d[1]
    del a[0]
    a[1] = b[0]
    a[2] = b[1]
    d[1][0] = 42
    del a[1]
    return a, b


@case({0: {0: 1, 1: 2}})
def p5_se_dict_getitem_then_del_outer(d):
    inner = d[0]
    del d[0]
    inner[0] = 7
    return d, inner


@case(X, [1, 2, 3])
def p5_se_list_append_array_result(x, lst):
    y = x + 1
    lst.append(y)
    return y, lst


@case([1, 2, 3, 4, 5, 6, 7, 8, 9])
def p5_se_list_pop_three_positions(lst):
    lst.pop(0)
    lst.pop()
    lst.pop(1)
    return lst[0], lst


@case([1, 2, 3])
def p5_se_list_nested_in_local_append(lst):
    outer = []
    outer.append(lst)
    outer[-1].append(12)
    return len(outer), lst


@case([1, 1, 0, 2])
def p5_se_list_remove_first_match(lst):
    lst.remove(1)
    return lst, lst.count(1)


@case([0, 2, 4])
def p5_se_list_remove_missing_raises_after_append(lst):
    lst.append(9)
    lst.remove(1)
    return lst


@case([2, 1, 7, 3, 4, 6])
def p5_se_list_sort_key_square(lst):
    lst.sort(key=lambda v: (v - 4) ** 2)
    return lst


@case([2, 3, 0, 4, 1, 5])
def p5_se_list_sort_reverse_kw(lst):
    lst.sort(reverse=True)
    return lst[0], lst


@case([1, 2, 3, 4, 5, 6, 7])
def p5_se_list_slice_assign_shorter(lst):
    lst[0:3] = [40, 50]
    return lst, len(lst)


@case([1, 2, 3, 4, 5, 6, 7])
def p5_se_list_slice_assign_reverse_step(lst):
    lst[4:1:-1] = [8, 9, 10]
    return lst


@case([1, 2, 3, 4, 5, 6, 7])
def p5_se_list_slice_assign_step_two(lst):
    lst[2:5:2] = [8, 9]
    return lst


@case([1, 2, 3, 4, 5, 6, 7])
def p5_se_list_slice_assign_longer(lst):
    lst[1:2] = [0, 0, 0]
    return lst


@case([1, 2, 3, 4, 5, 6, 7])
def p5_se_list_del_slice_step(lst):
    del lst[::3]
    return lst


@case([1, 2, 3, 4])
def p5_se_list_reverse_then_slice_zip(lst):
    lst.reverse()
    total = 0
    for _, v in zip(range(2), lst[2:]):
        total += v
    return total, lst


@case(X, [X, X])
def p5_se_list_setitem_in_loop(x, lst):
    for i in range(len(lst)):
        lst[i] = x * i
    return lst[1]


@case([5, 6, 7])
def p5_se_list_insert_negative_and_big(lst):
    lst.insert(-1, 0)
    lst.insert(100, 9)
    lst.insert(-100, 1)
    return lst


@case([3, 1, 2])
def p5_se_list_clear_then_extend_self_copy(lst):
    saved = lst[:]
    lst.clear()
    lst.extend(saved * 2)
    return lst, saved


@case({"a": 1, "b": 2})
def p5_se_dict_update_kwargs_form(d):
    d.update(c=3, a=10)
    return list(d.items())


@case({"a": 1})
def p5_se_dict_setdefault_then_mutate(d):
    v = d.setdefault("lst", [])
    v.append(1)
    d.setdefault("lst", []).append(2)
    return d


@case({"a": X, "b": X * 2})
def p5_se_dict_pop_default_and_present(d):
    a = d.pop("a")
    z = d.pop("zz", None)
    return a + 1, z, list(d)


@case({"x": 1, "y": 2, "z": 3})
def p5_se_dict_rebuild_in_place(d):
    items = list(d.items())
    d.clear()
    for k, v in reversed(items):
        d[k] = v * 10
    return d, list(d)


@case([[1, 2], [3, 4]])
def p5_se_nested_list_inner_sort_and_outer_append(ll):
    ll[0].reverse()
    ll.append(ll[0])
    ll[-1].append(0)
    return ll, ll[0] is ll[-1]


class _P5Obj:
    def __init__(self):
        self.x = 2
        self.y = np.ones(3, dtype=np.float32)

    def set_outputs(self, v):
        self.outputs = []
        self.outputs.append(v)
        return self.outputs


@case(_P5Obj(), X)
def p5_se_object_attr_set_array(obj, x):
    t = x + 1
    obj.x = t
    return t, obj.x


@case(_P5Obj())
def p5_se_object_attr_del_array(obj):
    del obj.y
    return hasattr(obj, "y"), obj.x


@case(_P5Obj())
def p5_se_object_attr_del_int_then_missing(obj):
    del obj.x
    return getattr(obj, "x", "gone")


@case(_P5Obj(), X)
def p5_se_object_method_sets_list_attr(obj, x):
    out = obj.set_outputs(x * 2)
    return out, obj.outputs is out


@case(_P5Obj(), X)
def p5_se_object_attr_set_around_print(obj, x):
    t = x + 1
    print("between")
    obj.x = t
    print("again")
    return t, obj.x


@case(_P5Obj())
def p5_se_object_attr_augassign_array_attr(obj):
    obj.y += 2
    obj.y *= obj.y
    return obj.y


@case(_P5Obj())
def p5_se_object_attr_setattr_builtin_dynamic_names(obj):
    for i, name in enumerate(("a", "b", "c")):
        setattr(obj, name, i)
    return sorted(vars(obj)), obj.c


@case(_P5Obj())
def p5_se_object_vars_dict_write(obj):
    vars(obj)["z"] = 5
    obj.__dict__["w"] = obj.z + 1
    return obj.w, sorted(obj.__dict__)


@case(collections.OrderedDict(a=1, b=2, c=3))
def p5_se_ordereddict_move_to_end(d):
    d.move_to_end("a")
    d.move_to_end("c", last=False)
    return list(d), d.popitem(last=False)


@case(collections.deque([1, 2, 3]))
def p5_se_deque_argument_mutations(dq):
    dq.appendleft(0)
    dq.rotate(1)
    dq.pop()
    return list(dq), len(dq)


@case(collections.Counter("abcab"))
def p5_se_counter_argument_subtract(c):
    c.subtract("aa")
    c["z"] += 1
    return sorted(c.items()), c.most_common(1)


@case({1, 2, 3})
def p5_se_set_argument_mutations(s):
    s.add(5)
    s.discard(1)
    s -= {2}
    return sorted(s), len(s)


@case([X, V])
def p5_se_list_of_arrays_inplace_each(lst):
    for a in lst:
        a += 1
    return lst[0].sum(), lst[1].sum()


@case([np.zeros(3), np.ones(3)])
def p5_se_list_swap_elements(lst):
    lst[0], lst[1] = lst[1], lst[0]
    return lst[0] + 2 * lst[1]


# -- SIR rollback: a break inside a callee after traced side effects (Paddle test_sir_rollback) --

def _p5_callee_appends_then_prints(lst, x):
    lst.append(x + 1)
    print("callee prints", len(lst))
    lst.append(x + 2)
    return x * 3


@case(X)
def p5_rb_callee_appends_then_breaks(x):
    lst = []
    y = _p5_callee_appends_then_prints(lst, x)
    return y, lst


@case(X, [0])
def p5_rb_callee_mutates_argument_then_breaks(x, lst):
    y = _p5_callee_appends_then_prints(lst, x)
    return y + lst[1], len(lst)


def _p5_callee_sets_attr_then_prints(obj, v):
    obj.x = v
    print("set", type(v).__name__)
    obj.x2 = obj.x * 2
    return obj.x2


@case(_P5Obj(), X)
def p5_rb_callee_attr_then_break(obj, x):
    return _p5_callee_sets_attr_then_prints(obj, x + 1), obj.x


_P5_LOG: list = []


def _p5_callee_global_then_print(x):
    _P5_LOG.append(1)
    print("global appended")
    return x - 1


@case(X)
def p5_rb_callee_global_list_then_break(x):
    n0 = len(_P5_LOG)
    y = _p5_callee_global_then_print(x)
    return y, len(_P5_LOG) - n0


def _p5_nested_inner(d, x):
    d["inner"] = x
    print("inner break")
    return x + 1


def _p5_nested_outer(d, x):
    d["outer"] = 1
    return _p5_nested_inner(d, x * 2) + 1


@case(X, {})
def p5_rb_break_two_calls_deep(x, d):
    return _p5_nested_outer(d, x), sorted(d)


@case(X)
def p5_rb_break_in_callee_within_loop(x):
    acc = []
    for i in range(3):
        acc.append(_p5_callee_appends_then_prints(acc, x + i))
    return len(acc), acc[-1]


def _p5_raise_after_append(lst):
    lst.append("before")
    raise KeyError("k")


@case([])
def p5_rb_callee_raises_after_mutation_caught(lst):
    try:
        _p5_raise_after_append(lst)
    except KeyError as e:
        return lst, str(e)


@case(X)
def p5_rb_callee_dict_local_then_break(x):
    d = {"a": x}

    def f():
        d["b"] = d["a"] + 1
        print("f")
        d["c"] = d["b"] * 2
        return len(d)
    n = f()
    return n, d["c"]


@case(X)
def p5_rb_generator_side_effect_then_break(x):
    seen = []

    def g():
        for i in range(3):
            seen.append(i)
            if i == 1:
                print("mid generator")
            yield x * i
    out = list(g())
    return out, seen


@case(X)
def p5_rb_print_inside_lambda_callee(x):
    box = [0]
    f = lambda v: (box.__setitem__(0, box[0] + 1), print("lam"), v + box[0])[2]  # noqa: E731
    return f(x), f(x), box


@case(X)
def p5_rb_break_after_inplace_in_callee(x):
    y = x.copy()

    def bump(a):
        a += 1
        print("bumped")
        a *= 2
        return a
    z = bump(y)
    return y, z is y


# -- branches on NumPy values (Paddle test_numpy_var_if, test_numpy) --------------------

@case(X)
def p5_if_on_reduction_scalar(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


@case(I)
def p5_if_on_int_scalar_eq(x):
    if x.max() == 7:
        return x * 2
    return x


@case(X)
def p5_if_on_any(x):
    if (x > 1).any():
        return x.clip(0, 1)
    return x


@case(X)
def p5_if_on_all_not(x):
    if not (x > -5).all():
        return "neg"
    return x.mean()


@case(X)
def p5_while_on_norm(x):
    n = 0
    while np.linalg.norm(x) > 1:
        x = x / 2
        n += 1
    return x, n


@case(X)
def p5_if_numpy_scalar_from_item(x):
    v = x[1, 2]
    if v > 0.2:
        return v * 2, type(v)
    return v, type(v)


@case(Y)
def p5_if_on_float64_argmax(y):
    k = int(y.argmax())
    if k % 2:
        return y[..., ::-1]
    return y[k // 4]


@case(X)
def p5_if_chained_numpy_compare(x):
    m = x.mean()
    lo, hi = x.min(), x.max()
    if lo < m < hi:
        return m
    return lo


@case(X)
def p5_ternary_on_numpy_bool(x):
    return (x * 2) if np.all(np.isfinite(x)) else (x * 0)


@case(X)
def p5_if_numpy_bool_and_python_and(x):
    ok = x.shape[0] == 3 and bool(x.std() > 0.1)
    return ok, x[0] if ok else x[1]


@case(np.array([3.0], dtype=np.float32))
def p5_if_one_element_array_truth(a):
    if a:
        return a + 1
    return a


@case(np.array(0, dtype=np.int64))
def p5_if_zero_d_int_array_truth(a):
    return "zero" if not a else "nonzero", a + 1


@case(X)
def p5_loop_break_on_numpy_value(x):
    out = []
    for row in x:
        if row.sum() > 1:
            break
        out.append(row * 2)
    return out


@case(X)
def p5_if_on_isclose_allclose(x):
    if np.allclose(x, x + 1e-9):
        return "close", np.isclose(x, 0).sum()
    return "far"


@case(I)
def p5_if_int_scalar_modulo_branch(x):
    s = x.sum()
    return x // 2 if s % 2 == 0 else x * 3, s % 2


@case(X)
def p5_if_numpy_value_in_range_loop(x):
    n = int(x.max() * 2)
    acc = x
    for _ in range(n):
        acc = acc + 1
    return acc, n


@case(X)
def p5_if_nan_check(x):
    y = x / (x - x)
    if np.isnan(y).any():
        return np.nan_to_num(y)
    return y


@case(X)
def p5_match_on_numpy_int(x):
    match int(x.argmin()):
        case 0:
            return "first"
        case 11:
            return "last"
        case _:
            return "other"


# -- output restoration (Paddle test_output_restoration, test_guard_outputs) ----------

@case(X)
def p5_out_constant_only(x):
    y = x + 1  # noqa: F841
    return 1


@case(X)
def p5_out_none_and_arrays(x):
    return None, x + 1, None


@case(X)
def p5_out_nested_dict_of_lists(x):
    return {"a": [x, x + 1], "b": {"c": (x * 2, 3)}, "d": "s"}


@case(X)
def p5_out_same_array_three_positions(x):
    y = x * 2
    return y, [y], {"k": y}


@case(X)
def p5_out_argument_and_computed(x):
    return x, x + 0, x


@case(X)
def p5_out_slice_object_and_range(x):
    return slice(1, 2), range(3), x[slice(1, 2)]


@case(X)
def p5_out_type_and_function_objects(x):
    return type(x), np.add, len, x.dtype


@case(X)
def p5_out_bytes_and_complex(x):
    return b"ab" + b"c", complex(1, 2), x.shape


@case(X)
def p5_out_empty_containers(x):
    return [], {}, (), set(), frozenset(), x[:0]


@case(X)
def p5_out_numpy_scalars_mixed(x):
    return x.sum(), x.max(), np.float32(1.5), np.int64(3), x.shape[0]


@case(X)
def p5_out_generator_consumed_later(x):
    return [v for v in (x[i] * i for i in range(3))]


_P5Pair = collections.namedtuple("_P5Pair", "a b")


@dataclasses.dataclass(eq=False)   # compared field by field, not by == of arrays
class _P5Out:
    a: np.ndarray
    b: int = 2


@case(X)
def p5_out_namedtuple_of_arrays(x):
    return _P5Pair(x + 1, x.sum())


@case(X)
def p5_out_dataclass_instance(x):
    return _P5Out(x * 3)


@case(X)
def p5_out_list_with_self_reference(x):
    lst = [x + 1]
    lst.append(lst)
    return lst[0], lst[1] is lst


@case(X)
def p5_out_tuple_of_views(x):
    return x[0], x[:, 1], x.T, x.reshape(-1)


@case(X)
def p5_out_zero_d_from_graph(x):
    return np.asarray(x.sum()), x.sum(keepdims=True)


# -- state that changes between calls (Dynamo test_recompiles, Paddle test_guard_*) ----
# The runner interleaves eager and traced calls; `_p5_phase()` gives the same
# value to the n-th eager and the n-th traced call: 0, 1, 0 over three calls.

_P5_TICK = {"n": 0}


def _p5_phase():
    _P5_TICK["n"] += 1
    return (_P5_TICK["n"] - 1) // 2 % 2


_P5_SCALE = 1.0
_P5_MODE = "add"
_P5_INT = 3
_P5_ARR = np.ones((3, 4), dtype=np.float32)
_P5_CFG = {"k": 2, "names": ["a"], "on": True}
_P5_SEQ = [1, 2]


def _p5_helper(x):
    return x + 1


def _p5_helper_alt(x):
    return x * 10


@case(X)
def p5_rc_global_float_rebound(x):
    global _P5_SCALE
    _P5_SCALE = 2.0 if _p5_phase() else 1.0
    return x * _P5_SCALE


@case(X)
def p5_rc_global_str_selects_branch(x):
    global _P5_MODE
    _P5_MODE = "mul" if _p5_phase() else "add"
    return x * 2 if _P5_MODE == "mul" else x + 2


@case(X)
def p5_rc_global_int_used_as_repeat(x):
    global _P5_INT
    _P5_INT = 4 if _p5_phase() else 3
    return np.tile(x[0], _P5_INT).shape, [x[i % 3] for i in range(_P5_INT)][-1]


@case(X)
def p5_rc_global_array_dtype_changes(x):
    global _P5_ARR
    _P5_ARR = np.ones((3, 4), dtype=np.float64 if _p5_phase() else np.float32)
    return (x + _P5_ARR).dtype, x + _P5_ARR


@case(X)
def p5_rc_global_array_shape_changes(x):
    global _P5_ARR
    _P5_ARR = np.ones((1, 4) if _p5_phase() else (3, 4), dtype=np.float32)
    return x * _P5_ARR, _P5_ARR.shape


@case(X)
def p5_rc_global_array_ndim_changes(x):
    global _P5_ARR
    _P5_ARR = np.ones(4, dtype=np.float32) if _p5_phase() else np.ones((3, 4), dtype=np.float32)
    return (x + _P5_ARR).sum(axis=-1), _P5_ARR.ndim


@case(X)
def p5_rc_global_dict_value_changes(x):
    _P5_CFG["k"] = 5 if _p5_phase() else 2
    return x ** _P5_CFG["k"]


@case(X)
def p5_rc_global_dict_key_added_and_removed(x):
    if _p5_phase():
        _P5_CFG["extra"] = 1.5
    else:
        _P5_CFG.pop("extra", None)
    return x * _P5_CFG.get("extra", 1.0), "extra" in _P5_CFG


@case(X)
def p5_rc_global_list_contents_change(x):
    _P5_CFG["names"][:] = ["a", "b"] if _p5_phase() else ["a"]
    return {n: x + i for i, n in enumerate(_P5_CFG["names"])}


@case(X)
def p5_rc_global_bool_flag(x):
    _P5_CFG["on"] = not _p5_phase()
    return x if _P5_CFG["on"] else -x


@case(X)
def p5_rc_global_function_rebound(x):
    global _p5_helper
    _p5_helper = _p5_helper_alt if _p5_phase() else _p5_helper_orig
    return _p5_helper(x)


_p5_helper_orig = _p5_helper


@case(X)
def p5_rc_global_list_length_in_loop(x):
    _P5_SEQ[:] = [1, 2, 3] if _p5_phase() else [1, 2]
    acc = x
    for v in _P5_SEQ:
        acc = acc * v
    return acc


class _P5Cfg:
    scale = 1.0
    kind = "a"


_P5_INST = _P5Cfg()


@case(X)
def p5_rc_class_attribute_changes(x):
    _P5Cfg.scale = 3.0 if _p5_phase() else 1.0
    return x * _P5Cfg.scale


@case(X)
def p5_rc_class_attr_seen_through_instance(x):
    _P5Cfg.kind = "b" if _p5_phase() else "a"
    return (x + 1) if _P5_INST.kind == "a" else (x - 1)


@case(X)
def p5_rc_instance_attr_shadows_class(x):
    if _p5_phase():
        _P5_INST.scale = 7.0
    else:
        _P5_INST.__dict__.pop("scale", None)
    return x * _P5_INST.scale


@case(X)
def p5_rc_instance_method_replaced(x):
    if _p5_phase():
        _P5_INST.fn = lambda v: v * 4
    else:
        _P5_INST.fn = lambda v: v + 4
    return _P5_INST.fn(x)


@case(X)
def p5_rc_class_method_patched(x):
    _P5Cfg.apply = (lambda self, v: v - 1) if _p5_phase() else (lambda self, v: v + 1)
    return _P5_INST.apply(x)


_P5_CLOSURE_STATE = {"fn": None}


def _p5_make_closure():
    k = [1.0]

    def f(x):
        return x * k[0]

    def set_k(v):
        k[0] = v
    return f, set_k


_P5_CF, _P5_SETK = _p5_make_closure()


@case(X)
def p5_rc_closure_cell_list_content(x):
    _P5_SETK(5.0 if _p5_phase() else 1.0)
    return _P5_CF(x)


def _p5_make_cell_rebinder():
    scale = 1

    def f(x):
        return x * scale

    def rebind(v):
        nonlocal scale
        scale = v
    return f, rebind


_P5_CF2, _P5_REBIND = _p5_make_cell_rebinder()


@case(X)
def p5_rc_closure_cell_rebound(x):
    _P5_REBIND(2 if _p5_phase() else 1)
    return _P5_CF2(x), type(_P5_CF2.__closure__[0].cell_contents)


def _p5_defaults_fn(x, k=1):
    return x * k


@case(X)
def p5_rc_function_defaults_changed(x):
    _p5_defaults_fn.__defaults__ = (3,) if _p5_phase() else (1,)
    return _p5_defaults_fn(x)


def _p5_kwdefaults_fn(x, *, k=1):
    return x + k


@case(X)
def p5_rc_function_kwdefaults_changed(x):
    _p5_kwdefaults_fn.__kwdefaults__ = {"k": 9} if _p5_phase() else {"k": 1}
    return _p5_kwdefaults_fn(x)


def _p5_code_a(x):
    return x + 100


def _p5_code_b(x):
    return x - 100


def _p5_code_target(x):
    return x + 100


@case(X)
def p5_rc_function_code_replaced(x):
    _p5_code_target.__code__ = (_p5_code_b if _p5_phase() else _p5_code_a).__code__
    return _p5_code_target(x)


@case(X)
def p5_rc_argument_dtype_seen_by_python(x):
    x = x.astype(np.float64) if _p5_phase() else x
    return x.dtype == np.float32, x * 2


@case(X)
def p5_rc_argument_shape_branch(x):
    x = x[:2] if _p5_phase() else x
    if x.shape[0] == 3:
        return x.sum(0)
    return x.sum(1)


@case(X)
def p5_rc_argument_ndim_branch(x):
    x = x.ravel() if _p5_phase() else x
    return x.T if x.ndim == 2 else x[::-1]


@case(X, 2)
def p5_rc_int_argument_changes(x, n):
    n = n + _p5_phase()
    return x[:n], n


@case(X, 1.5)
def p5_rc_float_argument_changes(x, f):
    f = f * (1 + _p5_phase())
    return x * f, type(f)


@case(X, "sum")
def p5_rc_str_argument_changes(x, how):
    how = "max" if _p5_phase() else how
    return getattr(x, how)(axis=0)


@case(X, None)
def p5_rc_none_then_array_argument(x, bias):
    bias = np.ones(4, dtype=np.float32) if _p5_phase() else bias
    return x if bias is None else x + bias


@case(X, (1, 2))
def p5_rc_tuple_argument_length(x, t):
    t = t + (3,) if _p5_phase() else t
    return [x * v for v in t]


@case(X, [1, 2])
def p5_rc_list_argument_contents(x, lst):
    if _p5_phase():
        lst.append(5)
    return x * sum(lst), len(lst)


@case(X, {"a": 1})
def p5_rc_dict_argument_keys(x, d):
    if _p5_phase():
        d["b"] = 2
    return {k: x * v for k, v in d.items()}


@case(X)
def p5_rc_type_of_global_changes(x):
    global _P5_SCALE
    _P5_SCALE = 2 if _p5_phase() else 2.0
    return type(_P5_SCALE * 1), x * _P5_SCALE


@case(X)
def p5_rc_numpy_scalar_vs_python_global(x):
    global _P5_SCALE
    _P5_SCALE = np.float64(2.0) if _p5_phase() else 2.0
    return x * _P5_SCALE, type(x.sum() * _P5_SCALE)


@case(X)
def p5_rc_global_array_values_change(x):
    _P5_ARR[...] = 2.0 if _p5_phase() else 1.0
    return x * _P5_ARR


@case(X)
def p5_rc_module_attr_rebound(x):
    mod = np
    name = "cos" if _p5_phase() else "sin"
    return getattr(mod, name)(x)


_P5_ENUM = collections.namedtuple("Mode", "train eval")(1, 0)


@case(X)
def p5_rc_training_flag_on_object(x):
    _P5_INST.training = bool(_p5_phase())
    if _P5_INST.training:
        return x * 0.5
    return x


@case(X)
def p5_rc_global_object_replaced(x):
    global _P5_INST
    _P5_INST = _P5Cfg() if _p5_phase() else _P5_INST_ORIG
    _P5_INST.__dict__.pop("scale", None)
    return x * _P5_INST.scale, _P5_INST is _P5_INST_ORIG


_P5_INST_ORIG = _P5_INST


@case(X)
def p5_rc_isinstance_of_changing_global(x):
    global _P5_SCALE
    _P5_SCALE = [2.0] if _p5_phase() else 2.0
    if isinstance(_P5_SCALE, list):
        return x * _P5_SCALE[0]
    return x + _P5_SCALE


@case(X)
def p5_rc_len_of_global_dict(x):
    if _p5_phase():
        _P5_CFG["tmp"] = 0
    else:
        _P5_CFG.pop("tmp", None)
    return x * len(_P5_CFG)


@case(X)
def p5_rc_cache_size_many_shapes(x):
    n = 1 + _p5_phase()
    return x[:n].sum()


@case(X)
def p5_rc_dtype_global_for_astype(x):
    dt = np.int32 if _p5_phase() else np.float64
    return x.astype(dt), np.zeros(2, dt).dtype


# -- small functions (Dynamo test_functions) -------------------------------------------

@case(X, Y)
def p5_fn_add_sub_mixed_dtypes(a, b):
    return a + b, a - b, (a + b).dtype


@case(X)
def p5_fn_constant_tuple_ops(x):
    t = (2, 3)
    return x * t[0] + t[1], t + t, t * 2


@case(X, None)
def p5_fn_is_none_and_is_not_none(x, y):
    a = x + 1 if y is None else y
    b = y is not None
    return a, b


@case(X)
def p5_fn_function_name_and_qualname(x):
    def inner(v):
        return v
    return inner.__name__, inner.__qualname__.split(".")[-1], inner(x) + 1


@case(X)
def p5_fn_math_sqrt_of_size(x):
    return x / math.sqrt(x.size), math.isqrt(x.size), math.log2(x.shape[1])


@case(X)
def p5_fn_operator_getitem_and_setitem(x):
    lst = [0, 1, 2]
    operator.setitem(lst, 1, x)
    return operator.getitem(lst, 1) + 1, operator.getitem(x, (0, 1))


@case(X)
def p5_fn_unbound_ndarray_methods(x):
    return np.ndarray.sum(x), np.ndarray.__add__(x, 1), type(x).__mul__(x, 2)


@case(X)
def p5_fn_class_of_array_and_scalar(x):
    return x.__class__ is np.ndarray, x.sum().__class__.__name__, x[0, 0].__class__


@case(X)
def p5_fn_getattr_numpy_function(x):
    return [getattr(np, n)(x).dtype for n in ("sin", "floor", "sign")]


@case(X)
def p5_fn_callable_checks(x):
    return callable(x), callable(np.sum), callable(x.sum), callable(lambda: 1)


@case(X)
def p5_fn_bitwise_python_ints_from_shape(x):
    r, c = x.shape
    return r & c, r | c, r ^ c, ~r, r << 2, c >> 1


@case(X)
def p5_fn_divmod_and_pow_from_shape(x):
    q, m = divmod(x.size, 5)
    return q, m, pow(2, x.ndim), pow(3, 2, 5), x[:m]


@case(X)
def p5_fn_str_join_of_shape(x):
    return "x".join(str(s) for s in x.shape), "-".join(map(str, x.strides))


@case(X)
def p5_fn_bytes_ops(x):
    b = bytes(x.shape)
    return b, len(b), b[0], bytearray(b) + b"!", x.tobytes()[:4]


@case(X)
def p5_fn_nested_partials(x):
    f = functools.partial(np.clip, a_min=-1)
    g = functools.partial(f, a_max=0.5)
    return g(x), g.func is np.clip, sorted(g.keywords)


@case(X)
def p5_fn_default_arg_array_is_shared(x):
    def f(a, acc=[]):
        acc.append(a)
        return len(acc)
    return f(x), f(x), f(x, [])


@case(X)
def p5_fn_kwargs_splat_into_numpy(x):
    kw = {"axis": 0, "keepdims": True}
    return x.sum(**kw), np.mean(x, **kw)


@case(X)
def p5_fn_args_splat_into_numpy(x):
    args = (x, 0, 1)
    return np.swapaxes(*args), np.clip(*(x, -0.5, 0.5))


@case(X)
def p5_fn_recursive_closure_via_name(x):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    return x * fact(4)


@case(X)
def p5_fn_global_dispatch_dict(x):
    table = {"relu": lambda v: np.maximum(v, 0), "neg": operator.neg}
    return [table[k](x) for k in sorted(table)]


@case(X)
def p5_fn_isinstance_int_float_union(x):
    out = []
    for v in (1, 2.0, True, x.sum(), x.shape[0], None):
        out.append(isinstance(v, (int, float)))
    return out


@case(X)
def p5_fn_type_is_ndarray_checks(x):
    return type(x) is np.ndarray, type(x[0]) is np.ndarray, type(x[0, 0]) is np.float32


@case(X)
def p5_fn_sum_of_arrays_builtin(x):
    return sum([x, x, x]), sum((x[0], x[1]), start=x[2])


@case(X)
def p5_fn_max_min_of_shape(x):
    return max(x.shape), min(x.shape), max(*x.shape, 2), min(x.shape, default=0)


@case(X)
def p5_fn_negative_step_slicing(x):
    return x[::-2], x[-1:0:-1], x[:, -2::-2]


@case(X)
def p5_fn_ellipsis_none_indexing(x):
    return x[None, ..., None].shape, x[..., 0], x[np.newaxis].shape


@case(X)
def p5_fn_chained_methods(x):
    return x.T.reshape(2, 6).sum(0).astype(np.float64).round(2)


@case(X)
def p5_fn_unary_operators(x):
    return -x, +x, abs(x), ~(x > 0), not x.size


@case(X)
def p5_fn_comparison_operators_return_arrays(x):
    return x < 0, x <= 0, x == 0, x != 0, x >= 0, x > 0


@case(X)
def p5_fn_matmul_operator_and_rmatmul(x):
    return x @ x.T, x.T @ x, [[1.0, 2.0, 3.0]] @ x


@case(X)
def p5_fn_floordiv_mod_arrays(x):
    return x // 0.5, x % 0.5, np.fmod(x, 0.5), divmod(x, 0.75)


@case(X)
def p5_fn_power_and_rpow(x):
    return x ** 2, 2 ** x, x ** 0.5, np.float32(2) ** x


@case(X)
def p5_fn_python_list_of_arrays_to_stack(x):
    rows = [x[i] * i for i in range(x.shape[0])]
    return np.stack(rows), np.concatenate(rows), np.vstack(rows[:2])


@case(X)
def p5_fn_local_function_with_default_from_enclosing(x):
    k = 3

    def f(v, k=k):
        return v * k
    k = 5
    return f(x), k


@case(X)
def p5_fn_lambda_returning_tuple(x):
    f = lambda v: (v.min(), v.max())  # noqa: E731
    lo, hi = f(x)
    return (x - lo) / (hi - lo)


@case(X)
def p5_fn_starred_call_with_generator_of_arrays(x):
    return np.add(*(x[i] for i in range(2))), max(*(r.sum() for r in x))


@case(X)
def p5_fn_nested_function_modifies_enclosing_list(x):
    out = []

    def push(v):
        out.append(v)
        return len(out)
    n = [push(r) for r in x]
    return n, out[-1]


@case(X)
def p5_fn_return_inside_with_suppress(x):
    import contextlib
    with contextlib.suppress(ZeroDivisionError):
        return x / 0.0 + (1 / 0)
    return "suppressed"


@case(X)
def p5_fn_inline_assert_shape(x):
    assert x.ndim == 2, "need 2d"
    assert x.shape[1] % 2 == 0
    return x.reshape(x.shape[0], 2, -1)


@case(X)
def p5_fn_keyword_only_and_defaults(x):
    def f(a, *, scale=2, shift=0):
        return a * scale + shift
    return f(x), f(x, shift=1), f(x, scale=0.5, shift=-1)


@case(X)
def p5_fn_positional_only_params(x):
    def f(a, b=1, /, c=2):
        return a * b + c
    return f(x), f(x, 3), f(x, 3, c=0), f(x, c=1)


@case(X)
def p5_fn_varargs_empty_and_many(x):
    def f(*args, **kw):
        return len(args), sorted(kw), sum(args, x)
    return f(), f(1, 2), f(x, a=1, b=2)


@case(X)
def p5_fn_function_attribute_set_and_read(x):
    def f(v):
        return v * f.k
    f.k = 3
    return f(x), f.k, hasattr(f, "k")


@case(X)
def p5_fn_ndarray_subclass_view_type(x):
    class Sub(np.ndarray):
        pass
    s = x.view(Sub)
    return type(s + 1).__name__, type(np.asarray(s)).__name__, (s + 1).view(np.ndarray)


@case(X)
def p5_fn_np_dtype_equality_forms(x):
    return x.dtype == "float32", x.dtype == np.float32, x.dtype is np.dtype("float32"), x.dtype.name


@case(X)
def p5_fn_shape_tuple_arith(x):
    s = x.shape
    return s + (1,), s[::-1], s * 2, (1,) + s[1:], tuple(d * 2 for d in s)


@case(X)
def p5_fn_enumerate_over_arrays_with_start(x):
    return [(i, r.sum()) for i, r in enumerate(x, 10)]


@case(X)
def p5_fn_zip_arrays_and_python(x):
    return [r * w for r, w in zip(x, [1.0, 2.0, 3.0])]


@case(X)
def p5_fn_dict_of_arrays_comprehension_order(x):
    d = {f"r{i}": r for i, r in enumerate(x)}
    return list(d), d["r2"] + d["r0"]


@case(X)
def p5_fn_str_formatting_of_numpy_values(x):
    return "%.2f" % x.sum(), "{:.3}".format(x.mean()), f"{x.shape}", f"{x.dtype!s}"


@case(X)
def p5_fn_hash_of_numpy_scalars_and_tuples(x):
    return hash(x.shape) == hash((3, 4)), hash(np.int64(5)) == hash(5)


@case(X)
def p5_fn_global_constant_tuple_indexing(x):
    return x[_P5_IDX], x[_P5_IDX[0]]


_P5_IDX = (1, slice(None, 2))


@case(X)
def p5_fn_walrus_in_while(x):
    out, i = [], 0
    while (s := x[i].sum()) < 2 and i < 2:
        out.append(s)
        i += 1
    return out, i


@case(X)
def p5_fn_try_except_else_finally_values(x):
    log = []
    try:
        y = x + 1
    except Exception:
        log.append("except")
    else:
        log.append("else")
    finally:
        log.append("finally")
    return y, log


@case(X)
def p5_fn_del_then_rebind(x):
    y = x * 2
    del y
    y = x * 3
    return y


@case(X)
def p5_fn_global_in_nested_function_read(x):
    def f():
        return _P5_SEQ_CONST
    return x * len(f())


_P5_SEQ_CONST = (1, 2, 3)


@case(X)
def p5_fn_numpy_constants(x):
    return x * np.pi, np.e, np.inf > 1e308, np.isnan(np.nan), np.newaxis is None


@case(X)
def p5_fn_round_builtin_on_arrays_and_scalars(x):
    return round(x.sum(), 2), np.round(x, 1), round(float(x.mean())), type(round(x.sum()))


@case(X)
def p5_fn_abs_and_neg_on_int_min(x):
    a = np.int8(-128)
    return abs(x).sum(), type(abs(np.int64(-3))), -np.int64(2)


@case(X)
def p5_fn_object_identity_comparisons(x):
    y = x
    z = x.view()
    return y is x, z is x, z.base is x, (x + 0) is x


@case(X)
def p5_fn_list_of_shapes_max_by_key(x):
    arrs = [x, x[:1], x.T]
    return max(arrs, key=lambda a: a.shape[0]).shape, min(arrs, key=len).shape


@case(X)
def p5_fn_sorted_arrays_by_sum(x):
    rows = list(x)
    return [r.sum() for r in sorted(rows, key=lambda r: -r.sum())]


@case(X)
def p5_fn_any_all_builtin_on_generator_of_numpy_bools(x):
    return any(r.sum() > 1 for r in x), all(r.min() > -5 for r in x)


# -- a small reverse-mode autodiff in Python (Dynamo test_python_autograd) ------------

class _P5Var:
    def __init__(self, value, parents=()):
        self.value = value
        self.parents = parents   # (var, local gradient fn) pairs

    def __add__(self, other):
        return _P5Var(self.value + other.value, ((self, lambda g: g), (other, lambda g: g)))

    def __mul__(self, other):
        return _P5Var(self.value * other.value,
                      ((self, lambda g: g * other.value), (other, lambda g: g * self.value)))

    def sum(self):
        return _P5Var(self.value.sum(), ((self, lambda g: g * np.ones_like(self.value)),))


def _p5_grad(out, wrt):
    grads = {id(out): np.ones_like(out.value)}
    order, seen = [], set()

    def visit(v):
        if id(v) in seen:
            return
        seen.add(id(v))
        for p, _ in v.parents:
            visit(p)
        order.append(v)
    visit(out)
    for v in reversed(order):
        g = grads.get(id(v))
        if g is None:
            continue
        for p, fn in v.parents:
            grads[id(p)] = grads.get(id(p), 0) + fn(g)
    return [grads.get(id(w)) for w in wrt]


@case(X)
def p5_ag_product_rule(x):
    a, b = _P5Var(x), _P5Var(x * 2)
    return _p5_grad((a * b).sum(), [a, b])


@case(X)
def p5_ag_shared_input_accumulates(x):
    a = _P5Var(x)
    return _p5_grad((a * a + a).sum(), [a])


@case(V)
def p5_ag_chain_of_three(v):
    a = _P5Var(v)
    b = a * a
    c = b * a
    return _p5_grad(c.sum(), [a, b])


@case(X)
def p5_ag_unused_input_has_no_grad(x):
    a, b = _P5Var(x), _P5Var(x + 1)
    return _p5_grad((a * a).sum(), [a, b])


@case(X)
def p5_ag_value_and_grad_tuple(x):
    a = _P5Var(x)
    out = (a * _P5Var(np.float32(3.0))).sum()
    return out.value, _p5_grad(out, [a])[0]


@case(X)
def p5_ag_gradient_descent_steps(x):
    w = x.copy()
    for _ in range(3):
        a = _P5Var(w)
        g, = _p5_grad((a * a).sum(), [a])
        w = w - 0.1 * g
    return w


# -- model outputs (Dynamo test_model_output) ------------------------------------------

class _P5ModelOutput(collections.OrderedDict):
    """Keys in insertion order, None fields dropped, indexable by position too."""

    def __init__(self, **kw):
        super().__init__((k, v) for k, v in kw.items() if v is not None)

    def __getitem__(self, k):
        if isinstance(k, str):
            return super().__getitem__(k)
        return tuple(self.values())[k]

    def to_tuple(self):
        return tuple(self.values())


@case(X)
def p5_mo_build_and_index(x):
    out = _P5ModelOutput(logits=x * 2, hidden=None, loss=x.sum())
    return out["logits"], out[1], list(out), len(out)


@case(X)
def p5_mo_to_tuple_and_unpack(x):
    logits, loss = _P5ModelOutput(logits=x, loss=x.mean()).to_tuple()
    return logits + loss


@case(X)
def p5_mo_returned_object(x):
    return _P5ModelOutput(a=x + 1, b=None, c=3)


@case(X)
def p5_mo_setitem_after_build(x):
    out = _P5ModelOutput(a=x)
    out["b"] = x * 2
    return out[-1], list(out.keys())


@dataclasses.dataclass
class _P5Output:
    logits: np.ndarray
    loss: object = None
    extra: tuple = ()

    def __iter__(self):
        return iter(v for v in (self.logits, self.loss) if v is not None)


@case(X)
def p5_mo_dataclass_output_fields(x):
    out = _P5Output(x * 3, loss=x.sum())
    a, b = out
    return a, b, dataclasses.astuple(out)[1], dataclasses.fields(out)[0].name


@case(X)
def p5_mo_dataclass_output_replace(x):
    out = dataclasses.replace(_P5Output(x), loss=x.max())
    return out.loss, out.extra, out.logits is x


@case(X)
def p5_mo_dataclass_asdict_nested(x):
    out = _P5Output(x[:1], extra=(1, 2))
    d = dataclasses.asdict(out)
    return sorted(d), d["extra"], d["logits"] is out.logits


@case(X)
def p5_mo_namedtuple_output_replace(x):
    Out = collections.namedtuple("Out", ["a", "b"], defaults=[None])
    o = Out(x)
    o2 = o._replace(b=x + 1)
    return o.b, o2.b, o2._asdict()["a"] is x, Out._fields


# -- higher-order functions (Dynamo test_higher_order_ops; cond / map / scan in Python) --

def _p5_cond(pred, true_fn, false_fn, *ops):
    return true_fn(*ops) if pred else false_fn(*ops)


@case(X)
def p5_hof_cond_on_shape(x):
    return _p5_cond(x.shape[0] > 2, np.sin, np.cos, x)


@case(X)
def p5_hof_cond_on_data(x):
    return _p5_cond(x.sum() > 0, lambda a, b: a + b, lambda a, b: a - b, x, x * 2)


@case(X)
def p5_hof_cond_nested(x):
    return _p5_cond(x.ndim == 2,
                    lambda v: _p5_cond(v.shape[1] == 4, lambda w: w * 4, lambda w: w, v),
                    lambda v: v, x)


def _p5_map(fn, xs, *args):
    return np.stack([fn(x, *args) for x in xs])


@case(X)
def p5_hof_map_rows(x):
    return _p5_map(lambda r, k: r * k, x, 2.0)


@case(X)
def p5_hof_map_with_closure(x):
    bias = x[0]
    return _p5_map(lambda r: r + bias, x[1:])


def _p5_scan(fn, init, xs):
    carry, ys = init, []
    for x in xs:
        carry, y = fn(carry, x)
        ys.append(y)
    return carry, np.stack(ys)


@case(X)
def p5_hof_scan_cumsum(x):
    return _p5_scan(lambda c, r: (c + r, c + r), np.zeros(4, np.float32), x)


@case(X)
def p5_hof_scan_with_two_carries(x):
    def step(c, r):
        s, m = c
        return (s + r, np.maximum(m, r)), s
    (s, m), ys = _p5_scan(step, (np.zeros(4, np.float32), x[0]), x)
    return s, m, ys


@case(X)
def p5_hof_reduce_with_lambda_over_arrays(x):
    return functools.reduce(lambda a, b: a * 0.5 + b, x), functools.reduce(np.maximum, x)


@case(X)
def p5_hof_compose_many(x):
    fns = [np.abs, np.sqrt, lambda v: v + 1, np.log]
    return functools.reduce(lambda acc, f: f(acc), fns, x)


@case(X)
def p5_hof_while_loop_functional(x):
    def while_loop(cond, body, val):
        while cond(val):
            val = body(val)
        return val
    return while_loop(lambda v: v[1] < 5, lambda v: (v[0] * 1.5, v[1] + 1), (x, 0))


@case(X)
def p5_hof_vmap_like_apply_along_axis(x):
    return np.apply_along_axis(lambda r: r - r.mean(), 1, x)


@case(X)
def p5_hof_fn_returning_fn_returning_array(x):
    def make(k):
        def f(v):
            return v * k
        return f
    return [make(k)(x).sum() for k in range(3)]


@case(X)
def p5_hof_map_builtin_over_two_lists_of_arrays(x):
    return list(map(np.add, list(x), list(x[::-1])))


@case(X)
def p5_hof_checkpoint_like_passthrough(x):
    def checkpoint(fn, *args, **kw):
        return fn(*args, **kw)
    return checkpoint(np.clip, x, a_min=-0.5, a_max=0.5)


# -- NumPy interop and unspecialized numbers (Dynamo test_misc numpy, test_unspec) -----

@case(X)
def p5_np_sum_of_python_list(x):
    return np.sum([1, 2, 3]), np.mean((1.0, 2.0)), np.max([x.shape[0], 7])


@case(X)
def p5_np_array_from_python_floats_dtype(x):
    a = np.array([1.0, 2.5])
    b = np.array([1, 2])
    return a.dtype, b.dtype, x[0, :2] + a, x[0, :2] + b


@case(X)
def p5_np_asarray_of_tuple_and_list_of_scalars(x):
    return np.asarray((x.sum(), x.max())), np.asarray([x[0, 0], 1])


@case(X)
def p5_np_einsum_forms(x):
    return np.einsum("ij->j", x), np.einsum("ij,kj->ik", x, x), np.einsum("ii", x[:, :3])


@case(X)
def p5_np_dot_inner_outer(x):
    v = x[0]
    return np.dot(v, v), np.inner(v, v), np.outer(v, v[:2]), np.vdot(v, v)


@case(X)
def p5_np_linalg_norms(x):
    return np.linalg.norm(x), np.linalg.norm(x, axis=1), np.linalg.norm(x, ord=1), np.linalg.norm(x, "fro")


@case(X)
def p5_np_ellipsis_setitem_on_copy(x):
    y = np.empty_like(x)
    y[...] = 3
    y[..., 0] = x[:, 0]
    return y


@case(X)
def p5_np_tolist_then_python(x):
    lst = x.tolist()
    return sum(lst[0]), type(lst[0][0]), len(lst), max(max(r) for r in lst)


@case(X)
def p5_np_item_forms(x):
    return x.item(0), x.item(1, 2), x[1].item(3), np.array(2.5).item(), type(x.item(0))


@case(X)
def p5_np_astype_int_and_bool(x):
    return x.astype(int).dtype, x.astype(bool), x.astype(float).dtype, x.astype(complex)[0, 0]


@case(X)
def p5_np_scalar_plus_python(x):
    a = np.int64(3) + 1
    b = np.float32(1.5) * 2
    c = np.float32(1.5) * 2.0
    return a, type(a), b, type(b), type(c), x * a


@case(X, 2.5)
def p5_unspec_float_arg_in_graph(x, f):
    return x * f + f, type(f * 2)


@case(X, 3)
def p5_unspec_int_arg_as_shape_and_value(x, n):
    return np.zeros(n, np.float32) + x[0, :1], x[:, :n] * n


@case(X, True)
def p5_unspec_bool_arg_arith(x, b):
    return x * b, b + 1, x[b]


@case(X, np.float32(0.5))
def p5_unspec_numpy_scalar_argument(x, s):
    return x * s, s * 2, type(s * 2), (x * s).dtype


@case(X, np.int64(2))
def p5_unspec_numpy_int_argument_indexing(x, k):
    return x[k], x[:k], np.roll(x, k), x.shape[0] > k


@case(X, 1e40)
def p5_unspec_large_float_overflows_float32(x, f):
    return (x * f).dtype, np.isinf(x.astype(np.float32) * np.float32(3e38)).any()


@case(X, -0.0)
def p5_unspec_negative_zero_argument(x, z):
    return np.copysign(1.0, z), x * z, str(z)


@case(X, 7)
def p5_unspec_int_arg_python_math(x, n):
    return math.factorial(n) % 97, x.sum() / n, n // 2, n / 2


@case(X)
def p5_np_where_three_forms(x):
    return np.where(x > 0, x, 0), np.where(x > 0, 1.0, -1.0).dtype, np.where([True, False], 1, 2)


@case(X)
def p5_np_logical_reductions(x):
    return np.logical_or.reduce(x > 0, axis=0), np.add.reduce(x, axis=1), np.multiply.accumulate(x[0])


@case(X)
def p5_np_ufunc_methods_outer_at(x):
    y = x.copy()
    np.add.at(y, (0, [0, 0, 1]), 1)
    return np.subtract.outer(x[0], x[1, :2]), y


@case(X)
def p5_np_sort_argsort_kinds(x):
    v = x.ravel()[::-1]
    return np.sort(v), np.argsort(v, kind="stable"), np.sort(x, axis=0), np.partition(v, 3)[3]


@case(X)
def p5_np_searchsorted_digitize(x):
    v = np.sort(x.ravel())
    return np.searchsorted(v, [0.0, 1.0]), np.digitize(x, [-1.0, 0.0, 1.0])


@case(X)
def p5_np_cumulative_and_diff(x):
    return np.cumsum(x, axis=1), np.diff(x), np.diff(x, n=2, axis=1), np.ediff1d(x[0])


@case(X)
def p5_np_stats(x):
    return np.median(x), np.percentile(x, 50), np.quantile(x, [0.25, 0.75]), np.ptp(x)


@case(X)
def p5_np_nan_functions(x):
    y = np.where(x > 1, np.nan, x)
    return np.nansum(y), np.nanmax(y), np.nanmean(y, axis=0), np.isnan(y).sum()


@case(X)
def p5_np_shape_manipulations(x):
    return (np.expand_dims(x, 0).shape, np.squeeze(x[None]).shape, np.moveaxis(x[None], 0, -1).shape,
            np.atleast_3d(x).shape, np.broadcast_to(x[0], (2, 4)))


@case(X)
def p5_np_split_forms(x):
    return np.array_split(x, 2, axis=1), np.hsplit(x, 2)[1], np.vsplit(x, [1])[0]


@case(X)
def p5_np_block_and_column_stack(x):
    return np.block([[x, x], [x, x]]).shape, np.column_stack([x[0], x[1]]), np.dstack([x, x]).shape


@case(X)
def p5_np_triangular_and_diag(x):
    return np.triu(x), np.tril(x, -1), np.diag(x), np.diag(x[0]), np.trace(x)


@case(X)
def p5_np_clip_with_arrays(x):
    return np.clip(x, x[0], x[0] + 1), x.clip(min=0), np.minimum(np.maximum(x, -1), 1)


@case(X)
def p5_np_rounding_family(x):
    return np.floor(x), np.ceil(x), np.trunc(x), np.rint(x), np.fix(x), np.around(x, 1)


@case(X)
def p5_np_exp_log_family(x):
    a = np.abs(x) + 1
    return np.exp2(x), np.expm1(x), np.log1p(a), np.log10(a), np.logaddexp(x, x)


@case(X)
def p5_np_hyperbolic_and_inverse(x):
    y = x / 4
    return np.tanh(x), np.arcsinh(x), np.arctan2(x, 1.0), np.arcsin(y), np.hypot(x, 2)


@case(I)
def p5_np_integer_ops(i):
    return np.gcd(i, 6), np.lcm(i, 4), np.left_shift(np.abs(i), 1), i & 3, np.invert(i)


@case(X)
def p5_np_isin_unique_counts(x):
    r = np.round(x)
    return np.unique(r, return_counts=True), np.isin(r, [0.0, 1.0]), np.union1d(r[0], r[1])


@case(X)
def p5_np_histogram_bincount(x):
    return np.histogram(x, bins=4)[0], np.bincount(np.abs(x * 4).astype(np.int64).ravel())


@case(X)
def p5_np_meshgrid_indices(x):
    a, b = np.meshgrid(x[0], x[:, 0])
    return a.shape, b, np.indices((2, 3)), np.ogrid[0:3, 0:2][1]


@case(X)
def p5_np_take_put_along(x):
    idx = np.argsort(x, axis=1)
    y = x.copy()
    np.put_along_axis(y, idx[:, :1], 0.0, axis=1)
    return np.take_along_axis(x, idx, axis=1), y


@case(X)
def p5_np_choose_select_piecewise(x):
    return (np.select([x < 0, x > 1], [x * -1, x * 2], default=0),
            np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 3]))


@case(X)
def p5_np_array_equal_family(x):
    return np.array_equal(x, x.copy()), np.array_equiv(x[0], x[:1]), np.allclose(x, x + 1)


@case(X)
def p5_np_count_nonzero_flatnonzero(x):
    return np.count_nonzero(x > 0), np.count_nonzero(x > 0, axis=0), np.flatnonzero(x > 1), np.argwhere(x > 1)


@case(X)
def p5_np_kron_cross(x):
    return np.kron(x[:2, :2], np.eye(2, dtype=np.float32)), np.cross(x[0, :3], x[1, :3])


@case(X)
def p5_np_linalg_solve_inv_det(x):
    a = x[:, :3] @ x[:, :3].T + np.eye(3, dtype=np.float32)
    return np.linalg.inv(a), np.linalg.det(a), np.linalg.solve(a, x[:, 0])


@case(X)
def p5_np_fft_roundtrip(x):
    f = np.fft.fft(x[0])
    return f, np.fft.ifft(f).real, np.fft.rfft(x, axis=1).shape


@case(X)
def p5_np_convolve_correlate(x):
    return np.convolve(x[0], [1.0, -1.0]), np.correlate(x[0], x[1][:2], "valid")


@case(X)
def p5_np_pad_modes(x):
    return np.pad(x, 1), np.pad(x, ((0, 1), (2, 0)), mode="edge"), np.pad(x[0], 2, mode="reflect")


@case(X)
def p5_np_interp_polyval(x):
    return np.interp(x, [-1.0, 0.0, 1.0], [0.0, 1.0, 0.0]), np.polyval([1.0, -2.0, 1.0], x)


@case(X)
def p5_np_dtype_promotion_results(x):
    i8 = np.int8(3)
    u8 = np.uint8(200)
    return (i8 + u8).dtype, (x + np.float16(1)).dtype, (x.astype(np.int32) + 2**40).dtype, np.result_type(i8, 1.0)


@case(X)
def p5_np_finfo_iinfo_values(x):
    fi = np.finfo(x.dtype)
    return fi.eps, fi.max, np.iinfo(np.int16).min, x.clip(fi.min, fi.max).dtype


@case(X)
def p5_np_copy_semantics(x):
    a = np.array(x)
    b = np.asarray(x)
    c = np.asanyarray(x)
    return a is x, b is x, c is x, np.shares_memory(a, x)


@case(X)
def p5_np_flags_and_strides_of_views(x):
    t = x.T
    return t.flags["C_CONTIGUOUS"], t.flags["F_CONTIGUOUS"], t.strides, np.ascontiguousarray(t).strides


@case(X)
def p5_np_full_like_and_friends_dtypes(x):
    return (np.full_like(x, 7).dtype, np.zeros_like(x, dtype=np.int32), np.ones_like(x[0]),
            np.empty_like(x).shape, np.full((2,), 1.5, dtype=np.float32))


@case(X)
def p5_np_eye_identity_tri(x):
    return np.eye(3, 4, k=1, dtype=x.dtype), np.identity(2), np.tri(3, dtype=np.int32)


@case(X)
def p5_np_arange_dtypes(x):
    return np.arange(3).dtype, np.arange(3.0).dtype, np.arange(0, 1, 0.25), np.arange(x.shape[0], dtype=np.float32)


@case(X)
def p5_np_linspace_logspace_geomspace(x):
    return np.linspace(0, 1, 5, endpoint=False), np.logspace(0, 2, 3), np.geomspace(1, 8, 4)


@case(X)
def p5_np_errstate_over_invalid_local(x):
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.log(x)
        z = x / 0
    return y, z


@case(X)
def p5_np_random_default_rng_seeded_each_call(x):
    rng = np.random.default_rng(7)
    return x + rng.standard_normal(x.shape).astype(np.float32), rng.integers(0, 10, 3)


@case(X)
def p5_np_vectorize_user_fn(x):
    f = np.vectorize(lambda v: v * 2 if v > 0 else 0.0, otypes=[np.float32])
    return f(x)


@case(X)
def p5_np_frompyfunc_object_result(x):
    f = np.frompyfunc(lambda a, b: a + b, 2, 1)
    return f(x[0], 1).dtype, f(x[0], 1).astype(np.float32)


@case(X)
def p5_np_record_like_structured_local(x):
    dt = np.dtype([("a", np.float32), ("b", np.int32)])
    r = np.zeros(3, dtype=dt)
    r["a"] = x[:, 0]
    r["b"] = [1, 2, 3]
    return r, r["a"] * r["b"], r[1]["b"]


@case(X)
def p5_np_string_and_char_arrays(x):
    s = np.array(["a", "bb", "ccc"])
    return s.dtype, np.char.upper(s), np.char.str_len(s) * x[0, :3]


@case(X)
def p5_np_datetime_local_arith(x):
    d = np.datetime64("2024-01-01") + np.arange(3)
    return d, (d[-1] - d[0]).astype(int), np.busday_count("2024-01-01", "2024-01-08")


@case(X)
def p5_np_complex_roundtrip(x):
    z = x + 1j * x[::-1]
    return z.real, z.imag, np.abs(z), np.angle(z), np.conj(z).dtype


@case(X)
def p5_np_matrix_power_and_norm_of_product(x):
    a = x[:, :3]
    return np.linalg.matrix_power(a, 3), np.linalg.matrix_rank(a), np.linalg.norm(a @ a.T, 2) >= 0


@case(X)
def p5_np_svd_qr_eigh_shapes(x):
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    q, r = np.linalg.qr(x)
    w = np.linalg.eigvalsh(x @ x.T)
    return u.shape, s.dtype, q.shape, r.shape, w.shape


@case(X)
def p5_np_save_to_bytesio_roundtrip(x):
    import io
    buf = io.BytesIO()
    np.save(buf, x)
    buf.seek(0)
    return np.load(buf) + 1


# -- builtin dispatch (Paddle test_builtin_dispatch, test_builtin_bool/range/zip/map) ---

@case(X)
def p5_bi_len_of_array_list_dict_str_range(x):
    return len(x), len(list(x)), len({"a": x}), len("abc"), len(range(2, 9, 3)), len(x[0])


@case(X)
def p5_bi_bool_of_containers_and_objects(x):
    class Falsy:
        def __bool__(self):
            return False

    class Sized:
        def __len__(self):
            return 0
    return bool([]), bool([x]), bool(Falsy()), bool(Sized()), bool(x.shape), bool(x[:0].shape[0])


@case(X)
def p5_bi_if_on_user_len(x):
    class Box:
        def __init__(self, items):
            self.items = items

        def __len__(self):
            return len(self.items)
    b = Box([x, x])
    return (x * len(b)) if b else x


@case(X)
def p5_bi_range_negative_step_and_index(x):
    r = range(10, 0, -3)
    return list(r), r[1], r[-1], 4 in r, r.index(7), [x[i % 3] for i in r][0]


@case(X)
def p5_bi_range_from_numpy_ints(x):
    n = x.shape[0]
    return list(range(np.int64(1), n)), range(n)[np.int64(2)]


@case(X)
def p5_bi_zip_three_with_arrays(x):
    return [a + b * c for a, b, c in zip(x, x[::-1], (1, 2, 3))]


@case(X)
def p5_bi_zip_star_transpose(x):
    rows = [(1, x[0]), (2, x[1])]
    a, b = zip(*rows)
    return a, np.stack(b)


@case(X)
def p5_bi_map_with_builtin_and_user_fn(x):
    return list(map(len, [x, x[0], "ab"])), list(map(lambda r: r.max(), x))


@case(X)
def p5_bi_filter_arrays_by_predicate(x):
    return [r.sum() for r in filter(lambda r: r.sum() > 0, x)]


@case(X)
def p5_bi_enumerate_zip_nested(x):
    return [(i, j, a * b) for i, (j, (a, b)) in enumerate(enumerate(zip(x[0], x[1])))][:2]


@case(X)
def p5_bi_iter_with_sentinel(x):
    vals = iter([1, 2, 3, 0, 5])
    return list(iter(lambda: next(vals), 0)), x[0]


@case(X)
def p5_bi_next_on_map_and_zip(x):
    m = map(np.negative, x)
    z = zip(x, x)
    return next(m), next(z)[1], next(m).sum()


@case(X)
def p5_bi_isinstance_of_numpy_types(x):
    return (isinstance(x, np.ndarray), isinstance(x[0, 0], np.floating), isinstance(x[0, 0], float),
            isinstance(x.sum(), np.generic), isinstance(x.shape[0], np.integer))


@case(X)
def p5_bi_issubclass_numpy_hierarchy(x):
    return (issubclass(x.dtype.type, np.floating), issubclass(np.int8, np.signedinteger),
            issubclass(np.bool_, np.number), np.issubdtype(x.dtype, np.inexact))


@case(X)
def p5_bi_type_constructors_on_numpy(x):
    return float(x[0, 0]), int(x.shape[0]), complex(x[0, 1]), bool(x[0, 0]), str(x.dtype)


@case(X)
def p5_bi_hasattr_getattr_setattr_delattr(x):
    class O:
        pass
    o = O()
    setattr(o, "v", x)
    a = hasattr(o, "v")
    delattr(o, "v")
    return a, hasattr(o, "v"), getattr(o, "v", None)


@case(X)
def p5_bi_sum_min_max_of_dict_views(x):
    d = {"a": 1, "b": 5, "c": 3}
    return sum(d.values()), max(d, key=d.get), min(d.items(), key=lambda kv: kv[1]), x * max(d.values())


@case(X)
def p5_bi_sorted_dict_items_multi_key(x):
    d = {"b": 2, "a": 2, "c": 1}
    return sorted(d.items(), key=lambda kv: (-kv[1], kv[0])), x[0]


@case(X)
def p5_bi_reversed_on_range_tuple_dict(x):
    return list(reversed(range(3))), list(reversed((1, 2))), list(reversed({"a": 1, "b": 2})), x[::-1][0]


@case(X)
def p5_bi_divmod_on_numpy_scalars(x):
    q, r = divmod(x.sum(), 2)
    return q, r, type(q), divmod(np.int64(7), 2)


@case(X)
def p5_bi_pow_three_arg_and_negative(x):
    return pow(2, -1), pow(2.0, 3), pow(-8, 2, 5), x ** pow(2, 1)


@case(X)
def p5_bi_chr_ord_from_shape(x):
    return chr(ord("a") + x.shape[0]), ord("z") - x.shape[1]


@case(X)
def p5_bi_id_based_dedup(x):
    arrs = [x, x, x + 0, x]
    seen = {}
    for a in arrs:
        seen.setdefault(id(a), a)
    return len(seen)


@case(X)
def p5_bi_print_with_numpy_values(x):
    print(x.shape, x.dtype, x.sum(), sep=" | ")
    print("row", x[0])
    return x


@case(X)
def p5_bi_repr_of_numpy_scalars(x):
    return repr(x.sum()), repr(np.int32(3)), repr(x.dtype), str(np.float64(0.1))


@case(X)
def p5_bi_format_specs_on_numpy(x):
    return format(x.sum(), ".3f"), format(np.int64(255), "x"), f"{x[0, 0]:+.1e}"


@case(X)
def p5_bi_all_any_empty_and_arrays(x):
    return all([]), any([]), all(x[0] == x[0]), any(x[0] > 100)


@case(X)
def p5_bi_abs_on_user_object(x):
    class A:
        def __abs__(self):
            return x * 2
    return abs(A())


@case(X)
def p5_bi_len_on_user_object_returning_numpy_int(x):
    class L:
        def __len__(self):
            return np.int64(3)
    return len(L()), x[: len(L())]


@case(X)
def p5_bi_round_ndigits_negative(x):
    return round(1234.5678, -2), round(1234, -2), np.round(x * 1000, -2)


@case(X)
def p5_bi_min_max_with_nan(x):
    y = [1.0, float("nan"), 0.5]
    return min(y), max(y), np.nanmin(np.array(y)), x.min()


# -- in-place APIs (Paddle test_inplace_api) ------------------------------------------

@case(X)
def p5_ip_method_returns_none_or_self(x):
    y = x.copy()
    r1 = y.sort(axis=1)
    r2 = y.resize((3, 4), refcheck=False)
    return r1, r2, y


@case(X)
def p5_ip_out_chain(x):
    y = np.empty_like(x)
    np.multiply(x, 2, out=y)
    np.add(y, 1, out=y)
    np.sqrt(np.abs(y), out=y)
    return y


@case(X)
def p5_ip_setitem_with_mask_then_compute(x):
    y = x.copy()
    y[y < 0] = 0
    y[:, 0] += 10
    return y * 2


@case(X)
def p5_ip_argument_inplace_then_return_other(x):
    x *= 2
    return x.sum()


@case(X)
def p5_ip_argument_setitem_slice_from_self(x):
    x[1:] = x[:-1]
    return x


@case(X)
def p5_ip_argument_reversed_assign_overlap(x):
    x[:] = x[::-1]
    return x


@case(X)
def p5_ip_inplace_in_callee_on_argument(x):
    def scale(a, k):
        a *= k
    scale(x, 3)
    return x + 1


@case(X)
def p5_ip_inplace_view_in_callee(x):
    def zero_row(a, i):
        a[i] = 0
    zero_row(x, 1)
    return x.sum(), x


@case(X)
def p5_ip_copyto_where(x):
    y = np.zeros_like(x)
    np.copyto(y, x, where=x > 0)
    return y


@case(X)
def p5_ip_place_putmask(x):
    y = x.copy()
    np.place(y, y > 0.5, [9.0])
    z = x.copy()
    np.putmask(z, z < 0, z * 10)
    return y, z


@case(X)
def p5_ip_clip_out_self(x):
    y = x.copy()
    np.clip(y, -0.5, 0.5, out=y)
    return y


@case(X)
def p5_ip_cumsum_out(x):
    y = np.empty_like(x)
    np.cumsum(x, axis=1, out=y)
    return y


@case(X)
def p5_ip_inplace_int_array_from_float_rhs(x):
    a = np.arange(4)
    a += 2
    a[1] = 3.9
    return a, a.dtype


@case(X)
def p5_ip_augassign_on_tuple_element_array(x):
    t = (x.copy(), 1)
    t[0][:] += 1
    return t


@case(X)
def p5_ip_flat_setitem(x):
    y = x.copy()
    y.flat[::3] = -1
    y.flat[1] = 7
    return y


@case(X)
def p5_ip_itemset_via_index_tuple(x):
    y = x.copy()
    y[(1, 2)] = 100
    y[[0, 2], [1, 3]] = -100
    return y


@case(X)
def p5_ip_inplace_on_global_array(x):
    _P5_GLOBAL_BUF[...] = 0
    _P5_GLOBAL_BUF[: x.shape[0]] += x[:, 0]
    return _P5_GLOBAL_BUF.copy()


_P5_GLOBAL_BUF = np.zeros(5, dtype=np.float32)


@case(X)
def p5_ip_inplace_attr_array(x):
    class M:
        pass
    m = M()
    m.w = np.ones_like(x)
    m.w -= x
    m.w[0] = 0
    return m.w


# -- list / tuple / dict ops (Dynamo test_list, test_tuple, test_dict; Paddle 03-05) ---

@case(X)
def p5_ct_list_contains_uses_eq_then_identity(x):
    lst = [1, "a", None]
    return 1.0 in lst, "a" in lst, None in lst, x.shape[0] in [3, 4]


@case(X)
def p5_ct_list_index_count_mixed_types(x):
    lst = [1, 1.0, True, "1", (1,)]
    return lst.count(1), lst.index(True), lst.index("1"), x * lst.count((1,))


@case(X)
def p5_ct_list_mul_and_add_order(x):
    a = [x.shape[0]] * 2 + [0]
    return a, 2 * [1, 2], a[::-1] + a


@case(X)
def p5_ct_list_compare_lexicographic(x):
    return [1, 2] < [1, 2, 0], [2] > [1, 9], [1, [2]] == [1, [2]], list(x.shape) == [3, 4]


@case(X)
def p5_ct_list_slice_copy_then_mutate(x):
    a = [x, 1, 2]
    b = a[:]
    b[1] = 5
    return a[1], b[1], a[0] is b[0]


@case(X)
def p5_ct_list_extend_with_generator_and_range(x):
    a = []
    a.extend(r.sum() for r in x)
    a.extend(range(2))
    a += "ab"
    return a


@case(X)
def p5_ct_list_pop_negative_and_insert_front(x):
    a = list(range(6))
    a.insert(0, a.pop(-2))
    return a, x[a[0] % 3]


@case(X)
def p5_ct_list_sort_tuples_and_strings(x):
    a = [(2, "b"), (1, "z"), (2, "a")]
    a.sort()
    s = sorted(["b", "A", "a"], key=str.lower)
    return a, s, x[0]


@case(X)
def p5_ct_list_copy_method_and_identity(x):
    a = [x]
    b = a.copy()
    return b is a, b[0] is x, b == a


@case(X)
def p5_ct_nested_list_comprehension_of_arrays(x):
    return [[c * r for c in range(2)] for r in x][2][1]


@case(X)
def p5_ct_tuple_methods_and_unpack_star(x):
    t = tuple(x)
    first, *rest = t
    return len(rest), first + rest[-1], len(t)


@case(X)
def p5_ct_tuple_in_tuple_compare(x):
    return ((1, 2), 3) < ((1, 2), 4), (x.shape, x.ndim) == ((3, 4), 2)


@case(X)
def p5_ct_tuple_hashable_as_key_with_shape(x):
    cache = {}
    cache[x.shape] = x.sum()
    cache[(x.shape, x.dtype.str)] = 1
    return cache[(3, 4)], len(cache)


@case(X)
def p5_ct_tuple_concatenate_in_loop(x):
    t = ()
    for r in x:
        t += (r.max(),)
    return t


@case(X)
def p5_ct_dict_comprehension_with_condition(x):
    return {i: r for i, r in enumerate(x) if r.sum() > 0}


@case(X)
def p5_ct_dict_get_with_array_default(x):
    d = {"a": x}
    return d.get("a") is x, d.get("b", x + 1), d.get("b")


@case(X)
def p5_ct_dict_keys_set_ops(x):
    a = {"x": 1, "y": 2}
    b = {"y": 3, "z": 4}
    return sorted(a.keys() & b.keys()), sorted(a.keys() | b.keys()), sorted(a.keys() - b), x[0]


@case(X)
def p5_ct_dict_items_in_and_eq(x):
    d = {"a": 1}
    return ("a", 1) in d.items(), d.items() == {"a": 1}.items(), list(d.values()) == [1], x


@case(X)
def p5_ct_dict_merge_operators(x):
    a = {"a": 1}
    b = a | {"b": x}
    a |= {"c": 3}
    return sorted(a), list(b), b["b"] is x


@case(X)
def p5_ct_dict_from_zip_and_kwargs(x):
    d = dict(zip("abc", x))
    e = dict(d, z=0)
    return list(e), e["b"] is d["b"]


@case(X)
def p5_ct_dict_int_float_bool_key_collapse(x):
    d = {1: "int"}
    d[1.0] = "float"
    d[True] = "bool"
    return d, len(d), x


@case(X)
def p5_ct_dict_reversed_and_popitem_order(x):
    d = {k: i for i, k in enumerate("abcd")}
    return list(reversed(d)), d.popitem(), list(d), x.shape


@case(X)
def p5_ct_dict_of_lists_append_then_sum(x):
    groups = collections.defaultdict(list)
    for i, r in enumerate(x):
        groups[i % 2].append(r)
    return {k: np.sum(v, axis=0) for k, v in groups.items()}


@case(X)
def p5_ct_set_of_tuples_from_shape(x):
    s = {x.shape, (3, 4), (4, 3)}
    return len(s), (3, 4) in s


@case(X)
def p5_ct_frozenset_ops(x):
    a = frozenset({1, 2})
    b = a | {3}
    return type(b).__name__, sorted(b), a <= b, x[len(b) - 1]


@case(X)
def p5_ct_list_of_dicts_sort_by_value(x):
    rows = [{"k": r.sum(), "i": i} for i, r in enumerate(x)]
    rows.sort(key=lambda d: d["k"])
    return [d["i"] for d in rows]


@case(X)
def p5_ct_chained_subscripts_and_slices(x):
    data = {"a": [x, (x[0], {"b": x[1]})]}
    return data["a"][1][1]["b"], data["a"][0][1:][0]


@case(X)
def p5_ct_unpack_dict_into_call(x):
    def f(a, b, c=0):
        return a * b + c
    d = {"b": 2, "a": x}
    return f(**d), f(**d, c=1)


@case(X)
def p5_ct_list_del_slice_and_extended_step(x):
    a = list(range(10))
    del a[1:3]
    del a[::2]
    return a, x[a[0] % 3]


@case(X)
def p5_ct_list_setitem_negative_index(x):
    a = [x, x, x]
    a[-1] = x * 2
    a[-3] = None
    return a


@case(X)
def p5_ct_enumerate_dict_items(x):
    d = {"a": x[0], "b": x[1]}
    return [(i, k, v.sum()) for i, (k, v) in enumerate(d.items())]


# -- sources and guards on nested places (Dynamo test_sources, test_guard_manager) -----

class _P5Inner:
    def __init__(self):
        self.w = np.full((4,), 2.0, dtype=np.float32)
        self.cfg = {"k": 3}
        self.layers = [np.ones(4, np.float32), np.zeros(4, np.float32)]


class _P5Outer:
    def __init__(self):
        self.inner = _P5Inner()
        self.name = "outer"


@case(X, _P5Outer())
def p5_src_nested_attribute_array(x, o):
    return x * o.inner.w


@case(X, _P5Outer())
def p5_src_nested_attr_dict_item(x, o):
    return x ** o.inner.cfg["k"]


@case(X, _P5Outer())
def p5_src_nested_list_item_array(x, o):
    return x + o.inner.layers[0] - o.inner.layers[-1]


@case(X, _P5Outer())
def p5_src_loop_over_nested_list(x, o):
    for w in o.inner.layers:
        x = x * 2 + w
    return x


@case(X, _P5Outer())
def p5_src_nested_attr_written(x, o):
    o.inner.w = o.inner.w + x[0]
    o.inner.cfg["k"] += 1
    return o.inner.w, o.inner.cfg


@case(X, _P5Outer())
def p5_src_str_attribute_in_fstring(x, o):
    return f"{o.name}:{x.shape}", o.name.upper()


@case(X, [[np.ones(4, np.float32)], {"a": (1, np.zeros(4, np.float32))}])
def p5_src_deep_container_argument(x, c):
    return x + c[0][0] + c[1]["a"][1], c[1]["a"][0]


@case(X)
def p5_src_global_nested_attribute(x):
    return x * _P5_GOUTER.inner.w + _P5_GOUTER.inner.cfg["k"]


_P5_GOUTER = _P5Outer()


@case(X)
def p5_src_class_attribute_via_type_of_instance(x):
    return x * type(_P5_GOUTER.inner).__name__.count("I"), type(_P5_GOUTER).__module__.endswith("peer5")


@case(X)
def p5_src_function_globals_and_closure(x):
    k = 2

    def f(v):
        return v * k
    return f(x), f.__code__.co_freevars, f.__closure__[0].cell_contents


@case(X)
def p5_src_dict_keys_iteration_from_attribute(x, o=None):
    o = _P5Outer()
    return {k: x * v for k, v in o.inner.cfg.items()}


@case(X)
def p5_src_getattr_with_computed_name(x):
    o = _P5Outer()
    names = ["w", "cfg"]
    return getattr(o.inner, names[0]) * x, getattr(o.inner, names[1])


@case(X)
def p5_src_array_attribute_of_array(x):
    return x.T.T is x, x.real is x, x.base is None, x.T.base is x


@case(X)
def p5_src_tuple_argument_of_arrays_nested(x, t=((X, 1), (X, 2))):
    return sum(a * k for a, k in t)


# -- repros (Dynamo test_repros, small versions of the model idioms) -------------------

@case(X)
def p5_rp_attention_like(x):
    q, k, v = x, x * 0.5, x + 1
    s = q @ k.T / np.sqrt(np.float32(q.shape[-1]))
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ v


@case(X)
def p5_rp_mlp_with_weights_in_dict(x):
    params = {"w1": np.ones((4, 8), np.float32) * 0.1, "b1": np.zeros(8, np.float32),
              "w2": np.ones((8, 2), np.float32) * 0.2}
    h = np.maximum(x @ params["w1"] + params["b1"], 0)
    return h @ params["w2"]


@case(X)
def p5_rp_batchnorm_like(x):
    mean = x.mean(axis=0)
    var = x.var(axis=0)
    return (x - mean) / np.sqrt(var + 1e-5) * 2 + 1


@case(X)
def p5_rp_gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


@case(X)
def p5_rp_cross_entropy(x):
    labels = np.array([0, 3, 1])
    logits = x - x.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -logp[np.arange(3), labels].mean()


@case(X)
def p5_rp_rotary_like(x):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    theta = np.arange(half, dtype=np.float32)
    return np.concatenate([x1 * np.cos(theta) - x2 * np.sin(theta), x1 * np.sin(theta) + x2 * np.cos(theta)], -1)


@case(X)
def p5_rp_masked_fill_causal(x):
    m = np.triu(np.ones((3, 3), dtype=bool), 1)
    s = x @ x.T
    s[m] = -np.inf
    return s


@case(X)
def p5_rp_running_stats_update(x):
    stats = {"mean": np.zeros(4, np.float32), "n": 0}
    for r in x:
        stats["n"] += 1
        stats["mean"] += (r - stats["mean"]) / stats["n"]
    return stats


@case(X)
def p5_rp_embedding_lookup_and_sum(x):
    table = np.arange(20, dtype=np.float32).reshape(5, 4)
    ids = [[0, 2], [4, 4], [1, 3]]
    return table[ids].sum(axis=1) * x


@case(X)
def p5_rp_residual_blocks_loop(x):
    ws = [np.eye(4, dtype=np.float32) * (i + 1) * 0.1 for i in range(3)]
    for w in ws:
        x = x + np.tanh(x @ w)
    return x


@case(X)
def p5_rp_topk_via_argpartition(x):
    v = x.ravel()
    idx = np.argpartition(-v, 3)[:3]
    return np.sort(v[idx])[::-1]


@case(X)
def p5_rp_l2_normalize_eps(x):
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(n, 1e-12)


@case(X)
def p5_rp_dropout_eval_mode_identity(x):
    training = False
    if training:
        return x * (np.random.rand(*x.shape) > 0.5)
    return x


@case(X)
def p5_rp_pairwise_distances(x):
    d = x[:, None, :] - x[None, :, :]
    return np.sqrt((d ** 2).sum(-1))


@case(X)
def p5_rp_scatter_add_via_loop(x):
    out = np.zeros((2, 4), np.float32)
    for i, g in enumerate([0, 1, 0]):
        out[g] += x[i]
    return out


@case(X)
def p5_rp_shape_math_reshape_heads(x):
    b, d = x.shape
    heads = 2
    return x.reshape(b, heads, d // heads).transpose(1, 0, 2).reshape(heads, -1)


@case(X)
def p5_rp_sequence_of_python_scalars_from_graph(x):
    vals = [float(r.mean()) for r in x]
    return sum(vals) / len(vals), max(vals) - min(vals)


@case(X)
def p5_rp_clamp_grad_norm_like(x):
    total = np.sqrt(sum((g ** 2).sum() for g in x))
    coef = min(1.0, 0.5 / (float(total) + 1e-6))
    return [g * coef for g in x]


# -- layout that changes between calls: views or copies (Dynamo test_unspec strides, ---
# -- Paddle test_inplace_api): whether a write reaches the argument depends on it ------

@case(X)
def p5_lay_reshape_view_or_copy_write(x):
    x = np.asfortranarray(x) if _p5_phase() else x
    y = x.reshape(-1)
    y[0] = 99
    return x, np.shares_memory(x, y)


@case(X)
def p5_lay_ravel_view_or_copy_write(x):
    x = x.T if _p5_phase() else x
    r = x.ravel()
    r[1] = -7
    return x, r


@case(X)
def p5_lay_strided_slice_argument_between_calls(x):
    x = x[:, ::2] if _p5_phase() else x[:, :2]
    x += 1
    return x.flags["C_CONTIGUOUS"], x.strides, x


@case(X)
def p5_lay_global_array_becomes_view(x):
    global _P5_VIEWED
    _P5_VIEWED = _P5_BASE[::2] if _p5_phase() else _P5_BASE[:2].copy()
    _P5_VIEWED[0] = x[0, 0]
    return _P5_BASE.copy(), _P5_VIEWED.base is _P5_BASE


_P5_BASE = np.zeros((4, 4), dtype=np.float32)
_P5_VIEWED = _P5_BASE


@case(X)
def p5_lay_ascontiguous_identity_changes(x):
    x = x.T if _p5_phase() else x
    return np.ascontiguousarray(x) is x, np.asfortranarray(x) is x


@case(X)
def p5_lay_byteorder_changes_between_calls(x):
    x = x.astype(">f4") if _p5_phase() else x
    y = x * 2
    return y.dtype.str, y, x.dtype.byteorder


@case(X)
def p5_lay_zero_stride_broadcast_argument(x):
    x = np.broadcast_to(x[0], (3, 4)) if _p5_phase() else x
    return x + 1, x.strides, x.flags.writeable


@case(X)
def p5_lay_transpose_argument_reduction(x):
    x = x.T if _p5_phase() else x
    return x.sum(axis=0), x.cumsum(axis=1)[-1], x.shape


@case(X)
def p5_lay_negative_stride_argument(x):
    x = x[::-1] if _p5_phase() else x
    x[0, 0] = 100
    return x, x.strides[0] < 0


@case(X)
def p5_lay_copy_order_keeps_layout(x):
    x = np.asfortranarray(x) if _p5_phase() else x
    c = x.copy(order="K")
    d = np.copy(x)
    return c.flags["F_CONTIGUOUS"], d.flags["F_CONTIGUOUS"], c.strides, (x + 1).strides


@case(X)
def p5_lay_empty_like_keeps_order(x):
    x = np.asfortranarray(x) if _p5_phase() else x
    return np.empty_like(x).strides, np.zeros_like(x).flags["F_CONTIGUOUS"], np.ones_like(x, order="C").strides


# -- global NumPy state between calls (print options, errstate, scalars) --------------

@case(X)
def p5_gs_printoptions_in_with_change(x):
    with np.printoptions(precision=2 + 3 * _p5_phase()):
        return str(x[0] / 3), repr(x[1] / 7)


@case(X)
def p5_gs_seterr_between_calls(x):
    old = np.seterr(divide="raise" if _p5_phase() else "ignore")
    try:
        return x / 0
    except FloatingPointError as e:
        return str(e)
    finally:
        np.seterr(**old)


@case(X)
def p5_gs_global_numpy_scalar_value(x):
    global _P5_NSCALAR
    _P5_NSCALAR = np.float32(2 + _p5_phase())
    return x * _P5_NSCALAR, type(x.sum() * _P5_NSCALAR)


_P5_NSCALAR = np.float32(2)


@case(X)
def p5_gs_global_zero_d_vs_scalar(x):
    global _P5_NSCALAR
    _P5_NSCALAR = np.array(2.0) if _p5_phase() else np.float64(2.0)
    v = x.sum() * _P5_NSCALAR
    return v, type(v)


@case(X)
def p5_gs_global_numpy_int_type_changes(x):
    global _P5_NSCALAR
    _P5_NSCALAR = np.int8(100) if _p5_phase() else np.int64(100)
    return (np.int8(100) + _P5_NSCALAR), x[0, 0] * _P5_NSCALAR


@case(X)
def p5_gs_global_partial_args_change(x):
    global _P5_PART
    _P5_PART = functools.partial(np.clip, a_min=-1, a_max=0.5 + _p5_phase())
    return _P5_PART(x)


_P5_PART = None


@case(X)
def p5_gs_global_list_element_array_replaced(x):
    _P5_WS[0] = np.full(4, 1.0 + _p5_phase(), dtype=np.float32)
    return x * _P5_WS[0]


_P5_WS = [np.ones(4, dtype=np.float32)]


@case(X)
def p5_gs_global_list_element_dtype_changes(x):
    _P5_WS[0] = np.ones(4, dtype=np.float64 if _p5_phase() else np.float32)
    return (x * _P5_WS[0]).dtype


@case(X)
def p5_gs_dict_value_array_same_object_written(x):
    _P5_CFG2["w"][...] = 1 + _p5_phase()
    return x * _P5_CFG2["w"]


_P5_CFG2 = {"w": np.ones(4, dtype=np.float32)}


# -- classes whose state changes between calls (Dynamo test_recompiles, test_sources) ---

class _P5Base:
    k = 1


class _P5Child(_P5Base):
    pass


_P5_CHILD = _P5Child()


@case(X)
def p5_cls_base_class_attr_through_subclass(x):
    _P5Base.k = 1 + _p5_phase()
    return x * _P5_CHILD.k


@case(X)
def p5_cls_subclass_shadows_base_attr(x):
    if _p5_phase():
        _P5Child.k = 10
    elif "k" in _P5Child.__dict__:
        del _P5Child.k
    return x * _P5_CHILD.k


class _P5OtherChild(_P5Base):
    k = 5


@case(X)
def p5_cls_instance_class_reassigned(x):
    _P5_CHILD.__class__ = _P5OtherChild if _p5_phase() else _P5Child
    _P5Base.k = 1
    return x * _P5_CHILD.k, type(_P5_CHILD).__name__


class _P5Prop:
    def __init__(self):
        self._v = 1.0

    @property
    def v(self):
        return self._v * 2


_P5_PROP = _P5Prop()


@case(X)
def p5_cls_property_backing_value_changes(x):
    _P5_PROP._v = 1.0 + _p5_phase()
    return x * _P5_PROP.v


class _P5Slots:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1


_P5_SLOTS = _P5Slots()


@case(X)
def p5_cls_slot_set_and_unset(x):
    if _p5_phase():
        _P5_SLOTS.b = 3
    elif hasattr(_P5_SLOTS, "b"):
        del _P5_SLOTS.b
    return x * getattr(_P5_SLOTS, "b", _P5_SLOTS.a)


class _P5Counter:
    calls = 0

    def __call__(self, v):
        return v * self.calls


_P5_CALLABLE = _P5Counter()


@case(X)
def p5_cls_callable_instance_state(x):
    _P5_CALLABLE.calls = 1 + _p5_phase()
    return _P5_CALLABLE(x)


@case(X)
def p5_cls_dunder_method_patched_on_class(x):
    _P5Counter.__call__ = (lambda self, v: v - self.calls) if _p5_phase() else (lambda self, v: v * self.calls)
    _P5_CALLABLE.calls = 2
    return _P5_CALLABLE(x)


class _P5Meta(type):
    scale = 1


class _P5WithMeta(metaclass=_P5Meta):
    pass


@case(X)
def p5_cls_metaclass_attribute_changes(x):
    _P5Meta.scale = 1 + 2 * _p5_phase()
    return x * _P5WithMeta.scale


@case(X)
def p5_cls_classmethod_reads_changed_class_attr(x):
    class_ = _P5Base
    class_.k = 3 if _p5_phase() else 4
    return x + _P5Child.__mro__[1].k


# -- exceptions (Dynamo test_exceptions) ----------------------------------------------

@case(X)
def p5_exc_exc_info_cleared_after_handler(x):
    import sys
    try:
        raise ValueError("v")
    except ValueError:
        inside = sys.exc_info()[0]
    return inside, sys.exc_info(), x + 1


@case(X)
def p5_exc_traceback_present(x):
    try:
        x.reshape(5)
    except ValueError as e:
        return e.__traceback__ is not None, type(e).__name__
    return None


@case(X)
def p5_exc_context_on_error_in_handler(x):
    try:
        try:
            raise KeyError("a")
        except KeyError:
            raise ValueError("b")
    except ValueError as e:
        return type(e.__context__).__name__, e.__suppress_context__, x.sum()


@case(X)
def p5_exc_finally_continue_in_loop(x):
    out = []
    for i in range(3):
        try:
            if i == 1:
                raise RuntimeError
            out.append(x[i].sum())
        except RuntimeError:
            out.append("err")
        finally:
            if i == 0:
                continue
        out.append(i)
    return out


@case(X)
def p5_exc_return_in_try_overridden_by_finally(x):
    def f():
        try:
            return x + 1
        finally:
            return x - 1  # noqa: B012
    return f()


@case(X)
def p5_exc_exception_args_and_repr(x):
    try:
        raise ValueError("bad", x.shape)
    except ValueError as e:
        return e.args, repr(e), str(e)


@case(X)
def p5_exc_numpy_error_types(x):
    out = []
    for f in (lambda: x.reshape(7), lambda: x[9], lambda: np.linalg.inv(x), lambda: x.astype("nope")):
        try:
            f()
        except Exception as e:
            out.append(type(e).__name__)
    return out


@case(X)
def p5_exc_raise_in_generator_close(x):
    def g():
        try:
            yield x
        finally:
            log.append("closed")
    log = []
    it = g()
    v = next(it)
    it.close()
    return v, log


@case(X)
def p5_exc_user_exception_hierarchy_dispatch(x):
    class Base(Exception):
        pass

    class A(Base):
        pass

    def f(k):
        if k:
            raise A(k)
        return x * 2
    try:
        f(0)
        f(1)
    except Base as e:
        return type(e).__name__, e.args


# -- iterator types and tuple identity (Dynamo test_iterator / test_tuple ideas) -------

@case(X)
def p5_it_type_of_constant_iterators(x):
    its = [iter("ab"), iter(range(3)), iter(b"ab"), reversed(range(3)), reversed("ab"), iter((1, 2))]
    return x + 1, [type(i).__name__ for i in its]


@case(X)
def p5_it_returned_constant_iterator_part_used(x):
    a = iter("abc")
    next(a)
    b = reversed(range(4))
    next(b)
    return x + 1, type(a), list(a), type(b), list(b)


@case(X)
def p5_it_returned_enumerate_zip_reversed(x):
    t = (x, 1, 2)
    e = enumerate(t, 3)
    next(e)
    z = zip(t, "abc")
    r = reversed(t)
    return x * 2, [(type(i), list(i)) for i in (e, z, r)]


@case(X)
def p5_it_product_outlives_graph(x):
    p = itertools.product((1, 2), (x,))
    next(p)
    return x, type(p), list(p)


@case(X)
def p5_tup_concat_empty_is_same(x):
    t = (x, 1)
    u = t + ()
    v = t[:]
    return x + 1, u is t, v is t, tuple(t) is t, t * 1 is t


@case(X)
def p5_tup_same_tuple_across_break(x):
    t = (x, 2)
    u = t + ()
    print("between")
    return u is t, u


@case(X)
def p5_tup_tuple_of_namedtuple_type(x):
    p = _P5Pair(x, 1)
    t = tuple(p)
    return type(t), t, t is p


@case(X)
def p5_lst_new_lists_identity(x):
    a = [x]
    return x + 1, a[:] is a, list(a) is a, a.copy() is a, sorted([2, 1]) is a, [a][0] is a
