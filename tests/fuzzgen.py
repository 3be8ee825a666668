"""Random Python programs for differential fuzzing of `sot.to_static`.

`programs()` is a hypothesis strategy that draws a small module (source text)
defining helpers and a function ``f(x, y, n, lst, scale=1.5)`` plus a list of
argument sets that vary shapes, ranks, dtypes and Python values. The program
mixes registry array ops (operators, ufuncs, reductions with axis/keepdims,
reshape/transpose, indexing, where/clip, matmul), Python arithmetic on shapes
and scalars, tuples/lists/dicts, branches on Python values and on array data,
for-loops over ranges and lists, helper calls, prints, in-place updates of
locals and arguments, and side effects on the argument list and on globals.

`run_program(prog)` executes the module twice, in two independent namespaces
(so global state evolves separately), runs one function eagerly and the other
under `sot.to_static` over every argument set (several calls each, so cached
entries are exercised), and compares everything `difftest` compares, plus the
module's globals and the innermost user line of any traceback.

The generator tracks a coarse "kind" for every array variable, so most
programs are well-formed on every argument set; kinds stand for shapes
relative to the shape S shared by ``x`` and ``y``:

    A   shape S                      K   broadcastable to S (keepdims reduction)
    R   0-d / NumPy scalar           V   1-d, length prod(S)
    T   S reversed (transpose)       O0  S[1:]         O1  S[:-1]
    G   S[:-2] + (S[-1], S[-1])      (matmul of a swapped A with A)

Programs that raise are still compared (same exception type and message).
"""
from __future__ import annotations

import builtins
import contextlib
import copy
import hashlib
import io
import linecache
import os
import signal
import sys
import threading
import tempfile
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

import difftest
import sot

# ---------------------------------------------------------------- kinds

# (left kind, right kind) -> result kind, for elementwise binary operations.
_BROADCAST = {}
for _k in ("A", "K", "R", "V", "T", "O0", "O1", "G"):
    _BROADCAST[(_k, _k)] = _k
    _BROADCAST[(_k, "R")] = _k
    _BROADCAST[("R", _k)] = _k
_BROADCAST[("A", "K")] = _BROADCAST[("K", "A")] = "A"

ARRAY_KINDS = ("A", "K", "R", "V", "T", "O0", "O1", "G")

BINOPS = ["+", "-", "*", "/", "//", "%", "**", "<", ">", "==", "!=", "&", "|", "^"]
BINOP_WEIGHTS = [8, 6, 8, 4, 2, 2, 1, 2, 2, 1, 1, 1, 1, 1]
UFUNC1 = ["np.abs", "np.negative", "np.sin", "np.tanh", "np.square", "np.sqrt", "np.exp", "np.floor",
          "np.sign", "np.log1p", "np.cos", "np.positive", "np.isnan", "np.isfinite", "np.conjugate"]
UFUNC2 = ["np.maximum", "np.minimum", "np.add", "np.multiply", "np.subtract", "np.arctan2", "np.hypot",
          "np.fmax", "np.logical_and", "np.greater_equal"]
REDUCTIONS = ["sum", "mean", "max", "min", "prod", "any", "all", "std", "argmax", "cumsum"]
NP_REDUCTIONS = ["np.sum", "np.mean", "np.amax", "np.prod", "np.nansum", "np.median", "np.var"]
DTYPES = ["float64", "float32", "int64", "int32", "bool", "complex128", "int8", "uint8", "float16", "uint32"]
DTYPE_WEIGHTS = [10, 5, 6, 3, 2, 1, 1, 1, 1, 1]


def _weighted(draw, items, weights):
    total = sum(weights)
    r = draw(st.integers(0, total - 1))
    for item, w in zip(items, weights):
        if r < w:
            return item
        r -= w
    return items[-1]


@dataclass
class Env:
    arrays: dict = field(default_factory=dict)  # name -> kind
    ints: list = field(default_factory=list)    # Python ints in scope
    floats: list = field(default_factory=list)

    def copy(self):
        return Env(dict(self.arrays), list(self.ints), list(self.floats))


