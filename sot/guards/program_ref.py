"""The Python reference evaluator of a guard program.

It runs exactly the ops ``sot._C.GuardProgram`` runs (``program.assemble``;
the op set is documented at the top of ``csrc/guard_program.c``), one small
function per op, with the same meaning: any exception means "does not
hold". It is

* the guard where the C form is unavailable (``SOT_C_GUARDS=0``, or NumPy's
  array struct not the one C reads),
* the twin that strict mode (``SOT_GUARD_STRICT=1``,
  ``sot._C.set_guard_strict(True)``) runs beside C on every warm call,
  counting disagreements in ``sot._C.guard_counters()``,
* what finds the op that fails, so ``explain`` can say why in the words of
  the guard that emitted it (``first_failure``).

It reads only what C reads; it does not need to be fast.
"""
from __future__ import annotations

import sys
from types import CellType
from weakref import ref as _weakref_type
from typing import Any

from .. import _C
from .guard import same_dtype
from .tracker import builtins_of, value_key

__all__ = ["Reference", "execute", "LOADS"]

_type_dict = type.__dict__["__dict__"].__get__
_type_mro = type.__dict__["__mro__"].__get__


def _value_equal(v: Any, w: Any) -> bool:
    return value_key(v) == value_key(w)


def _alive(referent: Any) -> Any:
    if referent is None:
        raise ReferenceError("a weakly held guard object was collected")
    return referent


def _alive_is(referent: Any, v: Any) -> bool:
    """``v`` is the weakly held ``referent`` (None: it died, nothing is)."""
    return referent is not None and v is referent


def _is_descriptor(v: Any) -> bool:
    # tp_descr_get / tp_descr_set: a __get__, __set__ or __delete__ on its type
    return any(n in _type_dict(k) for k in _type_mro(type(v))
               for n in ("__get__", "__set__", "__delete__"))


# -- loads: (regs, g, args, cells, op) -> value ------------------------------

def _cell(regs, g, args, cells, op):
    c = cells[op[2]]
    if type(c) is not CellType:
        raise TypeError("not a cell")
    return c.cell_contents  # ValueError when empty


LOADS = {
    "arg": lambda regs, g, args, cells, op: args[op[2]],
    "cell": _cell,
    "global": lambda regs, g, args, cells, op: g[op[2]],
    "builtins": lambda regs, g, args, cells, op: builtins_of(g),
    "attr": lambda regs, g, args, cells, op: getattr(regs[op[2]], op[3]),
    "item": lambda regs, g, args, cells, op: regs[op[2]][op[3]],
    "const": lambda regs, g, args, cells, op: op[2],
    "wconst": lambda regs, g, args, cells, op: _alive(op[2]()),
}


# -- checks: (regs, g, op) -> bool ----------------------------------------------

def _tensor(regs, g, op):
    _, r, t, dtype, shape, _exact = op
    v = regs[r]
    if type(v) is not t or not same_dtype(v.dtype, dtype):
        return False
    if shape is None:
        return True
    have = v.shape
    return type(have) is tuple and len(have) == len(shape) and all(
        type(n) is int and (n >= 2 if d is None else n == d) for n, d in zip(have, shape))


def _dictkeys(regs, g, op):
    v = regs[op[1]]
    return (type(v) is op[2] and len(v) == len(op[3])
            and all(_value_equal(k, w) for k, w in zip(dict.__iter__(v), op[3])))


def _dim(v, axis, ndarray):
    return v.shape[axis]


