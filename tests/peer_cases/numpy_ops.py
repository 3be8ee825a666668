"""NumPy inside traced code: ufuncs, reductions, indexing, broadcasting,
in-place updates and out=, dtype promotion with Python scalars (NEP 50),
NumPy scalars and 0-d arrays."""
from __future__ import annotations

import numpy as np

from . import I, V, X, Y, case

B = np.array([[True, False, True, False]] * 3)
H = np.arange(6, dtype=np.float16).reshape(2, 3) / 3
U8 = np.array([0, 100, 200, 255], dtype=np.uint8)
I32 = np.arange(-3, 3, dtype=np.int32)
Z0 = np.array(2.5, dtype=np.float32)
C = np.array([1 + 2j, -0.5j, 3.0], dtype=np.complex64)
F32 = np.float32(1.5)


# -- ufuncs and promotion --------------------------------------------------------

@case(ort=True)
def np_unary_ufuncs(x):
    return np.exp(x), np.tanh(x), np.abs(x), np.negative(x), np.sign(x), np.square(x), np.floor(x)


@case(ort=True)
def np_binary_ufuncs(x):
    return np.maximum(x, 0.1), np.minimum(x, x.T[:3, :3].sum()), np.power(np.abs(x), 1.5), np.arctan2(x, 1.0)


@case()
def np_nan_producing(x):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.log(x), np.sqrt(x), x / 0.0, np.fmax(np.log(x), -1.0)


@case(ort=True)
def np_python_scalar_keeps_float32(x):
    return x * 2, x + 1.5, 3 - x, x / 3, x ** 2, x // 0.5, x % 0.75


@case()
def np_float64_scalar_promotes(x):
    return x * np.float64(2.0), x + np.float32(1), np.float64(1) + x


@case(I32)
def np_int32_with_python_int_and_float(i):
    return i + 1, i * 2.5, i // 2, i / 2, -i, i ** 2


@case(U8)
def np_uint8_wraps(u):
    return u + 100, u * 2, u - np.uint8(1), u // 3


@case(U8)
def np_uint8_out_of_range_python_int_raises(u):
    return u + 300


@case(I32)
def np_int_power_negative_raises(i):
    return i ** -1


@case(H)
def np_float16_arith(h):
    return h * 2, h + h, np.exp(h), h.sum(), h.mean()


@case(C)
def np_complex(c):
    return np.abs(c), c.real, c.imag, np.conj(c), c * 2j, np.angle(c)


@case(B)
def np_bool_arith(b):
    return b & ~b, b | True, b ^ b[0], b.sum(), b + 1, np.logical_not(b)


@case(I)
def np_int_division_by_zero_warns(i):
    with np.errstate(divide="ignore"):
        return i // 0, i % 0


@case(ort=True)
def np_comparisons(x):
    return x > 0, x == x, x != 0.25, np.isclose(x, 0.25), np.where(x > 0, x, -x)


@case()
def np_isnan_isfinite(x):
    y = x.copy()
    y[0, 0] = np.nan
    y[1, 1] = np.inf
    return np.isnan(y), np.isfinite(y), np.nan_to_num(y), np.nansum(y)


@case()
def np_clip_round(x):
    return np.clip(x, -0.5, 0.5), np.round(x, 1), np.around(x * 10), np.rint(x), np.trunc(x)


@case(I)
def np_bitwise_int(i):
    return i & 3, i | 8, i ^ 5, i << 2, i >> 1, ~i, np.invert(i)


# -- scalars and 0-d arrays ------------------------------------------------------

@case()
def scalar_element_is_numpy_scalar(x):
    a = x[1, 2]
    return a, a * 2, a + 1.5, type(a * 2).__name__


@case(F32)
def scalar_float32_arith(s):
    return s * 2, s + 1.0, s / 3, -s, abs(s), s ** 2, s * np.float64(2)


@case(F32)
def scalar_float32_with_array(s):
    return s * np.ones(3, np.float32), np.ones(3, np.int64) * s


@case(Z0)
def zero_d_array_arith(z):
    return z * 2, z + z, -z, z[()], z.item(), np.sin(z), z.reshape(1)


@case(Z0)
def zero_d_ufunc_returns_scalar(z):
    return np.add(z, 1), z + 1, np.sum(z), z.sum(), np.add(z, 1, out=np.empty((), z.dtype))


@case()
def reduction_returns_scalar_not_0d(x):
    return x.sum(), np.sum(x), x.max(), x[0].mean(), np.dot(x[0], x[1])


@case()
def scalar_from_python_converts(x):
    return np.float32(3), np.int64(7) // 2, np.float64(1.5).is_integer(), np.int32(5) + 2, x


@case(np.int64(7))
def scalar_int64_python_ops(n):
    return n + 1, n * 2.5, n // 2, n % 3, n / 2, n ** 2, -n, n == 7


@case(np.float64(0.1))
def scalar_float64_methods(f):
    return f.as_integer_ratio(), round(f, 3), f.real, f * 3 == 0.30000000000000004


@case()
def scalar_bool_of_comparison(x):
    b = x.shape[0] == 3
    return b, np.bool_(b), x.ndim > 1, x + 1