class Gen:
    """Draws one program; `draw` is hypothesis's."""

    MAX_DEPTH = 3

    def __init__(self, draw):
        self.draw = draw
        self.counter = 0
        self.helpers = []          # (name, source lines, nparams)
        self.pure = False          # no prints, side effects, data-dependent branches
        self.x, self.y, self.in_helper = "x", "y", False

    # -- small helpers
    def pick(self, items):
        return self.draw(st.sampled_from(items))

    def chance(self, p_percent):
        return self.draw(st.integers(0, 99)) < p_percent

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- Python scalars
    def int_expr(self, env: Env, depth=0) -> str:
        options = ["n", "const", "shape", "ndim", "len", "size", "lst_len"]
        if env.ints:
            options += ["var", "var"]
        if depth < 2:
            options += ["arith", "minmax"]
        choice = self.pick(options)
        x, y = self.x, self.y
        if choice == "n":
            return "n"
        if choice == "const":
            return str(self.draw(st.integers(-3, 5)))
        if choice == "shape":
            return self.pick([f"{x}.shape[0]", f"{x}.shape[-1]", f"{y}.shape[0]", f"len({x})"])
        if choice == "ndim":
            return self.pick([f"{x}.ndim", f"{y}.ndim"])
        if choice == "size":
            return f"{x}.size"
        if choice == "len":
            return f"len({x}.shape)"
        if choice == "lst_len":
            return "n" if self.in_helper else "len(lst)"
        if choice == "var":
            return self.pick(env.ints)
        if choice == "minmax":
            return f"{self.pick(['min', 'max'])}({self.int_expr(env, depth + 1)}, {self.int_expr(env, depth + 1)})"
        op = self.pick(["+", "-", "*", "//", "%"])
        right = self.int_expr(env, depth + 1)
        if op in ("//", "%") and self.chance(80):
            right = f"max({right}, 1)"
        return f"({self.int_expr(env, depth + 1)} {op} {right})"

    def scalar_expr(self, env: Env) -> str:
        """A Python int or float (or NumPy scalar through float())."""
        choice = self.pick(["int", "int", "float", "scale", "floatvar"] if env.floats else
                           ["int", "int", "float", "scale"])
        if choice == "int":
            return self.int_expr(env)
        if choice == "float":
            return self.pick(["0.5", "2.0", "-1.5", "1e-3", "3.25", "CFG.alpha", "G"])
        if choice == "scale":
            return "2.0" if self.in_helper else "scale"
        return self.pick(env.floats)

    def small_count(self, env: Env) -> str:
        return self.pick(["2", "3", "min(n, 3)", "min(x.ndim, 2)", "len(lst)", "min(x.shape[0], 3)",
                          f"min({self.int_expr(env)}, 3)"])

    # -- arrays
    def arrays_of(self, env: Env, kind):
        return [name for name, k in env.arrays.items() if k == kind]

    def array_expr(self, env: Env, kind: str, depth=0) -> str:
        """An expression of the given kind (shape class)."""
        leaves = self.arrays_of(env, kind)
        if depth >= self.MAX_DEPTH or (leaves and self.chance(25 + 15 * depth)):
            if leaves:
                return self.pick(leaves)
            return self.make_from_a(env, kind, depth)
        choice = self.pick(["bin", "bin", "bin", "scalar_bin", "unary", "ufunc2", "where", "clip", "make",
                            "method", "helper", "inplace_expr", "closure"])
        if kind == "R" and not self.in_helper and self.chance(15):
            return self.pick(["W0", "(W0 * CFG.alpha)", "np.float32(CFG.alpha)"])
        if choice == "bin":
            op = _weighted(self.draw, BINOPS, BINOP_WEIGHTS)
            lk, rk = kind, kind
            if kind == "A" and self.chance(40):
                rk = self.pick(["K", "R"])
            elif kind != "R" and self.chance(20):
                rk = "R"
            if self.chance(50):
                lk, rk = rk, lk
            left = self.array_expr(env, lk, depth + 1)
            right = self.array_expr(env, rk, depth + 1)
            if op == "**" and self.chance(70):
                right = self.pick(["2", "0.5", "3"])
            if op in "&|^" and self.chance(85):
                return f"(({left} > 0) {op} ({right} < 1))"
            return f"({left} {op} {right})"
        if choice == "scalar_bin":
            op = _weighted(self.draw, BINOPS[:7], BINOP_WEIGHTS[:7])
            a, s = self.array_expr(env, kind, depth + 1), self.scalar_expr(env)
            return f"({a} {op} {s})" if self.chance(60) else f"({s} {op} {a})"
        if choice == "unary":
            fn = self.pick(UFUNC1 + ["-", "abs", "+"])
            a = self.array_expr(env, kind, depth + 1)
            if fn in ("-", "+"):
                return f"({fn}{a})"
            return f"{fn}({a})"
        if choice == "ufunc2":
            fn = self.pick(UFUNC2)
            other = kind if kind != "A" or self.chance(60) else self.pick(["K", "R"])
            return f"{fn}({self.array_expr(env, kind, depth + 1)}, {self.array_expr(env, other, depth + 1)})"
        if choice == "where":
            cond = self.array_expr(env, kind, depth + 1)
            cmp = self.pick([">", "<", ">=", "!="])
            other = self.array_expr(env, self.pick([kind, "R"]), depth + 1)
            alt = self.pick([self.array_expr(env, kind, depth + 1), self.scalar_expr(env)])
            return f"np.where({cond} {cmp} {self.scalar_expr(env)}, {other}, {alt})"
        if choice == "clip":
            lo = self.pick(["-1", "0", "-2.5", "None"])
            hi = self.pick(["1", "2", "3.5"])
            return f"np.clip({self.array_expr(env, kind, depth + 1)}, {lo}, {hi})"
        if choice == "method":
            a = self.array_expr(env, kind, depth + 1)
            m = self.pick([".copy()", ".astype(np.float32)", ".astype(np.int64)", ".astype(float)", ".conj()",
                           ".round()", "[...]", ".real", ".astype(x.dtype)", ".view()", ".squeeze()"
                           if kind == "R" else ".copy()"])
            return f"{a}{m}"
        if choice == "helper" and kind in ("A", "V", "T") and self.helpers:
            name, _lines, nparams = self.pick(self.helpers)
            args = [self.array_expr(env, kind, depth + 1) for _ in range(nparams)]
            return f"{name}({', '.join(args)})"
        if choice == "closure" and not self.in_helper:
            # a lambda or a closure over a local, called at once
            a = self.array_expr(env, kind, depth + 1)
            k = self.int_expr(env)
            return self.pick([f"(lambda a, k={k}: a * k + 1)({a})", f"(lambda a: a - {k})({a})",
                              f"list(map(lambda a: a * 2, [{a}]))[0]"])
        if choice == "inplace_expr":
            # a conditional expression on a Python value
            return (f"({self.array_expr(env, kind, depth + 1)} if {self.py_cond(env)} "
                    f"else {self.array_expr(env, kind, depth + 1)})")
        return self.make_from_a(env, kind, depth)

    def make_from_a(self, env: Env, kind: str, depth: int) -> str:
        """Derive an expression of `kind` from A-kind arrays (shape changes)."""
        a = self.pick(self.arrays_of(env, "A") or [self.x]) if depth >= self.MAX_DEPTH else \
            self.array_expr(env, "A", depth + 1)
        if kind == "A":
            return self.pick([a, f"{a}.reshape(x.shape)", f"{a}.T.T", f"{a}[::-1]", f"np.transpose({a}).T",
                              f"np.ascontiguousarray({a})", f"{a}.reshape(-1).reshape(y.shape)",
                              f"np.flip({a}, 0)", f"np.roll({a}, 1)", f"np.sort({a}, axis=-1)",
                              f"np.cumsum({a}, axis=0)", f"np.expand_dims({a}, 0)[0]", f"{a}[None][0]",
                              f"np.nan_to_num({a})", f"np.diff(np.concatenate([{a}[:1], {a}]), axis=0)"])
        if kind == "K":
            red = self.pick(REDUCTIONS[:7])
            axis = self.pick(["None", "0", "-1", "(0,)", "(0, -1)"])
            return self.pick([f"{a}.{red}(axis={axis}, keepdims=True)",
                              f"np.{red}({a}, axis={axis}, keepdims=True)",
                              f"{a}[:1]", f"{a}[..., -1:]"])
        if kind == "R":
            red = self.pick(REDUCTIONS[:8])
            return self.pick([f"{a}.{red}()", f"{self.pick(NP_REDUCTIONS)}({a})",
                              f"({a}.reshape(-1) @ {self.array_expr(env, 'A', self.MAX_DEPTH)}.reshape(-1))",
                              f"{a}.ravel()[0]", f"{a}[(0,) * x.ndim]", f"np.linalg.norm({a})",
                              f"{a}[{a} > 0].sum()", f"np.count_nonzero({a})", f"np.trace(np.atleast_2d({a}))"])
        if kind == "V":
            return self.pick([f"{a}.reshape(-1)", f"{a}.ravel()", f"{a}.flatten()", f"np.sort({a}.ravel())",
                              f"np.cumsum({a})", f"{a}.reshape(-1)[::-1]", f"np.concatenate([{a}.ravel()])",
                              f"np.argsort({a}, axis=None)"])
        if kind == "T":
            return self.pick([f"{a}.T", f"np.transpose({a})", f"{a}.transpose()",
                              f"np.moveaxis({a}.T, 0, 0)"])
        if kind == "O0":
            red = self.pick(REDUCTIONS)
            return self.pick([f"{a}.{red}(axis=0)", f"{a}[0]", f"{a}[-1]", f"np.{red}({a}, axis=0)"
                              if red not in ("std", "argmax", "cumsum") else f"{a}[0]", f"{a}[n % max(len({a}), 1)]"])
        if kind == "O1":
            red = self.pick(REDUCTIONS)
            return self.pick([f"{a}.{red}(axis=-1)", f"{a}[..., 0]", f"{a}[..., -1]"])
        if kind == "G":
            b = self.array_expr(env, "A", self.MAX_DEPTH)
            return self.pick([f"(np.swapaxes({a}, -1, -2) @ {b})", f"np.matmul(np.swapaxes({a}, -1, -2), {b})",
                              f"np.einsum('...ji,...jk->...ik', {a}, {b})" if self.chance(30) else
                              f"({a}.mT @ {b})"])
        raise AssertionError(kind)

    # -- conditions
    def py_cond(self, env: Env) -> str:
        choice = self.pick(["cmp", "cmp", "lst", "dtype", "isnone", "not"])
        if choice == "cmp":
            return f"{self.int_expr(env)} {self.pick(['>', '<', '==', '!=', '>=', '<='])} {self.int_expr(env)}"
        if choice == "lst":
            return self.pick(["lst", "not lst", "len(lst) > 1", "0 in lst", "n in lst"])
        if choice == "dtype":
            return self.pick(["x.dtype == np.float64", "x.dtype.kind == 'f'", "y.dtype == x.dtype",
                              "np.issubdtype(x.dtype, np.integer)", "x.shape == y.shape", "x.ndim > 1"])
        if choice == "isnone":
            return self.pick(["scale is None", "scale > 1"])
        return f"not ({self.int_expr(env)} > 2)"

    def data_cond(self, env: Env) -> str:
        a = self.array_expr(env, self.pick(["A", "R"]), 1)
        return self.pick([f"{a}.sum() > 0", f"({a} > 1).any()", f"{a}.size and {a}.max() > 2",
                          f"float(np.mean({a})) < 0.5", f"{a}.all()", f"{a}.max(initial=0) >= {self.scalar_expr(env)}",
                          f"bool(np.all({a} == {a}))", f"{a}.size == 0 or {a}.ravel()[0] > 0",
                          f"int({a}.sum()) % 2"])

    # -- statements
    def assign(self, env: Env, name: str | None = None):
        if name is None:
            kind = _weighted(self.draw, list(ARRAY_KINDS), [10, 3, 3, 2, 2, 2, 2, 1])
            name = self.fresh()
        else:
            kind = env.arrays[name]
        expr = self.array_expr(env, kind)
        env.arrays[name] = kind
        return [f"{name} = {expr}"]

    def statement(self, env: Env, depth: int, indent: str) -> list[str]:
        options = ["assign"] * 6 + ["int_assign"] * 2 + ["augassign"] * 2 + ["container", "tuple_unpack"]
        if not self.pure:
            options += ["print", "lst_effect", "global_effect"]
        if depth < 2:
            options += ["if_py"] * 2 + ["for_range", "for_lst", "comprehension", "while", "closure_def"]
            if not self.pure:
                options += ["if_data"]
        if depth < 1 and not self.pure:
            options += ["arg_inplace", "try"]
        choice = self.pick(options)
        out = []
        if choice == "assign":
            existing = list(env.arrays)
            if depth > 0 and existing:  # branches and loops rebind existing names only
                name = self.pick(existing)
                return [indent + line for line in self.assign(env, name)]
            return [indent + line for line in self.assign(env, None if self.chance(80) or not existing else
                                                              self.pick(existing))]
        if choice == "int_assign":
            name = self.pick(env.ints) if depth > 0 and env.ints else self.fresh("k")
            if depth > 0 and name not in env.ints:
                name = "n"
            line = f"{indent}{name} = {self.int_expr(env)}"
            if name not in env.ints and name != "n":
                env.ints.append(name)
            return [line]
        if choice == "augassign":
            name = self.pick(list(env.arrays))
            kind = env.arrays[name]
            op = self.pick(["+=", "-=", "*=", "/=", "//=", "|=", "**="])
            other = self.array_expr(env, self.pick([kind, "R"] + (["K"] if kind == "A" else [])), 2) \
                if self.chance(60) else self.scalar_expr(env)
            return [f"{indent}{name} {op} {other}"]
        if choice == "print":
            what = self.pick([f"{self.pick(list(env.arrays))}.shape", self.int_expr(env),
                              self.pick(list(env.arrays)), "lst", f"{self.pick(list(env.arrays))}.dtype",
                              f"'n =', n, sep=''", f"{self.pick(list(env.arrays))}.sum()"])
            return [f"{indent}print({what})"]
        if choice == "lst_effect":
            return [indent + self.pick([f"lst.append({self.int_expr(env)})", "lst.pop()", "lst[0] = n",
                                        f"lst.extend([{self.int_expr(env)}, 1])", "lst.insert(0, x.ndim)",
                                        "lst.sort()", "lst.reverse()", "del lst[-1]", "lst.clear()",
                                        f"lst += [{self.int_expr(env)}]"])]
        if choice == "global_effect":
            return [indent + self.pick([f"LOG.append({self.int_expr(env)})", "STATE['calls'] += 1",
                                        "record(x.shape)", f"STATE['last'] = {self.int_expr(env)}",
                                        "LOG.append(len(LOG))", "CFG.count += 1", "W0[...] += 1",
                                        f"CFG.alpha = CFG.alpha * 0.5 + {self.int_expr(env)}",
                                        "setattr(CFG, 'seen', x.shape)", "W0[...] = W0 * 0.5"])]
        if choice == "container":
            a = self.pick(list(env.arrays))
            kind = env.arrays[a]
            d, k, v = self.fresh("d"), self.fresh("k"), self.fresh()
            key = self.pick(["'a'", "\"it's\"", "'x\\ny'", "0", "(1, 'b')", "'__import__'"])
            lines = [f"{d} = {{{key}: {a}, 'k': {self.int_expr(env)}, 'l': [n, {self.int_expr(env)}]}}",
                     f"{k} = {d}['k'] + len({d}['l']) + {d}.get('missing', 1)",
                     self.pick([f"{v} = {d}[{key}] * {d}['k']", f"{v} = {d}[{key}] + 0",
                                f"{v} = list({d}.values())[0] - {d}['l'][-1]"])]
            env.ints.append(k)
            env.arrays[v] = kind
            return [indent + line for line in lines]
        if choice == "tuple_unpack":
            a = self.pick(list(env.arrays))
            k, v = self.fresh("k"), self.fresh()
            lines = [f"{v}, {k} = ({self.array_expr(env, env.arrays[a], 2)}, {self.int_expr(env)})"]
            if self.chance(50):
                lines.append(f"{v}, *_rest = [{v}, {k}, {a}]")
            env.arrays[v] = env.arrays[a]
            env.ints.append(k)
            return [indent + line for line in lines]
        if choice == "arg_inplace":
            return [indent + self.pick([f"x += {self.array_expr(env, 'R', 2)}", "x[...] = y",
                                        f"x *= {self.scalar_expr(env)}", "y[0] = 0", "np.add(x, 1, out=x)",
                                        f"x[x > 0] = {self.scalar_expr(env)}", "x.fill(1)", "y.sort(axis=-1)",
                                        "x[:] = x[::-1]", "np.multiply(y, 2, out=y)"])]
        if choice in ("if_py", "if_data"):
            cond = self.py_cond(env) if choice == "if_py" else self.data_cond(env)
            out.append(f"{indent}if {cond}:")
            out += self.block(env.copy(), depth + 1, indent + "    ")
            if self.chance(60):
                out.append(f"{indent}else:")
                out += self.block(env.copy(), depth + 1, indent + "    ")
            return out
        if choice == "for_range":
            i = self.fresh("i")
            out.append(f"{indent}for {i} in range({self.small_count(env)}):")
            inner = env.copy()
            inner.ints.append(i)
            if self.chance(20):
                out.append(f"{indent}    if {i} == 1: {self.pick(['break', 'continue'])}")
            out += self.block(inner, depth + 1, indent + "    ")
            return out
        if choice == "for_lst":
            e = self.fresh("e")
            # iterating over lst itself only where nothing can grow it
            src = self.pick((["lst", "enumerate(lst)", "zip(lst, lst)"] if self.pure else []) +
                            ["list(lst)", "lst[:2]", "sorted(lst)", "enumerate(list(lst))", "zip(lst[:], lst[:])"])
            if src.startswith(("enumerate", "zip")):
                out.append(f"{indent}for _j, {e} in {src}:")
            else:
                out.append(f"{indent}for {e} in {src}:")
            inner = env.copy()
            inner.ints.append(e)
            out += self.block(inner, depth + 1, indent + "    ")
            return out
        if choice == "while":
            c = self.fresh("c")
            out.append(f"{indent}{c} = {self.small_count(env)}")
            out.append(f"{indent}while {c} > 0:")
            out.append(f"{indent}    {c} -= 1")
            out += self.block(env.copy(), depth + 1, indent + "    ")  # c is never rebound
            return out
        if choice == "closure_def":
            a = self.pick(list(env.arrays))
            kind = env.arrays[a]
            k = self.int_expr(env)
            fn, v = self.fresh("inner"), self.fresh()
            out.append(f"{indent}def {fn}(b, m={k}):")
            out.append(f"{indent}    return b * m + {a}")
            out.append(f"{indent}{v} = {fn}({self.array_expr(env, kind, 2)})")
            if self.chance(50):
                out.append(f"{indent}{v} = {fn}({v}, m=n)")
            env.arrays[v] = kind
            return out
        if choice == "comprehension":
            a = self.pick(list(env.arrays))
            kind = env.arrays[a]
            vs, v = self.fresh("vs"), self.fresh()
            out.append(f"{indent}{vs} = [{a} * _i + {self.int_expr(env)} for _i in range({self.small_count(env)})]")
            out.append(f"{indent}{v} = {self.pick([f'sum({vs}, {a} * 0)', f'{vs}[-1] if {vs} else {a}', f'np.stack({vs} + [{a}]).sum(axis=0)'])}")
            env.arrays[v] = kind
            return out
        if choice == "try":
            out.append(f"{indent}try:")
            inner = env.copy()
            out += self.block(inner, depth + 1, indent + "    ")
            out.append(f"{indent}except {self.pick(['IndexError', 'ValueError', 'Exception', '(TypeError, ZeroDivisionError)'])}:")
            out.append(f"{indent}    n = -1")
            return out
        raise AssertionError(choice)

    def block(self, env: Env, depth: int, indent: str) -> list[str]:
        count = self.draw(st.integers(1, 3))
        lines = []
        for _ in range(count):
            lines += self.statement(env, depth, indent)
        return lines

    # -- the module
    def helper(self, index: int) -> tuple[str, list[str], int]:
        name = f"h{index}"
        nparams = self.draw(st.integers(1, 2))
        params = ["a", "b"][:nparams]
        env = Env({p: "A" for p in params}, ["n"], [])
        body = ["    _program = '@TAG@'"]
        style = self.pick(["pure", "pure", "nested", "default"] + ([] if self.pure else ["print", "effect"]))
        if style == "print":
            body.append("    print('in', " + repr(name) + ", a.shape)")
        if style == "effect":
            body.append("    LOG.append(a.ndim)")
        self.x, self.y, self.in_helper = "a", params[-1], True
        body.append(f"    r = {self.array_expr(env, 'A', 1)}")
        self.x, self.y, self.in_helper = "x", "y", False
        if style == "nested" and self.helpers:
            other, _l, np_ = self.helpers[-1]
            body.append(f"    r = {other}({', '.join(['r'] * np_)})")
        body.append("    return r")
        sig = ", ".join(params) + (", n=2" if True else "")
        return name, [f"def {name}({sig}):"] + body, nparams

    def module(self) -> str:
        self.pure = self.draw(st.integers(0, 9)) < 4
        for i in range(self.draw(st.integers(0, 2))):
            self.helpers.append(self.helper(i))
        env = Env({"x": "A", "y": "A"}, ["n"], ["scale"])
        body = []
        for _ in range(self.draw(st.integers(1, 7))):
            body += self.statement(env, 0, "    ")
        names = list(env.arrays)
        ret = self.pick(["tuple", "single", "dict", "list", "with_int", "none"])
        picked = [self.pick(names) for _ in range(self.draw(st.integers(1, 3)))]
        if ret == "tuple":
            body.append(f"    return ({', '.join(picked)},)")
        elif ret == "single":
            body.append(f"    return {picked[0]}")
        elif ret == "dict":
            body.append("    return {" + ", ".join(f"'r{i}': {p}" for i, p in enumerate(picked)) + "}")
        elif ret == "list":
            body.append(f"    return [{', '.join(picked)}, n, lst]")
        elif ret == "with_int":
            body.append(f"    return {picked[0]}, {self.int_expr(env)}, scale")
        else:
            body.append("    return None")
        lines = ["import numpy as np", "", "G = 3", "LOG = []", "STATE = {'calls': 0}", "W0 = np.array(1.5)", "",
                 "", "class Config:", "    alpha = 0.5", "    count = 0", "", "", "CFG = Config()", "", "",
                 "def record(shape):", "    LOG.append(tuple(shape))", "", ""]
        for _name, hl, _n in self.helpers:
            lines += hl + ["", ""]
        # a constant unique to the program keeps f's code unequal to other programs' f (equal code
        # objects share sot's per-code records: test_regressions.py::test_resume_function_not_shared...)
        lines += ["def f(x, y, n, lst, scale=1.5):", "    _program = '@TAG@'"] + body
        text = "\n".join(lines) + "\n"
        return text.replace("@TAG@", hashlib.sha1(text.encode()).hexdigest()[:10])


