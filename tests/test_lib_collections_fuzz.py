"""Random programs of deque, Counter, defaultdict and OrderedDict operations
(with arrays among the items, errors caught in the program) run eagerly and
decorated: results, the container's final state and the caught errors match.
Most are captured whole; the rest break where an answer needs array data."""
import collections
import random

import numpy as np
import pytest

from difftest import check

X = np.arange(12, dtype=np.float32).reshape(3, 4)

DEQUE_OPS = ["d.append({v})", "d.appendleft({v})", "r.append(d.pop())", "r.append(d.popleft())", "d.rotate({n})",
       "d.extend([{v}, {v2}])", "d.extendleft(({v},))", "r.append(len(d))", "r.append({c} in d)", "r.append(d.count({c}))",
       "r.append(d.index({c}))", "d.remove({c})", "d.insert({n}, {v})", "d.reverse()", "r.append(d[{n}])", "d[{n}] = {v}",
       "del d[{n}]", "r.append(list(d))", "d.clear()", "r.append(d.maxlen)", "d += collections.deque([{v}])",
       "r.append(d == collections.deque([1, 2]))", "r.append(bool(d))", "d = d.copy()"]


def deque_program(seed):
    rnd = random.Random(seed)
    maxlen = rnd.choice([None, 0, 1, 2, 3, 5])
    body = [f"d = collections.deque({rnd.sample(range(5), rnd.randint(0, 4))}, maxlen={maxlen})", "r = []"]
    for _ in range(rnd.randint(3, 12)):
        op = rnd.choice(DEQUE_OPS).format(v=rnd.choice(["x", "x * 2", "1", "2", "'a'"]), v2=rnd.choice(["x", "3"]),
                                     n=rnd.randint(-3, 3), c=rnd.choice([1, 2, 3, "'a'"]))
        body.append(f"try:\n        {op}\n    except (IndexError, ValueError) as e:\n        r.append(type(e).__name__ + str(e))")
    src = "def f(x):\n    " + "\n    ".join(body) + "\n    return d, r\n"
    ns = {"collections": collections}
    exec(compile(src, f"<fuzz{seed}>", "exec"), ns)
    return ns["f"], src


DICT_OPS = {
 "c": ["c.update({it})", "c.subtract({it})", "r.append(c.most_common({n}))", "r.append(c[{k}])", "c[{k}] += {n}",
       "del c[{k}]", "r.append(sorted(c.elements()))", "r.append(c.total())", "c = c + collections.Counter({it})",
       "c = c - collections.Counter({it})", "c |= collections.Counter({it})", "c &= collections.Counter({it})",
       "r.append({k} in c)", "r.append(len(c))", "r.append(list(c.items()))", "r.append(c.get({k}))", "c.pop({k}, None)",
       "r.append(c.most_common())", "c.clear()", "c[{k}] = -{n}"],
 "dd": ["dd[{k}].append({n})", "r.append(dd[{k}])", "r.append(dd.get({k}))", "r.append({k} in dd)", "del dd[{k}]",
        "dd.setdefault({k}, [9])", "r.append(list(dd))", "dd = dd.copy()", "r.append(len(dd))", "dd.pop({k}, 0)"],
 "od": ["od.move_to_end({k})", "od.move_to_end({k}, last=False)", "r.append(od.popitem())", "r.append(od.popitem(last=False))",
        "od[{k}] = {n}", "del od[{k}]", "r.append(list(od))", "r.append(list(reversed(od)))", "od.update({{{k}: {n}}})",
        "r.append(od.pop({k}, None))", "od = od.copy()"],
}


def dict_kind_program(seed):
    rnd = random.Random(seed)
    kind = rnd.choice(list(DICT_OPS))
    init = {"c": "c = collections.Counter({it})", "dd": "dd = collections.defaultdict(list, {{'a': [1]}})",
            "od": "od = collections.OrderedDict(a=0, b=1, c=2)"}[kind]
    def fmt(s):
        return s.format(it=rnd.choice(["'abca'", "[1, 2, 2]", "{'a': 2, 'b': -1}", "'b'"]), n=rnd.randint(0, 3),
                        k=rnd.choice(["'a'", "'b'", "'z'", "1", "2"]))
    body = [fmt(init), "r = []"]
    for _ in range(rnd.randint(3, 12)):
        op = fmt(rnd.choice(DICT_OPS[kind]))
        body.append(f"try:\n        {op}\n    except (KeyError, TypeError) as e:\n        r.append(type(e).__name__ + str(e))")
    body.append("r.append(x * len(r))")
    src = "def f(x):\n    " + "\n    ".join(body) + f"\n    return {kind}, r\n"
    ns = {"collections": collections}
    exec(compile(src, f"<fuzz{seed}>", "exec"), ns)
    return ns["f"], src


@pytest.mark.parametrize("seed", range(12))
def test_random_deque_programs_match_eager(seed):
    fn, src = deque_program(seed)
    check(fn, (X,), calls=2)


@pytest.mark.parametrize("seed", range(12))
def test_random_counter_defaultdict_ordereddict_programs_match_eager(seed):
    fn, src = dict_kind_program(seed)
    check(fn, (X,), calls=2)


def deque_argument(d, x):
    d.append(3)
    d.rotate(1)
    c = d.count(3)
    i = d.index(3) if 3 in d else -1
    v = d.popleft() if d else 0
    return c, i, v * x, d


def counter_argument(c, x):
    c.update([1, 2, 2])
    return c.most_common(2), c[2] * x, c


def defaultdict_argument(dd, x):
    dd[1] += 1
    return dd[0] * x, sorted(dd.items())


ARGUMENTS = {
    deque_argument: lambda rnd: collections.deque([rnd.randint(0, 4) for _ in range(rnd.randint(0, 4))],
                                                  maxlen=rnd.choice([None, 3, 5])),
    counter_argument: lambda rnd: collections.Counter({rnd.randint(0, 3): rnd.randint(-1, 3)
                                                       for _ in range(rnd.randint(0, 3))}),
    defaultdict_argument: lambda rnd: collections.defaultdict(int, {0: rnd.randint(0, 5)}),
}


@pytest.mark.parametrize("fn", list(ARGUMENTS), ids=lambda f: f.__name__)
def test_arguments_that_vary_between_calls_match_eager(fn):
    """Numbers that vary become graph inputs; what orders or counts them specialises on them."""
    import sot
    rnd = random.Random(1)
    static = sot.to_static(fn)
    for _ in range(8):
        check(fn, (ARGUMENTS[fn](rnd), X[0]), static=static, calls=2)