@case()
def scalar_item_and_tolist(x):
    return x[0, 1].item(), x[0].tolist(), x.tolist()[1][2]


# -- reductions ------------------------------------------------------------------

@case(ort=True)
def red_axes_keepdims(x):
    return x.sum(axis=0), x.mean(axis=1, keepdims=True), x.max(axis=(0, 1)), x.min(-1), x.prod(0)


@case()
def red_dtype_argument(x):
    return x.sum(dtype=np.float64), np.mean(x, dtype=np.float64), I.sum(dtype=np.int32)


@case(I)
def red_int_mean_is_float64(i):
    return i.mean(), i.sum(), i.std(), i.var(axis=0), np.median(i)


@case(ort=True)
def red_std_var_ddof(x):
    return x.std(), x.var(ddof=1), np.std(x, axis=0)


@case()
def red_argmax_argmin(x):
    return x.argmax(), x.argmin(axis=0), np.argmax(x, axis=1), np.argsort(x[0]), np.sort(x, axis=0)


@case()
def red_cumsum_cumprod(x):
    return np.cumsum(x), x.cumsum(axis=1), np.cumprod(x[0]), np.diff(x, axis=1)


@case(B)
def red_any_all(b):
    return b.any(), b.all(axis=0), np.any(b, axis=1), np.count_nonzero(b)


@case()
def red_empty_raises(x):
    return x[:0].max()


@case()
def red_norm_and_dot(x):
    return np.linalg.norm(x), np.linalg.norm(x, axis=1), x @ x.T, np.dot(x, x.T), np.einsum("ij,ij->i", x, x)


# -- indexing --------------------------------------------------------------------

@case(ort=True)
def idx_basic(x):
    return x[0], x[-1, 1:], x[:, 0], x[1:2, ::-1], x[..., 2], x[None, :, 1], x[:, np.newaxis].shape


@case(ort=True)
def idx_fancy(x):
    return x[[0, 2]], x[:, [3, 0, 0]], x[[0, 1], [1, 2]], x[np.array([2, 0])]


@case()
def idx_bool_mask(x):
    return x[x > 0], x[B], x[:, [True, False, True, True]]


@case()
def idx_out_of_bounds_raises(x):
    return x[5]


@case()
def idx_view_identity_semantics(x):
    v = x[1:]
    return v.base is x, v.flags.c_contiguous, x.T.flags.f_contiguous


@case(ort=True)
def idx_setitem_on_copy(x):
    y = x.copy()
    y[0] = 1.0
    y[:, 1] += 5
    y[y < 0] = 0
    return y


@case()
def idx_setitem_argument(x):
    x[0, 0] = 100.0
    x[2] *= 2
    return x.sum()


@case()
def idx_setitem_broadcast_row(x):
    y = np.zeros((3, 4), np.float32)
    y[:] = x[0]
    y[1:, ::2] = 7
    return y


@case()
def idx_take_put(x):
    y = x.copy()
    np.put(y, [0, 5], [9, 8])
    return np.take(x, [1, 3], axis=1), y, np.take_along_axis(x, np.argsort(x, 1), 1)


@case()
def idx_with_python_scalar_from_shape(x):
    n = x.shape[0] - 1
    return x[n], x[n - 1 : n + 1]


@case()
def idx_negative_step_and_ellipsis(x):
    return x[::-1, ::-2], x[..., ::-1], x[1, ...]


@case()
def idx_integer_array_scalar_index(x):
    k = np.int64(2)
    return x[k], x[:, k], x[np.intp(1), k]


# -- broadcasting, shapes ----------------------------------------------------------

@case(ort=True)
def bc_row_and_column(x):
    return x + x[0], x * x[:, :1], x - x.mean(0), x / (x.std(1, keepdims=True) + 1)


@case()
def bc_mismatch_raises(x):
    return x + x[:2]


@case(ort=True)
def shape_ops(x):
    return (x.reshape(4, 3), x.reshape(-1), x.T, x.transpose(1, 0), x.ravel(), x.flatten(),
            np.expand_dims(x, 0), x[None].squeeze(0), np.swapaxes(x, 0, 1))


@case()
def shape_reshape_bad_raises(x):
    return x.reshape(5, -1)


@case(ort=True)
def shape_concat_stack(x):
    return np.concatenate([x, x], 0), np.stack([x, x], axis=-1), np.vstack([x, x[:1]]), np.hstack((x, x))


@case()
def shape_split(x):
    return np.split(x, 2, axis=1), np.array_split(x, 2), np.hsplit(x, [1, 3])


@case(ort=True)
def shape_tile_repeat(x):
    return np.tile(x, (2, 1)), np.repeat(x, 2, axis=0), np.broadcast_to(x[0], (2, 4))


@case()
def shape_pad_flip_roll(x):
    return np.pad(x, 1), np.flip(x, 0), np.roll(x, 1, axis=1), np.rot90(x), np.fliplr(x)


# -- creation ---------------------------------------------------------------------