# ---------------------------------------------------------------- arguments

def make_array(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape)) if shape else 1
    data = rng.integers(-3, 4, size=size)
    if np.dtype(dtype).kind in "fc":
        data = data + rng.choice([0.0, 0.5, 0.25], size=size)
    if np.dtype(dtype).kind == "c":
        data = data + 1j * rng.integers(-2, 3, size=size)
    if np.dtype(dtype).kind == "u":
        data = np.abs(data)
    if np.dtype(dtype).kind == "b":
        data = data > 0
    return np.asarray(data).astype(dtype).reshape(shape)


@st.composite
def arg_sets(draw):
    rank = _weighted(draw, [1, 2, 3, 0, 4], [4, 6, 3, 1, 1])
    dims = st.integers(1, 4) if draw(st.integers(0, 9)) else st.integers(0, 3)
    shape = tuple(draw(dims) for _ in range(rank))
    dtx = _weighted(draw, DTYPES, DTYPE_WEIGHTS)
    dty = dtx if draw(st.integers(0, 3)) else _weighted(draw, DTYPES, DTYPE_WEIGHTS)
    sets = []
    for i in range(draw(st.integers(2, 3))):
        if i:
            change = draw(st.sampled_from(["same", "values", "dims", "rank", "dtype", "n"]))
            if change == "dims":
                shape = tuple(draw(st.integers(1, 4)) for _ in range(len(shape)))
            elif change == "rank":
                shape = tuple(draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 3))))
            elif change == "dtype":
                dtx = _weighted(draw, DTYPES, DTYPE_WEIGHTS)
                dty = dtx if draw(st.booleans()) else dty
        seed = draw(st.integers(0, 3))
        n = draw(st.integers(-2, 5))
        lst = draw(st.lists(st.integers(-2, 4), max_size=3))
        args = (make_array(shape, dtx, seed), make_array(shape, dty, seed + 7), n, lst)
        scale = draw(st.sampled_from([None, None, None, 0.5, 3, -1.0, "f32", True]))
        if scale is not None:   # passed positionally; None means the default 1.5
            args += (np.float32(2.5) if scale == "f32" else scale,)
        sets.append(args)
    return sets


