"""How the cases of tests/test_lib5_*.py run under sot: whole (no break, no
fallback), break (graph breaks), native (the frame ran natively), raises (as
eager). Run from the repository root: PYTHONPATH=$PWD python benchmarks/lib5_capture_counts.py"""
import collections, importlib, random, sys, os
sys.path.insert(0, "tests")
import numpy as np
import sot

def args_for(mod, fn):
    import inspect
    names = list(inspect.signature(fn).parameters)
    extra = {"rng": random.Random(3), "mode": getattr(mod, "Mode", None) and mod.Mode.TRAIN,
             "obj": getattr(mod, "Plain", None) and mod.Plain(2.0, ["a"]),
             "layer": getattr(mod, "Layer", None) and mod.Layer(mod.X, 0.5), "vals": [1.0, 2.5],
             "p": getattr(mod, "Polynomial", None) and mod.Polynomial([1.0, 2.0]), "k": getattr(mod, "Axis", None) and mod.Axis.ROWS}
    return [mod.X] + [extra[n] for n in names[1:]]

counts = collections.Counter()
reasons = collections.Counter()
for f in sorted(os.listdir("tests")):
    if not f.startswith("test_lib5_"): continue
    mod = importlib.import_module(f[:-3])
    fns = [v for k, v in vars(mod).items() if callable(v) and getattr(v, "__module__", "") == mod.__name__
           and hasattr(v, "__code__") and not k.startswith(("test_", "_")) and v.__code__.co_varnames[:1] == ("x",)
           and v.__qualname__ == v.__name__]
    for fn in fns:
        try:
            rep = sot.explain(sot.to_static(fn, min_graph_size=0), *args_for(mod, fn))
        except Exception as e:
            kind = "raises (as eager)"
            rep = None
        else:
            kind = "native" if rep.fallbacks else ("break" if rep.breaks else "whole")
        counts[kind] += 1
        print(f"{kind:7s} {f[10:-3]}.{fn.__name__}")
        for b in (rep.breaks if rep else []):
            line = str(b).split("\n")[0]
            print("        ", line.split(": ", 1)[1][:160])
            reasons[line.split(": ", 2)[1] if line.count(": ") >= 2 else line] += 1
print(dict(counts))
