"""What operations mean on Variables: operators, attributes, items, iteration.

One function per operation family; each decides by Variable kind whether the
operation is computed at trace time (Python constants), recorded as a graph op
(arrays), modelled (containers), or not capturable (FallbackError).
"""
from __future__ import annotations

import enum
import inspect
import operator
import types

import numpy as np

from ..breaks.reasons import (
    DATA_DEPENDENT, SIDE_EFFECT, UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError,
)
from .._quiet import strictly
from ..guards.guard import DictKeysGuard
from ..guards.tracker import AttrTracker, ConstTracker, ItemTracker
from ..ir import registry
from . import array_numbers, builtin_values, classes, partials, exceptions, list_data, metaclass, pyidentity, sets
from . import iterator_rebuild, tuple_reuse
from .generators import GeneratorVariable
from .signals import RaiseSignal
from .function_graph import is_user_class
from .variables import (
    BoundMethodVariable, BuiltinMethodVariable, BuiltinVariable, ClassVariable, ConstVariable, DictVariable,
    DictViewVariable, IteratorVariable, ListVariable, ModuleVariable, NumpyCallableVariable, ObjectVariable,
    SymScalarVariable, SymSliceVariable, TensorVariable, TupleVariable, UserFunctionVariable, Variable,
    is_const_value,
)
from .function_graph import function_variable
from .variables.modelled import ask
from . import container_values, dict_data, dict_runtime_reads, dict_views, function_attrs, functools_models, operator_models
from . import (introspect, live_iterators, number_branches, numpy_forms, numpy_iteration, records, setters,
               user_protocols, writes)

SEQUENCES = (TupleVariable, ListVariable)


def const(value) -> ConstVariable:
    return ConstVariable(value)


def folded(value) -> Variable:
    """The result of a computation on constants (`_python`). A new list,
    dict or set (`"a b".split()`, `sorted(...)`) becomes the modelled
    container, made afresh by every call as eager makes it: a ConstVariable
    would bake one object into the compiled code, shared (and mutated)
    across calls."""
    t = type(value)
    if t is list:
        return ListVariable([folded(v) for v in value])
    if t is tuple and any(type(v) in _MUTABLE for v in value):
        return TupleVariable([folded(v) for v in value])
    if t is dict:
        return DictVariable({k: folded(v) for k, v in value.items()})
    if t is set:
        return sets.SetVariable(value)
    if t in _MUTABLE:
        raise FallbackError(UNSUPPORTED_OBJECT, f"a {t.__name__} computed at trace time is not modelled")
    return ConstVariable(value)


_MUTABLE = (list, dict, set, bytearray)


SYMBOLIC = (SymScalarVariable, SymSliceVariable)
_NUMBERS = (int, float, bool)


def concrete(why: str, *vs) -> None:
    """Specialise the symbolic dims behind any of `vs` (SpecializeDims):
    `why` needs their value in Python."""
    for v in vs:
        if isinstance(v, SYMBOLIC):
            v.specialise(why)


def _shape_scalars(a: Variable, b: Variable) -> bool:
    """Whether `a op b` is Python arithmetic on a value computed from
    symbolic dims (and a number): recorded in the graph."""
    if not (isinstance(a, SymScalarVariable) or isinstance(b, SymScalarVariable)):
        return False
    return all(isinstance(v, SymScalarVariable) or (isinstance(v, ConstVariable) and type(v.value) in _NUMBERS)
               for v in (a, b))


def _python(fn, *values, **kwargs):
    """Compute on constants; an exception means eager would raise: fall back.
    So does a warning (``~True``'s DeprecationWarning, a NumPy scalar's
    overflow): folded into a constant it would be shown once, from here,
    where eager shows it on every call from the user's line. NumPy's errors
    are found whatever the error state of the traced call (_quiet.strictly)."""
    return _fold(fn, values, kwargs, simulate=False)


def python_op(fn, *values, **kw):
    """A builtin operation of the frame on Python values the trace guards: an
    error eager raises there too is raised in the trace (the frame's own
    `except` may catch it; exceptions.raised_by_operation), other errors and
    warnings fall back as in `_python`. Only for `fn` that is the operation
    itself, never sot's own code."""
    return _fold(fn, values, kw, simulate=True)


def _fold(fn, values, kw, simulate: bool):
    try:
        with strictly():
            return fn(*values, **kw)
    except Exception as e:  # eager raises (or warns) the same when it runs natively
        exc = exceptions.raised_by_operation(e) if simulate and not isinstance(e, Warning) else None
        if exc is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"{type(e).__name__}: {e}") from None
        raise RaiseSignal(exc) from None


# -- operators ---------------------------------------------------------------

