"""k-means clustering, one traced step per iteration.

    python examples/kmeans.py [--small]

``step`` assigns every point to its nearest centroid and moves each
centroid to the mean of its points: distances, argmin, a one-hot matrix
and two matmuls, all captured into one graph. The convergence test
(``shift < tol``) needs a Python bool from array data, so it stays in the
plain Python loop around the traced step, where it costs nothing.
"""
import numpy as np

import sot
from _common import compare, small


def step(points, centroids):
    """One k-means iteration: (new centroids, how far they moved)."""
    # squared distances |p - c|^2 = |p|^2 - 2 p.c + |c|^2, shape (n, k)
    d = (points * points).sum(1, keepdims=True) - 2 * points @ centroids.T + (centroids * centroids).sum(1)
    labels = d.argmin(1)
    onehot = (labels[:, None] == np.arange(centroids.shape[0])).astype(points.dtype)
    counts = onehot.sum(0)
    sums = onehot.T @ points
    # an empty cluster keeps its centroid
    new = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], centroids)
    shift = np.sqrt(((new - centroids) ** 2).sum(1)).max()
    return new, shift


def kmeans(points, k, step_fn, iterations=100, tol=1e-4, seed=0):
    rng = np.random.default_rng(seed)
    centroids = points[rng.choice(len(points), k, replace=False)]
    for i in range(iterations):
        centroids, shift = step_fn(points, centroids)
        if shift < tol:
            break
    return centroids, i + 1


def main():
    n, k, dim = (2_000, 8, 16) if small() else (200_000, 32, 32)
    rng = np.random.default_rng(1)
    true_centres = rng.standard_normal((k, dim)).astype(np.float32) * 5
    points = (true_centres[rng.integers(0, k, n)] + rng.standard_normal((n, dim))).astype(np.float32)
    init = points[:k].copy()

    def step_centroids(points, centroids):      # compare() checks one array
        return step(points, centroids)[0]
    compare(f"k-means step, {n} points, k={k}, {dim} dims", step_centroids, (points, init))

    static_step = sot.to_static(step)
    centroids, iterations = kmeans(points, k, static_step)
    eager_centroids, eager_iterations = kmeans(points, k, step)
    assert iterations == eager_iterations and np.array_equal(centroids, eager_centroids)
    print(f"k-means converged in {iterations} iterations (the same, bitwise, as eager NumPy)")


if __name__ == "__main__":
    main()
