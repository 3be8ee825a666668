"""`InputSpec`: the signature of an exported input, and its JSON form.

A dimension of an `InputSpec` shape is one of

* an ``int`` >= 0 — a static size, checked when the loaded model is called;
* ``None`` or ``-1`` — dynamic, any size >= 1;
* ``(min, max)`` — dynamic within bounds (``max`` may be ``None``);
* a ``str`` — a named dynamic dimension: every dimension with that name, in
  any input, has one size (use it for a batch dimension shared by inputs);
* ``(name, min, max)`` — a named dynamic dimension with bounds.

Unnamed dynamic dimensions are named ``<input>_dim<i>`` when the function is
saved; the name is the ONNX ``dim_param``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

__all__ = ["InputSpec", "ExportError", "Dim", "ResolvedInput", "dump_signature", "parse_signature"]

#: the metadata_props key holding the input signature (JSON, see dump_signature)
SIGNATURE_KEY = "sot.input_spec"
#: the metadata_props key holding how outputs are returned (JSON)
OUTPUTS_KEY = "sot.outputs"
FORMAT_KEY = "sot.format"
FORMAT = "1"


class ExportError(Exception):
    """The function cannot be exported as one ONNX graph; the message says
    the reason (with file:line) and how to remove it."""

    def __init__(self, message: str, reasons=()):
        super().__init__(message)
        self.reasons = list(reasons)


@dataclass(frozen=True)
class Dim:
    """One resolved dimension: static (``size``) or dynamic (``param``)."""
    size: int | None = None
    param: str | None = None
    min: int = 1
    max: int | None = None

    @property
    def dynamic(self) -> bool:
        return self.param is not None

    def text(self) -> str:
        return str(self.size) if not self.dynamic else self.param

    def bounds_text(self) -> str | None:
        if not self.dynamic:
            return None
        if self.max is None:
            return f"{self.param} >= {self.min}"
        return f"{self.min} <= {self.param} <= {self.max}"

    def to_json(self):
        if not self.dynamic:
            return self.size
        return {"param": self.param, "min": self.min, "max": self.max}

    @classmethod
    def from_json(cls, value) -> "Dim":
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return cls(size=value)
        if isinstance(value, dict) and isinstance(value.get("param"), str):
            lo, hi = value.get("min", 0), value.get("max")
            if not (isinstance(lo, int) and (hi is None or isinstance(hi, int))):
                raise ValueError(f"bad bounds in {value!r}")
            return cls(param=value["param"], min=lo, max=hi)
        raise ValueError(f"bad dimension {value!r}")


def _check_bound(v, what: str, spec) -> int | None:
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
        raise ValueError(f"InputSpec {spec}: {what} must be an int >= 0 or None, got {v!r}")
    return int(v)


class InputSpec:
    """Shape, dtype and name of one input of an exported function.

    >>> InputSpec([None, 512], "float32", "x")          # any batch size
    >>> InputSpec([(1, 256), 512], "float32", "x")      # batch 1..256
    >>> InputSpec(["batch", 3], "int64", "ids")         # batch shared by inputs
    """

    def __init__(self, shape, dtype="float32", name: str | None = None):
        if isinstance(shape, (int, np.integer)) or shape is None or isinstance(shape, str):
            raise TypeError(f"InputSpec shape must be a list or tuple of dimensions, got {shape!r}")
        self.shape = tuple(shape)
        try:
            self.dtype = np.dtype(dtype)
        except TypeError as e:
            raise TypeError(f"InputSpec: {dtype!r} is not a dtype: {e}") from None
        from sot.backends.onnx.builder import ALL
        if self.dtype not in ALL:
            raise TypeError(f"InputSpec: dtype {self.dtype} cannot be an ONNX input "
                            f"(supported: {', '.join(sorted(str(d) for d in ALL))})")
        if name is not None and (not isinstance(name, str) or not name):
            raise TypeError(f"InputSpec name must be a non-empty str, got {name!r}")
        self.name = name
        self._dims = [self._parse(d) for d in self.shape]

    def _parse(self, d):
        """(size, param, min, max) with param '' for an unnamed dynamic dim."""
        if d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d == -1):
            return (None, "", 1, None)
        if isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)):
            if d < 0:
                raise ValueError(f"InputSpec {self.shape}: dimension {d} (use None or -1 for dynamic)")
            return (int(d), None, None, None)
        if isinstance(d, str):
            if not d:
                raise ValueError(f"InputSpec {self.shape}: an empty dimension name")
            return (None, d, 1, None)
        if isinstance(d, (tuple, list)) and len(d) in (2, 3):
            name = ""
            if len(d) == 3:
                name, d = d[0], d[1:]
                if not isinstance(name, str) or not name:
                    raise ValueError(f"InputSpec {self.shape}: (name, min, max) needs a str name")
            lo = _check_bound(d[0], "min", self.shape)
            hi = _check_bound(d[1], "max", self.shape)
            lo = 0 if lo is None else lo
            if hi is not None and hi < lo:
                raise ValueError(f"InputSpec {self.shape}: max {hi} < min {lo}")
            if hi is not None and hi == lo and not name:
                return (lo, None, None, None)
            return (None, name, lo, hi)
        raise ValueError(f"InputSpec {self.shape}: bad dimension {d!r} (an int, None, -1, "
                         f"(min, max), a name or (name, min, max))")

    @classmethod
    def from_array(cls, array, name: str | None = None) -> "InputSpec":
        """A static spec with the shape and dtype of ``array``."""
        array = np.asarray(array)
        return cls(array.shape, array.dtype, name)

    def resolve(self, default_name: str) -> "ResolvedInput":
        name = self.name or default_name
        dims = []
        for i, (size, param, lo, hi) in enumerate(self._dims):
            if param is None:
                dims.append(Dim(size=size))
            else:
                dims.append(Dim(param=param or f"{name}_dim{i}", min=lo, max=hi))
        return ResolvedInput(name, self.dtype, tuple(dims))

    def __repr__(self) -> str:
        return f"InputSpec(shape={list(self.shape)!r}, dtype={str(self.dtype)!r}, name={self.name!r})"

    def __eq__(self, other):
        return (isinstance(other, InputSpec) and (self.shape, self.dtype, self.name) ==
                (other.shape, other.dtype, other.name))

    __hash__ = None


@dataclass(frozen=True)
class ResolvedInput:
    """An input as saved: its name, dtype and dims (dynamic ones named)."""
    name: str
    dtype: np.dtype
    dims: tuple

    def text(self) -> str:
        shape = ", ".join(d.text() for d in self.dims)
        bounds = [d.bounds_text() for d in self.dims if d.dynamic]
        return f"{self.name}: {self.dtype}[{shape}]" + (f" with {', '.join(bounds)}" if bounds else "")

    def to_json(self) -> dict:
        return {"name": self.name, "dtype": self.dtype.str, "shape": [d.to_json() for d in self.dims]}

    @classmethod
    def from_json(cls, value) -> "ResolvedInput":
        if not isinstance(value, dict) or not isinstance(value.get("name"), str) \
                or not isinstance(value.get("dtype"), str) or not isinstance(value.get("shape"), list):
            raise ValueError(f"bad input entry {value!r}")
        return cls(value["name"], np.dtype(value["dtype"]), tuple(Dim.from_json(d) for d in value["shape"]))


def dump_signature(inputs) -> str:
    return json.dumps([i.to_json() for i in inputs])


def parse_signature(text: str) -> list:
    value = json.loads(text)
    if not isinstance(value, list):
        raise ValueError("the input signature is not a list")
    return [ResolvedInput.from_json(v) for v in value]