def binary_op(graph, name: str, a: Variable, b: Variable) -> Variable:
    if (r := ask(graph, a, "binary", name, b, True)) is not NotImplemented or \
            (r := ask(graph, b, "binary", name, a, False)) is not NotImplemented:
        return r
    if (r := dict_views.binary(name, a, b)) is not None:   # a dict's keys view and a set
        return r
    if isinstance(a, sets.SetVariable) or isinstance(b, sets.SetVariable):
        return sets.binary(name, a, b)
    inplace = name.startswith("i") and name not in ("is_",)
    if isinstance(a, TensorVariable) or isinstance(b, TensorVariable):
        if inplace and isinstance(a, TensorVariable) and not a.meta.is_scalar:
            return inplace_tensor_op(graph, name, a, b)
        # An in-place operator whose target is not a mutable array (a NumPy
        # scalar, a Python number) computes a new value, as Python does.
        op_name = name[1:] if inplace else name
        op = registry.lookup_operator(_op_key(op_name))
        if op is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"operator {name} on arrays is not captured")
        return graph.call_op(op, (a, b))
    base = name[1:] if inplace else name
    if _shape_scalars(a, b):
        op = registry.lookup_operator(_op_key(base))
        if op is not None:
            return graph.call_op(op, (a, b))
    if array_numbers.meets_numpy_scalar(graph, a, b):
        op = registry.lookup_operator(_op_key(base))
        if op is not None:
            return graph.call_op(op, (a, b))
    concrete(f"operator {name}", a, b)
    if isinstance(a, ConstVariable) and isinstance(b, ConstVariable):
        return folded(python_op(getattr(operator, _op_key(base)), a.value, b.value))
    if isinstance(a, SEQUENCES) and isinstance(b, SEQUENCES) and base == "add" \
            and type(a) is type(b):
        if inplace and isinstance(a, ListVariable):
            a.check_mutable("+=")
            a.grow("extend", (list(b.items),))
            return a
        return tuple_reuse.concat(a, b) or type(a)(a.items + b.items)
    if inplace and base == "add" and isinstance(a, ListVariable) and (
            isinstance(b, SEQUENCES) or isinstance(b, ConstVariable) and type(b.value) in (tuple, str, range)):
        a.check_mutable("+=")   # list += any iterable: list.extend, in place
        a.grow("extend", (list(get_iter(graph, b).items),))
        return a
    if base == "mul" and (isinstance(a, SEQUENCES) and _repeat_count(b) is not None
                          or isinstance(b, SEQUENCES) and _repeat_count(a) is not None and not inplace):
        seq, n = (a, _repeat_count(b)) if isinstance(a, SEQUENCES) else (b, _repeat_count(a))
        if inplace and isinstance(a, ListVariable):   # lst *= n repeats the list itself
            a.check_mutable("*=")
            a.items = a.items * n
            return a
        return tuple_reuse.repeat(seq, n) or type(seq)(seq.items * n)
    if base == "mod" and isinstance(a, ConstVariable) and type(a.value) is str and isinstance(b, TupleVariable):
        return folded(python_op(operator.mod, a.value, _plain_sequence(b)))   # "%d/%s" % (n, name)
    if _op_key(base) == "or_" and isinstance(a, DictVariable) and isinstance(b, DictVariable) \
            and a.python_type() is dict and b.python_type() is dict:
        if inplace:   # d |= e updates d itself
            a.check_mutable("|=")
            a.entries.update(b.entries)
            return a
        return DictVariable({**a.entries, **b.entries})
    raise FallbackError(UNSUPPORTED_OBJECT, f"operator {name} on {a.describe()} and {b.describe()}")


def _repeat_count(v: Variable) -> int | None:
    """The count of `seq * v` (a Python or NumPy int, a bool), or None."""
    if isinstance(v, ConstVariable) and (type(v.value) in (int, bool) or isinstance(v.value, np.integer)):
        return operator.index(v.value)
    return None


def _plain_sequence(v) -> tuple | list:
    """A tuple or list of plain constants as its Python value (a break otherwise)."""
    from .functional import python_value  # functional imports this module
    return python_value(v)


def _op_key(name: str) -> str:
    return {"and": "and_", "or": "or_"}.get(name, name)


def inplace_tensor_op(graph, name: str, a: TensorVariable, b: Variable) -> Variable:
    """`a op= b` on an array: mutates the object `a` stands for. On an array
    that may share memory, a write statement (executor/writes.py); on a fresh
    one nothing views, the op rebinds `a` (exact in every backend)."""
    if not a.fresh or a.has_views:
        return writes.inplace(graph, name, a, b)
    op = registry.lookup_operator(name)
    if op is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"in-place operator {name} is not captured")
    result = graph.call_op(op, (a, b), inplace=True)
    a.symbol = result.symbol  # same Python object, new contents
    return a


