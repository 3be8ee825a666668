"""onnxruntime's optimised models on disk, shared by processes.

Off by default; on with ``to_static(..., cache_dir=...)`` or env
``SOT_CACHE_DIR``.  Workers of a pool or cluster that compile the same graph
(the same lowered ONNX model) load what the first one's onnxruntime
optimised (``SessionOptions.optimized_model_filepath``) with graph
optimisation off, instead of each optimising it again.  What is shared is a
pure function of the key: the lowered model (itself a function of the
StatementIR and sot's lowering), the session's optimisation level, threads
and execution providers, the CPU, and the versions of sot, onnx,
onnxruntime, NumPy and Python.  Guards and traces stay in each process:
they hold live objects.

Not cached (always optimised afresh), so a cached file never holds a
user's data: sessions with frozen weights (``freeze=True``: external
initializers, whose values onnxruntime would fold into the optimised model)
and sessions not on the CPU provider alone (their optimisation depends on
the device).

An entry is ``MAGIC, key, sha256 of payload, payload`` in one file named
for the key.  It is written to a temporary file and renamed into place
(``os.replace``), so concurrent writers of one key leave one complete
entry and a reader never sees half of one.  An entry whose header, key or
checksum does not match is ignored (and rewritten by this process).  The
directory is bounded: after a write, the entries least recently used (by
mtime, refreshed on each hit) go until the total is within
``SOT_CACHE_MAX_BYTES`` (default 1 GiB).

``stats`` counts hits, misses, writes, rejected entries and bypassed
sessions, and the seconds spent creating sessions with optimisation (miss)
and from a cached model (hit); ``sot.explain`` reports what one call did.
"""
from __future__ import annotations

import functools
import hashlib
import logging
import os
import platform
import sys
import tempfile
import time

from sot import _env
from sot.logs import vlog

log = logging.getLogger("sot.backends")

__all__ = ["create_session", "cache_dir", "stats", "DEFAULT_MAX_BYTES"]

MAGIC = b"sot-ort-cache 1\n"
SUFFIX = ".sotort"
DEFAULT_MAX_BYTES = 1 << 30

#: process-wide counters (explain reports the difference over one call)
stats = {"hits": 0, "misses": 0, "writes": 0, "rejected": 0, "bypassed": 0,
         "optimise_seconds": 0.0, "load_seconds": 0.0}


def cache_dir() -> str | None:
    """The directory of the running ``to_static`` call's options, else env
    SOT_CACHE_DIR, else None (no disk cache)."""
    from sot import _hook
    options = getattr(_hook.get_callback(), "options", None)
    return getattr(options, "cache_dir", None) or os.environ.get("SOT_CACHE_DIR") or None


def max_bytes() -> int:
    return _env.integer("SOT_CACHE_MAX_BYTES", DEFAULT_MAX_BYTES, 0)


def create_session(model, options, providers, *, cacheable: bool = True):
    """An ``InferenceSession`` of ``model`` with ``options``: from the disk
    cache when it has the optimised model, else optimised and stored."""
    import onnxruntime as ort
    directory = cache_dir()
    data = model.SerializeToString()
    if directory is None:
        return ort.InferenceSession(data, options, providers=providers)
    if not cacheable or providers != ["CPUExecutionProvider"]:
        stats["bypassed"] += 1
        return ort.InferenceSession(data, options, providers=providers)
    key = entry_key(model, options, providers)
    path = os.path.join(directory, key + SUFFIX)
    optimised = _read(path, key)
    if optimised is not None:
        started = time.perf_counter()
        level = options.graph_optimization_level
        # the stored graph is what optimisation made: run it as it is
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            session = ort.InferenceSession(optimised, options, providers=providers)
        except Exception as e:  # noqa: BLE001  (an entry onnxruntime refuses is not trusted)
            vlog(1, log, "disk cache: %s refused by onnxruntime (%s: %s); optimising again", path,
                 type(e).__name__, e)
            stats["rejected"] += 1
        else:
            stats["hits"] += 1
            stats["load_seconds"] += time.perf_counter() - started
            _touch(path)
            return session
        finally:
            options.graph_optimization_level = level
    stats["misses"] += 1
    return _optimise_and_store(data, options, providers, directory, path, key)


