"""VariableTrackers: symbolic stand-ins for the values a frame touches."""
from .base import NULL, CellVariable, NullVariable, Variable
from .basic import (
    ConstVariable, DynamicScalarVariable, ModuleVariable, OpaqueVariable, SymScalarVariable,
    SymSliceVariable, TensorVariable,
    is_const_value,
)
from .callables import (
    BoundMethodVariable, BuiltinMethodVariable, BuiltinVariable, ClassVariable,
    NumpyCallableVariable, ObjectVariable, UserFunctionVariable,
)
from .containers import (
    DictVariable, DictViewVariable, IteratorVariable, LazyIteratorVariable, ListVariable, TupleVariable,
)

__all__ = [
    "NULL", "CellVariable", "DynamicScalarVariable", "NullVariable", "Variable", "ConstVariable", "ModuleVariable",
    "OpaqueVariable", "SymScalarVariable", "SymSliceVariable", "TensorVariable", "is_const_value", "BoundMethodVariable",
    "BuiltinMethodVariable", "BuiltinVariable", "ClassVariable", "NumpyCallableVariable",
    "ObjectVariable", "UserFunctionVariable", "DictVariable", "DictViewVariable", "IteratorVariable",
    "LazyIteratorVariable", "ListVariable", "TupleVariable",
]