def unary_op(graph, name: str, a: Variable) -> Variable:
    if isinstance(a, TensorVariable):
        if name == "not_":
            return const(not a.truth())
        op = registry.lookup_operator(name)
        if op is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"unary {name} on arrays is not captured")
        return graph.call_op(op, (a,))
    if name == "not_":
        return const(not a.truth())
    if isinstance(a, SymScalarVariable) and registry.lookup_operator(name) is not None:
        return graph.call_op(registry.lookup_operator(name), (a,))
    if isinstance(a, ConstVariable):
        return folded(python_op(getattr(operator, name), a.value))
    raise FallbackError(UNSUPPORTED_OBJECT, f"unary {name} on {a.describe()}")


def compare_op(graph, name: str, a: Variable, b: Variable) -> Variable:
    if (r := ask(graph, a, "compare", name, b, True)) is not NotImplemented or \
            (r := ask(graph, b, "compare", name, a, False)) is not NotImplemented:
        return r
    if (r := dict_views.compare(name, a, b)) is not None:
        return r
    if isinstance(a, sets.SetVariable) or isinstance(b, sets.SetVariable):
        return sets.compare(name, a, b)
    if isinstance(a, TensorVariable) or isinstance(b, TensorVariable):
        return graph.call_op(registry.lookup_operator(name), (a, b))
    if _shape_scalars(a, b) or array_numbers.meets_numpy_scalar(graph, a, b):
        return graph.call_op(registry.lookup_operator(name), (a, b))
    concrete(f"comparison {name}", a, b)
    if isinstance(a, ConstVariable) and isinstance(b, ConstVariable):
        if a is not b and isinstance(a.value, CONTAINERS) and isinstance(b.value, CONTAINERS):
            pyidentity.items_equal(a, b)   # breaks where items' identity decides
        return folded(python_op(getattr(operator, name), a.value, b.value))
    if isinstance(a, SEQUENCES) and isinstance(b, SEQUENCES) and name in ("lt", "le", "gt", "ge") \
            and _sequence_kind(a) is _sequence_kind(b) and type(a) is type(b):
        # ordering of sequences of plain constants: Python's own (a namedtuple orders as a tuple)
        return const(python_op(getattr(operator, name), _plain_sequence(a), _plain_sequence(b)))
    if isinstance(a, SEQUENCES) and isinstance(b, SEQUENCES) and name in ("eq", "ne"):
        # a namedtuple equals the plain tuple of its items; a list never equals a tuple
        if _sequence_kind(a) is not _sequence_kind(b) or len(a.items) != len(b.items):
            return const(name == "ne")
        if all(isinstance(x, ConstVariable) for x in a.items + b.items):
            # items compare with `is` before `==`, as list/tuple equality does
            equal = all(pyidentity.items_equal(x, y) for x, y in zip(a.items, b.items))
            return const(equal == (name == "eq"))
    if name in ("eq", "ne") and isinstance(a, DictVariable) and isinstance(b, DictVariable) \
            and a.python_type() is dict and b.python_type() is dict:
        # plain dicts: the same keys, and each value `is` or `==` the other's
        ea, eb = a.entries, b.entries
        if ea.keys() != eb.keys():
            return const(name == "ne")
        if all(isinstance(v, ConstVariable) for v in (*ea.values(), *eb.values())):
            equal = all(pyidentity.items_equal(v, eb[k]) for k, v in ea.items())
            return const(equal == (name == "eq"))
    same_class = builtin_values.classes_equal(name, a, b)
    if same_class is not None:
        return same_class
    symbol = _COMPARISONS.get(name, name)
    raise FallbackError(UNSUPPORTED_OBJECT, f"comparison `{symbol}` of {a.describe()} and {b.describe()}")


def _sequence_kind(v: Variable) -> type:
    """list or tuple: what `==` of a modelled sequence compares as (a
    namedtuple class with its own __eq__ is not modelled)."""
    kind = list if isinstance(v, ListVariable) else tuple
    if v.python_type().__eq__ is not kind.__eq__:
        raise FallbackError(UNSUPPORTED_OBJECT, f"comparison of {v.describe()}: its class defines __eq__")
    return kind


