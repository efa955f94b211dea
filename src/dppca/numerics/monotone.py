"""Order-constrained fits and shares (no privacy): the post-processing of released variances."""

from __future__ import annotations

import math
from typing import cast

import numpy as np


def antitonic(values: np.ndarray) -> np.ndarray:
    """The non-negative, non-increasing least-squares fit to ``values`` (post-processing).

    Pool adjacent violators (Barlow et al. 1972) on ``max(values, 0)``: each value joins the
    block before it while that block's mean is smaller, blocks keep their means.

    Examples
    --------
    >>> antitonic(np.array([3.0, 5.0, 1.0, 2.0, -1.0])).tolist()
    [4.0, 4.0, 1.5, 1.5, 0.0]
    """
    means: list[float] = []
    sizes: list[int] = []
    for value in np.maximum(np.asarray(values, dtype=np.float64), 0.0):
        mean, size = float(value), 1
        while means and means[-1] < mean:
            mean = (means[-1] * sizes[-1] + mean * size) / (sizes[-1] + size)
            size += sizes.pop()
            means.pop()
        means.append(mean)
        sizes.append(size)
    return np.repeat(np.array(means), sizes)


def proportions(values: np.ndarray) -> np.ndarray:
    """``values / sum(values)``; NaN where a value is NaN (a release marked unusable), zeros
    when the sum is not positive and finite.

    Examples
    --------
    >>> proportions(np.array([3.0, 1.0])).tolist()
    [0.75, 0.25]
    """
    with np.errstate(over="ignore"):  # an overflowing sum is not finite: zeros
        total = float(np.sum(values))
    if math.isnan(total):
        return np.full_like(values, np.nan)
    if not (total > 0 and math.isfinite(total)):
        return np.zeros_like(values)
    return values / total


def components_for(ratios: np.ndarray, fraction: float) -> int:
    """The fewest leading components whose private proportions of variance add up to
    ``fraction`` (all of them when they never do, or when the proportions are NaN: a scree
    marked unusable).

    Examples
    --------
    >>> components_for(np.array([0.6, 0.3, 0.1]), 0.85)
    2
    >>> components_for(np.array([np.nan, np.nan]), 0.5)
    2
    """
    reached = np.flatnonzero(np.cumsum(ratios) >= fraction)
    return int(reached[0]) + 1 if reached.size else len(ratios)


def largest_remainder(sizes: np.ndarray, total: int) -> np.ndarray:
    """Split the integer ``total`` in proportion to non-negative ``sizes`` with a positive sum:
    floors of the quotas, then one more to the largest remainders (ties to the earlier part).

    Examples
    --------
    >>> largest_remainder(np.array([5.0, 3.0, 2.0]), 7).tolist()
    [4, 2, 1]
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    quotas = total * sizes / sizes.sum()
    shares = np.floor(quotas).astype(np.int64)
    remainders = quotas - shares
    order = np.argsort(-remainders, kind="stable")
    shares[order[: total - int(shares.sum())]] += 1
    return cast("np.ndarray", shares)
