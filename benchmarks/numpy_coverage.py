"""Breadth of NumPy's public API under sot: every public function and ufunc
of ``np``, ``np.linalg`` and ``np.fft``, and every public ndarray method,
each tried once with a representative call inside ``@sot.to_static``
(``min_graph_size=0``) through ``sot.explain``; then the keyword and usage
forms of numpy_coverage_forms.py (section "forms").

    PYTHONPATH=$PWD python benchmarks/numpy_coverage.py [-v] [--only NAME]

A representative call is the first argument pattern of ``PATTERNS`` (or the
hand-written call in ``CALLS``) that runs eagerly without an exception or a
warning and returns data. Each name is then reported as

* captured: the decorated call matched eager (value, Python type, dtype,
  shape) and recorded no graph break or fallback;
* breaks:   it matched eager but broke the graph (with the first reason);
* differs:  the decorated call gave another answer or crashed: a defect
  (listed always; exit status 1).

Names with no representative call (I/O, printing, error state, functions
that take a Python callable, ...) are counted as "not measured". ``-v``
lists every break with its reason.
"""
from __future__ import annotations

import argparse
import collections
import inspect
import math
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import sot  # noqa: E402
from difftest import assert_same  # noqa: E402
from numpy_coverage_forms import FORMS  # noqa: E402

rng = np.random.default_rng(0)
ARRAYS = {
    "F": rng.standard_normal((4, 5)),
    "SQ": rng.standard_normal((4, 4)) + 4 * np.eye(4),
    "V": rng.standard_normal(6),
    "IV": np.array([3, 1, 2, 1, 0, 4]),
    "I": rng.integers(0, 7, (4, 5)),
    "B": rng.standard_normal((4, 5)) > 0,
    "C": rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5)),
    "SRT": np.array([0.5, 1.0, 2.5, 4.0]),
}
A = ARRAYS
A["SPD"] = A["SQ"] @ A["SQ"].T + np.eye(4)

# Argument patterns tried in order: names of ARRAYS are array arguments of
# the probe; anything else is a literal in its source.
PATTERNS = [
    ("F",), ("SQ",), ("V",), ("F", "F"), ("V", "V"), ("SQ", "SQ"), ("SQ", "V4"), ("IV",), ("I",),
    ("I", "I"), ("B",), ("B", "B"), ("C",), ("F", 1), ("F", 2), ("V", 3), ("F", (5, 4)), ("F", 0.5),
    ("F", "F", "F"), ("V", "V", "V"), ((4, 5),), (4,), (0.0, 1.0, 5), ("SRT", "V"), ("F", [0, 2]),
]
A["V4"] = A["V"][:4].copy()

