"""The demo's configuration on real data: accuracy goals, silence, and equivariance to units.

The demo: 1000 Genomes (Kidd panel, 2504 x 55), total epsilon 4, delta 1e-7, default split,
k = 10, default scree, histogram and bins, five declared superpopulations. Thresholds are the
goals the release must meet (the utility benchmark measures them over 200 seeds).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dppca
from dppca.datasets import load_1kg_aisnps
from dppca.exceptions import NoiseDominatedWarning, PrivacyWarning

LEVELS = ["AFR", "AMR", "EAS", "EUR", "SAS"]


@pytest.fixture(scope="module")
def kidd():
    genotypes, labels = load_1kg_aisnps("kidd")
    return genotypes.to_numpy(dtype=np.float64), labels["superpopulation"].to_numpy()


def _demo(X, groups, seed, **kwargs):
    return dppca.dp_pca(
        X,
        4.0,
        1e-7,
        groups=groups,
        random_state=seed,
        **kwargs,
        scree={"k": 10},
        score={"group_levels": LEVELS},
    )


def test_demo_meets_the_goals_over_50_seeds_and_stays_silent(kidd):
    X, groups = kidd
    pve_errors, distances = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in range(50):
            result = _demo(X, groups, seed, non_private=True)
            reference = result.non_private
            pve_errors.append(np.max(np.abs(result.pve[:5] - reference.pve[:5])))
            assert result.scree.max() <= 10 * reference.eigenvalues[0]
            private = result.histogram["prob"].to_numpy()
            distances.append(0.5 * np.abs(private - reference.histogram["prob"].to_numpy()).sum())
            assert all(table["prob"].sum() > 0 for table in result.groups.values())
            assert result.notes == ()
    noisy = [w for w in caught if issubclass(w.category, NoiseDominatedWarning | PrivacyWarning)]
    assert noisy == []
    assert np.median(pve_errors) <= 0.04 and np.max(pve_errors) <= 0.15
    assert np.median(distances) <= 0.25


@pytest.mark.parametrize("factor", [1e-3, 1e3])
def test_every_automatic_tuning_is_equivariant_to_the_units(kidd, factor):
    """Same seed, data multiplied by ``factor``: the same directions, the scree times factor^2,
    the frame and histogram cells times factor, the same probabilities (to 1e-9)."""
    X, groups = kidd
    base = _demo(X, groups, 7)
    scaled = _demo(X * factor, groups, 7)
    assert np.allclose(scaled.directions, base.directions, atol=1e-9)
    assert np.allclose(scaled.scree / factor**2, base.scree, rtol=1e-9)
    assert np.allclose(scaled.pve, base.pve, rtol=1e-9, atol=1e-12)
    assert scaled.frame.half_width / factor == pytest.approx(base.frame.half_width, rel=1e-9)
    assert np.allclose(
        scaled.frame.center / factor, base.frame.center, atol=1e-9 * base.frame.half_width
    )
    assert np.allclose(scaled.histogram["prob"], base.histogram["prob"], atol=1e-12)
    assert scaled.group_sizes == base.group_sizes


@pytest.mark.parametrize("factor", [1e-3, 1e3])
def test_the_automatic_winsorization_radius_is_equivariant(kidd, factor):
    X, _ = kidd
    settings = {"transform": "winsorized", "radius": "auto", "random_state": 3}
    base = dppca.dp_loading(X, 1.0, 1e-7, **settings)
    scaled = dppca.dp_loading(X * factor, 1.0, 1e-7, **settings)
    assert scaled.radius / factor == pytest.approx(base.radius, rel=1e-9)
    assert np.allclose(scaled.directions, base.directions, atol=1e-9)


def test_private_scaling_on_adult_spreads_the_first_direction_over_the_variables():
    """Unscaled, Adult's first robust direction is age alone (largest loading 0.98 in units of
    years); with private scales no variable exceeds 0.8 over three seeds, and the robust
    (Huber) scree then decreases, led by the three continuous variables. ``capital_loss``,
    zero in 95 % of rows, often has no reliable scale: then by default the call stops after
    the scales, and with consent it gets the others' geometric mean. (The incomplete design,
    32 pairs per row, keeps the test fast.)"""
    from dppca.datasets import load_adult

    X, _ = load_adult()
    stopped = 0
    for seed in range(3):
        settings = dict(scale="private", scree="huber", loading={"pairs": 32}, random_state=seed)
        flagged = False
        try:
            dppca.dp_pca(X, 4.0, 1e-7, **settings)
        except dppca.UnreliableScaleError as error:
            assert error.result.settings["unreliable"] == ["capital_loss"]
            flagged = True
        stopped += flagged
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoiseDominatedWarning)
            scaled = dppca.dp_pca(X, 4.0, 1e-7, on_weak="release", **settings)
        assert scaled.status["scales"].state == ("guessed" if flagged else "ok")
        assert np.abs(scaled.directions[:, 0]).max() < 0.8
        assert np.all(np.diff(scaled.scree) <= 0) and scaled.pve[:3].sum() > 0.9
        plain = dppca.dp_pca(X, 4.0, 1e-7, scree="huber", random_state=seed, loading={"pairs": 32})
        assert np.abs(plain.directions[:, 0]).max() > 0.95
    assert stopped >= 1
