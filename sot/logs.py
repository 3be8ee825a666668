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


def _env_level(name: str) -> int:
    try:
        return int(os.environ.get(name, "0"))
    except ValueError:
        return 0


def set_verbosity(level: int) -> None:
    global _handler
    _state["verbosity"] = int(level)
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
    return _state["verbosity"]


def vlog(level: int, log: logging.Logger, msg: str, *args) -> None:
    """Log `msg` when the verbosity is at least `level`."""
    if _state["verbosity"] >= level:
        log.info(msg, *args)


def set_code_level(level: int) -> None:
    _state["code_level"] = int(level)


def code_level() -> int:
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


set_verbosity(_env_level("SOT_LOG_LEVEL"))
set_code_level(_env_level("SOT_CODE_LEVEL"))