@dataclass
class Program:
    source: str
    arg_sets: list

    def __repr__(self):
        sets = "\n".join(f"  ({a[0].dtype}{list(a[0].shape)}, {a[1].dtype}{list(a[1].shape)}, n={a[2]}, "
                         f"lst={a[3]}{', scale=%r' % (a[4],) if len(a) > 4 else ''})" for a in self.arg_sets)
        return f"Program:\n{self.source}\nargument sets:\n{sets}"


@st.composite
def programs(draw):
    return Program(Gen(draw).module(), draw(arg_sets()))


# ---------------------------------------------------------------- running

_DIR = os.path.join(tempfile.gettempdir(), f"sot_fuzz_{os.getpid()}")


def load(source: str, tag: str):
    """Exec `source` as a fresh module-like namespace under a real filename
    (written to disk and registered in linecache, so tracebacks and sot's
    source locations work). Each call gets its own namespace."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    os.makedirs(_DIR, exist_ok=True)
    filename = os.path.join(_DIR, f"prog_{digest}.py")
    if not os.path.exists(filename):
        with open(filename, "w") as fh:
            fh.write(source)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = {"__name__": f"sot_fuzz_{digest}_{tag}", "__file__": filename, "__builtins__": builtins}
    exec(compile(source, filename, "exec"), ns)
    return ns, filename


def _arrays_masked(obj):
    if isinstance(obj, np.ndarray):
        return ("ndarray", type(obj).__name__, obj.dtype.str, obj.shape)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_arrays_masked(v) for v in obj)
    if isinstance(obj, dict):
        return {k: _arrays_masked(v) for k, v in obj.items()}
    return obj


def _user_frames(exc, filename):
    return [(fs.name, fs.lineno) for fs in traceback.extract_tb(exc.__traceback__) if fs.filename == filename]


class ProgramTimeout(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds):
    """Raise ProgramTimeout in the main thread after `seconds` (a hang is a bug too)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        raise ProgramTimeout(f"program ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_program(prog: Program, calls: int = 2, check_traceback: bool = True, timeout: float = 30.0):
    """Run `prog` eagerly and under sot on every argument set; assert they agree."""
    with time_limit(timeout):
        return _run_program(prog, calls, check_traceback)


def _run_program(prog, calls, check_traceback):
    sot.reset()
    eager_ns, filename = load(prog.source, "eager")
    traced_ns, _ = load(prog.source, "traced")
    eager, static = eager_ns["f"], sot.to_static(traced_ns["f"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for set_index, args in enumerate(prog.arg_sets):
            for call in range(calls):
                where = f"argument set {set_index}, call {call}"
                e_args, t_args = copy.deepcopy(args), copy.deepcopy(args)
                (e_kind, e_val), e_out = difftest._run(eager, e_args, {})
                (t_kind, t_val), t_out = difftest._run(static, t_args, {})
                assert e_kind == t_kind, f"{where}: eager {e_kind} {e_val!r} but traced {t_kind} {t_val!r}"
                if e_kind == "raised":
                    assert type(e_val) is type(t_val) and str(e_val) == str(t_val), \
                        f"{where}: eager raised {e_val!r}, traced raised {t_val!r}"
                    if check_traceback:
                        e_tb, t_tb = _user_frames(e_val, filename), _user_frames(t_val, filename)
                        # the user's innermost line must be in the traced traceback (an extra frame
                        # for a graph break's line is a known bug: test_regressions.py)
                        assert not e_tb or e_tb[-1] in t_tb, f"{where}: innermost user line {e_tb} not in {t_tb}"
                else:
                    difftest.assert_same(e_val, t_val, f"{where}: result")
                    difftest._check_identity(e_val, e_args, t_val, t_args)
                assert e_out == t_out, f"{where}: stdout differs:\n{e_out!r}\n{t_out!r}"
                if e_kind == "raised":
                    # NumPy may leave uninitialized buffer contents in an in-place operand when a
                    # casting in-place op raises (e.g. int32 **= int64 with a negative exponent), so
                    # array values are undefined after an exception: compare their type/dtype/shape
                    difftest.assert_same(_arrays_masked(e_args), _arrays_masked(t_args),
                                         f"{where}: arguments after the raising call")
                else:
                    difftest.assert_same(e_args, t_args, f"{where}: arguments after the call")
                difftest.assert_same(eager_ns["LOG"], traced_ns["LOG"], f"{where}: global LOG")
                difftest.assert_same(eager_ns["STATE"], traced_ns["STATE"], f"{where}: global STATE")
                difftest.assert_same(eager_ns["W0"], traced_ns["W0"], f"{where}: global W0")
                difftest.assert_same(vars(eager_ns["CFG"]), vars(traced_ns["CFG"]), f"{where}: global CFG")
    return static


if __name__ == "__main__":  # print a few programs
    for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        print(programs().example())
