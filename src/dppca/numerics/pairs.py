"""Random disjoint pairs of rows: the data-independent pairing of the pair-based estimators."""

from __future__ import annotations

import math
from typing import cast

import numpy as np


def random_pairs(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(first, second)`` of ``floor(n / 2)`` disjoint pairs of a random permutation of
    ``range(n)``: ``first = order[0::2]``, ``second = order[1::2]`` (an odd row out is unused).

    The pairing is drawn from ``rng`` and does not look at the data, so replacing one row changes
    at most one pair.

    Examples
    --------
    >>> first, second = random_pairs(5, np.random.default_rng(0))
    >>> len(first), len(second), len(set(first) | set(second))
    (2, 2, 4)
    """
    order = rng.permutation(n)
    half = n // 2
    return order[0 : 2 * half : 2], order[1 : 2 * half : 2]


def random_halves(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random split of ``range(n)`` into its first ``floor(n / 2)`` and the remaining
    indices of a random permutation (data-independent).

    Examples
    --------
    >>> first, rest = random_halves(5, np.random.default_rng(0))
    >>> len(first), len(rest), sorted(np.concatenate([first, rest]).tolist())
    (2, 3, [0, 1, 2, 3, 4])
    """
    order = rng.permutation(n)
    return order[: n // 2], order[n // 2 :]


def half_squared_gaps(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``(second - first)^2 / 2``, elementwise.

    Overflow gives the largest float, never NaN or inf (``inf - inf`` is a gap at least that
    large), so every pair contributes a finite value that a robust mean can bound.

    Examples
    --------
    >>> half_squared_gaps(np.array([1e308]), np.array([-1e308])).tolist()
    [1.7976931348623157e+308]
    """
    with np.errstate(over="ignore", invalid="ignore"):
        squares = (second - first) ** 2 / 2.0
    return cast("np.ndarray", np.nan_to_num(squares, nan=np.inf))


def half_distances(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``||first_i - second_i|| / sqrt(2)`` row by row.

    Each distance is computed from its own pair (halved first where the difference overflows,
    scaled by its largest entry); distances beyond the largest float become the largest float.

    Examples
    --------
    >>> half_distances(np.array([[3.0, 4.0]]), np.array([[0.0, 0.0]])).round(4).tolist()
    [3.5355]
    """
    first, second = np.asarray(first), np.asarray(second)
    with np.errstate(over="ignore", invalid="ignore"):
        diffs = first - second
    halved = ~np.isfinite(diffs).all(axis=1)
    diffs[halved] = first[halved] * 0.5 - second[halved] * 0.5
    largest = np.max(np.abs(diffs), axis=1, keepdims=True)
    with np.errstate(under="ignore"):
        unit = diffs / np.where(largest > 0, largest, 1.0)
    lengths = np.sqrt(np.einsum("ij,ij->i", unit, unit)) / math.sqrt(2.0)
    with np.errstate(over="ignore"):
        distances = largest[:, 0] * lengths * np.where(halved, 2.0, 1.0)
    return cast("np.ndarray", np.minimum(distances, np.finfo(np.float64).max))