_COMPARISONS = {"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">="}   # for messages


SINGLETONS = (type(None), bool)
CONTAINERS = (tuple, list, dict, set, frozenset)


def is_op(a: Variable, b: Variable, graph=None) -> bool:
    """`a is b`, decided only where Python's answer is certain.

    A user object (ObjectVariable) is guarded by its type, not its
    identity: an answer that depends on which object it is holds only
    under a guard on the identity relation (`graph` records it)."""
    if a is b:
        return True
    if isinstance(a, classes.NewObjectVariable) or isinstance(b, classes.NewObjectVariable):
        return False   # made in the trace: one Variable per object, no other object is it
    if any(isinstance(v, ListVariable) and v.is_new() for v in (a, b)):
        return False   # likewise a list the trace made (a new tuple may be an old one: `t + ()`)
    if _types_differ(a, b) or numpy_forms.distinct_arrays(a, b):
        return False
    if isinstance(a, ConstVariable) and isinstance(b, ConstVariable) and (
            type(a.value) in SINGLETONS or type(b.value) in SINGLETONS):
        return a.value is b.value  # nothing but the singleton itself is the singleton
    va, vb = _identity_value(a), _identity_value(b)
    if va is not _UNKNOWN and vb is not _UNKNOWN:
        same = va is vb
        if isinstance(a, ObjectVariable) or isinstance(b, ObjectVariable) or _by_code(a) or _by_code(b):
            _guard_identity(graph, a, b, same)
        return same
    # A None/True/False singleton against a value of another kind; an Enum
    # member (a fixed object) against a value of another type.
    for x, y in ((a, b), (b, a)):
        if isinstance(x, ConstVariable) and type(x.value) in SINGLETONS and not isinstance(y, ConstVariable):
            return False
        if isinstance(x, ConstVariable) and isinstance(x.value, enum.Enum) and _other_type(y, type(x.value)):
            return False
    raise FallbackError(UNSUPPORTED_OBJECT, f"identity of {a.describe()} and {b.describe()} is not known")


_UNKNOWN = object()


def _types_differ(a: Variable, b: Variable) -> bool:
    """A user object (its exact type guarded), or a closure guarded by its
    code (its type guarded), and a Variable of another type cannot be one
    object (a list is never a sentinel instance, a function never None)."""
    for x, y in ((a, b), (b, a)):
        if isinstance(x, ObjectVariable) and is_user_class(type(x.value)) or _by_code(x):
            try:
                return y.python_type() is not type(x.value)
            except FallbackError:
                return False
    return False


def _other_type(v: Variable, t: type) -> bool:
    """Whether `v` is known not to be an instance of `t`."""
    try:
        return not issubclass(v.python_type(), t)
    except FallbackError:
        return False


def _guard_identity(graph, a: Variable, b: Variable, same: bool) -> None:
    """Guard that `a is b` stays `same` (see is_op)."""
    from ..guards.invariants import SameGuard
    ta, tb = a.tracker, b.tracker
    if graph is None or ta is None or tb is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"identity of {a.describe()} and {b.describe()} "
                            "cannot be guarded")
    if isinstance(ta, ConstTracker):
        ta, tb = tb, ta  # a guard is kept only when its own tracker reads the frame
    if not isinstance(ta, ConstTracker):
        graph.add_guard(SameGuard(ta, tb, same))


def _by_code(v) -> bool:
    """A closure guarded by its code: which object it is is not pinned (closures.py)."""
    return isinstance(v, UserFunctionVariable) and v.by_code


def _identity_value(v):
    """The real object a Variable stands for, when that object is fixed."""
    if isinstance(v, ConstVariable):
        ok = type(v.value) in SINGLETONS or isinstance(v.value, (type, np.dtype, enum.Enum))
        return v.value if ok else _UNKNOWN
    if isinstance(v, (ModuleVariable, ClassVariable, NumpyCallableVariable, ObjectVariable, BuiltinVariable)):
        return v.value
    if isinstance(v, UserFunctionVariable) and v.value is not None:
        return v.value
    return _UNKNOWN


def contains_op(graph, item: Variable, container: Variable) -> bool:
    """`in`: items and keys are compared with `is` before `==` (pyidentity)."""
    if (r := ask(graph, container, "contains", item)) is not NotImplemented:
        return r
    if isinstance(container, sets.SetVariable):
        return sets.contains(item, container, graph)
    if isinstance(container, DictViewVariable):
        return dict_views.contains(graph, item, container)
    item = as_dict_key(container, item)
    if (r := dict_data.contains(container, item)) is not dict_data.NO:
        return r
    if isinstance(container, DictVariable) and isinstance(item, ConstVariable):
        if pyidentity.identity_decides(item.value):
            raise FallbackError(UNSUPPORTED_OBJECT, "`in` of a NaN in a dict depends on object identity")
        return item.value in container.entries
    if isinstance(container, SEQUENCES):
        for x in container.items:
            if x is item:
                return True
            if not (isinstance(x, ConstVariable) and isinstance(item, ConstVariable)):
                raise FallbackError(UNSUPPORTED_OBJECT, "`in` over non-constant items")
            if pyidentity.items_equal(x, item):
                return True
        return False
    if isinstance(container, ConstVariable) and isinstance(item, ConstVariable):
        if pyidentity.identity_decides(container.value, item.value):
            raise FallbackError(UNSUPPORTED_OBJECT, "`in` involving a NaN depends on object identity")
        return python_op(operator.contains, container.value, item.value)
    raise FallbackError(UNSUPPORTED_OBJECT, f"`in` on {container.describe()}")


# -- items ---------------------------------------------------------------------

def as_dict_key(obj: Variable, key: Variable) -> Variable:
    """A tuple of plain constants used as a key of a modelled dict: the constant it equals."""
    if isinstance(obj, DictVariable) and type(key) is TupleVariable and \
            (value := container_values.plain_key(key)) is not None:
        return const(value)
    return key


