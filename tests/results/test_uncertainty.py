"""Noise intervals and stability: coverage of the noiseless value, stability, plumbing."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dppca
from dppca import kendall_matrix
from dppca.numerics.linalg import descending_eigh
from dppca.numerics.monotone import antitonic, proportions
from dppca.releases.scree import row_shares
from dppca.results.uncertainty import (
    direction_redraws,
    direction_stability,
    identified,
    pve_bounds,
    scree_bounds,
    scree_redraws,
)
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


def _loading_coverage(X, epsilon, seeds, k=None):
    """The share of identified loadings whose interval holds the noiseless one (the eigenvector
    of the noiseless Kendall matrix), and how many components were identified."""
    noiseless = descending_eigh(kendall_matrix(X))[1]
    hits, count = [], 0
    for seed in range(seeds):
        result = dppca.dp_pca(
            X,
            epsilon,
            1e-6,
            random_state=seed,
            on_weak="release",
            scree={"k": k},
            noise={"sampler": "continuous"},
            score={"bins": 5},
        )
        bands = result.uncertainty(draws=200, random_state=seed + 999)
        signs = np.where(np.einsum("ij,ij->j", noiseless, result.directions) < 0, -1.0, 1.0)
        truth = (noiseless * signs)[:, : result.k]
        lower = bands.loadings["lower"].to_numpy().reshape(-1, result.k)
        upper = bands.loadings["upper"].to_numpy().reshape(-1, result.k)
        known = bands.stability["identified"].to_numpy()
        assert np.all(lower[:, ~known] == -1.0) and np.all(upper[:, ~known] == 1.0)
        hits.extend(((lower <= truth) & (truth <= upper))[:, known].ravel())
        count += int(known.sum())
    return float(np.mean(hits)), count


def test_loading_intervals_cover_the_noiseless_directions():
    """Against the eigenvectors of the noiseless Kendall matrix, over 60 releases (the entries
    of one release are correlated, so the band is wider than a binomial one)."""
    rate, count = _loading_coverage(_data(), 3.0, 60)
    assert 0.9 <= rate <= 0.99 and count >= 60 * 4


@pytest.mark.parametrize(
    ("name", "epsilon"), [("iris", 4.0), ("wine", 4.0), ("breast_cancer", 8.0), ("spikes", 8.0)]
)
def test_loading_intervals_cover_on_small_tables_and_equal_spikes(name, epsilon):
    """Small real tables and two pairs of equal eigenvalues, where the redraws' intervals of
    near-tied components covered at about 70 %: those are not identified (the whole range),
    and the identified ones cover at least 90 %."""
    from sklearn import datasets

    if name == "spikes":
        X = np.random.default_rng(0).standard_normal((3000, 6)) * [2.0, 2.0, 1.0, 1.0, 0.5, 0.5]
    else:
        X = getattr(datasets, f"load_{name}")().data
    rate, count = _loading_coverage(X, epsilon, 20, k=min(10, X.shape[1]))
    assert rate >= 0.9 and count >= 10


@pytest.mark.parametrize("scales", [[3.0, 1.0, 1.0, 1.0, 0.01, 0.01], [1.0] * 6])
def test_scree_and_pve_bounds_hold_the_fitted_noiseless_values_at_once(scales):
    """Tied and near-zero variances, where the fit's pooling moved the redraws' percentile
    intervals off the noiseless values: the bounds hold every fitted noiseless value (and each
    PVE) at once in at least 95 % of releases (four binomial sd of slack)."""
    X = np.random.default_rng(0).standard_normal((3000, 6)) * scales
    held, pve_held = [], []
    for seed in range(200):
        result = dppca.dp_scree(
            X, 6, 1.0, 1e-6, directions=np.eye(6), random_state=seed, sampler="continuous"
        )
        details = result.settings["clipped"]
        W = half_squared_differences(X, np.random.default_rng(seed))  # the call's first draw
        target = antitonic(row_shares(W, details["clip"]).mean(axis=0) * details["clip"])
        lower, upper = scree_bounds(details["raw"], details["noise_sd"], True, 0.95)
        held.append(np.all((lower <= target) & (target <= upper)))
        low, high = pve_bounds(lower, upper)
        share = proportions(target)
        pve_held.append(np.all((low <= share + 1e-12) & (share <= high + 1e-12)))
    assert np.mean(held) >= 0.95 - _binomial_band(0.95, 200)
    assert np.mean(pve_held) >= np.mean(held)  # the PVE bounds hold wherever the scree's do


def test_stability_separates_clear_and_tied_components():
    """Eigenvalues 10, 5 and two equal ones: PC1-2 are stable, PC3 and PC4 swap half the time."""
    rng = np.random.default_rng(1)
    directions, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    eigenvalues = np.array([10.0, 5.0, 1.0, 1.0])
    redraws, norms = direction_redraws(directions, eigenvalues, 0.05, 400, rng)
    table = direction_stability(
        directions, redraws, 4, identified(eigenvalues, float(np.quantile(norms, 0.95)))
    )
    assert table["identified"].tolist() == [True, True, False, False]
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
        if first.stability["sin_theta"].iloc[j] > 0.5
        or first.stability["swap"].iloc[j] > 0.1
        or not first.stability["identified"].iloc[j]
    ]
    json.dumps(first.to_dict())
    with pytest.raises(ValueError, match="draws must be at least 20"):
        result.uncertainty(draws=5)
    with pytest.raises(ValueError, match="level must be < 1"):
        result.uncertainty(level=1.0)