# Hand-written representative calls: name -> list of (args source, array names).
# `a0`, `a1`, ... are the probe's array arguments.
CALLS = {
    "pad": [("np.pad(a0, 1, mode='reflect')", ("F",)), ("np.pad(a0, ((1, 2), (0, 1)), mode='edge')", ("F",)),
            ("np.pad(a0, 2, mode='wrap')", ("F",)), ("np.pad(a0, 1, mode='constant', constant_values=3.0)", ("F",)),
            ("np.pad(a0, 1, mode='symmetric')", ("F",))],
    "histogram": [("np.histogram(a0, bins=5, range=(-3.0, 3.0))", ("V",)), ("np.histogram(a0, bins=a1)", ("V", "SRT"))],
    "einsum": [("np.einsum('ij,jk->ik', a0, a1)", ("F", "SQ5")), ("np.einsum('ii->i', a0)", ("SQ",)),
               ("np.einsum('ij->', a0)", ("F",)), ("np.einsum('bij,bjk->bik', a0, a0)", ("T3",)),
               ("np.einsum('i,i', a0, a0)", ("V",))],
    "meshgrid": [("np.meshgrid(a0, a1)", ("V", "SRT")), ("np.meshgrid(a0, a1, indexing='ij')", ("V", "SRT"))],
    "interp": [("np.interp(a0, a1, a1 * 2)", ("V", "SRT"))],
    "searchsorted": [("np.searchsorted(a1, a0)", ("V", "SRT")), ("np.searchsorted(a1, a0, side='right')", ("V", "SRT"))],
    "take_along_axis": [("np.take_along_axis(a0, np.argsort(a0, axis=1), axis=1)", ("F",))],
    "put_along_axis": [("(np.put_along_axis(a0, np.argsort(a0, axis=1)[:, :2], 0.0, axis=1), a0)[1]", ("F",))],
    "partition": [("np.partition(a0, 2, axis=1)", ("F",))],
    "argpartition": [("np.argpartition(a0, 2, axis=1)", ("F",))],
    "tensordot": [("np.tensordot(a0, a1, axes=([1], [0]))", ("F", "SQ5")), ("np.tensordot(a0, a0, axes=2)", ("F",))],
    "convolve": [("np.convolve(a0, a1)", ("V", "SRT")), ("np.convolve(a0, a1, mode='same')", ("V", "SRT"))],
    "correlate": [("np.correlate(a0, a1, mode='full')", ("V", "SRT"))],
    "norm": [("np.linalg.norm(a0)", ("F",)), ("np.linalg.norm(a0, axis=1)", ("F",)), ("np.linalg.norm(a0, ord=1)", ("F",)),
             ("np.linalg.norm(a0, ord='fro')", ("F",)), ("np.linalg.norm(a0, ord=np.inf, axis=0)", ("F",)),
             ("np.linalg.norm(a0, ord=2)", ("F",)), ("np.linalg.norm(a0, ord='nuc')", ("F",))],
    "lstsq": [("np.linalg.lstsq(a0, a1, rcond=None)", ("F", "V4"))],
    "clip": [("np.clip(a0, -0.5, 0.5)", ("F",)), ("np.clip(a0, a1, None)", ("F", "F"))],
    "where": [("np.where(a0 > 0, a0, 0.0)", ("F",))],
    "roll": [("np.roll(a0, 2, axis=1)", ("F",)), ("np.roll(a0, -3)", ("F",))],
    "moveaxis": [("np.moveaxis(a0, 0, -1)", ("T3",))],
    "tile": [("np.tile(a0, (2, 3))", ("F",))],
    "repeat": [("np.repeat(a0, 2, axis=0)", ("F",)), ("np.repeat(a0, [1, 0, 2, 1], axis=0)", ("F",))],
    "cross": [("np.cross(a0, a1)", ("R3", "R3b"))],
    "diff": [("np.diff(a0, axis=1)", ("F",)), ("np.diff(a0, n=2)", ("V",))],
    "gradient": [("np.gradient(a0)", ("V",)), ("np.gradient(a0, axis=1)", ("F",))],
    "trapezoid": [("np.trapezoid(a0)", ("V",)), ("np.trapezoid(a0, dx=0.5, axis=1)", ("F",))],
    "cov": [("np.cov(a0)", ("F",)), ("np.cov(a0, rowvar=False)", ("F",))],
    "corrcoef": [("np.corrcoef(a0)", ("F",))],
    "percentile": [("np.percentile(a0, 30)", ("V",)), ("np.percentile(a0, [10, 90], axis=1)", ("F",))],
    "quantile": [("np.quantile(a0, 0.3)", ("V",)), ("np.quantile(a0, 0.5, axis=0)", ("F",))],
    "median": [("np.median(a0)", ("V",)), ("np.median(a0, axis=1)", ("F",))],
    "polyfit": [("np.polyfit(a0, a1, 2)", ("SRT", "V4"))],
    "polyval": [("np.polyval(a0, a1)", ("SRT", "V"))],
    "digitize": [("np.digitize(a0, a1)", ("V", "SRT"))],
    "bincount": [("np.bincount(a0, minlength=6)", ("IV",))],
    "put": [("(np.put(a0, [0, 2], 5.0), a0)[1]", ("F",))],
    "fill_diagonal": [("(np.fill_diagonal(a0, 1.0), a0)[1]", ("SQ",))],
    "copyto": [("(np.copyto(a0, a1 * 2), a0)[1]", ("F", "F"))],
    "concatenate": [("np.concatenate([a0, a1], axis=1)", ("F", "F")), ("np.concatenate((a0, a1))", ("F", "F"))],
    "concat": [("np.concat([a0, a1], axis=1)", ("F", "F"))],
    "stack": [("np.stack([a0, a1], axis=-1)", ("F", "F"))],
    "vstack": [("np.vstack([a0, a1])", ("F", "F"))],
    "hstack": [("np.hstack((a0, a1))", ("V", "V"))],
    "dstack": [("np.dstack((a0, a1))", ("F", "F"))],
    "column_stack": [("np.column_stack((a0, a1))", ("V", "V"))],
    "block": [("np.block([[a0, a0], [a0, a0]])", ("SQ",))],
    "unstack": [("np.unstack(a0, axis=1)", ("F",))],
    "empty": [("np.empty((3, 4)).shape", ())],
    "zeros": [("np.zeros((3, 4), dtype=np.float32)", ()), ("np.zeros(a0.shape) + a0", ("F",))],
    "ones": [("np.ones((3, 4), dtype=int)", ()), ("np.ones_like(a0) * np.ones(a0.shape[1])", ("F",))],
    "linspace": [("np.linspace(0.0, 1.0, 7)", ()), ("np.linspace(a0.min(), a0.max(), 5)", ("V",))],
    "logspace": [("np.logspace(0.0, 2.0, 5)", ())],
    "geomspace": [("np.geomspace(1.0, 100.0, 5)", ())],
    "select": [("np.select([a0 > 0.5, a0 < -0.5], [a0, -a0], 0.0)", ("F",))],
    "compress": [("np.compress([True, False, True, True], a0, axis=0)", ("F",))],
    "broadcast_arrays": [("np.broadcast_arrays(a0, a1)", ("F", "V5"))],
    "broadcast_shapes": [("np.broadcast_shapes((4, 1), (1, 5))", ())],
    "indices": [("np.indices((3, 4))", ())],
    "choose": [("np.choose(a0 % 2, [a1, -a1])", ("I", "F"))],
    "nanpercentile": [("np.nanpercentile(a0, 30)", ("V",))],
    "nanquantile": [("np.nanquantile(a0, 0.3, axis=1)", ("F",))],
    "count_nonzero": [("np.count_nonzero(a0, axis=0)", ("B",)), ("np.count_nonzero(a0)", ("B",))],
    "ix_": [("a1[np.ix_([0, 2], [1, 3])]", ("V", "F"))],
    "histogram2d": [("np.histogram2d(a0, a1, bins=4, range=[[-3, 3], [-3, 3]])", ("V", "V"))],
    "delete": [("np.delete(a0, 1, axis=1)", ("F",))],
    "append": [("np.append(a0, a1, axis=0)", ("F", "F")), ("np.append(a0, 1.0)", ("V",))],
    "resize": [("np.resize(a0, (3, 7))", ("F",))],
    "insert": [("np.insert(a0, 1, 0.0, axis=1)", ("F",))],
    "multi_dot": [("np.linalg.multi_dot([a0, a1, a1.T])", ("F", "SQ5"))],
    "einsum_path": [],
    "cumulative_sum": [("np.cumulative_sum(a0, axis=1)", ("F",))],
    "cumulative_prod": [("np.cumulative_prod(a0, axis=0)", ("F",))],
    "cumsum": [("np.cumsum(a0, axis=1)", ("F",)), ("np.cumsum(a0)", ("F",))],
    "sort": [("np.sort(a0, axis=0)", ("F",)), ("np.sort(a0, axis=None)", ("F",))],
    "argsort": [("np.argsort(a0, axis=1, kind='stable')", ("F",))],
    "solve": [("np.linalg.solve(a0, a1)", ("SQ", "V4")), ("np.linalg.solve(a0, a0)", ("SQ",))],
    "eigh": [("np.linalg.eigh(a0)", ("SPD",))],
    "cholesky": [("np.linalg.cholesky(a0)", ("SPD",))],
    "pinv": [("np.linalg.pinv(a0)", ("F",))],
    "tril": [("np.tril(a0, -1)", ("F",))],
    "triu": [("np.triu(a0, 1)", ("F",))],
    "flip": [("np.flip(a0, axis=1)", ("F",)), ("np.flip(a0)", ("F",))],
    "polyadd": [("np.polyadd(a0, a1)", ("V", "SRT"))],
    "polysub": [("np.polysub(a0, a1)", ("V", "SRT"))],
    "polymul": [("np.polymul(a0, a1)", ("V", "SRT"))],
    "apply_along_axis": [("np.apply_along_axis(lambda r: r - r.mean(), 1, a0)", ("F",))],
    "piecewise": [("np.piecewise(a0, [a0 < 0, a0 >= 0], [lambda v: -v, lambda v: v ** 2])", ("V",))],
    "apply_over_axes": [], "vectorize": [], "frompyfunc": [],
}
A["V5"] = A["F"][0].copy()
A["SQ5"] = rng.standard_normal((5, 3))
A["T3"] = rng.standard_normal((2, 3, 3))
A["R3"], A["R3b"] = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
A["IV4"], A["V1"], A["V5p"] = np.array([3, 1, 2, 4]), np.array([2.5]), np.array([1.0, 2.0, 0.5, 3.0, 1.0])

