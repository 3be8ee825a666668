"""NumPy forms that must stay graph breaks, and break cleanly: the decorated
function gives eager's values, types, side effects and random-state use.

* memory identity and layout the guards do not fix: ``.base``, ``.flags``,
  ``np.shares_memory`` / ``np.may_share_memory`` (two arguments may be views
  of one buffer, or not, from call to call);
* results whose dtype or size the values decide: ``np.linalg.eig`` /
  ``eigvals`` (real or complex), ``np.roots``, ``np.polydiv`` (trimmed
  remainder), ``np.trim_zeros``, ``np.real_if_close``;
* random draws from a Generator passed in (nondeterminism is never captured);
* ``np.piecewise`` with Python callables (it skips a function on an empty
  selection: a decision on data).
"""
import numpy as np
import pytest

import sot
from difftest import check

F = np.array([[0.5, -1.25, 3.0], [2.0, -0.75, 1.5]])
SQ = np.array([[0.0, -1.0], [1.0, 0.0]])      # eigenvalues +-1j
SYM = np.array([[2.0, 1.0], [1.0, 2.0]])      # real eigenvalues


def _breaks(fn, *args):
    report = sot.explain(sot.to_static(fn, min_graph_size=0), *args)
    return report.breaks or report.fallbacks


def base_and_flags(x):
    y = x * 2
    return y.base is None, x.T.base is x, x[1:].base is x, x.flags.writeable, y.T.flags["F_CONTIGUOUS"], y + 1


def memory_overlap(x, y):
    return np.shares_memory(x, y), np.may_share_memory(x, x.T), x + y


@pytest.mark.parametrize("fn, arg_sets", [
    (base_and_flags, [(F,), (F[:, ::2],), (np.asfortranarray(F),)]),
    (memory_overlap, [(F, F.copy()), (F, F), (F[:, :2], F[:, 1:])]),
])
def test_memory_forms_break_with_eagers_answer(fn, arg_sets):
    static = check(fn, *arg_sets)
    assert _breaks(fn, *arg_sets[0])
    # the same function object is reused: a view passed later still answers as eagerly
    x = np.zeros((2, 3))
    args = (x[:, :2], x[:, 1:]) if fn is memory_overlap else (x[:, :2],)
    assert fn(*args)[:-1] == static(*args)[:-1]


def value_dependent(a):
    w = np.linalg.eigvals(a)
    vals, vecs = np.linalg.eig(a)
    return w, vals, vecs, np.roots(a[0]), np.polydiv(a[0], a[1]), np.trim_zeros(np.append(a[0], 0.0)), \
        np.real_if_close(a + 0j), a.sum()


@pytest.mark.parametrize("a", [SQ, SYM, np.array([[0.0, 1.0], [1e-20, 2.0]])])
def test_value_dependent_dtype_or_size_breaks_with_eagers_answer(a):
    check(value_dependent, (a,))
    assert _breaks(value_dependent, a)


def draws(x, rng):
    return x + rng.standard_normal(x.shape), rng.integers(0, 10, 3), rng.random()


def test_a_generator_passed_in_is_drawn_natively_with_eagers_state():
    static = sot.to_static(draws)
    for seed in (0, 1):
        e, t = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(3):
            ev, tv = draws(F, e), static(F, t)
            np.testing.assert_array_equal(ev[0], tv[0])
            np.testing.assert_array_equal(ev[1], tv[1])
            assert ev[2] == tv[2] and type(ev[2]) is type(tv[2])
        assert e.bit_generator.state == t.bit_generator.state
    assert _breaks(draws, F, np.random.default_rng(0))


def piecewise(x):
    parts = np.piecewise(x[0], [x[0] < 0, x[0] >= 0], [lambda v: -v, lambda v: v.max() + v])
    return parts, np.piecewise(x, [x > 1], [0.0, lambda v: v ** 2])


def test_piecewise_with_lambdas_breaks_with_eagers_answer():
    """NumPy calls a function only where its selection is not empty (``x[cond].max()`` of
    an empty selection would raise): whether it runs is decided by the data."""
    check(piecewise, (F,), (np.abs(F),), (-np.abs(F),))
    assert _breaks(piecewise, F)


def test_printoptions_block_breaks_and_restores_the_options():
    def f(x):
        with np.printoptions(precision=2, suppress=True):
            s = str(x)
        return s, x * 2
    before = np.get_printoptions()
    check(f, (F,), (F * 1e-9,))
    assert np.get_printoptions() == before
    assert _breaks(f, F)
