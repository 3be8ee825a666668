"""A physics stencil: heat diffusion on a 2-D plate (explicit finite differences).

    python examples/heat_stencil.py [--small]

``step`` advances the temperature field by ``substeps`` time steps of the
5-point Laplacian stencil, written with slices as one would in NumPy. The
Python loop over ``range(substeps)`` is unrolled while tracing (the count
is a Python int, guarded), so one graph does all of them; the NumPy
backend reuses buffers for the intermediates between calls, and
onnxruntime fuses the element-wise work.
"""
import numpy as np

import sot
from _common import compare, small


def step(u, alpha, substeps=4):
    """``substeps`` explicit Euler steps of du/dt = alpha * laplacian(u),
    with the boundary held fixed (Dirichlet)."""
    for _ in range(substeps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        inner = u[1:-1, 1:-1] + alpha * lap
        u = np.concatenate([u[:1], np.concatenate([u[1:-1, :1], inner, u[1:-1, -1:]], axis=1), u[-1:]], axis=0)
    return u


def main():
    n = 128 if small() else 2048
    u = np.zeros((n, n), np.float32)
    u[n // 4: n // 2, n // 4: n // 2] = 100.0          # a hot square
    u[0, :] = 50.0                                     # a warm edge
    alpha = np.float32(0.2)                            # stable for alpha <= 0.25
    compare(f"heat stencil {n}x{n}, 4 steps per call", step, (u, alpha))

    static_step = sot.to_static(step)
    for _ in range(20 if small() else 100):
        u = static_step(u, alpha)
    print(f"after {20 if small() else 100} calls: mean temperature {float(u.mean()):.3f}, "
          f"max {float(u.max()):.3f}")


if __name__ == "__main__":
    main()
