"""Shared checks of the exact integer samplers: a keyed secure source and a chi-square test of
integer draws against unnormalised weights."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import stats

from dppca.privacy.discrete import SecureBits


def secure_source(seed: int = 0) -> SecureBits:
    """A secure stream keyed from a seeded generator."""
    return SecureBits(np.random.default_rng(seed).bytes(32))


def chi_square(samples, weight: Callable[[int], float], bound: int) -> float:
    """Chi-square p-value of integer ``samples`` against ``weight`` (unnormalised) on
    ``[-bound, bound]``, cells expecting fewer than 5 draws and everything outside pooled into one
    cell whose mass comes from a sum over ``[-30 bound, 30 bound]``."""
    samples = np.asarray(samples)
    support = np.arange(-30 * bound, 30 * bound + 1)
    weights = np.array([weight(int(y)) for y in support])
    probabilities = weights / weights.sum()
    inside = np.abs(support) <= bound
    expected = np.r_[probabilities[inside], probabilities[~inside].sum()] * len(samples)
    observed = np.r_[
        [np.sum(samples == y) for y in support[inside]], np.sum(np.abs(samples) > bound)
    ]
    keep = expected >= 5
    observed = np.r_[observed[keep], observed[~keep].sum()]
    expected = np.r_[expected[keep], expected[~keep].sum()]
    if expected[-1] == 0:
        assert observed[-1] == 0
        observed, expected = observed[:-1], expected[:-1]
    return float(stats.chisquare(observed, expected).pvalue)