def getitem(graph, obj: Variable, key: Variable) -> Variable:
    if (r := ask(graph, obj, "getitem", key)) is not NotImplemented:
        return r
    if isinstance(obj, TensorVariable):
        if isinstance(key, ConstVariable) and type(key.value) is range and len(key.value) <= ITER_LIMIT:
            # NumPy reads a range index as a list of ints
            key = ListVariable([const(i) for i in key.value])
        # token ids from a list argument (a list of bools stays a constant mask: its count is the shape)
        key = list_data.as_graph_input(graph, key, kinds=(int,)) or key
        return graph.call_op(registry.lookup_operator("getitem"), (obj, key))
    if isinstance(obj, introspect.FlagsVariable):
        return obj.item(key)
    if isinstance(obj, numpy_iteration.FlatVariable):
        return obj.item(graph, key)
    trick = numpy_forms.index_trick(graph, obj, key) or numpy_forms.grid_trick(graph, obj, key)
    if trick is not None:
        return trick
    concrete("indexing", obj, key)
    if isinstance(obj, ListVariable) and isinstance(key, ConstVariable) and type(key.value) is int \
            and (item := list_data.source_item(graph, obj, key.value)) is not None:
        return item
    if isinstance(obj, ListVariable) and isinstance(key, ConstVariable) and type(key.value) is slice \
            and (items := list_data.source_slice(graph, obj, key.value)) is not None:
        return items
    if isinstance(obj, SEQUENCES) and isinstance(key, ConstVariable):
        if isinstance(key.value, slice):
            return tuple_reuse.sliced(obj, key.value) or type(obj)(python_op(operator.getitem, obj.items, key.value))
        if type(key.value) in (int, bool) or isinstance(key.value, np.integer):  # (a NumPy int: its __index__)
            # as the sequence's own type, for the IndexError's text
            return python_op(operator.getitem, obj.items if isinstance(obj, ListVariable) else tuple(obj.items),
                             key.value)
    key = as_dict_key(obj, key)
    if (r := dict_runtime_reads.read(graph, obj, key)) is not dict_runtime_reads.NO:   # a str key from outside
        return r
    if (r := dict_data.getitem(obj, key)) is not dict_data.NO:
        return r
    if isinstance(obj, DictVariable) and isinstance(key, ConstVariable):
        return python_op(operator.getitem, obj.entries, key.value)  # the keys are guarded: KeyError as eager
    if isinstance(obj, ConstVariable) and isinstance(key, ConstVariable):
        return folded(python_op(operator.getitem, obj.value, key.value))
    if isinstance(obj, ClassVariable) and classes.is_enum_class(obj.value) and isinstance(key, ConstVariable):
        member = classes.enum_class_member(obj.value, key.value)
        if member is not None:
            return member
    raise FallbackError(UNSUPPORTED_OBJECT, f"indexing {obj.describe()} with {key.describe()}")


def delitem(graph, obj: Variable, key: Variable) -> None:
    if ask(graph, obj, "delitem", key) is not NotImplemented:
        return
    if isinstance(obj, ListVariable) and isinstance(key, ConstVariable) and type(key.value) in (int, slice):
        obj.check_mutable("item deletion")
        python_op(operator.delitem, obj.items, key.value)
        return
    key = as_dict_key(obj, key)
    if dict_data.delitem(obj, key) is not dict_data.NO:
        return
    if isinstance(obj, DictVariable) and isinstance(key, ConstVariable) and container_values.plain_key(key) is not None:
        obj.check_mutable("item deletion")
        python_op(operator.delitem, obj.entries, key.value)
        return
    raise FallbackError(SIDE_EFFECT, f"item deletion from {obj.describe()}")


def setitem(graph, obj: Variable, key: Variable, value: Variable) -> None:
    if ask(graph, obj, "setitem", key, value) is not NotImplemented:
        return
    if isinstance(obj, (ListVariable, DictVariable)) and isinstance(key, ConstVariable) and obj.tracker is not None \
            and type(key.value) in (int, str) and writes.stores_back(value, ItemTracker(obj.tracker, key.value)):
        return   # `d["a"] += y` on an array of a container from outside: the same object
    if isinstance(obj, ListVariable) and isinstance(key, ConstVariable) and type(key.value) is int:
        obj.check_mutable("item assignment")
        python_op(operator.setitem, obj.items, key.value, value)
        return
    if isinstance(obj, ListVariable) and isinstance(key, ConstVariable) and type(key.value) is slice:
        items = list(get_iter(graph, value).items)   # read before the store, as list_ass_slice does
        obj.check_mutable("slice assignment")
        python_op(operator.setitem, obj.items, key.value, items)
        return
    key = as_dict_key(obj, key)
    if dict_data.setitem(graph, obj, key, value) is not dict_data.NO:
        return
    if isinstance(obj, DictVariable) and isinstance(key, ConstVariable) and container_values.plain_key(key) is not None:
        obj.check_mutable("item assignment")
        obj.entries[key.value] = value
        return
    if isinstance(obj, TensorVariable):
        return writes.setitem(graph, obj, key, value)
    raise FallbackError(UNSUPPORTED_OBJECT, f"item assignment into {obj.describe()}")


