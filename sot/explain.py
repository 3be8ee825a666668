"""`sot.explain(fn, *args, **kwargs)`: run once and report what happened."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from . import _skip
from .guards import cache


@dataclass
class ExplainReport:
    """What one call under sot did, from ``sot.explain(fn, *args)``;
    ``print(report)`` shows it, ``report.to_dict()`` gives it as data.

    entries: one per translation, in order: the function itself and each
        resume function split from it at a graph break (entry.EntryInfo:
        code_name, filename, firstlineno, state "fully static" / "partially
        static" / "dynamic", graphs as (op count, backend, source),
        graph_break and fallback reasons, guards in words, frozen weights,
        translate_seconds and phases).
    result: what the call returned.

    Derived: graph_count, op_count, ops_per_graph, breaks (every graph-break
    and fallback reason, with file:line, source and a hint), fallbacks
    (frames that ran natively), translation_count, translate_seconds,
    phase_seconds (per translation phase), guards (all entries' guards).
    """

    entries: list = field(default_factory=list)   # entry.EntryInfo, in translation order
    skipped: list = field(default_factory=list)   # (name, file, line, rule) of codes not traced
    governor: str | None = None                   # the do-no-harm choice (sot/governor.py)
    result: object = None
    #: onnxruntime's disk cache during the call (backends/disk_cache.stats):
    #: hits, misses, writes, rejected, bypassed, optimise/load seconds
    disk_cache: dict = field(default_factory=dict)

    @property
    def graph_count(self) -> int:
        """Graphs compiled, over all entries."""
        return sum(len(e.graphs) for e in self.entries)

    @property
    def ops_per_graph(self) -> list[int]:
        """The number of ops of each graph."""
        return [ops for e in self.entries for ops, _backend, _src in e.graphs]

    @property
    def op_count(self) -> int:
        """Ops captured into graphs, over all entries."""
        return sum(self.ops_per_graph)

    @property
    def breaks(self) -> list:
        """Reasons of graph breaks and of frames that run natively."""
        return [r for e in self.entries for r in (e.graph_break, e.fallback) if r is not None]

    @property
    def fallbacks(self) -> list:
        """Reasons of the frames that run natively as a whole."""
        return [e.fallback for e in self.entries if e.fallback is not None]

    @property
    def translation_count(self) -> int:
        """Translations done by the call (the function and its resume functions)."""
        return len(self.entries)

    @property
    def translate_seconds(self) -> float:
        """Time spent translating, in seconds."""
        return sum(e.translate_seconds for e in self.entries)

    @property
    def phase_seconds(self) -> dict:
        """Translation time per phase, summed over entries; "other" is the rest
        (planning breaks, resume bytecode, bookkeeping)."""
        from .translate import PHASES
        out = {p: sum(e.phases.get(p, 0.0) for e in self.entries) for p in PHASES}
        out["other"] = max(0.0, self.translate_seconds - sum(out.values()))
        return out

    @property
    def guards(self) -> list[str]:
        """Every entry's guards, in words."""
        return [g for e in self.entries for g in e.guards]

    def to_dict(self) -> dict:
        """The report as JSON-able data (per code: graphs, breaks, guards, times)."""
        return {
            "graph_count": self.graph_count,
            "op_count": self.op_count,
            "ops_per_graph": self.ops_per_graph,
            "translation_count": self.translation_count,
            "translate_seconds": self.translate_seconds,
            "phase_seconds": self.phase_seconds,
            "disk_cache": dict(self.disk_cache),
            "codes": [
                {
                    "name": e.code_name, "file": e.filename, "line": e.firstlineno, "state": e.state,
                    "graphs": [{"ops": ops, "backend": b} for ops, b, _ in e.graphs],
                    "fallback": e.fallback.to_dict() if e.fallback else None,
                    "graph_break": e.graph_break.to_dict() if e.graph_break else None,
                    "native_ops": e.native_ops,
                    "frozen": list(e.frozen), "not_frozen": [list(p) for p in e.not_frozen],
                    "guards": list(e.guards), "translate_seconds": e.translate_seconds,
                    "phase_seconds": dict(e.phases),
                    "graph_details": [_details(r) for r in e.compiled],
                }
                for e in self.entries
            ],
            "skipped": [{"name": n, "file": f, "line": l, "rule": r} for n, f, l, r in self.skipped],
            "governor": self.governor,
        }

    def __str__(self) -> str:
        breaks = sum(e.graph_break is not None for e in self.entries)
        lines = [f"sot explain: {self.graph_count} graph(s), {self.op_count} op(s), {breaks} graph break(s), "
                 f"{len(self.fallbacks)} fallback(s), {self.translation_count} translation(s) "
                 f"in {self.translate_seconds * 1e3:.1f} ms"]
        if self.governor:
            lines.append(f"  {self.governor}")
        if self.entries:
            lines.append("  translation time: " + ", ".join(
                f"{p} {t * 1e3:.1f} ms" for p, t in self.phase_seconds.items()))
        c = self.disk_cache
        if any(c.get(k) for k in ("hits", "misses", "rejected", "bypassed")):
            lines.append(f"  onnxruntime disk cache: {c['hits']} hit(s), {c['misses']} miss(es), "
                         f"{c['rejected']} rejected, {c['bypassed']} not cacheable; optimising "
                         f"{c['optimise_seconds'] * 1e3:.1f} ms, loading optimised models "
                         f"{c['load_seconds'] * 1e3:.1f} ms")
        for e in self.entries:
            lines.append(f"  {e.code_name} ({e.filename}:{e.firstlineno}): {e.state}")
            for i, (ops, backend, _src) in enumerate(e.graphs):
                lines.append(f"    graph {i}: {ops} ops on {backend}")
                if i >= len(e.compiled):
                    continue
                d = _details(e.compiled[i])
                m = d["held_bytes"]
                lines.append(f"      holds about {_mb(m['total'])} (initializers {_mb(m['initializers'])}, "
                             f"frozen {_mb(m['frozen'])}, buffers {_mb(m['buffers'])}, "
                             f"constants {_mb(m['constants'])})")
                lines.extend(f"      {line}" for line in d["placement"])
                lines.extend(f"      hint: {h}" for h in d["hints"][:2])
                if len(d["hints"]) > 2:
                    lines.append(f"      ... and {len(d['hints']) - 2} more statement(s) promoted the same way "
                                 "(to_dict() lists them)")
            if e.native_ops:
                lines.append(f"    {e.native_ops} ops before the break run natively (below min_graph_size)")
            if e.frozen:
                lines.append(f"    frozen, read-only until sot.reset() ({len(e.frozen)}): " + ", ".join(e.frozen))
            for source, why in e.not_frozen:
                lines.append(f"    not frozen: {source}, {why}")
            if e.graph_break is not None:
                lines.append("    graph break: " + str(e.graph_break).replace("\n", "\n    "))
            if e.fallback is not None:
                lines.append("    runs natively: " + str(e.fallback).replace("\n", "\n    "))
            if e.guards:
                lines.append(f"    guards ({len(e.guards)}):")
                lines.extend(f"      {g}" for g in e.guards)
        if self.skipped:
            lines.append(f"  not traced ({len(self.skipped)} code(s) your code called):")
            by_rule: dict = {}
            for n, f, l, r in self.skipped:
                by_rule.setdefault(r, []).append(f"{n} ({f}:{l})")
            for rule, codes in by_rule.items():
                lines.append(f"    {rule}:")
                lines.extend(f"      {c}" for c in codes)
        return "\n".join(lines)


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e5 else f"{n / 1e3:.1f} kB"


def _details(compiled) -> dict:
    """Memory, placement and hints of a compiled graph."""
    from .explain_graphs import held, placement, promotion_hints
    graph = getattr(compiled, "graph", None)
    return {"held_bytes": held(compiled), "placement": placement(compiled),
            "hints": promotion_hints(graph) if graph is not None else []}


def explain(fn: Callable, *args, **kwargs) -> ExplainReport:
    """Run `fn` once with the arguments, translating every code it reaches
    afresh (all caches are dropped first, as by ``sot.reset()``), and
    report what happened: graphs, graph breaks with their file:line and a
    hint, guards, translation times. `fn` may be decorated with
    ``to_static`` (its options are used) or not (the defaults)."""
    from . import translate

    static = fn if hasattr(fn, "__sot_static__") else None
    if static is None:
        from .api import to_static
        static = to_static(fn)
    # Every code the call reaches is translated afresh so the report is
    # complete: this drops all cached translations (as sot.reset() does).
    cache.reset()
    _skip.forget()  # skipped codes are decided (and listed) again
    report = ExplainReport()
    from .backends import disk_cache
    before = dict(disk_cache.stats)
    translate._recorders.append(report.entries)
    translate._skip_recorders.append(report.skipped)
    # translated this once, whatever the do-no-harm governor chose (sot/governor.py)
    mode, countdown = static.__sot_mode__, static.__sot_countdown__
    static.__sot_mode__, static.__sot_countdown__ = 0, 0
    try:
        report.result = static(*args, **kwargs)
    finally:
        static.__sot_mode__, static.__sot_countdown__ = mode, countdown
        translate._recorders.remove(report.entries)
        translate._skip_recorders.remove(report.skipped)
        report.disk_cache = {k: v - before[k] for k, v in disk_cache.stats.items()}
    gov = getattr(static, "__sot_governor__", None)
    report.governor = gov.describe() if gov is not None else None
    return report
