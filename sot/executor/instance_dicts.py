"""`obj.__dict__` and `vars(obj)` of an object made in the trace: a dict
Variable whose entries *are* the object's attributes (one Python dict
shared by both), so a store through either is seen by the other. Where it
outlives the graph it is rebuilt as `vars(<the rebuilt object>)`: the
object's own dict, as eager returns it."""
from __future__ import annotations

import builtins
import types

from ..breaks.reasons import UNSUPPORTED_CALL, UNSUPPORTED_OBJECT, FallbackError
from .variables import DictVariable, Variable


class InstanceDictVariable(DictVariable):
    def __init__(self, obj):
        super().__init__({})
        self.entries = obj.attrs   # the same dict: stores through either are the other's
        self.obj = obj

    def describe(self) -> str:
        return f"__dict__ of {self.obj.describe()}"

    def rebuild(self, builder) -> str:
        return f"{builder._bind(vars)}({builder.expr(self.obj)})"


def is_plain_dict_attr(class_attr) -> bool:
    """`class_attr` (found as `__dict__` on a class) is the type's own instance-dict descriptor."""
    return type(class_attr) is types.GetSetDescriptorType and class_attr.__name__ == "__dict__"


def instance_dict(obj) -> Variable:
    if not obj.cls.__dictoffset__:
        raise FallbackError(UNSUPPORTED_OBJECT, f"{obj.describe()} has no __dict__ (eager raises)")
    made = getattr(obj, "dict_var", None)
    if made is None:
        made = obj.dict_var = InstanceDictVariable(obj)
    return made


def b_vars(executor, *args, **kwargs):
    from .classes import NewObjectVariable
    if len(args) != 1 or kwargs or not isinstance(args[0], NewObjectVariable):
        raise FallbackError(UNSUPPORTED_CALL, "call of builtins.vars is not captured")
    return instance_dict(args[0])


def register(table: dict) -> None:
    table[builtins.vars] = b_vars
