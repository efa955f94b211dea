"""Noise intervals and stability: coverage of the noiseless value, stability, plumbing."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dppca
from dppca.numerics.kendall import kendall_matrix
from dppca.numerics.linalg import descending_eigh
from dppca.releases.scree import row_shares
from dppca.results.uncertainty import direction_redraws, direction_stability, scree_redraws
from pair_reference import half_squared_differences

SCALES = np.array([3.0, 2.0, 1.5, 1.0, 0.7, 0.5])


def _data(n=3000, seed=0):
    return np.random.default_rng(seed).standard_normal((n, len(SCALES))) * SCALES


def _binomial_band(level, count):
    """Four binomial sd around the nominal level (the seeds are independent)."""
    return 4 * math.sqrt(level * (1 - level) / count)


def test_scree_intervals_cover_the_noiseless_row_clipped_means():
    """The noiseless value: the same pairs and clip level without noise. Before the antitonic fit
    the noise is additive Gaussian, so the percentile intervals are exact at 95 %."""
    X = _data()
    directions = np.eye(len(SCALES))
    hits = []
    for seed in range(200):
        result = dppca.dp_scree(
            X,
            5,
            1.0,
            1e-6,
            directions=directions,
            mono=False,
            random_state=seed,
            sampler="continuous",
        )
        details = result.settings["clipped"]
        W = half_squared_differences(X[:, :5], np.random.default_rng(seed))  # the call's first draw
        target = row_shares(W, details["clip"]).mean(axis=0) * details["clip"]
        redraws = scree_redraws(
            details["raw"], details["noise_sd"], False, 400, np.random.default_rng(seed + 999)
        )
        lower, upper = np.quantile(redraws, [0.025, 0.975], axis=0)
        hits.extend((lower <= target) & (target <= upper))
    assert abs(np.mean(hits) - 0.95) < _binomial_band(0.95, len(hits))


def test_loading_intervals_cover_the_noiseless_directions():
    """Against the eigenvectors of the noiseless Kendall matrix, over 60 releases (the entries
    of one release are correlated, so the band is wider than a binomial one)."""
    X = _data()
    noiseless = descending_eigh(kendall_matrix(X))[1]
    rates = []
    for seed in range(60):
        result = dppca.dp_pca(X, 3.0, 1e-6, random_state=seed, sampler="continuous")
        bands = result.uncertainty(draws=200, random_state=seed + 999).loadings
        signs = np.where(np.einsum("ij,ij->j", noiseless, result.directions) < 0, -1.0, 1.0)
        truth = (noiseless * signs)[:, : result.k].ravel()
        rates.append(np.mean((bands["lower"] <= truth) & (truth <= bands["upper"])))
    assert 0.9 <= np.mean(rates) <= 0.99


def test_stability_separates_clear_and_tied_components():
    """Eigenvalues 10, 5 and two equal ones: PC1-2 are stable, PC3 and PC4 swap half the time."""
    rng = np.random.default_rng(1)
    directions, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    redraws = direction_redraws(directions, np.array([10.0, 5.0, 1.0, 1.0]), 0.05, 400, rng)
    table = direction_stability(directions, redraws, 4)
    assert table.loc["PC1", "sin_theta"] < 0.05 and table.loc["PC1", "swap"] == 0
    assert table.loc["PC2", "swap"] == 0
    assert 0.3 < table.loc["PC3", "swap"] < 0.7 and table.loc["PC3", "sin_theta"] > 0.4


def test_result_uncertainty_is_reproducible_and_json_ready():
    X = _data(2000, seed=2)
    result = dppca.dp_pca(X, 4.0, 1e-6, random_state=0)
    first = result.uncertainty(draws=50, random_state=3)
    second = result.uncertainty(draws=50, random_state=3)
    assert first.scree.equals(second.scree) and first.loadings.equals(second.loadings)
    assert list(first.scree.index) == [f"PC{j + 1}" for j in range(result.k)]
    assert np.allclose(first.scree["value"], result.scree)
    assert np.allclose(first.pve["value"], result.pve)
    assert (first.scree["lower"] <= first.scree["upper"]).all()
    assert len(first.loadings) == len(SCALES) * result.k
    assert first.unstable() == [
        j + 1
        for j in range(result.k)
        if first.stability["sin_theta"].iloc[j] > 0.5 or first.stability["swap"].iloc[j] > 0.1
    ]
    json.dumps(first.to_dict())
    with pytest.raises(ValueError, match="draws must be at least 20"):
        result.uncertainty(draws=5)
    with pytest.raises(ValueError, match="level must be < 1"):
        result.uncertainty(level=1.0)
