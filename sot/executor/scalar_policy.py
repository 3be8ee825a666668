"""Which Python numbers a translation takes as graph inputs (automatic dynamic numbers).

What automatic dynamic shapes (shape_policy.py) do for dims, this does for
Python ``int`` / ``float`` values: a number read through a tracker (an
attribute, a global, an argument...) is first specialised (value guard, a
constant of the graph).  Once the same code has been translated with a
*different* value there (an optimizer's step counter ``self.t``, an LSTM's
``current_step``), it becomes a graph input: a Python-number symbol
(``ScalarMeta``) guarded by its type only, that the NumPy backend receives as
the very Python object, so NumPy applies its own NEP 50 weak-scalar rules
and results stay bitwise.  Where the trace needs its value in Python (a
branch, ``range``, a shape, an index, an op valid only for that value), the
trace is redone with it specialised (``SpecializeDims`` reports the source),
and it stays specialised in that code from then on.

The state per code (values seen, numbers specialised) lives here, keyed by
code identity; ``reset()`` drops it.
"""
from __future__ import annotations

from .._codemap import CodeMap

__all__ = ["ScalarPolicy", "scalar_source", "reset"]

_VARIED = object()
#: exact types promoted (bool stays a value: it almost always steers control flow)
NUMBER_TYPES = (int, float)


class _CodeNumbers:
    __slots__ = ("seen", "static")

    def __init__(self):
        self.seen: dict = {}      # tracker -> (type, value) last translated, or _VARIED
        self.static: set = set()  # trackers whose value the trace needs


_states = CodeMap()


def scalar_source(tracker) -> tuple:
    """The opaque source key a Python-number input reports in SpecializeDims."""
    return ("number", tracker)


def _is_number_source(source) -> bool:
    return type(source) is tuple and len(source) == 2 and source[0] == "number"


class ScalarPolicy:
    """The numbers-as-inputs decision for one translation of ``code``."""

    def __init__(self, code, enabled: bool = True):
        state = _states.get(code)
        if state is None:
            state = _states[code] = _CodeNumbers()
        self.state = state
        self.enabled = enabled

    def is_input(self, tracker, value) -> bool:
        """Whether this number enters the graph as an input (else: a value-guarded constant)."""
        if not self.enabled or type(value) not in NUMBER_TYPES or tracker is None:
            return False
        return self.varied(tracker, value)

    def varied(self, tracker, value) -> bool:
        """Whether this code was translated with another value of this exact
        type at `tracker` (and no trace needed the value since); records
        `value`. Numbers (`is_input`) and pass-through strings (str_data.py)."""
        if not self.enabled or tracker is None:
            return False
        seen = self.state.seen.get(tracker)
        if seen is _VARIED:
            return tracker not in self.state.static
        if seen is not None and seen != (type(value), value) and seen[0] is type(value):
            self.state.seen[tracker] = _VARIED
            return tracker not in self.state.static
        self.state.seen[tracker] = (type(value), value)
        return False

    def needs_value(self, tracker) -> bool:
        """Whether a trace of this code needed this number's value (it stays
        specialised there)."""
        return tracker in self.state.static

    def specialise(self, sources) -> bool:
        """Keep the numbers among ``sources`` specialised; whether there were any."""
        numbers = {s[1] for s in sources if _is_number_source(s)}
        self.state.static.update(numbers)
        return bool(numbers)


def reset() -> None:
    """Forget the values seen and the specialised numbers of every code."""
    _states.clear()
