"""Durfee's (2023) unbounded differentially private quantiles.

The one-sided search (a public lower bound, no upper bound) is AboveThreshold on the monotone,
sensitivity-1 counts ``c_i = #{x_j < t_i}`` over the geometric grid
``t_i = lower + beta^i - 1``, ``i = 1, ..., max_steps``: with a noisy target
``T = q n + Exp(rate epsilon/2)`` it returns the first ``t_i`` with
``c_i + Exp(rate epsilon/2) >= T`` (Durfee 2023, Algorithm 3; noise in count units, strict counts
and the ``>=`` stop rule as in the R package ``dppca``). Under replacement of one value every count
moves by at most 1 and all in the same direction, so one-sided exponential noise of rate
``epsilon/2`` on the target and on each query gives pure epsilon-DP.
"""

from __future__ import annotations

import warnings

import numpy as np

from dppca._validation import check_epsilon, check_positive_int, check_real
from dppca.exceptions import DurfeeStepLimitWarning

DEFAULT_BETA = 1.01
DEFAULT_MAX_STEPS = 5000


def _grid(lower: float, beta: float, max_steps: int) -> np.ndarray:
    """``lower + beta^i - 1``, ``i = 1..max_steps``; non-finite points become the largest float."""
    with np.errstate(over="ignore"):
        steps = np.expm1(np.arange(1, max_steps + 1) * np.log(beta))
        grid = lower + steps
    grid[~np.isfinite(grid)] = np.finfo(np.float64).max
    return grid


def durfee_upper_quantile(
    x: np.ndarray,
    q: float,
    epsilon: float,
    rng: np.random.Generator,
    *,
    lower: float = 0.0,
    beta: float = DEFAULT_BETA,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> float:
    """One-sided Durfee quantile of ``x`` at level ``q``: pure epsilon-DP.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Finite values, all ``>= lower``.
    q : float
        Level in (0, 1).
    epsilon : float
        Privacy budget (> 0), split evenly between the target and the queries.
    rng : numpy.random.Generator
    lower : float, default 0
        A public lower bound on ``x``.
    beta : float, default 1.01
        Grid ratio (> 1): the relative resolution of the answer is about ``beta - 1``.
    max_steps : int, default 5000
        Grid length; the largest reachable value is ``lower + beta^max_steps - 1``.

    Returns
    -------
    float
        The selected grid point. Counting is O(log n) per grid point (one sort).

    Warns
    -----
    DurfeeStepLimitWarning
        When no grid point was selected; the last grid point is returned.
    """
    values = np.asarray(x, dtype=np.float64)
    if values.ndim != 1 or values.size == 0 or not np.isfinite(values).all():
        raise ValueError("x must be a non-empty 1-D array of finite values.")
    q = check_real(q, "q", low=0.0, high=1.0)
    epsilon = check_epsilon(epsilon)
    lower = check_real(lower, "lower")
    beta = check_real(beta, "beta", low=1.0)
    max_steps = check_positive_int(max_steps, "max_steps")
    if values.min() < lower:
        raise ValueError("x must lie at or above the public lower bound `lower`.")

    grid = _grid(lower, beta, max_steps)
    counts = np.searchsorted(np.sort(values), grid, side="left")
    scale = 2.0 / epsilon
    target = q * values.size + rng.exponential(scale)
    noisy = counts + rng.exponential(scale, size=max_steps)
    hits = np.flatnonzero(noisy >= target)
    if hits.size == 0:
        warnings.warn(
            f"Durfee quantile search reached max_steps={max_steps} without stopping; returning "
            "the last grid point. Increase max_steps or beta.",
            DurfeeStepLimitWarning,
            stacklevel=2,
        )
        return float(grid[-1])
    return float(grid[hits[0]])
