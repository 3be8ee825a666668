"""TensorMeta: what the IR knows about a value without looking at its data."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["TensorMeta", "SUPPORTED_DTYPE_KINDS", "dtype_is_supported", "short_dtype"]

#: bool, signed/unsigned integers, floats, complex.  Object, string, void and
#: datetime dtypes are never captured.
SUPPORTED_DTYPE_KINDS = frozenset("biufc")


def dtype_is_supported(dtype: np.dtype) -> bool:
    return dtype.kind in SUPPORTED_DTYPE_KINDS and not dtype.hasobject


@dataclass(frozen=True)
class TensorMeta:
    """Shape, dtype and Python type of an array value.

    ``is_scalar=True`` means the value is a NumPy scalar (an ``np.generic``,
    shape ``()``); ``False`` means an ``ndarray`` (possibly 0-d).

    ``shadow`` is the shape in the shadow world of symbolic dims (see
    ``sot.ir.symbolic``), None when no dim is symbolic; ``shape`` always
    holds the sizes seen at trace time.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    is_scalar: bool = False
    shadow: tuple[int, ...] | None = None

    is_python = False  # a Python number is a ScalarMeta

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        object.__setattr__(self, "dtype", np.dtype(self.dtype))
        if self.is_scalar and self.shape != ():
            raise ValueError(f"a NumPy scalar has shape (), not {self.shape}")
        if any(d < 0 for d in self.shape):
            raise ValueError(f"negative dimension in {self.shape}")
        if self.shadow is not None:
            shadow = tuple(int(d) for d in self.shadow)
            if len(shadow) != len(self.shape):
                raise ValueError(f"shadow {shadow} does not match shape {self.shape}")
            object.__setattr__(self, "shadow", None if shadow == self.shape else shadow)

    @property
    def symbolic_axes(self) -> tuple[int, ...]:
        """The axes whose size is symbolic (differs between the two worlds)."""
        if self.shadow is None:
            return ()
        return tuple(i for i, (a, b) in enumerate(zip(self.shape, self.shadow)) if a != b)

    def shadow_meta(self) -> "TensorMeta":
        """This meta in the shadow world (itself when nothing is symbolic)."""
        if self.shadow is None:
            return self
        return TensorMeta(self.shadow, self.dtype, self.is_scalar)

    @classmethod
    def of(cls, value) -> "TensorMeta":
        """The meta of an exact ``ndarray`` or NumPy scalar (``np.generic``);
        subclasses raise TypeError."""
        if type(value) is np.ndarray:
            return cls(value.shape, value.dtype, False)
        if isinstance(value, np.generic) and type(value) is value.dtype.type:
            return cls((), value.dtype, True)
        if isinstance(value, (np.ndarray, np.generic)):
            # np.matrix, masked arrays, user subclasses: their operators mean other things
            raise TypeError(f"TensorMeta.of: subclass {type(value).__name__} is not supported")
        raise TypeError(f"TensorMeta.of expects an ndarray or NumPy scalar, got {type(value).__name__}")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __str__(self) -> str:
        if self.is_scalar:
            return short_dtype(self.dtype)
        sym = self.symbolic_axes
        dims = ("?" if i in sym else str(d) for i, d in enumerate(self.shape))
        return f"{short_dtype(self.dtype)}[{', '.join(dims)}]"


def short_dtype(dtype: np.dtype) -> str:
    """``f32``, ``i64``, ``u8``, ``c128``, ``bool`` — as in a listing."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return "bool"
    if dtype.kind in "iufc":
        return f"{dtype.kind}{dtype.itemsize * 8}"
    return str(dtype)