# Not computations on arrays: I/O, printing, error state, configuration, help.
NOT_MEASURED = {
    "save", "savez", "savez_compressed", "load", "loadtxt", "savetxt", "genfromtxt", "fromfile", "fromregex",
    "set_printoptions", "get_printoptions", "printoptions", "array2string", "array_repr", "array_str",
    "format_float_positional", "format_float_scientific", "seterr", "geterr", "seterrcall", "geterrcall",
    "errstate", "setbufsize", "getbufsize", "info", "show_config", "show_runtime", "test", "get_include",
    "from_dlpack", "frombuffer", "fromiter", "fromstring", "memmap", "dump", "dumps", "tofile", "tobytes",
    "tolist", "byteswap", "newbyteorder", "setflags", "getfield", "setfield", "view", "__array__", "nested_iters",
    "may_share_memory", "shares_memory", "busday_count", "busday_offset", "is_busday", "datetime_as_string",
    "datetime_data", "isnat", "asmatrix", "bmat", "require", "typename", "mintypecode", "common_type",
    "deprecate", "deprecate_with_doc", "issubclass_", "add_newdoc", "add_docstring", "add_newdoc_ufunc",
    "char",
} | {"apply_over_axes", "vectorize", "frompyfunc"}
# ndarray methods that mutate in place are measured through np.* functions; these
# names only opt out of the *method* section
METHOD_NOT_MEASURED = {"fill", "resize", "sort", "partition", "itemset", "put", "setflags", "byteswap", "dump",
                       "dumps", "tofile", "tobytes", "tolist", "view", "getfield", "setfield", "to_device",
                       "__array__", "__array_namespace__", "__dlpack__", "__dlpack_device__"}