# -- attributes ------------------------------------------------------------------

TENSOR_PYTHON_ATTRS = ("shape", "ndim", "size", "dtype", "itemsize", "nbytes")


def getattr_(executor, obj: Variable, name: str) -> Variable:
    graph = executor.graph
    if (r := ask(graph, obj, "attribute", name)) is not NotImplemented:
        return r
    if (r := operator_models.class_attribute(obj, name)) is not None:   # dict.fromkeys, chain.from_iterable
        return r
    if (r := functools_models.function_attribute(obj, name)) is not None:   # set by functools.wraps
        return r
    if (r := function_attrs.attribute(executor, obj, name)) is not None:   # f.__name__, m.__self__
        return r
    if isinstance(obj, TensorVariable):
        meta = obj.meta
        if name in TENSOR_PYTHON_ATTRS:
            if name == "shape":
                return TupleVariable([graph.dim(obj, i) for i in range(len(meta.shape))])
            if name == "ndim":
                return const(len(meta.shape))
            if name == "dtype":
                return const(meta.dtype)
            if name == "itemsize":
                return const(meta.dtype.itemsize)
            graph.ir.note_static_read(obj.symbol, [i for i in range(meta.ndim) if i not in meta.symbolic_axes])
            if not meta.symbolic_axes:
                return const(int(np.prod(meta.shape, dtype=np.int64)) * (meta.dtype.itemsize if name == "nbytes" else 1))
            size = const(int(np.prod([d for i, d in enumerate(meta.shape) if i not in meta.symbolic_axes],
                                     dtype=np.int64)) * (meta.dtype.itemsize if name == "nbytes" else 1))
            for i in meta.symbolic_axes:  # size and nbytes of symbolic dims: products in the graph
                size = binary_op(graph, "mul", size, graph.dim(obj, i))
            return size
        op = registry.lookup_attribute(name)
        if op is not None:
            return graph.call_op(op, (obj,))
        layout = introspect.layout_attr(graph, obj, name)
        if layout is not None:
            return layout
        if registry.lookup_method(name) is not None or callable(getattr(np.ndarray, name, None)):
            return BuiltinMethodVariable(obj, name)  # an uncaptured method breaks when called
        if name == "flat":
            return numpy_iteration.FlatVariable(obj)
        raise FallbackError(UNSUPPORTED_OBJECT, f"attribute .{name} of {obj.describe()} is not captured")
    if isinstance(obj, ModuleVariable):
        stored = graph.effects.globals.load(getattr(obj.value, "__dict__", None), name)
        if stored is not None:   # `global name` stored by the trace (global_stores.py)
            return stored
        value = _module_attr(obj.value, name)
        return graph.wrap(value, AttrTracker(obj.tracker, name) if obj.tracker else ConstTracker(value))
    if isinstance(obj, NumpyCallableVariable) and isinstance(obj.value, np.ufunc) and name == "at":
        # a new bound method on each access (no identity to guard): the ufunc is guarded
        return NumpyCallableVariable(obj.value.at, None)
    if name in ("__class__", "__mro__", "__setattr__") and (known := user_protocols.dunder_attr(executor, obj, name)) is not None:
        return known
    if (known := records.attribute(executor, obj, name)) is not None:   # dataclass/namedtuple/enum helpers
        return known
    if isinstance(obj, ObjectVariable):
        return object_getattr(executor, obj, name)
    if isinstance(obj, classes.NewObjectVariable):
        return classes.new_object_getattr(executor, obj, name)
    if isinstance(obj, classes.SuperVariable):
        return classes.super_getattr(executor, obj, name)
    if isinstance(obj, classes.NamedTupleVariable):
        return classes.namedtuple_getattr(obj, name)
    if isinstance(obj, (exceptions.ExceptionVariable, partials.PartialVariable)):
        return obj.attribute(name)
    if isinstance(obj, ConstVariable) and isinstance(obj.value, enum.Enum):
        attr = classes.enum_member_attr(obj.value, name)
        if attr is not None:
            return attr
    if isinstance(obj, ClassVariable) and classes.is_enum_class(obj.value):
        member = classes.enum_class_member(obj.value, name)
        if member is not None:
            return member
    named = builtin_values.class_name(graph, obj, name)
    if named is not None:
        return named
    if isinstance(obj, ClassVariable) and is_user_class(obj.value):
        return class_getattr(executor, obj, name)
    if type(obj) is TupleVariable and name in builtin_values.TUPLE_METHODS:
        return BuiltinMethodVariable(obj, name)
    if isinstance(obj, GeneratorVariable) and name in GeneratorVariable.METHODS:
        return BuiltinMethodVariable(obj, name)
    if isinstance(obj, GeneratorVariable) and name == "gi_running":
        return const(obj.running)
    if isinstance(obj, sets.SetVariable) and name in sets.METHODS:
        return BuiltinMethodVariable(obj, name)
    if isinstance(obj, (ListVariable, DictVariable)) and name in LIST_METHODS | DICT_METHODS:
        return BuiltinMethodVariable(obj, name)
    if isinstance(obj, introspect.FlagsVariable):
        return obj.attr(name)
    if isinstance(obj, NumpyCallableVariable) and isinstance(obj.value, np.ufunc):
        known = introspect.ufunc_attr(obj.value, name)
        if known is not None:
            return known
    if isinstance(obj, ConstVariable):
        known = introspect.const_attr(obj.value, name)
        if known is not None:
            return known
        if type(obj.value) in (int, float, complex) and name in ("real", "imag") \
                or type(obj.value) in (slice, range) and name in ("start", "stop", "step"):
            return const(getattr(obj.value, name))
        if is_pure_method(obj.value, name):
            return BuiltinMethodVariable(obj, name)
    raise FallbackError(UNSUPPORTED_OBJECT, f"attribute .{name} of {obj.describe()} is not captured")


