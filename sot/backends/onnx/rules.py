"""The table of ONNX lowerings: ``(op kind, op name) -> Rule``, as
``sot.ir.registry`` is the table of ops.

A rule lowers one statement into a ``GraphBuilder`` and returns the ONNX
values of its outputs (``lower(builder, statement)``), or raises NotLowered
(NotSymbolic where it lowers only at static sizes).  Each family module
declares its rules (``lowering_array.ARRAY_RULES`` with its size sets,
``lowering_gather.GATHER_RULES``, the operator ufuncs of
``lowering_elementwise``); they are loaded here on the first lookup (so a
module that adds to those tables when imported is seen), and ``register``
adds or replaces one.
A NumPy ufunc called as a function has no entry of its own: every ufunc
lowers through ``lower_ufunc_statement`` (``rule_for``).

What a rule does with symbolic dims is part of it: ``symbolic`` (its sizes
are Dims, right for every size, or it uses none) and ``python_numbers``
(it takes a graph's Python numbers computed from shapes: as sizes or bounds,
or, for a ufunc, as weak operands).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from sot.ir.registry import OP_KINDS

from . import lowering_array, lowering_combine, lowering_elementwise

__all__ = ["Rule", "RULES", "register", "rule_for"]


@dataclass(frozen=True)
class Rule:
    lower: Callable    # (GraphBuilder, Statement) -> [ONNX value of each output]
    symbolic: bool = False
    python_numbers: bool = False


#: (op kind, op name) -> Rule
RULES: dict[tuple[str, str], Rule] = {}


def register(keys, lower, *, symbolic: bool = False, python_numbers=False) -> None:
    """``lower`` for each ``(kind, name)`` of ``keys`` (replacing a rule it
    had); ``python_numbers``: a bool, or the keys that take Python numbers."""
    _loaded or _load()
    _add(keys, lower, symbolic, python_numbers, replace=True)


def rule_for(op) -> Rule | None:
    """The rule lowering ``op``, or None."""
    _loaded or _load()
    rule = RULES.get((op.kind, op.name))
    if rule is None and op.kind == "function" and isinstance(op.target, np.ufunc):
        return _UFUNC
    return rule


def _add(keys, lower, symbolic, python_numbers, replace=False) -> None:
    for key in keys:
        takes = python_numbers if isinstance(python_numbers, bool) else key in python_numbers
        if replace or key not in RULES:
            RULES[key] = Rule(lower, symbolic, takes)


_loaded = False
_UFUNC = None


def _load() -> bool:
    """The family modules' rules; where two name one key, the first here wins."""
    a, e = lowering_array, lowering_elementwise
    global _loaded, _UFUNC
    for key, lower in a.ARRAY_RULES.items():
        _add([key], lower, lower in a.SIZE_AWARE_RULES or lower in a.SIZE_FREE_RULES, a.PYTHON_SIZE_OPS)
    _add([("operator", name) for name in e.OPERATOR_UFUNCS], e.lower_ufunc_statement, True, True)
    _UFUNC = Rule(e.lower_ufunc_statement, symbolic=True, python_numbers=True)
    _add([("function", "where")], e.lower_where, True, False)
    _add([(kind, "clip") for kind in OP_KINDS], e.lower_clip, True, False)
    _add([(kind, name) for kind in OP_KINDS for name in ("round", "around")], e.lower_round, True, False)
    _add([("function", "nan_to_num")], e.lower_nan_to_num, True, False)
    for key, lower in lowering_combine.COMBINE_RULES.items():
        _add([key], lower, False, False)
    _loaded = True
    return True
