"""Values of pairs of rows (the pairing itself is a keyed permutation's,
:meth:`dppca.numerics.permutation.KeyedPermutation.pairs`)."""

from __future__ import annotations

import math
from typing import cast

import numpy as np


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