def _module_attr(module, name: str):
    """A module attribute the trace may read (and guards read again on
    every call): only one held in the module's own dict, where reading it
    runs no user code. One that a module ``__getattr__`` (a lazy module) or
    a module subclass's descriptor makes runs natively, as often as eager."""
    mod_dict = object.__getattribute__(module, "__dict__")
    mod_name = mod_dict.get("__name__", "?") if type(mod_dict) is dict else "?"
    if type(mod_dict) is not dict or name not in mod_dict:
        raise FallbackError(UNSUPPORTED_OBJECT, f"module {mod_name} has no attribute {name} in its "
                            "__dict__ (a module __getattr__ would run)")
    if any(name in k.__dict__ for k in type(module).__mro__[:-1] if k is not types.ModuleType):
        raise FallbackError(UNSUPPORTED_OBJECT, f"attribute {name} of module {mod_name} is defined "
                            "by its class")
    return mod_dict[name]


LIST_METHODS = {"append", "extend", "pop", "insert", "index", "count", "copy", "clear", "reverse", "remove", "sort"}
DICT_METHODS = {"get", "keys", "values", "items", "copy", "update", "setdefault", "pop", "popitem", "clear"}
#: types whose methods never change the value nor run user code on constant arguments
IMMUTABLE = (str, bytes, int, float, complex, bool, tuple, range, frozenset)


def is_pure_method(value, name: str) -> bool:
    """`value.name` is a method computed at trace time: a public method of an
    immutable builtin value (`s.find`, `t.index`, `n.bit_length`)."""
    if isinstance(value, np.generic):  # those of a NumPy scalar that give immutable Python values
        return name in numpy_forms.SCALAR_METHODS and callable(getattr(type(value), name, None))
    return type(value) in IMMUTABLE and not name.startswith("_") and callable(getattr(type(value), name, None))


def object_getattr(executor, obj: ObjectVariable, name: str) -> Variable:
    """Attribute of a user object, resolved the way object.__getattribute__ does."""
    graph = executor.graph
    stored = graph.effects.load_attr(obj, name)
    if stored is not None:  # stored by this trace (never through a data descriptor: side_effects.py)
        return stored
    cls = type(obj.value)
    try:
        class_attr = inspect.getattr_static(cls, name)
        in_class = True
    except AttributeError:
        in_class = False
        class_attr = None
    slot = setters.slot_value(graph, obj, name)
    if slot is not None:   # a __slots__ member: no user code runs
        return slot
    inst_dict = getattr(obj.value, "__dict__", None)
    if inst_dict is None:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{obj.describe()} has no __dict__ (__slots__ are not modelled)")
    is_data_descr = in_class and (hasattr(type(class_attr), "__set__") or hasattr(type(class_attr), "__delete__"))
    if obj.tracker is not None:
        # Which names the instance itself holds decides instance-vs-class lookup:
        # guard its keys, so a class attribute later shadowed is seen.
        graph.add_guard(DictKeysGuard(AttrTracker(obj.tracker, "__dict__"), inst_dict))
    if name in inst_dict and not is_data_descr:
        return graph.wrap(inst_dict[name], AttrTracker(obj.tracker, name) if obj.tracker else ConstTracker(inst_dict[name]))
    if not in_class:
        missing = exceptions.missing_attribute(obj.value, name)
        if missing is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"{obj.describe()} has no attribute {name!r}")
        raise RaiseSignal(missing)   # the instance's keys and its class are guarded above
    # The class attribute; guard it through the (type-guarded) class.
    cls_tracker = ConstTracker(cls)
    if isinstance(class_attr, property):
        if class_attr.fget is None:
            raise FallbackError(UNSUPPORTED_OBJECT, f"property {name} has no getter")
        graph.wrap(class_attr, AttrTracker(cls_tracker, name))
        fget_tracker = AttrTracker(AttrTracker(cls_tracker, name), "fget")
        graph.guard_inlined(class_attr.fget, fget_tracker)
        getter = function_variable(class_attr.fget, fget_tracker)
        return executor.call_function(getter, [obj], {})
    if isinstance(class_attr, staticmethod):
        return graph.wrap(class_attr.__func__, AttrTracker(cls_tracker, name))
    if isinstance(class_attr, classmethod):
        fn = graph.wrap(class_attr.__func__, AttrTracker(AttrTracker(cls_tracker, name), "__func__"))
        return BoundMethodVariable(fn, graph.wrap(cls, cls_tracker))
    if classes.binds_like_function(class_attr):
        fn = graph.wrap(class_attr, AttrTracker(cls_tracker, name))
        return BoundMethodVariable(fn, obj)
    if hasattr(type(class_attr), "__get__"):
        raise FallbackError(UNSUPPORTED_OBJECT, f"descriptor {name} of {obj.describe()} is not modelled")
    return graph.wrap(class_attr, AttrTracker(cls_tracker, name))


