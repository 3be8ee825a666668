"""A resume function that reads a list whose length differs on every call runs natively.

After a graph break, the rest of a loop body often iterates a list made by
the native part (``for tok in tokenize(doc)`` after a ``re.Pattern`` call):
the trace unrolls the loop, so its guards hold the list's length, and each
new length is a new translation (one per length, up to the cache limit,
while the hook checks every entry's guards first on each call). Such a loop
cannot be one graph for every length, and a graph of one length runs the
same small operations as the loop. So once a resume function (or a loop
body function) has been translated for more than `LIMIT` lengths of a list
at one place, and the list holds no ndarray (array work would still gain
from a graph per length), the code runs natively from then on: eager's own
speed, no more translations. Only a translation that may fall back asks
(`FunctionGraph.list_lengths`): full_graph, strict mode and export do not.

The lengths seen per code live here, keyed by code identity; ``reset()``
drops them.
"""
from __future__ import annotations

import numpy as np

from .._codemap import CodeMap
from ..breaks.reasons import LIMIT as LIMIT_KIND, FallbackError

#: lengths of one list a resume function is translated for before it runs natively
LIMIT = 2

_states = CodeMap()


class ListLengths:
    """The lengths seen at each list of one generated code (resume function, loop body)."""

    __slots__ = ("seen",)

    def __init__(self, code):
        seen = _states.get(code)
        if seen is None:
            seen = _states[code] = {}
        self.seen = seen

    def note(self, tracker, value: list) -> None:
        """The trace reads the items of `value` (its length is guarded):
        FallbackError (the code runs natively for good) past `LIMIT` lengths."""
        lengths = self.seen.get(tracker)
        if lengths is None:
            lengths = self.seen[tracker] = set()
        lengths.add(len(value))
        if len(lengths) > LIMIT and not any(isinstance(v, np.ndarray) for v in value):
            error = FallbackError(LIMIT_KIND, f"{tracker.name()} is a list of another length on each call "
                                  f"({len(lengths)} lengths so far) and the trace reads its items: "
                                  "one translation per length gains nothing over the loop",
                                  hint="this part runs natively from now on")
            error.no_break = True    # a break would translate the rest per length again
            error.reason.native_for_good = True   # (the translator skips the code: cache.run_natively)
            raise error


def for_code(code, options):
    """The policy for a translation of `code`: only generated codes (a
    resume function, a loop body) that may fall back; else None."""
    from ..breaks.resume import RESUME_ORIGIN
    if options.full_graph or options.strict or code not in RESUME_ORIGIN:
        return None
    return ListLengths(code)


def reset() -> None:
    """Forget the lengths seen in every code."""
    _states.clear()
