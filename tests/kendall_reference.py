"""A direct O(n^2 d^2) Kendall kernel: the independent reference for the fast kernel's tests.

It loops over pairs, forms each normalised difference explicitly (scaled by its largest entry
first, so that no square overflows or underflows) and adds ``h(||z||)^2 u u^T``.
"""

from __future__ import annotations

import numpy as np

from dppca.numerics.permutation import random_permutation


def spherical_h2(norms: np.ndarray) -> np.ndarray:
    return np.ones_like(norms)


def winsorized_h2(radius: float):
    return lambda norms: np.minimum(norms, radius) ** 2


def pair_outer_sum(X: np.ndarray, rows, cols, h2=spherical_h2) -> np.ndarray:
    """``sum h(||z||)^2 u u^T`` over the listed pairs, one pair at a time."""
    p = X.shape[1]
    total = np.zeros((p, p))
    for i, j in zip(rows, cols, strict=True):
        diff = X[i] - X[j]
        largest = np.max(np.abs(diff))
        if largest == 0:
            continue
        scaled = diff / largest
        length = np.sqrt(scaled @ scaled)
        unit = scaled / length
        norm = largest * length / np.sqrt(2.0)
        total += h2(np.array([norm]))[0] * np.outer(unit, unit)
    return total


def direct_kendall(X: np.ndarray, h2=spherical_h2) -> np.ndarray:
    """``(2 / (n(n-1))) sum_{i<j} h(||z_ij||)^2 u_ij u_ij^T`` by explicit pairs."""
    n = X.shape[0]
    rows, cols = np.triu_indices(n, k=1)
    return pair_outer_sum(X, rows, cols, h2) / (n * (n - 1) / 2)


def circulant_pairs(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of the circulant k-regular design on the keyed permutation of
    ``default_rng(seed)``."""
    order = random_permutation(n, np.random.default_rng(seed)).order()
    rows = np.concatenate([order for _ in range(k // 2)])
    cols = np.concatenate([np.roll(order, -t) for t in range(1, k // 2 + 1)])
    return rows, cols
