"""The per-code cache: entries of (guard, replacement), bounded in size.

The hook (sot._C) reads the list of `(guard, replacement)` pairs stored for a
code; this module owns the policy around it: adding entries, the size limit,
what happens past it, and per-code records for `explain`.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from .. import _hook
from .._codemap import CodeMap
from ..logs import vlog

log = logging.getLogger("sot.cache")

DEFAULT_CACHE_SIZE = 8


def _always(*_args) -> bool:
    return True


@dataclass
class CodeRecord:
    code: object
    entries: list = field(default_factory=list)        # Python-side info per entry
    translations: int = 0
    overflowed: bool = False
    graphless: int = 0  # translations that captured no array op
    replaced: int = 0   # entries dropped because a later entry covers their inputs (subsume.py)
    dead: int = 0       # entries dropped because an object a guard pinned weakly died
    native: bool = False  # runs natively for good (run_natively)


_records = CodeMap()
_lock = threading.Lock()


def record(code) -> CodeRecord:
    with _lock:
        rec = _records.get(code)
        if rec is None:
            rec = _records[code] = CodeRecord(code)
        return rec


def add_entry(code, guard, replacement, info, cache_size: int, direct=None) -> bool:
    """Store one translation (True), unless the cache is full (False). Past `cache_size` entries the code runs natively
    (a catch-all entry after the existing ones), and that is logged.

    `direct`, when given, is called by the hook as `direct(globals, *args,
    *cells)` in place of running `replacement` (no replacement frame). The
    hook reorders entries whose guard is a C GuardProgram (most recently hit
    first); the catch-all's guard is a plain function, so it stays last."""
    rec = record(code)
    rec.translations += 1
    pairs = _hook.get_cache(code)
    if pairs is None:
        pairs = []
        _hook.set_cache(code, pairs)
    if rec.overflowed:
        return False
    _drop_dead(rec, pairs)
    _drop_implied(rec, pairs, info)
    # a dead entry still counts: a function that makes a new class on every
    # call (each entry dies by the next) runs natively past the limit, as
    # when the entries were kept, instead of translating on every call
    if len(rec.entries) + rec.dead >= cache_size:
        rec.overflowed = True
        pairs.append((_always, None))
        vlog(1, log, "%s (%s:%d): cache limit of %d entries reached; it runs natively from now on "
                    "for inputs that match no cached entry",
                    code.co_name, code.co_filename, code.co_firstlineno, cache_size)
        return False
    rec.entries.append(info)
    pairs.append((guard, replacement) if direct is None else (guard, replacement, direct))
    return True


def _guard_of(info):
    return getattr(info, "guard", None)


def _drop_entry(rec: CodeRecord, pairs: list, k: int) -> None:
    """Remove entry ``k`` of ``rec`` and its pair from the hook's list."""
    hot = rec.entries[k].guard.hot
    for i, pair in enumerate(pairs):   # the hook reorders pairs: find it by identity
        if pair[0] is hot:
            del pairs[i]
            break
    del rec.entries[k]   # by position: EntryInfo == compares fields


def _drop_dead(rec: CodeRecord, pairs: list) -> None:
    """Drop the entries a guard of which pins an object that has died (a
    class made at a break, held weakly): they can never hold again, and
    must not keep their graphs (they count against the cache size)."""
    for k in range(len(rec.entries) - 1, -1, -1):
        guard = _guard_of(rec.entries[k])
        if guard is not None and any(getattr(gd, "is_dead", _never)() for gd in guard.guards):
            _drop_entry(rec, pairs, k)
            rec.dead += 1


def _never() -> bool:
    return False


def _drop_implied(rec: CodeRecord, pairs: list, info) -> None:
    """Drop the entries whose inputs the new entry (``info``) also serves,
    so their compiled graphs, sessions and buffers are freed (a symbolic
    entry replacing the static one of the first size)."""
    new = getattr(getattr(info, "guard", None), "guards", None)
    if new is None:
        return
    from .subsume import implies  # at translation time: `import sot` stays light (guard imports inspect)
    for k in range(len(rec.entries) - 1, -1, -1):
        old = rec.entries[k]
        guard = getattr(old, "guard", None)
        if guard is None or not implies(guard.guards, new):
            continue
        _drop_entry(rec, pairs, k)
        rec.replaced += 1
        vlog(2, log, "%s (%s:%d): an entry is replaced by a more general one (%s)", rec.code.co_name,
             rec.code.co_filename, rec.code.co_firstlineno, "; ".join(guard.describe()))


def replaced_count(code) -> int:
    """Entries of ``code`` dropped because a later entry serves their inputs."""
    rec = _records.get(code)
    return rec.replaced if rec else 0


GRAPHLESS_LIMIT = 2


def note_graphless(code) -> bool:
    """Count a translation that captured nothing; True when the code should
    be skipped from now on (it runs natively, at the cost of one co_extra look)."""
    rec = record(code)
    rec.graphless += 1
    if rec.graphless < GRAPHLESS_LIMIT:
        return False
    vlog(1, log, "%s (%s:%d) captured no array operation in %d translations: it always runs natively now",
         code.co_name, code.co_filename, code.co_firstlineno, rec.graphless)
    _hook.clear_cache(code)
    _hook.skip_code(code)
    return True


def run_natively(code, why: str) -> None:
    """`code` runs natively from now on (skipped at the cost of one co_extra
    look; sot.reset() translates it again): its translations cannot serve
    the next calls (executor/list_lengths.py)."""
    rec = record(code)
    rec.native = True
    vlog(1, log, "%s (%s:%d) runs natively from now on: %s", code.co_name, code.co_filename,
         code.co_firstlineno, why)
    _hook.clear_cache(code)
    _hook.skip_code(code)


def entries(code) -> list:
    rec = _records.get(code)
    return list(rec.entries) if rec else []


def translation_count(code) -> int:
    rec = _records.get(code)
    return rec.translations if rec else 0


def clear(code) -> None:
    with _lock:
        _records.pop(code, None)
    _hook.clear_cache(code)


def reset() -> None:
    with _lock:
        records = list(_records.values())
        _records.clear()
    for rec in records:
        _hook.clear_cache(rec.code)
        if rec.graphless >= GRAPHLESS_LIMIT or rec.native:
            _hook.unskip_code(rec.code)
