"""NumPy's floating-point error state and the warnings filters, as a graph call sees them.

Two things a compiled graph cannot do as eager does unless they are looked at:

* A graph that raises part-way is rerun natively (the user's own code raises
  the error at the user's line).  What the graph emitted before raising is
  then emitted again: harmless for warnings shown once per line ("default",
  "once", "module": the registry is the user module's, see ``numpy.backend``),
  but not for an "always" filter or an ``np.seterrcall`` callback
  (``errstate(call=...)``/``"log"``).
* onnxruntime computes without NumPy's error checks: it neither warns nor
  raises ``FloatingPointError`` nor calls the errcall.

The state is *plain* when every NumPy error is only warned about or ignored
and no warnings filter shows RuntimeWarnings "always" or raises them
("error").  Every runner asks ``sot._C.fp_plain(TOKEN)`` before its graph:
pointer compares against the state last found plain (``csrc/fp_state.c``).
When it is not plain the call goes through ``run_careful``:

* the NumPy graph runs with every error that is not ignored set to raise,
  and every Python warning (NumPy's own ``warnings.warn``) made an error,
  so it emits nothing at all: if no error happens, the result is eager's and
  nothing was missed; if one does, the frame reruns natively and the user's
  code emits everything once, in order;
* an onnxruntime graph is replaced for that call by its NumPy twin, run as
  above when "always"/errcall make it necessary.
"""
from __future__ import annotations

import contextlib
import warnings

import numpy as np

from sot import _hook
from sot._quiet import first_filter
from sot._C import fp_plain

__all__ = ["TOKEN", "fp_plain", "may_raise", "never_plain", "run_careful", "run_strict", "state"]

try:
    from numpy._core._ufunc_config import _extobj_contextvar as _EXTOBJ
except ImportError:  # pragma: no cover - NumPy's error state lives elsewhere: always careful
    _EXTOBJ = None

# NumPy's Python functions this module calls while a decorated call runs:
# never offered to the translator (they are sot's work, not the user's).
for _fn in (np.geterr, np.seterr, np.errstate.__init__, np.errstate.__enter__, np.errstate.__exit__):
    if hasattr(_fn, "__code__"):
        _hook.skip_code(_fn.__code__)

TOKEN: list = []   # [contextvar, extobj, warnings.__dict__, filters, len, filters[0]] when plain
_LAST: list = []   # the same for the state last decided, plain or not
_LAST_VERDICT = [(True, True)]

# What NumPy operations warn with while computing: floating-point errors and
# empty reductions (RuntimeWarning), complex to real casts (ComplexWarning).
_WARNED_BY_OPS = (RuntimeWarning, getattr(np.exceptions, "ComplexWarning", RuntimeWarning))


def _filter_actions() -> set:
    """Actions the warnings filters may take on what NumPy ops warn with,
    from any module and line."""
    actions = set()
    left = list(_WARNED_BY_OPS)
    for action, message, category, module, lineno in warnings.filters:
        hit = [c for c in left if issubclass(c, category)]
        if not hit:
            continue
        actions.add(action)
        if message is None and module is None and not lineno:   # every such warning stops here
            left = [c for c in left if c not in hit]
            if not left:
                return actions
    actions.add(warnings.defaultaction)
    return actions


def state() -> tuple[bool, bool]:
    """``(numpy_careful, onnx_on_numpy)`` for the current state: whether a
    NumPy graph must run with errors raising, and whether an onnxruntime
    graph must run on NumPy instead.  Records TOKEN when the state is plain."""
    modes = set(np.geterr().values())
    actions = _filter_actions()
    numpy_careful = bool(modes & {"call", "log"}) or "always" in actions
    onnx_on_numpy = bool(modes - {"warn", "ignore"}) or bool(actions & {"always", "error"})
    if _EXTOBJ is not None:
        filters = warnings.filters
        _LAST[:] = [_EXTOBJ, _EXTOBJ.get(), warnings.__dict__, filters, len(filters),
                    filters[0] if filters else None]
        _LAST_VERDICT[0] = numpy_careful, onnx_on_numpy
        if not numpy_careful and not onnx_on_numpy:
            TOKEN[:] = _LAST
    return numpy_careful, onnx_on_numpy


def may_raise() -> bool:
    """Whether what a NumPy op reports can raise an exception now (an
    errstate of "raise", "call" or "log", whose handlers may raise, or an
    "error" warnings filter), rather than only be warned about or ignored."""
    return bool(set(np.geterr().values()) & {"raise", "call", "log"}) or "error" in _filter_actions()


def _current() -> tuple[bool, bool]:
    return _LAST_VERDICT[0] if fp_plain(_LAST) else state()


@contextlib.contextmanager
def _raising():
    """Every error NumPy would report made to raise (np.errstate), and every
    Python warning too: NumPy's own ``warnings.warn`` ("Mean of empty
    slice") would otherwise be shown by the graph and again by the native
    rerun that a later error causes. An "error" filter raises before the
    warning is shown or entered in a registry, so the rerun shows it once,
    in order (put in place, not with catch_warnings, which would empty
    every module's ``__warningregistry__``; see ``sot/_quiet.py``)."""
    with first_filter("error"), \
            np.errstate(**{k: ("ignore" if v == "ignore" else "raise") for k, v in np.geterr().items()}):
        yield


class CarefulCall:
    """What a runner calls when ``fp_plain`` says no: ``graph`` is the
    compiled graph, ``on_numpy`` its NumPy twin for onnxruntime graphs (a
    function building it, called once when first needed) or None when
    ``graph`` is itself NumPy code."""

    __slots__ = ("graph", "_twin", "_make_twin")

    def __init__(self, graph, make_twin=None):
        self.graph = graph
        self._twin = None
        self._make_twin = make_twin

    def __call__(self, *inputs):
        numpy_careful, onnx_on_numpy = _current()
        run = self.graph
        if self._make_twin is not None:
            if not onnx_on_numpy:
                return run(*inputs)
            if self._twin is None:
                self._twin = self._make_twin()
            run = self._twin
        if not numpy_careful:
            return run(*inputs)
        with _raising():
            return run(*inputs)


def run_careful(graph, make_twin=None) -> CarefulCall:
    return CarefulCall(graph, make_twin)


def run_strict(graph):
    """``graph`` (NumPy code) run with every floating-point error raising,
    whatever the state: for a frame with an ``np.errstate`` block inside,
    whose settings the graph does not apply per statement."""
    def strict(*inputs):
        with np.errstate(all="raise"):
            return graph(*inputs)
    return strict


def never_plain(token) -> bool:
    return False


state()
