"""Do no harm: a decorated function that runs slower translated than eager runs eagerly.

Graph breaks, many small graphs, resume functions and re-translations can
cost more than the graphs save (a k-nearest-neighbour predict with a Python
loop over queries and a data-dependent vote). So each decorated callable is
measured the way ``backend="auto"`` measures backends:

* over its first calls (a *window*), `SAMPLES` clean calls of one form, then
  of the other (the translated form first, the choice so far on a re-check):
  the translated form and the plain function (the hook off).  A call during
  which something was translated is warm-up, not a sample, and its
  translation time is counted; so is the first call after a switch of form
  (NumPy's BLAS threads still spin after an eager call and slow the
  onnxruntime call that follows: alternating call by call made a 0.6x
  graph look slower than eager on a busy 2-core machine).  The best of each
  decides;
* translated not clearly faster than native (by `KEEP`): the callable runs natively (the hook is
  not even installed for its calls), with the reason logged at verbosity 1
  and shown by ``explain``; a window in which translations never stop (a
  code that keeps breaking into new tiny graphs) ends native too;
* the choice is re-checked later like auto's: after `RECHECK` calls times
  how much slower the other form was (a re-check runs the other form
  `SAMPLES` + 1 times: its cost stays a few per cent however slow that form
  is), then twice as many each time (a C countdown: no Python work per call
  between).

The measurement and the choice belong to the decorated *code* (with the
options it was decorated with), not to one callable: ``to_static`` of the
same function again, of a bound method of another instance, or of another
closure of the same ``def`` joins the same governor, which sets the mode of
every callable it serves.

Both forms behave identically (the project's promise), so alternating is
invisible to the program. The mode lives in the C callable
(``StaticFunction.__sot_mode__``): 0 translated, 1 native, 2 measuring.
``to_static(full_graph=True)`` / ``SOT_STRICT`` callables are never switched;
``SOT_DO_NO_HARM=0`` turns the governor off.
"""
from __future__ import annotations

import logging
import time
import weakref

from . import _env, _hook
from .backends import measuring_calls
from .logs import vlog

log = logging.getLogger("sot.governor")

TRANSLATED, NATIVE, MEASURE = 0, 1, 2
SAMPLES = 5            # clean timed calls per form; the best counts
#: the translated form is kept only when clearly faster: within noise, native
#: is the choice that can never be slower than eager
KEEP = 0.95
MAX_WINDOW = 32        # calls in one window before "keeps translating" ends it
RECHECK = 256          # calls until the first re-check (then doubled each time)
MAX_RECHECK = 1 << 20

#: the clock (injectable: tests use a fake one)
clock = time.perf_counter

_governors: "weakref.WeakSet[Governor]" = weakref.WeakSet()


def enabled() -> bool:
    return _env.flag("SOT_DO_NO_HARM", True)