def _optimise_and_store(data: bytes, options, providers, directory: str, path: str, key: str):
    import onnxruntime as ort
    started = time.perf_counter()
    try:
        os.makedirs(directory, exist_ok=True)
        fd, optimised_path = tempfile.mkstemp(prefix=".ort-", suffix=".onnx", dir=directory)
        os.close(fd)
    except OSError as e:
        vlog(1, log, "disk cache: cannot write in %s: %s", directory, e)
        return ort.InferenceSession(data, options, providers=providers)
    options.optimized_model_filepath = optimised_path
    try:
        session = ort.InferenceSession(data, options, providers=providers)
    except BaseException:
        _remove(optimised_path)
        raise
    finally:
        options.optimized_model_filepath = ""
    stats["optimise_seconds"] += time.perf_counter() - started
    try:
        with open(optimised_path, "rb") as f:
            optimised = f.read()
        _write(path, key, optimised)
        stats["writes"] += 1
        _evict(directory, max_bytes())
    except OSError as e:
        vlog(1, log, "disk cache: cannot store %s: %s", path, e)
    finally:
        _remove(optimised_path)
    return session


def entry_key(model, options, providers) -> str:
    """sha256 of what the optimised model depends on. The graph's name is
    left out: it numbers graphs in the order a process made them."""
    from onnx import ModelProto
    m = ModelProto()
    m.CopyFrom(model)
    m.graph.name = ""
    h = hashlib.sha256()
    for part in (*_environment(), repr(providers), str(options.graph_optimization_level),
                 str(options.intra_op_num_threads), _config(options, "session.intra_op.allow_spinning"),
                 _config(options, "session.force_spinning_stop")):
        h.update(part.encode() + b"\0")
    h.update(m.SerializeToString(deterministic=True))
    return h.hexdigest()


def _config(options, name: str) -> str:
    try:
        return options.get_session_config_entry(name)
    except RuntimeError:   # onnxruntime raises when the entry is unset
        return "<unset>"


@functools.cache
def _environment() -> tuple:
    import numpy
    import onnx
    import onnxruntime

    from sot import __version__ as sot_version
    return (MAGIC.decode(), sot_version, onnx.__version__, onnxruntime.__version__, numpy.__version__,
            sys.version, platform.machine(), _cpu_flags())


def _cpu_flags() -> str:
    """The CPU's features: onnxruntime picks kernels and layouts by them."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _read(path: str, key: str) -> bytes | None:
    """The payload of the entry at ``path``, or None when there is none or
    it is not a complete entry for ``key`` (counted as rejected)."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    header = MAGIC + key.encode() + b"\n"
    digest_end = len(header) + 65
    if blob.startswith(header) and len(blob) > digest_end and blob[digest_end - 1:digest_end] == b"\n":
        payload = blob[digest_end:]
        if hashlib.sha256(payload).hexdigest().encode() == blob[len(header):digest_end - 1]:
            return payload
    vlog(1, log, "disk cache: %s is not a valid entry; it is ignored and rewritten", path)
    stats["rejected"] += 1
    return None


def _write(path: str, key: str, payload: bytes) -> None:
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".entry-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + key.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n")
            f.write(payload)
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise


def _touch(path: str) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


#: a temporary file this old was left by a process that died while writing
STALE_SECONDS = 3600


def _evict(directory: str, limit: int) -> None:
    """Remove the least recently used entries until the total is within
    ``limit`` bytes (another process may remove them first), and stale
    temporary files."""
    entries = []
    now = time.time()
    try:
        with os.scandir(directory) as it:
            for e in it:
                try:
                    st = e.stat()
                except OSError:
                    continue
                if e.name.endswith(SUFFIX):
                    entries.append((st.st_mtime, st.st_size, e.path))
                elif e.name.startswith((".ort-", ".entry-")) and now - st.st_mtime > STALE_SECONDS:
                    _remove(e.path)
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    for _mtime, size, path in sorted(entries):
        if total <= limit:
            break
        _remove(path)
        total -= size