@case(ort=True)
def create_like(x):
    return np.zeros_like(x), np.ones_like(x, dtype=np.int32), np.full_like(x, 7), np.empty_like(x).shape


@case()
def create_from_shape(x):
    n, m = x.shape
    return np.zeros((n, m)), np.ones(n, np.float32), np.full((2, m), 1.5), np.eye(n), np.arange(m)


@case()
def create_arange_linspace(x):
    return np.arange(0, 1, 0.25), np.arange(5, dtype=np.float32), np.linspace(0, 1, 5), np.arange(3) * x[0, :3]


@case()
def create_array_from_list(x):
    return np.array([1, 2, 3]), np.array([1.5, 2]), np.array([[1, 2]], dtype=np.float32), np.asarray(x) is x


@case()
def create_array_from_list_of_arrays(x):
    return np.array([x[0], x[1]]), np.array([x.sum(), 1.0])


@case()
def create_astype_copy(x):
    y = x.astype(np.float64)
    z = x.astype(np.float32)
    w = x.astype(np.float32, copy=False)
    return y, z is x, w is x, x.astype(np.int32), x.astype(bool)


@case()
def create_tri_meshgrid(x):
    a, b = np.meshgrid(np.arange(3), np.arange(2))
    return np.triu(x), np.tril(x, -1), a, b


# -- in-place and out= ---------------------------------------------------------------

@case(ort=True)
def inplace_on_local_copy(x):
    y = x.copy()
    y += 1
    y *= 2
    y -= x
    y /= 3
    return y


@case()
def inplace_on_argument(x):
    x += 1
    x *= x
    return x


@case(I)
def inplace_int_true_divide_raises(i):
    i /= 2
    return i


@case()
def inplace_alias_seen(x):
    y = x
    y += 1
    return x is y, x


@case()
def inplace_view_of_argument(x):
    v = x[1]
    v += 10
    return x


@case(ort=True)
def out_argument_fresh(x):
    out = np.empty_like(x)
    r = np.add(x, 1, out=out)
    return r is out, out


@case()
def out_argument_is_input(x):
    np.multiply(x, 2, out=x)
    np.exp(x, out=x)
    return x


@case()
def out_tuple_form(x):
    out = np.zeros_like(x)
    np.negative(x, out=(out,))
    return out


@case()
def out_where_argument(x):
    out = np.full_like(x, -1)
    np.sqrt(x, out=out, where=x > 0)
    return out


@case()
def inplace_float32_plus_float64_array_casts(x):
    y = x.copy()
    y += np.ones(4)
    return y


@case(I32)
def inplace_int32_plus_float_raises(i):
    i += 1.5
    return i


@case()
def inplace_fill_and_setitem_scalar(x):
    y = np.empty((2, 2), np.float32)
    y.fill(3)
    y[0, 1] = x[0, 0]
    return y


# -- misc ---------------------------------------------------------------------------

@case()
def np_where_one_arg(x):
    return np.where(x > 0), np.nonzero(x[0]), np.argwhere(x > 1)


@case()
def np_unique_sorting(x):
    return np.unique(np.round(x)), np.unique(I % 3, return_counts=True), np.searchsorted(np.arange(5), 2.5)


@case()
def np_dtype_attributes(x):
    return x.dtype.itemsize, x.dtype.kind, str(x.dtype), x.itemsize, x.nbytes, x.dtype == np.float32, x + 1


@case()
def np_result_type_and_finfo(x):
    return np.result_type(x, 1.0), np.finfo(x.dtype).eps, np.iinfo(np.int8).max, np.promote_types("i4", "f4"), x + 1


@case(ort=True)
def np_matmul_vector(x):
    return x @ V, V @ x.T, np.outer(V, V[:2]), np.inner(x, V)


@case(ort=True)
def np_logical_and_or(x):
    return np.logical_and(x > 0, x < 1), np.logical_or(x < -1, x > 1), (x > 0) & (x < 0.5)


@case(Y, ort=True)
def np_float64_math(y):
    return np.log1p(np.abs(y)), np.expm1(y), np.hypot(y, 1), np.degrees(y), np.cbrt(y)


@case()
def np_heaviside_copysign(x):
    return np.heaviside(x, 0.5), np.copysign(1.0, x), np.signbit(x), np.fmod(x, 0.3)


@case()
def np_array_methods(x):
    return x.clip(0, 1), x.round(2), x.conj(), x.copy(), x.squeeze(), x.swapaxes(0, 1), x.any(), x.trace()


@case()
def np_array_python_operators(x):
    return -x, +x, abs(x), x ** 0.5 if False else x ** 2, 1 / (x + 10), 2 ** x, x @ x.T


@case()
def np_len_and_iter_of_array(x):
    return len(x), [r.shape for r in x], list(x[0])[:2]


@case()
def np_apply_over_axes_like_loop(x):
    return np.stack([np.sum(r) for r in x.T])


@case()
def np_random_generator_seeded(x):
    rng = np.random.default_rng(0)
    return x + rng.standard_normal(x.shape).astype(np.float32)


@case()
def np_errstate_divide_raise(x):
    with np.errstate(divide="raise"):
        return np.float32(1) / (x - x)
