"""statistics, random, math and fractions from decorated functions: the
standard library runs natively (it is skipped), so these check that what
crosses the boundary is exact: Python floats read out of arrays, the state
of a seeded random.Random passed in (consumed exactly as eager, also on the
cached call), math of shapes and Python numbers, exceptions."""
import fractions
import math
import random
import statistics

import numpy as np
import pytest

import sot
from difftest import assert_captured_whole, check

X = np.arange(12, dtype=np.float64).reshape(3, 4) * 0.1 - 0.35


def statistics_of_python_floats(x):
    vals = [0.1, 0.2, 0.3, 0.7]
    return statistics.mean(vals), statistics.median(vals), statistics.stdev(vals), statistics.fmean(vals), x * 2


def statistics_of_numbers_read_from_an_array(x):
    vals = [float(v) for v in x.ravel()]
    m = statistics.mean(vals)
    return m, statistics.median(vals), statistics.pstdev(vals), x - m


def statistics_of_array_items(x):
    vals = list(x[0])            # NumPy scalars, not floats: statistics keeps their type
    return statistics.mean(vals), statistics.median_low(vals), type(statistics.mean(vals))


def statistics_error(x):
    return statistics.stdev([float(x[0, 0])])


def random_instance_consumed_as_eager(x, rng):
    noise = rng.random()
    k = rng.randint(0, 2)
    order = list(range(4))
    rng.shuffle(order)
    return x[k] * noise + rng.gauss(0.0, 1.0), order, rng.choice("abc"), rng.sample(range(10), 3)


def random_instance_drives_a_branch(x, rng):
    if rng.random() < 0.5:
        return x + 1, rng.getstate()[1][:3]
    return x - 1, rng.uniform(1, 2)


def random_state_round_trip(x, rng):
    st = rng.getstate()
    a = rng.random()
    rng.setstate(st)
    return a == rng.random(), x * a


def math_of_shapes(x):
    n = math.prod(x.shape)
    return x.reshape(n // math.gcd(n, 8), -1), n, math.comb(x.shape[1], 2), math.isqrt(n), math.lcm(*x.shape)


def math_of_python_numbers(x):
    vals = [0.1] * 10
    return (math.fsum(vals), sum(vals), math.isclose(sum(vals), 1.0), math.isclose(1.0, 1.0 + 1e-12, rel_tol=0),
            math.floor(2.5), math.ceil(-0.5), math.copysign(0.0, -1.0), math.hypot(3, 4), x * math.pi)


def math_of_array_numbers(x):
    s = float(x.sum())
    return math.isclose(s, 0.0, abs_tol=1e-9), math.fsum(x.ravel().tolist()), math.sqrt(abs(s) + 1), math.prod(x[0].tolist())


def math_domain_error(x):
    return math.sqrt(float(x.min()))


def fractions_and_numbers(x):
    import numbers
    f = fractions.Fraction(3, 4) + fractions.Fraction(1, 6)
    return f, float(f), isinstance(f, numbers.Rational), isinstance(x.shape[0], numbers.Integral), x * float(f)


def fraction_from_array_float(x):
    return fractions.Fraction(float(x[0, 0])).limit_denominator(100)


def statistics_of_constants_of_each_kind(x):
    data = (1, 2, 2, 3, 7)
    return (statistics.mean(data), statistics.median_high(range(6)), statistics.mode([True, False, True]),
            statistics.multimode([1, 1, 2, 2]), statistics.variance([1.5, 2.5, 4.0], 2.0),
            statistics.quantiles([1, 2, 3, 4, 5], n=4, method="inclusive"), statistics.mean(v * 0.5 for v in data),
            x.shape)


def statistics_of_strings_runs_natively(x):
    return statistics.mode("abbc"), x


def statistics_error_is_caught_as_eager(x):
    try:
        statistics.mean([])
    except statistics.StatisticsError as e:
        return str(e), x + 1
    return None


CASES = [statistics_of_constants_of_each_kind, statistics_of_strings_runs_natively, statistics_error_is_caught_as_eager,
         statistics_of_python_floats, statistics_of_numbers_read_from_an_array, statistics_of_array_items,
         statistics_error, math_of_shapes, math_of_python_numbers, math_of_array_numbers, math_domain_error,
         fractions_and_numbers, fraction_from_array_float]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_matches_eager(fn):
    check(fn, (X,), (X[::-1] * 2,))


@pytest.mark.parametrize("fn", [random_instance_consumed_as_eager, random_instance_drives_a_branch,
                                random_state_round_trip], ids=lambda f: f.__name__)
def test_a_seeded_random_instance_is_consumed_as_eager(fn):
    eager_rng, traced_rng = random.Random(7), random.Random(7)
    static = sot.to_static(fn)
    for seed_shift in range(4):   # cached calls too: the state moves on each time
        x = X * seed_shift
        e, t = fn(x, eager_rng), static(x, traced_rng)
        assert repr(e) == repr(t)
        assert eager_rng.getstate() == traced_rng.getstate()


def test_a_reseeded_random_instance_is_not_baked_in():
    static = sot.to_static(random_instance_consumed_as_eager)
    first = static(X, random.Random(1))
    second = static(X, random.Random(2))
    assert repr(first) == repr(random_instance_consumed_as_eager(X, random.Random(1)))
    assert repr(second) == repr(random_instance_consumed_as_eager(X, random.Random(2)))


@pytest.mark.parametrize("fn", [math_of_shapes, math_of_python_numbers, statistics_of_python_floats,
                                statistics_of_constants_of_each_kind, statistics_error_is_caught_as_eager],
                         ids=lambda f: f.__name__)
def test_captured_without_a_break(fn):
    assert_captured_whole(fn, X)


def statistics_of_a_list_passed_in(x, vals):
    return x * statistics.median(vals), statistics.pstdev(vals)


def test_statistics_of_numbers_passed_in_follow_them():
    # folded under value guards (a signed zero, a NaN and the length are told apart);
    # numbers that keep changing become inputs and the call then runs natively
    check(statistics_of_a_list_passed_in, (X, [0.0]), (X, [-0.0]), (X, [1.0, 2.5]), (X, [float("nan"), 1.0]),
          (X, [3, 1]), (X, []), *[(X, [float(i), 2.0]) for i in range(5)])


def test_statistics_of_array_data_breaks_with_its_reason():
    report = sot.explain(sot.to_static(statistics_of_numbers_read_from_an_array, min_graph_size=0), X)
    assert any("data-dependent" in str(b) and "statistics.mean" in str(b) for b in report.breaks), \
        [str(b) for b in report.breaks]


def statistics_of_other_arguments(x):
    try:
        statistics.quantiles([1, 2, 3], n=4, method=["exclusive"])
    except ValueError as e:
        return str(e), statistics.mode(["a", "a"]), x
    return None


def test_statistics_arguments_it_does_not_fold_run_natively():
    check(statistics_of_other_arguments, (X,))