def _same_items(a: tuple, b: tuple) -> bool:
    """Item by item identity (``==`` could run a metaclass's ``__eq__``)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _class(regs, g, op):
    _, t, tag, (mro, meta, snapshot, any_, *own) = op
    weak = op[0] == "wclass"
    if weak:
        ref, t = t, t()
        if not isinstance(t, type):
            return False   # a weakly held class that died
    own = own[0] if own else None
    if _C.type_unchanged(t, tag):
        return True
    if not (_same_items(_type_mro(t), (t,) + mro) if weak else _type_mro(t) is mro) or type(t) is not meta:
        return False
    for k, then in snapshot:
        now = _type_dict(t if k is ref else k) if weak else _type_dict(k)
        if len(now) != len(then):
            return False
        for name, old in then.items():
            if name not in now:
                return False
            cur = now[name]
            if old is own is not None:
                continue   # the class's own __dict__/__weakref__ descriptor
            if weak and type(old) is _weakref_type:
                old = old()   # a method, held weakly
                if old is None:
                    return False
            if cur is not old and (old is not any_ or _is_descriptor(cur)):
                return False
    return True


#: before 3.12, a dict of more keys than this is taken as plain unscanned
#: (guard_program.c: PLAIN_SCAN_MAX; a scan per call would grow with the dict)
_PLAIN_SCAN_MAX = 256


def _plain_scan_skipped(n: int) -> bool:
    return sys.version_info < (3, 12) and n > _PLAIN_SCAN_MAX


_CHECKS = {
    "type": lambda regs, g, op: type(regs[op[1]]) is op[2],
    "id": lambda regs, g, op: regs[op[1]] is op[2],
    "plainkeys": lambda regs, g, op: (type(regs[op[1]]) is dict
                                      and (_plain_scan_skipped(len(regs[op[1]]))
                                           or all(type(k) in (str, int) for k in regs[op[1]]))),
    "wid": lambda regs, g, op: _alive_is(op[2](), regs[op[1]]),
    "wtype": lambda regs, g, op: _alive_is(op[2](), type(regs[op[1]])),
    "tensor": _tensor,
    "value": lambda regs, g, op: _value_equal(regs[op[1]], op[2]),
    "len": lambda regs, g, op: type(regs[op[1]]) is op[2] and len(regs[op[1]]) == op[3],
    "dictkeys": _dictkeys,
    "absent": lambda regs, g, op: op[1] not in g,
    "dimeq": lambda regs, g, op: _dim(regs[op[1]], op[2], op[5]) == _dim(regs[op[3]], op[4], op[5]),
    "same": lambda regs, g, op: (regs[op[1]] is regs[op[2]]) is bool(op[3]),
    "notin": lambda regs, g, op: type(regs[op[1]]) is dict and op[2] not in regs[op[1]],
    "typever": lambda regs, g, op: bool(_C.type_unchanged(op[1], op[2])),
    "wtypever": lambda regs, g, op: (isinstance(op[1](), type)
                                     and bool(_C.type_unchanged(op[1](), op[2]))),
    "class": _class,
    "wclass": _class,
    "call": lambda regs, g, op: _value_equal(op[1](), op[2]),
    "overlap": lambda regs, g, op: bool(op[3](regs[op[1]], regs[op[2]])) is bool(op[4]),
}


def execute(ops: tuple, nargs: int, g: Any, values: tuple):
    """Run ``ops`` on a frame; returns ``(k, regs, error)``: ``k`` is the
    index of the op that failed (None if all held), ``error`` the exception
    it raised (None if it returned False)."""
    args, cells = values[:nargs], values[nargs:]
    regs: dict[int, Any] = {}
    for k, op in enumerate(ops):
        try:
            load = LOADS.get(op[0])
            if load is not None:
                regs[op[1]] = load(regs, g, args, cells, op)
            elif not _CHECKS[op[0]](regs, g, op):
                return k, regs, None
        except Exception as e:
            return k, regs, e
    return None, regs, None


class Reference:
    """A program's Python evaluator, called like the C one:
    ``ref(globals, *args, *cells) -> bool``. Holds only the ops (no
    guards), so the C program may keep it as its strict-mode twin."""

    __slots__ = ("ops", "nargs", "ncells")

    def __init__(self, ops: tuple, nargs: int, ncells: int):
        self.ops, self.nargs, self.ncells = ops, nargs, ncells

    def __call__(self, g, *values) -> bool:
        if len(values) != self.nargs + self.ncells:
            return False
        return execute(self.ops, self.nargs, g, values)[0] is None
