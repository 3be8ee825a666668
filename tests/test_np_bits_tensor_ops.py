"""NumPy breadth: bit packing (sot/ir/ops_bits.py), np.linalg.tensorsolve /
tensorinv (ops_linalg_api.py), np.setxor1d (ops_combine.py, a data-dependent
length), np.histogramdd (ops_histogramdd.py: its tuple and edges list) and
np.poly of real roots (ops_polynomial.py): captured whole and
bitwise equal to eager on the NumPy backend; the forms eager rejects raise
eager's error, and the forms whose dtype depends on the values still match."""
import numpy as np
import pytest

import sot
from difftest import case_params, check, check_case

rng = np.random.default_rng(11)
BITS = rng.random((3, 10)) > 0.5
U8 = rng.integers(0, 256, (2, 3), dtype=np.uint8)
T = (np.eye(6) * 5 + rng.standard_normal((6, 6))).reshape(2, 3, 6)
R = rng.standard_normal(6)
I = rng.integers(0, 6, 8)

CASES = {
    "packbits": (lambda b: (np.packbits(b), np.packbits(b, axis=1), np.packbits(b.astype(np.int16), axis=0),
                            np.packbits(b, -1, bitorder="little"), np.packbits(b[0, 0, ...]), np.packbits(b[:, :0], 1)),
                 [(BITS,), (BITS[:, :8],), (BITS.astype(np.uint8),)]),
    "unpackbits": (lambda u: (np.unpackbits(u), np.unpackbits(u, axis=0), np.unpackbits(u, axis=-1, count=5),
                              np.unpackbits(u, count=-3), np.unpackbits(u, 1, 20, bitorder="little"),
                              np.unpackbits(np.packbits(u > 100, axis=1), axis=1, count=3)),
                   [(U8,), (U8[:1],)]),
    "tensorsolve": (lambda a, b: (np.linalg.tensorsolve(a, b.reshape(2, 3)), np.linalg.tensorsolve(a.reshape(6, 6), b),
                                  np.linalg.tensorsolve(a.reshape(6, 2, 3), b) * 2,
                                  np.linalg.tensorsolve(a, b.astype(np.float32).reshape(2, 3))),
                    [(T, R), (T.astype(np.complex128), R)]),
    "tensorinv": (lambda a: (np.linalg.tensorinv(a.reshape(6, 2, 3), 1), np.linalg.tensorinv(a.reshape(2, 3, 2, 3)),
                             np.linalg.tensorinv(a.reshape(2, 3, 6), ind=2)), [(T,), (T.astype(np.float32),)]),
    "setxor1d": (lambda x, y: (np.setxor1d(x, y), np.setxor1d(x[:3], x[2:], assume_unique=True),
                               np.setxor1d(x, y.astype(np.float32)) * 2), [(I, I[::-1] + 2), (I, I), (I[:0], I)]),
    "histogramdd": (lambda s, w: (np.histogramdd(s, bins=4), np.histogramdd(s[:, :2], (3, 5), [(-2, 2), (-1, 1)], True),
                                  np.histogramdd(s, bins=[2, 3, 4], weights=w)[0] * 2,
                                  np.histogramdd(s.astype(np.float32), 3)[1]),
                    [(rng.standard_normal((50, 3)), R[:1].repeat(50)), (np.ones((7, 3)), np.arange(7)), (np.zeros((0, 3)), R[:0])]),
    "poly": (lambda r: (np.poly(r), np.poly(r.astype(np.float32)), np.poly(r[:1]), np.poly(r > 0)),
             [(R,), (I,)]),
}


@pytest.mark.parametrize("fn, arg_sets", case_params(CASES))
def test_matches_eager_bitwise_and_is_captured_whole(fn, arg_sets):
    check_case(fn, arg_sets)


@pytest.mark.parametrize("form", [
    lambda a: np.packbits(a),                        # floats: TypeError
    lambda a: np.unpackbits(a.astype(np.int8)),      # not uint8: TypeError
    lambda a: np.unpackbits(a.astype(np.uint8), count=-100),   # ValueError
    lambda a: np.packbits(a > 0, axis=2),            # AxisError
    lambda a: np.linalg.tensorsolve(a, a[0]),        # LinAlgError (sizes)
    lambda a: np.linalg.tensorsolve(a.reshape(6, 6), a[0, :3]),   # sizes differ: ValueError
    lambda a: np.linalg.tensorsolve(a.reshape(6, 6) * 0, a[0]),   # singular: LinAlgError at run time
    lambda a: np.linalg.tensorinv(a, 0),             # ValueError
    lambda a: np.linalg.tensorinv(a.reshape(3, 12)),  # not square: LinAlgError
    lambda a: np.poly(a[0, 0, :0]),                  # no roots: the Python float 1.0
    lambda a: np.histogramdd(a[0] / 0.0),            # a non-finite range from the data: ValueError at run time
    lambda a: np.histogramdd(a[0], bins=[2, 3]),     # bins for 2 of 6 dims: ValueError
    lambda a: np.histogramdd(a[0], bins=0),          # ValueError
    lambda a: np.poly(a[0, 0, 0]),                   # a NumPy scalar: NumPy's dispatcher raises TypeError
])
def test_invalid_or_uncaptured_forms_match_eager(form):
    check(form, (T,))


def test_forms_with_a_value_dependent_dtype_still_match_eager():
    def f(r, c):
        return np.poly(r.reshape(2, 3)[:, :2]), np.poly(c), np.poly(np.concatenate([c, c.conj()]))
    c = R[:3] + 1j * R[3:]
    check(f, (R, c))
    assert sot.explain(sot.to_static(f, min_graph_size=0), R, c).breaks


def test_ops_without_an_onnx_form_say_why_on_save(tmp_path):
    def f(x):
        return np.packbits(x > 0, axis=-1)
    with pytest.raises(Exception, match="packbits"):
        sot.save(f, tmp_path / "m.onnx", input_spec=[sot.InputSpec((4, 5), "float32", "x")])
