"""sot.ir: StatementIR and the NumPy op registry with shape/dtype inference."""

from .errors import UnsupportedOp
from .meta import TensorMeta
from .registry import (Op, all_ops, lookup_attribute, lookup_function, lookup_method,
                       lookup_operator)
from .statement_ir import Statement, StatementIR, Symbol
from .symbolic import ScalarMeta, SpecializeDims
from .registry import _load_families

_load_families()
del _load_families

__all__ = [
    "UnsupportedOp", "TensorMeta", "ScalarMeta", "SpecializeDims", "Symbol", "Statement", "StatementIR", "Op",
    "lookup_function", "lookup_method", "lookup_attribute", "lookup_operator", "all_ops",
]
