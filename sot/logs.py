"""sot's logging and code dumps: silent by default.

`set_verbosity(level)` / env SOT_LOG_LEVEL, through Python's logging (logger
"sot" and children: sot.breaks, sot.cache, sot.guards, sot.executor):

    1  graph breaks and fallbacks (reason, the user's file:line and source), cache overflow
    2  + recompilations, with the guard that failed in words
    3  + the guards of each new entry, and translation times
    4+ + a trace of every simulated instruction

`set_code_level(level)` / env SOT_CODE_LEVEL prints, for each translation,
the generated graph and runner source (1) and the replacement bytecode (2).
"""
from __future__ import annotations

import dis
import io
import logging
import os
import sys

logger = logging.getLogger("sot")
logger.addHandler(logging.NullHandler())
_handler: logging.Handler | None = None
_state = {"verbosity": 0, "code_level": 0}


#: verbosity levels by name (set_verbosity and SOT_LOG_LEVEL take either)
VERBOSITY_NAMES = {"off": 0, "breaks": 1, "recompiles": 2, "guards": 3, "trace": 4, "debug": 4}
#: code levels by name (set_code_level and SOT_CODE_LEVEL take either)
CODE_LEVEL_NAMES = {"off": 0, "graphs": 1, "bytecode": 2}


def _parse_level(level, names: dict, what: str) -> int:
    """``level`` (an int in range, its name, or a string of either) as an int,
    or ValueError naming ``what`` and the accepted values."""
    top = max(names.values())
    accepted = f"0..{top} or one of {', '.join(repr(n) for n in names)}"
    value = level
    if isinstance(value, str):
        text = value.strip().lower()
        value = names.get(text, int(text) if text.lstrip("-").isdigit() else None)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        sep = "" if what.endswith("=") else " "
        raise ValueError(f"{what}{sep}{level!r} is not a level; expected {accepted}")
    return value


def _env_level(name: str, names: dict) -> int:
    """The level in environment variable ``name``; an invalid value is ignored with a warning."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return 0
    try:
        return _parse_level(raw, names, f"environment variable {name}=")
    except ValueError as e:
        import warnings
        warnings.warn(f"sot: {e}; ignored", RuntimeWarning, stacklevel=2)
        return 0


def set_verbosity(level: int | str) -> None:
    """How much sot logs (to stderr, through the ``logging`` logger "sot").

    0 / "off" (default): nothing. 1 / "breaks": graph breaks and frames that
    run natively, with the reason, your file:line and source line, and
    caches that overflow. 2 / "recompiles": also every retranslation, with
    the guard that failed in words. 3 / "guards": also the guards of each
    new cache entry and translation times. 4 / "trace" (or "debug"): also a
    trace of every simulated instruction. The environment variable
    SOT_LOG_LEVEL sets it at import. Raises ValueError for anything else.
    """
    global _handler
    level = _parse_level(level, VERBOSITY_NAMES, "verbosity")
    _state["verbosity"] = level
    if _handler is not None:
        logger.removeHandler(_handler)
        _handler = None
    if level <= 0:
        logger.setLevel(logging.NOTSET)
        return
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("[sot] %(message)s"))
    logger.addHandler(_handler)
    logger.setLevel(logging.DEBUG if level >= 4 else logging.INFO)


def verbosity() -> int:
    """The current verbosity (0..4)."""
    return _state["verbosity"]


def vlog(level: int, log: logging.Logger, msg: str, *args) -> None:
    """Log `msg` when the verbosity is at least `level`."""
    if _state["verbosity"] >= level:
        log.info(msg, *args)


def set_code_level(level: int | str) -> None:
    """Print what each translation generates, to stderr.

    0 / "off" (default): nothing. 1 / "graphs": the generated code of each
    graph (NumPy source, or the ONNX graph) and of the runner that calls
    it. 2 / "bytecode": also the replacement bytecode the frame hook runs.
    The environment variable SOT_CODE_LEVEL sets it at import. Raises
    ValueError for anything else.
    """
    _state["code_level"] = _parse_level(level, CODE_LEVEL_NAMES, "code level")


def code_level() -> int:
    """The current code level (0..2)."""
    return _state["code_level"]


def dump_translation(name: str, info, replacement) -> None:
    """Print what a translation generated (SOT_CODE_LEVEL / set_code_level)."""
    level = _state["code_level"]
    if level <= 0:
        return
    out = io.StringIO()
    out.write(f"==== sot: {name} ({info.state}) ====\n")
    for i, (ops, backend, source) in enumerate(info.graphs):
        out.write(f"--- graph {i}: {ops} ops on {backend}\n{source}\n")
    if info.runner_source:
        out.write(f"--- runner\n{info.runner_source}\n")
    if level >= 2 and replacement is not None:
        out.write("--- replacement bytecode\n")
        dis.dis(replacement, file=out)
    sys.stderr.write(out.getvalue())


set_verbosity(_env_level("SOT_LOG_LEVEL", VERBOSITY_NAMES))
set_code_level(_env_level("SOT_CODE_LEVEL", CODE_LEVEL_NAMES))