class Governor:
    """The measurement and the choice for one decorated code (see module doc)."""

    def __init__(self, fn):
        self._statics: "weakref.WeakSet" = weakref.WeakSet()   # the callables it sets the mode of
        self.fn = fn   # the first one's (for its name)
        self.choice: str | None = None     # "translated" / "native" once decided
        self.reason: str = "measuring"
        self.history: list[tuple[str, str]] = []
        self.recheck = RECHECK
        self._last: str | None = None      # the form of the last call (a sample follows its own form)
        self._start_window()
        _governors.add(self)

    def _start_window(self) -> None:
        self.samples = {"translated": [], "native": []}
        self.window_calls = 0
        self.window_translations = 0
        self.window_translate_seconds = 0.0

    def attach(self, static) -> None:
        """`static` follows this governor: measuring now, or its choice."""
        self._statics.add(static)
        if self.choice is None:
            static.__sot_mode__, static.__sot_countdown__ = MEASURE, 0
        else:
            static.__sot_mode__ = TRANSLATED if self.choice == "translated" else NATIVE
            static.__sot_countdown__ = self.recheck // 2 or 1

    def _form(self) -> str:
        """The form of the next call: the choice so far (translated at first)
        until it has its samples, then the other."""
        first = self.choice or "translated"
        return first if len(self.samples[first]) < SAMPLES else ("native" if first == "translated" else "translated")

    def begin(self, translator) -> tuple:
        """A measured call starts: (translated?, what end() needs). The C
        callable runs the call itself (with `translator` as the frame
        callback, or none), so no frame of sot sits between the caller and
        the function: tracebacks, inspect.stack() and the recursion depth
        are those of eager."""
        form = self._form()
        sample = self._last == form    # the first call after a switch is warm-up
        self._last = form
        self.window_calls += 1
        if form == "translated":
            return True, sample, translator, translator.translations, translator.translate_seconds, \
                measuring_calls[0], clock()
        return False, sample, clock()

    def end(self, token: tuple) -> None:
        """The call begun with `token` returned (one that raised is no sample)."""
        if not token[0]:
            if token[1]:
                self.samples["native"].append(clock() - token[2])
            self._maybe_decide()
            return
        _, sample, translator, translations, seconds, measuring, t0 = token
        elapsed = clock() - t0
        n = translator.translations - translations
        if n:
            self.window_translations += n
            self.window_translate_seconds += translator.translate_seconds - seconds
        elif measuring_calls[0] != measuring:
            self.window_calls -= 1   # an auto graph's warm-up: neither a sample nor "keeps translating"
        elif sample:
            self.samples["translated"].append(elapsed)
        self._maybe_decide()

    def _maybe_decide(self) -> None:
        t, n = self.samples["translated"], self.samples["native"]
        if len(t) >= SAMPLES and len(n) >= SAMPLES:
            bt, bn = min(t), min(n)
            if bt <= bn * KEEP:
                self._decide("translated", f"translated {bt * 1e6:.1f} us < native {bn * 1e6:.1f} us "
                                           f"(best of {len(t)} calls each)", bn / max(bt, 1e-12))
            else:
                self._decide("native", f"translated {bt * 1e6:.1f} us, native {bn * 1e6:.1f} us "
                                       f"(best of {len(t)} calls each): it runs natively", bt / max(bn, 1e-12))
        elif self.window_calls >= MAX_WINDOW and len(t) < SAMPLES:
            self._decide("native", f"keeps translating: {self.window_translations} translations "
                                   f"({self.window_translate_seconds * 1e3:.1f} ms) in {self.window_calls} "
                                   f"calls: it runs natively")

    def _decide(self, choice: str, reason: str, slower: float = 1.0) -> None:
        """``slower``: how many times the other form's best took (its re-check
        calls cost that much each, so they come that much more rarely)."""
        self.choice, self.reason = choice, reason
        self._last = choice   # the calls until the re-check run it
        self.history.append((choice, reason))
        countdown = min(int(self.recheck * max(1.0, slower)), MAX_RECHECK)
        name = getattr(self.fn, "__qualname__", None) or type(self.fn).__name__
        vlog(1, log, "%s: %s; re-checked after %d calls", name, reason, countdown)
        for static in list(self._statics):
            static.__sot_mode__ = TRANSLATED if choice == "translated" else NATIVE
            static.__sot_countdown__ = countdown
        self.recheck = min(self.recheck * 2, MAX_RECHECK)
        self._start_window()

    def restart(self) -> None:
        """Measure again from the next call (sot.reset)."""
        self.choice, self.reason = None, "measuring"
        self.recheck = RECHECK
        self._last = None
        self._start_window()
        for static in list(self._statics):
            static.__sot_mode__ = MEASURE
            static.__sot_countdown__ = 0

    def describe(self) -> str:
        if self.choice is None:
            return f"do-no-harm: measuring ({self.window_calls} call(s) so far)"
        return f"do-no-harm: {self.choice}: {self.reason}"


class _Member:
    """A StaticFunction's ``__sot_measure__``: begin() before and end(token)
    after each of its calls in measuring mode (static_function.c), measured
    by its code's governor."""

    __slots__ = ("governor", "translator")

    def __init__(self, governor: Governor, translator):
        self.governor, self.translator = governor, translator

    def begin(self) -> tuple:
        return self.governor.begin(self.translator)

    def end(self, token: tuple) -> None:
        self.governor.end(token)


#: (code, options) -> the Governor of that code decorated with those options
_by_code: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def _key(translator):
    o = translator.options
    if o.top_code is None:
        return None
    return (o.top_code, o.backend, o.device, o.min_graph_size, o.dynamic, o.freeze, o.cache_size)


def install(static, fn, translator) -> Governor | None:
    """Measure `static` (a StaticFunction) from its first call, with every
    other callable of the same code and options."""
    if not enabled():
        return None
    key = _key(translator)
    gov = _by_code.get(key) if key is not None else None
    if gov is None:
        gov = Governor(fn)
        if key is not None:
            _by_code[key] = gov
    for code in (_Member.begin.__code__, _Member.end.__code__, Governor.begin.__code__, Governor.end.__code__):
        _hook.skip_code(code)
    static.__sot_measure__ = _Member(gov, translator)
    gov.attach(static)
    return gov


def restart_all() -> None:
    for gov in list(_governors):
        gov.restart()