# Breaks that are the right answer (shown with -v): the result's dtype, size or
# meaning depends on values or on memory the guards do not fix.
WHY_IT_BREAKS = {
    "eig": "real or complex results depending on the values (dtype decided by data)",
    "eigvals": "real or complex results depending on the values (dtype decided by data)",
    "roots": "real or complex roots depending on the values; leading zeros trimmed (size decided by data)",
    "poly": "of a matrix: its eigenvalues, real or complex depending on the values",
    "real_if_close": "real or complex result depending on the values",
    "polydiv": "the remainder is trimmed of near-zero leading terms (size decided by data)",
    "trim_zeros": "size decided by data, and NumPy's own loop over it",
    "isfortran": "memory layout of the argument, which the guards do not fix (strides)",
    "piecewise": "a function is called only where its selection is not empty: whether it runs is decided by data",
}


def public_names():
    """(section, qualified name, callable) of every public function/ufunc and ndarray method."""
    out = []
    for section, mod, prefix in (("np", np, "np."), ("linalg", np.linalg, "np.linalg."), ("fft", np.fft, "np.fft.")):
        for name in sorted(getattr(mod, "__all__", dir(mod))):
            if name.startswith("_"):
                continue
            obj = getattr(mod, name, None)
            if obj is None or isinstance(obj, type) or inspect.ismodule(obj) or not callable(obj):
                continue
            if section == "np" and name in NOT_MEASURED:
                continue
            out.append((section, prefix + name, name))
    for name in sorted(dir(np.ndarray)):
        if name.startswith("_") or name in METHOD_NOT_MEASURED or not callable(getattr(np.ndarray, name)):
            continue
        out.append(("ndarray", "a0." + name, name))
    out += [("forms", expr, k) for k, (expr, _) in enumerate(FORMS)]
    return out


