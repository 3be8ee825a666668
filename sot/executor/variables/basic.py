"""Python constants and NumPy arrays."""
from __future__ import annotations

import numpy as np

from ...breaks.reasons import DATA_DEPENDENT, FallbackError
from .base import RealObjectVariable, Variable

# Values the simulator computes with directly (immutable, no user code runs).
CONST_TYPES = (
    int, float, bool, complex, str, bytes, type(None), type(Ellipsis),
    slice, range, np.dtype,
)


def is_const_value(value) -> bool:
    t = type(value)  # not isinstance(value, ...): that may run a user __getattribute__
    if issubclass(t, tuple):
        return t is tuple and all(is_const_value(v) for v in value)
    if issubclass(t, type) and issubclass(value, np.generic):
        return True  # np.float32 and friends used as dtype arguments
    return type(value) in CONST_TYPES


class ConstVariable(RealObjectVariable):
    """A Python value the simulator computes with (see CONST_TYPES)."""

    def truth(self) -> bool:
        return bool(self.value)

    def describe(self) -> str:
        return repr(self.value) if self.tracker is None else f"{self.tracker.name()}={self.value!r}"


class TensorVariable(Variable):
    """An ndarray or NumPy scalar inside the graph, named by an IR symbol.

    The Variable stands for one Python object: an in-place update rebinds
    `symbol` so every container/local holding this Variable sees it.
    `fresh` means the object was allocated by the graph (not a view of
    anything), so an in-place update cannot reach another array.
    """

    def __init__(self, symbol, tracker=None, fresh: bool = False):
        super().__init__(tracker)
        self.symbol = symbol
        self.input_symbol = symbol if tracker is not None else None
        self.fresh = fresh
        self.has_views = False

    @property
    def meta(self):
        return self.symbol.meta

    def python_type(self):
        if self.meta.is_scalar:
            return self.meta.dtype.type
        return np.ndarray

    def is_unchanged_input(self) -> bool:
        return self.input_symbol is not None and self.symbol is self.input_symbol

    def truth(self) -> bool:
        raise FallbackError(
            DATA_DEPENDENT,
            f"the truth value of a {self.describe()} depends on its data",
            hint="keep the condition as an array (np.where) or move the branch out of the traced function",
        )

    def describe(self) -> str:
        # user-facing (logs, explain): no IR symbol names such as t1
        m = self.meta
        kind = f"{m.dtype} scalar" if m.is_scalar else f"{m.dtype} array of shape {tuple(m.shape)}"
        if self.tracker is not None:
            return f"{kind} {self.tracker.name()}"
        return f"{kind} computed in the graph"


class ModuleVariable(RealObjectVariable):
    def describe(self) -> str:
        return f"module {self.value.__name__}"


class OpaqueVariable(RealObjectVariable):
    """A value the simulator may pass around (or return) but not operate on."""

    def truth(self) -> bool:
        return Variable.truth(self)  # its __bool__/__len__ may be user code

    def describe(self) -> str:
        name = self.tracker.name() if self.tracker is not None else "?"
        return f"{type(self.value).__name__} object {name}"


class DynamicScalarVariable(RealObjectVariable):
    """A Python int/float computed natively from array data (e.g. by
    `float(x.sum())` at a graph break). Only its type is guarded, so a new
    value does not retranslate; using it at all is data-dependent and breaks
    the graph there, the use running natively."""

    def truth(self) -> bool:
        raise FallbackError(DATA_DEPENDENT, f"the truth value of {self.describe()} depends on array data")

    def describe(self) -> str:
        name = self.tracker.name() if self.tracker is not None else "a value"
        return f"{name} (a Python {type(self.value).__name__} computed from array data)"


class SymScalarVariable(Variable):
    """A Python int/float/bool computed in the graph from symbolic dims
    (``x.shape[0]``, ``x.shape[-1] ** 0.5``).  Arithmetic and comparisons
    with constants stay in the graph; anything that needs its value in
    Python (a branch, ``range``, a list length) specialises the dims it
    depends on: the trace is redone with them static (SpecializeDims)."""

    def __init__(self, symbol, deps):
        super().__init__(None)
        self.symbol = symbol
        self.deps = deps

    @property
    def meta(self):
        return self.symbol.meta

    def python_type(self):
        return self.meta.type

    def specialise(self, why: str):
        from ...ir.symbolic import SpecializeDims
        _break_if_unbacked(self.deps, f"{why} needs the value of {self.describe()}")
        raise SpecializeDims(self.deps, f"{why} needs the value of {self.describe()}")

    graph = None   # a weak reference to the FunctionGraph: branches on number inputs (number_branches.py)

    def truth(self) -> bool:
        graph = self.graph() if self.graph is not None else None
        if graph is not None:
            from ..number_branches import branch
            outcome = branch(graph, self)
            if outcome is not None:
                return outcome
        self.specialise("a branch")

    def describe(self) -> str:
        from ...ir.data_numbers import is_data_number
        if any(is_data_number(s) for s in self.deps):
            return f"a Python {self.meta.type.__name__} read from array data"
        return f"Python {self.meta.type.__name__} {self.symbol.name} computed from symbolic dims"


class SymSliceVariable(Variable):
    """A slice whose bounds include SymScalarVariables (``x[: n // 2]``);
    ``value`` is the IR slice (Symbols and ints)."""

    def __init__(self, value, deps):
        super().__init__(None)
        self.value = value
        self.deps = deps

    def python_type(self):
        return slice

    def specialise(self, why: str):
        from ...ir.symbolic import SpecializeDims
        _break_if_unbacked(self.deps, f"{why} needs the value of a slice computed from symbolic dims")
        raise SpecializeDims(self.deps, f"{why} needs the value of a slice computed from symbolic dims")


def _break_if_unbacked(deps, why: str) -> None:
    """A value computed from a data-dependent size (sot.ir.unbacked) has
    nothing to guard: needing it in Python breaks the graph there."""
    from ...ir.unbacked import any_unbacked
    if any_unbacked(deps):
        raise FallbackError(DATA_DEPENDENT, f"{why}, known only at run time",
                            hint="keep it in array operations, or compute it after the graph")

    def describe(self) -> str:
        return "slice computed from symbolic dims"
