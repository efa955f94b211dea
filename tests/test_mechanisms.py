"""The symmetric Gaussian noise matrix of the vecd mechanism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dppca.privacy.mechanisms import symmetric_gaussian_noise

DRAWS = 20000
P = 4
SIGMA = 0.3


@pytest.fixture(scope="module")
def noise_draws():
    rng = np.random.default_rng(42)
    return np.stack([symmetric_gaussian_noise(P, SIGMA, rng) for _ in range(DRAWS)])


def test_variances(noise_draws):
    """Diagonal variance sigma^2, off-diagonal sigma^2 / 2.

    A sample variance of m normal draws has relative standard deviation sqrt(2 / m) (0.01 here);
    the tolerance is five of those.
    """
    variance = noise_draws.var(axis=0)
    expected = np.full((P, P), SIGMA**2 / 2)
    np.fill_diagonal(expected, SIGMA**2)
    tolerance = 5 * math.sqrt(2 / DRAWS)
    assert np.all(np.abs(variance / expected - 1) < tolerance)
    assert np.all(np.abs(noise_draws.mean(axis=0)) < 5 * np.sqrt(expected / DRAWS))


def test_entries_uncorrelated(noise_draws):
    """Distinct upper-triangle entries are independent: |correlation| < 5 / sqrt(m)."""
    rows, cols = np.triu_indices(P)
    entries = noise_draws[:, rows, cols]
    correlation = np.corrcoef(entries, rowvar=False)
    off = correlation[~np.eye(len(rows), dtype=bool)]
    assert np.all(np.abs(off) < 5 / math.sqrt(DRAWS))


def test_frobenius_norm_is_the_vecd_norm(noise_draws):
    """E[||E||_F^2] = sigma^2 p (p + 1) / 2, the squared norm of the vecd noise vector."""
    squared = np.einsum("kij,kij->k", noise_draws, noise_draws)
    dimension = P * (P + 1) / 2
    # ||E||_F^2 / sigma^2 is chi-square with p(p+1)/2 degrees of freedom: sd sqrt(2 dim).
    tolerance = 5 * math.sqrt(2 * dimension / DRAWS)
    assert abs(squared.mean() / SIGMA**2 - dimension) < tolerance


def test_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="sigma must be >= 0"):
        symmetric_gaussian_noise(3, -1.0, rng)
    with pytest.raises(ValueError, match="p must be an integer >= 1"):
        symmetric_gaussian_noise(0, 1.0, rng)
