"""One place decides which Variable wraps a value from outside the frame
(sot/executor/variables/factory.py): builders in priority order, each adding
the guard its kind needs."""
import collections
import enum
import json
import math

import numpy as np
import pytest

from sot.executor.function_graph import FunctionGraph
from sot.executor.variables import factory
from sot.guards.guard import IdGuard, LenGuard, TensorGuard, TypeGuard, ValueGuard
from sot.guards.tracker import LocalTracker


class Color(enum.Enum):
    RED = 1


Point = collections.namedtuple("Point", "x y")


class Plain:
    pass


def user_function(v):
    return v


CASES = [
    (np.zeros((2, 3), np.float32), "TensorVariable", TensorGuard),
    (np.float32(1.5), "TensorVariable", TensorGuard),
    (3, "ConstVariable", ValueGuard),
    ("text", "ConstVariable", ValueGuard),
    (None, "ConstVariable", ValueGuard),
    ((1, 2), "TupleVariable", LenGuard),
    ([1, 2], "ListVariable", TypeGuard),
    ({"a": 1}, "DictVariable", None),
    (np.dtype("float32"), "OpaqueVariable", TypeGuard),
    (np.float32, "ConstVariable", IdGuard),
    (Color.RED, "ConstVariable", IdGuard),
    (Point(1, 2), "NamedTupleVariable", LenGuard),
    (Plain(), "ObjectVariable", TypeGuard),
    (np, "ModuleVariable", IdGuard),
    (math, "ModuleVariable", IdGuard),
    (np.add, "NumpyCallableVariable", IdGuard),
    (user_function, "UserFunctionVariable", IdGuard),
    (len, "BuiltinVariable", IdGuard),
    (Plain, "ClassVariable", IdGuard),
]


@pytest.mark.parametrize("value,kind,guard", CASES, ids=[f"{type(c[0]).__name__}-{i}" for i, c in enumerate(CASES)])
def test_each_kind_of_value_gets_its_variable_and_its_guard(value, kind, guard):
    graph = FunctionGraph()
    var = graph.wrap(value, LocalTracker(0, "a"))
    assert type(var).__name__ == kind
    if guard is not None:
        assert isinstance(graph.guards[0], guard), graph.guards


def test_builders_are_asked_in_priority_order():
    names = factory.kinds()
    assert names[0] == "array" and names.index("(pinned by identity)") < names.index("python_function")
    assert names.index("value_guarded_constant") < names.index("tuple_") < names.index("named_tuple")


def test_library_functions_are_pinned_by_identity_and_opaque():
    graph = FunctionGraph()
    var = graph.wrap(json.dumps, LocalTracker(0, "a"))
    assert type(var).__name__ == "OpaqueVariable"
    assert [type(g) for g in graph.guards] == [IdGuard]