def _literal(x):
    return repr(x)


def _probe_source(callee, pattern):
    """(source, array argument names) of a probe calling `callee` on `pattern`."""
    names, parts = [], []
    rest = pattern
    if callee.startswith("a0."):
        names, rest = [pattern[0]], pattern[1:]
    for p in rest:
        if isinstance(p, str) and p in A:
            parts.append(f"a{len(names)}")
            names.append(p)
        else:
            parts.append(_literal(p))
    return f"{callee}({', '.join(parts)})", tuple(names)


def _make(expr, n):
    params = ", ".join(f"a{i}" for i in range(n))
    body = expr if "\n" in expr or expr.startswith("return ") else f"return {expr}"
    src = f"def probe({params}):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    ns = {"np": np, "math": math}
    exec(compile(src, f"<probe {expr}>", "exec"), ns)
    return ns["probe"]


def _eager(fn, arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            out = fn(*[a.copy() for a in arrays])
        except Exception:  # noqa: BLE001 - not a representative call
            return None
    if out is None or callable(out) or isinstance(out, (type, np.dtype)):
        return None
    return ("ok", out)


def candidates(section, qual, name):
    """Representative calls (expr, array names) to try, in order."""
    if section == "forms":
        return [FORMS[name]]
    if section != "ndarray" and name in CALLS:
        return [(expr, names) for expr, names in CALLS[name]]
    if section == "ndarray":
        if name in ("dot",):
            return [(f"a0.dot(a1)", ("F", "SQ5"))]
        return [_probe_source(qual, p) for p in PATTERNS if isinstance(p[0], str) and p[0] in A]
    return [_probe_source(qual, p) for p in PATTERNS]


def measure_one(section, qual, name):
    """[(expr, outcome, reason)] for each representative call of the name."""
    results = []
    for expr, names in candidates(section, qual, name):
        fn = _make(expr, len(names))
        arrays = [A[n] for n in names]
        eager = _eager(fn, arrays)
        if eager is None:
            continue
        sot.reset()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                report = sot.explain(sot.to_static(fn, min_graph_size=0), *[a.copy() for a in arrays])
            assert_same(eager[1], report.result)
        except Exception as e:  # noqa: BLE001 - a crash or a wrong answer: a defect
            results.append((expr, "differs", f"{type(e).__name__}: {str(e)[:200]}"))
        else:
            why = report.breaks or report.fallbacks
            if why:
                results.append((expr, "breaks", str(why[0]).splitlines()[0]))
            else:
                results.append((expr, "captured", ""))
        if section in ("ndarray", "forms") or name not in CALLS:
            break  # one representative call per generic name
    return results


def measure(only=None):
    per = collections.OrderedDict()
    rows = []
    for section, qual, name in public_names():
        if only and str(name) != only:
            continue
        counts = per.setdefault(section, collections.Counter())
        results = measure_one(section, qual, name)
        if not results:
            counts["not measured"] += 1
            continue
        for expr, outcome, why in results:
            counts[outcome] += 1
            rows.append((section, expr, outcome, why))
    return per, rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--only", help="measure only this name (a form: its index)")
    opts = parser.parse_args(argv)
    per, rows = measure(opts.only)
    cols = ("captured", "breaks", "differs", "not measured")
    print(f"{'section':<9}" + "".join(f"{c:>14}" for c in cols))
    total = collections.Counter()
    for section, counts in per.items():
        total.update(counts)
        print(f"{section:<9}" + "".join(f"{counts[c]:>14}" for c in cols))
    print(f"{'total':<9}" + "".join(f"{total[c]:>14}" for c in cols))
    calls = total["captured"] + total["breaks"] + total["differs"]
    print(f"captured {total['captured']}/{calls} calls ({100 * total['captured'] / max(calls, 1):.1f} %)")
    for section, expr, outcome, why in rows:
        if outcome == "differs" or (opts.verbose and outcome == "breaks"):
            name = expr.split("(")[0].split(".")[-1]
            note = f" [must break: {WHY_IT_BREAKS[name]}]" if section != "forms" and name in WHY_IT_BREAKS else ""
            print(f"  {outcome.upper():<8} {expr}: {why}{note}")
    return 1 if total["differs"] else 0


if __name__ == "__main__":
    sys.exit(main())
