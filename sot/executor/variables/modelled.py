"""The hooks of a library object the simulator models by hand
(collections_models.py, operator_models.py, functools_models.py).

`dispatch` and `calls` ask a ModelledObject first for the operation they
run; a hook answers with the resulting Variable (or True/False for
`contains`), or NotImplemented where the generic path decides (a
defaultdict is a dict for everything but a missing key). Each hook gets
what the generic operation gets; `executor` is the simulating frame.
"""
from __future__ import annotations


class ModelledObject:
    def attribute(self, executor, name: str):
        return NotImplemented

    def method(self, executor, name: str, args, kwargs):
        return NotImplemented

    def call(self, executor, args, kwargs):
        return NotImplemented

    def getitem(self, executor, key):
        return NotImplemented

    def setitem(self, executor, key, value):
        return NotImplemented

    def delitem(self, executor, key):
        return NotImplemented

    def contains(self, executor, item):
        return NotImplemented

    def length(self, executor):
        return NotImplemented

    def iterate(self, executor):
        return NotImplemented

    def reverse_iterate(self, executor):
        return NotImplemented

    def binary(self, executor, name: str, other, left: bool):
        """`self <name> other` (left) or `other <name> self`; `name` as dispatch.binary_op gets it."""
        return NotImplemented

    def compare(self, executor, name: str, other, left: bool):
        return NotImplemented


def ask(graph, obj, hook: str, *args):
    """`obj`'s answer to `hook` (NotImplemented: not a modelled object, or
    the generic path decides). `graph` gives the simulating executor (None
    when the caller has no graph: the model then decides without one)."""
    if not isinstance(obj, ModelledObject):
        return NotImplemented
    executor = graph.frames[-1] if graph is not None and graph.frames else None
    return getattr(obj, hook)(executor, *args)