def class_getattr(executor, cls_var: ClassVariable, name: str) -> Variable:
    try:
        attr = inspect.getattr_static(cls_var.value, name)
    except AttributeError:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{cls_var.describe()} has no attribute {name!r}") from None
    metaclass.check_class_attribute(cls_var.value, name)
    return classes.class_level(executor, cls_var.value, name, attr, None, cls_var.tracker)


# -- iteration -----------------------------------------------------------------

ITER_LIMIT = 1000


def get_iter(graph, obj: Variable) -> IteratorVariable:
    if isinstance(obj, IteratorVariable):
        return obj
    concrete("iteration", obj)
    if (r := ask(graph, obj, "iterate")) is not NotImplemented:
        return r
    if isinstance(obj, ListVariable):
        return live_iterators.ListIteratorVariable(obj)
    if isinstance(obj, DictViewVariable):
        return live_iterators.DictIteratorVariable(obj.dict, obj.kind)
    if isinstance(obj, DictVariable):
        return live_iterators.DictIteratorVariable(obj)
    if isinstance(obj, TupleVariable):
        return IteratorVariable(obj.items)
    if isinstance(obj, numpy_iteration.FlatVariable):
        return obj.iterate(graph)
    if isinstance(obj, ClassVariable) and classes.is_enum_class(obj.value):
        return iterator_rebuild.from_constant([const(m) for m in obj.value], iter, obj.value)
    if isinstance(obj, sets.SetVariable):
        return live_iterators.SetIteratorVariable(obj)  # members of an identity-guarded class
    if isinstance(obj, ConstVariable) and isinstance(obj.value, (range, tuple, str, bytes, frozenset)):
        if len(obj.value) > ITER_LIMIT:
            raise FallbackError(UNSUPPORTED_OBJECT, f"loop of {len(obj.value)} iterations exceeds the unroll limit {ITER_LIMIT}")
        return iterator_rebuild.from_constant([const(v) for v in obj.value], iter, obj.value)
    if isinstance(obj, TensorVariable):
        shape = obj.meta.shape
        if not shape:
            raise FallbackError(UNSUPPORTED_OBJECT, "iteration over a 0-d array")
        if 0 in obj.meta.symbolic_axes:
            if graph is None:
                raise FallbackError(UNSUPPORTED_OBJECT, "iteration over the rows of a symbolic dim")
            concrete("a loop over rows", graph.dim(obj, 0))
        if shape[0] > ITER_LIMIT:
            raise FallbackError(UNSUPPORTED_OBJECT, f"loop over {shape[0]} rows exceeds the unroll limit {ITER_LIMIT}")
        return live_iterators.ReadingIteratorVariable(   # row i read at step i, after the body's writes
            shape[0], lambda i: getitem(graph, obj, const(i)), type(iter(np.empty(0))),
            lambda b: f"{b._bind(iter)}({b.expr(obj)})")
    raise FallbackError(UNSUPPORTED_OBJECT, f"iteration over {obj.describe()}")


def unpack(graph, obj: Variable, count: int) -> list[Variable]:
    items = get_iter(graph, obj).items
    if len(items) != count:
        raise FallbackError(UNSUPPORTED_OBJECT, f"cannot unpack {len(items)} values into {count}")
    return list(items)


def truth(v: Variable) -> bool:
    return v.truth()


__all__ = [
    "binary_op", "unary_op", "compare_op", "is_op", "contains_op", "getitem", "setitem",
    "getattr_", "get_iter", "unpack", "truth", "const",
    "NumpyCallableVariable", "UserFunctionVariable", "DATA_DEPENDENT", "UNSUPPORTED_CALL",
    "is_const_value",
]
